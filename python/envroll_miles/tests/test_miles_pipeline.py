"""Miles' own code judges envroll's batches.

With a Miles source tree (``MILES_SRC``; where SGLang is not installed, its CPU stand-ins on
``MILES_STUBS``, os.pathsep-separated), miles_judge.py runs the rollout function through Miles'
argument parser, loader, ``postprocess_rollout_data``, ``convert_samples_to_train_data`` (GRPO
advantages) and its train/eval logging, over the real service with a fake environment. Without a
tree those tests skip: Miles is not on any registry this project's machines reach, so CI cannot
install it. ``test_batch_shape_contract`` then still asserts the same contract directly.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, fake_serve_command, needs_node
from helpers import train

from envroll_miles.samples import flatten

pytestmark = needs_node

HERE = Path(__file__).resolve().parent


def _miles_src() -> str | None:
    src = os.environ.get("MILES_SRC")
    return src if src and (Path(src) / "miles" / "__init__.py").is_file() else None


needs_miles = pytest.mark.skipif(
    _miles_src() is None,
    reason="MILES_SRC is not set to a radixark/miles checkout (add SGLang stand-ins via MILES_STUBS); "
    "test_batch_shape_contract checks the same contract without Miles",
)

# A Qwen3 config Miles' parser reads for --hf-checkpoint (no weights: the engine is a stand-in).
TINY_CONFIG = {
    "architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": 64, "intermediate_size": 128,
    "num_attention_heads": 4, "num_key_value_heads": 2, "num_hidden_layers": 2, "vocab_size": 151936,
    "head_dim": 16, "max_position_embeddings": 4096, "rms_norm_eps": 1e-6, "tie_word_embeddings": True,
}  # fmt: skip


def _argv(tmp: Path, fake: dict, name: str, *extra: str, envroll_flags: bool = True) -> list[str]:
    cfg = tmp / f"{name}.json"
    cfg.write_text(json.dumps(fake))
    argv = [
        "--train-backend", "fsdp", "--hf-checkpoint", str(tmp / "hf"), "--debug-rollout-only",
        "--rollout-num-gpus", "1", "--rollout-num-gpus-per-engine", "1",
        "--rollout-function-path", "envroll_miles.EnvrollRolloutFn", "--disable-rollout-global-dataset",
        "--sglang-router-ip", "127.0.0.1", "--sglang-router-port", "9", "--num-rollout", "1",
        "--rollout-batch-size", "2", "--n-samples-per-prompt", "2", "--global-batch-size", "4",
        "--rollout-max-response-len", "16", *extra,
    ]  # fmt: skip
    if envroll_flags:
        argv += ["--envroll-config", str(cfg), "--envroll-state-dir", str(tmp / f"state-{name}")]
    return argv


@pytest.fixture(scope="module")
def judged(tmp_path_factory):
    """Every scenario, run once through Miles (one subprocess: importing Miles takes seconds)."""
    if _miles_src() is None:
        pytest.skip("no Miles tree")
    tmp = tmp_path_factory.mktemp("miles")
    (tmp / "hf").mkdir()
    (tmp / "hf" / "config.json").write_text(json.dumps(TINY_CONFIG))
    legacy_cfg = tmp / "legacy-env.json"
    legacy_cfg.write_text(json.dumps({"multi_branch_tasks": [0]}))
    scenarios = {
        "plain": {"kind": "train", "argv": _argv(tmp, {}, "plain")},
        "compact": {"kind": "train", "argv": _argv(tmp, {"multi_branch_tasks": [1, 2]}, "compact",
                                                    "--envroll-compact-rollouts", "--n-samples-per-prompt", "3")},
        "kept_empty": {"kind": "train", "argv": _argv(tmp, {"empty_tasks": [0, 1], "shrink_tasks": [0, 1]},
                                                       "kept_empty")},
        "eval_key_only": {"kind": "eval", "argv": _argv(tmp, {"num_eval_tasks": 2}, "eval_key_only",
                                                         "--eval-reward-key", "correct",
                                                         "--n-samples-per-eval-prompt", "2", "--eval-interval", "5",
                                                         # Miles asserts eval datasets exist with
                                                         # --eval-interval; envroll never reads it.
                                                         "--eval-prompt-data", "envroll", "unused")},
        "eval_all_failed": {"kind": "eval", "argv": _argv(tmp, {"failing_groups": [0, 1, 2]}, "eval_all_failed")},
        "legacy": {"kind": "train", "legacy": True, "argv": _argv(tmp, {}, "legacy", envroll_flags=False)
                   + ["--rollout-function-path", "envroll_miles.generate_rollout"],
                   "env": {"MILES_USE_LEGACY_ROLLOUT_V1": "1", "ENVROLL_CONFIG": str(legacy_cfg),
                           "ENVROLL_STATE_DIR": str(tmp / "state-legacy"), "ENVROLL_COMPACT_ROLLOUTS": "1"}},
    }  # fmt: skip
    (tmp / "scenarios.json").write_text(json.dumps(scenarios))
    paths = [p for p in os.environ.get("MILES_STUBS", "").split(os.pathsep) if p]
    paths += [_miles_src(), str(REPO / "python" / "envroll_miles" / "src"), str(HERE)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths),
           "ENVROLL_SERVE_COMMAND": fake_serve_command()}  # fmt: skip
    for var in ("ENVROLL_URL", "ENVROLL_CONFIG", "ENVROLL_DUMP_DIR", "ENVROLL_STATE_DIR"):
        env.pop(var, None)
    out = tmp / "results.json"
    proc = subprocess.run([sys.executable, str(HERE / "miles_judge.py"), str(tmp / "scenarios.json"), str(out)],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=600)  # fmt: skip
    assert proc.returncode == 0 and out.is_file(), f"the Miles run failed:\n{proc.stderr[-4000:]}"
    return json.loads(out.read_text())


def _ok(result: dict) -> dict:
    assert result["ok"], result.get("trace") or result.get("error")
    return result


def _expected_advantages(samples: list[dict]) -> dict[int, float]:
    """GRPO from the spec, per rollout (not per branch): (r - mean) / (std + 1e-6) within a group."""
    out = {}
    for g in {s["group_index"] for s in samples}:
        rollouts = {}
        for s in samples:
            if s["group_index"] == g:
                rollouts[s["rollout_id"] if s["rollout_id"] is not None else s["index"]] = s["reward"]
        values = list(rollouts.values())
        mean, std = statistics.fmean(values), statistics.stdev(values) if len(values) > 1 else 0.0
        for key, r in rollouts.items():
            out[key] = (r - mean) / (std + 1e-6) if std > 0 else r - mean
    return out


@needs_miles
def test_miles_accepts_a_plain_batch_and_computes_grpo_advantages(judged):
    r = _ok(judged["plain"])
    assert r["shape"] == [[None, None], [None, None]]
    expected = _expected_advantages(r["samples"])
    assert r["train"]["rewards"] == pytest.approx([expected[s["index"]] for s in r["samples"]], abs=1e-5)


@needs_miles
def test_miles_accepts_compact_rollouts_with_per_rollout_advantages(judged):
    r = _ok(judged["compact"])
    # Every element a list; tasks 1 and 2 have two branches per trace.
    assert all(n is not None for g in r["shape"] for n in g) and sorted(map(sum, r["shape"])) == [3, 6]
    expected = _expected_advantages(r["samples"])
    got = r["train"]["rewards"]
    for s, adv in zip(r["samples"], got, strict=True):
        assert adv == pytest.approx(expected[s["rollout_id"]], abs=1e-5)  # siblings share their rollout's
    assert r["train"]["rollout_ids"] == [s["rollout_id"] for s in r["samples"]]


@needs_miles
def test_miles_accepts_kept_empty_traces_as_one_masked_token(judged):
    r = _ok(judged["kept_empty"])
    empties = [i for i, s in enumerate(r["samples"]) if s["empty"]]
    assert len(empties) == 2
    for i in empties:
        assert r["train"]["response_lengths"][i] == 1 and r["train"]["loss_masks"][i] == [0]


@needs_miles
def test_miles_eval_logging_takes_eval_reward_key_without_reward_key(judged):
    logged = _ok(judged["eval_key_only"])["logged"]
    assert logged["eval/fake-v1"] == pytest.approx(0.5)
    assert logged["verifiers/reward_mean"] == pytest.approx(0.5)


@needs_miles
def test_an_all_failed_eval_fails_with_the_reason_not_in_miles_statistics(judged):
    r = judged["eval_all_failed"]
    assert not r["ok"]
    assert "every eval rollout failed" in r["error"] and "group reward failed" in r["error"]


@needs_miles
def test_miles_legacy_v1_path_configured_by_environment(judged):
    r = _ok(judged["legacy"])
    assert r["metrics"]["envroll/reward_mean"] == r["metrics"]["verifiers/reward_mean"]
    # ENVROLL_CONFIG (task 0 has two branches) and ENVROLL_COMPACT_ROLLOUTS=1 both took.
    assert sorted(r["shape"]) == [[1, 1], [2, 2]]


def test_batch_shape_contract(fake_service):
    """What Miles' postprocess/conversion need, asserted directly (runs without Miles)."""
    for cfg, over in (({}, {}), ({"multi_branch_tasks": [0]}, {"envroll_compact_rollouts": True}),
                      ({"empty_tasks": [0], "shrink_tasks": [0]}, {})):  # fmt: skip
        fn, _ = fake_service(cfg, rollout_batch_size=2, n_samples_per_prompt=2, **over)
        groups = train(fn, 0).samples
        kinds = {isinstance(e, list) for g in groups for e in g}
        assert len(kinds) == 1  # Miles flattens by the first element: all Sample or all list[Sample]
        rollout_ids = []
        for g in groups:
            for e in g:
                siblings = e if isinstance(e, list) else [e]
                assert len({s.rollout_id for s in siblings}) == 1 and len({repr(s.reward) for s in siblings}) == 1
                rollout_ids.append(siblings[0].rollout_id)
            for s in flatten(g):
                assert s.response_length >= 1 and len(s.tokens) > s.response_length  # a prompt token before
                assert len(s.loss_mask) == len(s.rollout_log_probs) == s.response_length
        if True in kinds:
            assert None not in rollout_ids and len(set(rollout_ids)) == len(rollout_ids)
