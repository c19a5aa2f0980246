"""`python -m envroll_engine.train_check`: the Python half of envroll's end-to-end check.

Given Miles-style sample groups produced by envroll rollouts against an envroll_engine server,
it (1) checks the Sample alignment invariants, (2) re-scores every sample by teacher forcing
with the same weights and compares against `rollout_log_probs` on loss-masked tokens,
(3) takes one GRPO/PPO-clip Adam step, saves the weights, and hot-reloads them into the
engine via /update_weights_from_disk, checking that weight_version moved and that the engine
now scores with exactly the trained weights.

Exit status: 0 pass, 1 a check failed, 2 bad usage / unreadable input. stdout carries exactly
one line (see README); diagnostics go to stderr.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import urllib.error
import urllib.request
from pathlib import Path

import torch

from .engine import bump_version
from .grpo import ppo_clip_loss
from .model import load, save
from .samples import Checked, check_samples, read_groups
from .scoring import token_logprobs

LOGPROB_TOL = 1e-4


def parse_args(argv=None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        prog="python -m envroll_engine.train_check",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument(
        "--samples", required=True, help="JSON list of groups of Miles Sample dicts, or a flat JSON/JSONL of samples"
    )
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--tiny", action="store_true", help="the seeded tiny Qwen3 (same as the engine's --tiny)")
    src.add_argument(
        "--tiny-from", metavar="DIR", help="the seeded model of DIR/config.json (as the engine's --tiny-from)"
    )
    src.add_argument("--model", metavar="DIR", help="checkpoint folder the engine is serving")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--tokenizer", metavar="DIR")
    ap.add_argument("--engine", metavar="URL", help="engine base URL; without it the weight update is skipped")
    ap.add_argument("--out-model", metavar="DIR", required=True, help="where to save_pretrained the updated weights")
    ap.add_argument("--temperature", type=float, default=1.0, help="rollout temperature (1.0 for greedy rollouts)")
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--eps-clip", type=float, default=0.2)
    ap.add_argument("--eps-clip-high", type=float, default=None, help="upper clip (default: --eps-clip)")
    ap.add_argument("--reward-key", default=None, help="key into dict-valued rewards")
    ap.add_argument("--weight-version", default=None, help="version to send (default: current one bumped)")
    ap.add_argument("--threads", type=int, default=1, help="torch intra-op threads (0 = torch default)")
    ap.add_argument(
        "--no-verify-reload", action="store_true", help="skip re-scoring one sample through the engine after the reload"
    )
    return ap.parse_args(argv)


# ---- engine HTTP -----------------------------------------------------------------------------------
def http_json(url: str, payload: dict | None = None, timeout: float = 300.0) -> dict:
    data = None if payload is None else json.dumps(payload).encode()
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return json.loads(r.read() or b"{}")
    except urllib.error.HTTPError as e:
        raise RuntimeError(f"{url}: HTTP {e.code}: {e.read()[:500]!r}") from None


def update_engine(engine: str, out_model: Path, requested: str | None) -> tuple[str, list[str]]:
    base = engine.rstrip("/")
    old = str(http_json(f"{base}/get_model_info")["weight_version"])
    # Send an explicit version: real SGLang only changes weight_version when one is given.
    want = requested or bump_version(old)
    resp = http_json(
        f"{base}/update_weights_from_disk", {"model_path": str(out_model.resolve()), "weight_version": want}
    )
    now = str(http_json(f"{base}/get_model_info")["weight_version"])
    errs = []
    if not resp.get("success", False):
        errs.append(f"update_weights_from_disk failed: {resp.get('message')}")
    if now == old or now != want:
        errs.append(f"weight_version did not move as asked: was {old!r}, asked {want!r}, now {now!r}")
    return now, errs


def verify_reload(engine: str, model, s: Checked, temperature: float) -> float:
    """Max |engine input_token_logprobs - local teacher forcing| over one sample's response,
    after the reload: proves the engine serves exactly the weights this step produced."""
    start = len(s.tokens) - s.response_length
    # One position early: SGLang's entry at logprob_start_len is None (as Miles' prefill recompute).
    body = {
        "input_ids": s.tokens,
        "return_logprob": True,
        "logprob_start_len": start - 1,
        "sampling_params": {"max_new_tokens": 0, "temperature": temperature},
    }
    meta = http_json(f"{engine.rstrip('/')}/generate", body)["meta_info"]
    remote = torch.tensor([x[0] for x in meta["input_token_logprobs"][1:]], dtype=torch.float64)
    local = token_logprobs(model, s.tokens, start, temperature=temperature).double()
    before = torch.tensor(s.rollout_log_probs, dtype=torch.float64)
    m = torch.tensor(s.loss_mask, dtype=torch.bool)
    if m.any():  # how far one step moved the policy on this sample (diagnostic only)
        print(f"policy_shift_max_abs={float((remote - before).abs()[m].max()):.3e}", file=sys.stderr)
    return float((remote - local).abs().max())


# ---- main --------------------------------------------------------------------------------------------
def run(args) -> tuple[dict, list[str]]:
    groups = read_groups(args.samples)
    checked, errors = check_samples(groups, args.reward_key)
    stats = {
        "samples": sum(len(g) for g in groups),
        "masked_tokens": 0,
        "max": float("nan"),
        "mean": float("nan"),
        "loss": float("nan"),
        "weight_version": "none",
    }
    if not checked:
        return stats, errors + ["no usable samples"]
    loaded = load(
        model_dir=args.model, tiny=args.tiny, seed=args.seed, tokenizer_dir=args.tokenizer, tiny_from=args.tiny_from
    )
    model = loaded.model
    new_lps, old_lps, advs, masks, diffs = [], [], [], [], []
    for s in checked:
        start = len(s.tokens) - s.response_length
        if s.response_length == 0:
            continue
        lp = token_logprobs(model, s.tokens, start, temperature=args.temperature, grad=True)
        old = torch.tensor(s.rollout_log_probs, dtype=torch.float32)
        m = torch.tensor(s.loss_mask, dtype=torch.bool)
        d = (lp.detach().double() - torch.tensor(s.rollout_log_probs, dtype=torch.float64)).abs()[m]
        if d.numel() and float(d.max()) >= LOGPROB_TOL:
            worst = int(torch.nonzero(m)[int(d.argmax())])
            errors.append(
                f"{s.where}: logprob diff {float(d.max()):.3e} at response position {worst} "
                f"(token {s.tokens[start + worst]})"
            )
        new_lps.append(lp), old_lps.append(old), diffs.append(d)
        masks.append(torch.tensor(s.train_mask, dtype=torch.bool))
        advs.append(torch.full_like(old, s.advantage))
    all_d = torch.cat(diffs) if diffs else torch.zeros(0)
    stats["masked_tokens"] = int(all_d.numel())
    if all_d.numel() == 0:
        return stats, errors + ["no loss-masked tokens to compare"]
    stats["max"], stats["mean"] = float(all_d.max()), float(all_d.mean())

    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    loss = ppo_clip_loss(
        torch.cat(new_lps),
        torch.cat(old_lps),
        torch.cat(advs),
        torch.cat(masks),
        eps_clip=args.eps_clip,
        eps_clip_high=args.eps_clip_high,
    )
    stats["loss"] = float(loss.detach())
    if not math.isfinite(stats["loss"]):
        errors.append("loss is not finite")
    if errors:  # never push weights trained on samples that failed the checks
        return stats, errors + ["skipped the optimizer step and the engine update"]
    opt.zero_grad()
    loss.backward()
    opt.step()
    model.eval()
    out = Path(args.out_model)
    save(model, loaded.tokenizer, out)
    print(f"saved updated weights to {out}", file=sys.stderr)

    if args.engine:
        try:
            stats["weight_version"], errs = update_engine(args.engine, out, args.weight_version)
            errors += errs
            if not errs and not args.no_verify_reload:
                d = verify_reload(args.engine, model, checked[0], args.temperature)
                print(f"reload_max_abs_diff={d:.3e}", file=sys.stderr)
                if not d < LOGPROB_TOL:
                    errors.append(f"engine after reload disagrees with the trained weights: {d:.3e}")
        except (OSError, RuntimeError, KeyError) as e:  # engine unreachable or answered oddly
            errors.append(f"engine weight update: {e!r}")
    return stats, errors


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    try:
        stats, errors = run(args)
    except (OSError, ValueError, RuntimeError) as e:
        print(f"train_check: {e}", file=sys.stderr)
        return 2
    print(
        f"e2e samples={stats['samples']} masked_tokens={stats['masked_tokens']} "
        f"logprob_max_abs_diff={stats['max']:.3e} logprob_mean_abs_diff={stats['mean']:.3e} "
        f"loss={stats['loss']:.6g} weight_version={stats['weight_version']}",
        flush=True,
    )
    for e in errors:
        print(f"FAIL: {e}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
