"""`python -m envroll_engine.learner`: the trainer of envroll's CPU learning run (`npm run learn`).

A long-lived process holding the policy, its Adam state and the weights of every recent
version. The driver sends one JSON line per step on stdin,
`{"samples": PATH, "version": V, "engine": URL}`; the learner

0. pauses generation on the engine (`/pause_generation`, `--pause-mode`) for the whole step, as
   a colocated trainer does: episodes in flight stop where they are and are not dropped;

1. checks every sample as train_check does and teacher-forces each loss-masked token with the
   weights of the version that sampled it (`metadata.envroll.version_spans`, from the trace):
   the step's `logprob_max_abs_diff`, which must stay < 1e-4;
2. takes one PPO-clip Adam step with Miles' GRPO advantages (behaviour logprobs = the
   rollout's, so a stale turn's ratio is the importance weight of the current policy);
3. saves the weights, `/update_weights_from_disk {model_path, weight_version: V}`, then
   `/continue_generation` (also when the step failed). In `abort` mode the turn that was being
   generated came back aborted and the rollout side sent it again: it waited at the gate, like
   every request queued meanwhile, and runs on version V. `retract` resumes it on V from its
   prefix (the engine reports the version spans of such a turn).

It answers one JSON line per step on stdout. Diagnostics go to stderr.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path

import torch

from .grpo import ppo_clip_loss
from .model import load
from .samples import check_samples, read_groups
from .scoring import token_logprobs
from .train_check import LOGPROB_TOL, http_json

KEEP_FOLDERS = 2  # the folder the engine serves and the one being written


def parse_args(argv=None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m envroll_engine.learner", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--tiny", action="store_true")
    src.add_argument("--tiny-from", metavar="DIR")
    src.add_argument("--model", metavar="DIR")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--tokenizer", metavar="DIR")
    ap.add_argument("--work", metavar="DIR", required=True, help="where each version's weights are saved")
    ap.add_argument("--version", default="0", help="the version the engine serves now (the initial weights)")
    ap.add_argument("--temperature", type=float, default=1.0)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--eps-clip", type=float, default=0.2)
    ap.add_argument("--pause-mode", default="abort", choices=["abort", "retract", "in_place"])
    ap.add_argument("--keep-versions", type=int, default=4, help="older versions' weights kept for checking")
    ap.add_argument("--threads", type=int, default=1)
    return ap.parse_args(argv)


def spans_of(sample: dict, response_length: int, default: str) -> list[tuple[int, int, str]]:
    """[(start, end, version)] over response positions; a sample without spans is one version."""
    env = (sample.get("metadata") or {}).get("envroll") or {}
    spans = env.get("version_spans")
    if not spans:
        versions = sample.get("weight_versions") or [default]
        if len(versions) > 1:
            raise ValueError(f"sample {sample.get('index')} has versions {versions} but no version_spans")
        return [(0, response_length, str(versions[0]))]
    return [(int(a), int(b), str(v)) for a, b, v in spans]


class Learner:
    def __init__(self, args):
        self.args = args
        loaded = load(model_dir=args.model, tiny=args.tiny, seed=args.seed, tokenizer_dir=args.tokenizer,
                      tiny_from=args.tiny_from)
        self.model = loaded.model
        # A second instance the snapshots are loaded into for teacher forcing older versions.
        self.scorer = load(model_dir=args.model, tiny=args.tiny, seed=args.seed, tokenizer_dir=args.tokenizer,
                           tiny_from=args.tiny_from).model
        self.opt = torch.optim.Adam(self.model.parameters(), lr=args.lr)
        self.version = args.version
        self.snapshots: dict[str, dict] = {self.version: self._snapshot()}
        self.work = Path(args.work)
        self.work.mkdir(parents=True, exist_ok=True)
        self.saved: list[Path] = []

    def _snapshot(self) -> dict:
        return {k: v.detach().clone() for k, v in self.model.state_dict().items()}

    def step(self, samples_path: str, new_version: str, engine: str) -> dict:
        base = engine.rstrip("/")
        http_json(f"{base}/pause_generation", {"mode": self.args.pause_mode})
        try:
            return self._step(samples_path, new_version, base)
        finally:
            http_json(f"{base}/continue_generation", {})

    def _step(self, samples_path: str, new_version: str, base: str) -> dict:
        t0 = time.monotonic()
        groups = read_groups(samples_path)
        checked, errors = check_samples(groups, None)
        if errors:  # never train on, or push weights from, samples that failed a check
            return {"ok": False, "errors": errors}
        # Without errors check_samples keeps every sample, in order: pair each with its dict
        # (the version spans live in its metadata).
        pairs = list(zip(checked, [s for g in groups for s in g], strict=True))
        if not pairs:
            return {"ok": False, "errors": ["no samples"]}
        T = self.args.temperature
        diffs: list[torch.Tensor] = []
        by_version: dict[str, int] = {}
        wanted = {v for c, s in pairs for _, _, v in spans_of(s, c.response_length, self.version)}
        missing = sorted(wanted - set(self.snapshots))
        if missing:
            return {"ok": False, "errors": [f"no weights kept for version(s) {missing} (raise --keep-versions)"]}
        # Older versions: one state load each, then every sample with tokens of that version.
        for v in sorted(wanted - {self.version}):
            self.scorer.load_state_dict(self.snapshots[v])
            for c, s in pairs:
                d = self._compare(self.scorer, c, s, v, None)
                if d is not None:
                    diffs.append(d), by_version.__setitem__(v, by_version.get(v, 0) + d.numel())
        new_lps, old_lps, advs, masks = [], [], [], []
        self.model.train()
        for c, s in pairs:
            start = len(c.tokens) - c.response_length
            lp = token_logprobs(self.model, c.tokens, start, temperature=T, grad=True)
            d = self._compare(None, c, s, self.version, lp.detach())
            if d is not None:
                diffs.append(d), by_version.__setitem__(self.version, by_version.get(self.version, 0) + d.numel())
            new_lps.append(lp)
            old_lps.append(torch.tensor(c.rollout_log_probs, dtype=torch.float32))
            masks.append(torch.tensor(c.train_mask, dtype=torch.bool))
            advs.append(torch.full((c.response_length,), c.advantage))
        all_d = torch.cat(diffs) if diffs else torch.zeros(0)
        max_diff = float(all_d.max()) if all_d.numel() else float("nan")
        if not max_diff < LOGPROB_TOL:
            return {"ok": False, "errors": [f"logprob_max_abs_diff {max_diff:.3e} (tolerance {LOGPROB_TOL})"],
                    "logprob_max_abs_diff": max_diff}
        loss = ppo_clip_loss(torch.cat(new_lps), torch.cat(old_lps), torch.cat(advs), torch.cat(masks),
                             eps_clip=self.args.eps_clip)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        self.model.eval()
        train_s = time.monotonic() - t0
        self._push(new_version, base)
        return {
            "ok": True,
            "weight_version": new_version,
            "logprob_max_abs_diff": max_diff,
            "masked_tokens": int(all_d.numel()),
            "compared_by_version": by_version,
            "trained_tokens": int(torch.cat(masks).sum()),
            "loss": float(loss.detach()),
            "train_s": round(train_s, 3),
            "update_s": round(time.monotonic() - t0 - train_s, 3),
        }

    def _compare(self, model, c, s: dict, version: str, lp: torch.Tensor | None) -> torch.Tensor | None:
        """|teacher-forced − rollout| on the loss-masked tokens `version` sampled."""
        spans = [(a, b) for a, b, v in spans_of(s, c.response_length, self.version) if v == version]
        if not spans:
            return None
        if lp is None:
            start = len(c.tokens) - c.response_length
            lp = token_logprobs(model, c.tokens, start, temperature=self.args.temperature)
        sel = torch.zeros(c.response_length, dtype=torch.bool)
        for a, b in spans:
            sel[a:b] = True
        sel &= torch.tensor(c.loss_mask, dtype=torch.bool)
        old = torch.tensor(c.rollout_log_probs, dtype=torch.float64)
        return (lp.double() - old).abs()[sel]

    def _push(self, new_version: str, base: str) -> None:
        out = self.work / f"weights-v{new_version}"
        self.model.save_pretrained(str(out))
        resp = http_json(f"{base}/update_weights_from_disk",
                         {"model_path": str(out.resolve()), "weight_version": new_version})
        if not resp.get("success"):
            raise RuntimeError(f"update_weights_from_disk: {resp.get('message')}")
        now = str(http_json(f"{base}/get_weight_version")["weight_version"])
        if now != new_version:
            raise RuntimeError(f"engine serves version {now!r} after asking for {new_version!r}")
        self.version = new_version
        self.snapshots[new_version] = self._snapshot()
        for old in list(self.snapshots)[: -self.args.keep_versions]:
            del self.snapshots[old]
        self.saved.append(out)
        for old in self.saved[:-KEEP_FOLDERS]:
            shutil.rmtree(old, ignore_errors=True)
        self.saved = self.saved[-KEEP_FOLDERS:]


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    learner = Learner(args)
    print(json.dumps({"ready": True, "version": learner.version}), flush=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            cmd = json.loads(line)
            out = learner.step(cmd["samples"], str(cmd["version"]), cmd["engine"])
        except (OSError, ValueError, RuntimeError, KeyError) as e:
            out = {"ok": False, "errors": [f"{type(e).__name__}: {e}"]}
        print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
