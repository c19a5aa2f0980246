"""End to end: EnvrollRolloutFn → real `envroll serve` (real environment, renderer, transport)
→ the built-in engine with the `reference` policy (a protocol-faithful SGLang stand-in, no model).

Uses the reverse-text taskset (single turn) for the Miles contract, over-sampling, abort and
resume, and code-golf (group rewards) for the group-size validation. Samples are Miles' `Sample`
stand-in (tests/miles_stub.py), since Miles itself cannot be installed here.
"""

from __future__ import annotations

import json
import urllib.request

import pytest
from conftest import CODE_GOLF, TOOL_MATH, needs_node
from helpers import assert_batch, evaluate, task_indices, train, wait_idle

from envroll_miles import EnvrollConfigError
from envroll_miles.samples import envroll_meta, flatten

pytestmark = needs_node

def test_train_batch_meets_the_miles_contract(real_service):
    fn, args = real_service(rollout_batch_size=3, n_samples_per_prompt=4)
    out = train(fn, 0)
    assert_batch(out.samples, 3, 4)
    assert sorted(task_indices(out.samples)) == [0, 1, 2]
    for s in (s for g in out.samples for s in flatten(g)):
        assert s.status.value in ("completed", "truncated")
        assert isinstance(s.reward, float) and 0.0 <= s.reward <= 1.0
        assert s.response_length > 0 and sum(s.loss_mask) > 0
        assert all(lp <= 0.0 for lp, m in zip(s.rollout_log_probs, s.loss_mask) if m)
        assert all(lp == 0.0 for lp, m in zip(s.rollout_log_probs, s.loss_mask) if not m)
        meta = envroll_meta(s)
        assert set(meta["rewards"]) and meta["trace_id"] == s.routing_key
        assert s.response and isinstance(s.prompt, (str, list))
    assert out.metrics["envroll/error_rate"] == 0.0
    assert 0.0 < out.metrics["envroll/reward_mean"] <= 1.0


def test_multi_turn_tool_rollouts_mask_tool_tokens(real_service):
    fn, _ = real_service(taskset=TOOL_MATH, rollout_batch_size=2, n_samples_per_prompt=2)
    out = train(fn, 0)
    assert_batch(out.samples, 2, 2)
    multi = [s for g in out.samples for s in flatten(g) if envroll_meta(s)["num_turns"] > 1]
    assert multi, "the reference policy made no tool call"
    for s in multi:
        # Bridged tool-response tokens stay in the sequence with mask 0 and logprob 0.0.
        assert 0 < sum(s.loss_mask) < s.response_length
        assert s.loss_mask[0] == 1 and s.loss_mask[-1] == 1
        assert all(lp == 0.0 for lp, m in zip(s.rollout_log_probs, s.loss_mask) if not m)


def _engine_aborted(engine: str) -> int:
    with urllib.request.urlopen(f"{engine}/engine_stats", timeout=10) as r:
        return int(json.loads(r.read())["aborted"])


def test_over_sampling_filter_aborts_the_rest_and_resume_is_exact(real_service, engine, tmp_path):
    # Two groups in flight at a time (concurrency 8 / n 4), 16 requested per refill, 2 kept:
    # the groups still running when the batch is full must be aborted and handed back.
    over = dict(
        rollout_batch_size=2, over_sampling_batch_size=16, n_samples_per_prompt=4, sglang_server_concurrency=8,
        dynamic_sampling_filter_path="hooks_for_tests.check_reward_nonzero_std",
    )  # fmt: skip
    fn, _ = real_service(**over)
    seen: list[int] = []
    aborted_before = _engine_aborted(engine)
    step0 = train(fn, 0)
    assert_batch(step0.samples, 2, 4)
    for g in step0.samples:
        rewards = [s.reward for s in flatten(g)]
        assert max(rewards) - min(rewards) > 1e-8  # the zero-std filter held
    wait_idle(fn.client)
    state = json.loads((tmp_path / "state" / "cursor-0.json").read_text())
    assert state["returned"], "nothing was in flight when the batch filled up"
    assert _engine_aborted(engine) > aborted_before  # the engine requests were aborted, not left running
    used = set(state["completed"])
    seen += state["completed"]
    # Simulated restart: a new trainer process, a new service, the same state dir.
    fn.dispose()
    fn2, _ = real_service(**over)
    step1 = train(fn2, 1)
    wait_idle(fn2.client)
    state1 = json.loads((tmp_path / "state" / "cursor-1.json").read_text())
    # The tasks aborted in step 0 ran first in step 1; no task of step 0 ran again.
    assert set(state["returned"]) <= set(state1["completed"]) | set(state1["returned"])
    assert not used & set(state1["completed"])
    seen += state1["completed"]
    assert len(seen) == len(set(seen))
    assert set(task_indices(step1.samples)) <= set(state1["completed"])


def test_deterministic_seeds_reproduce_a_step(real_service, tmp_path):
    def run(state: str):
        fn, _ = real_service(
            rollout_batch_size=1, n_samples_per_prompt=2, sglang_enable_deterministic_inference=True,
            envroll_state_dir=str(tmp_path / state), rollout_seed=3,
        )  # fmt: skip
        return [(s.tokens, s.rollout_log_probs) for s in flatten(train(fn, 0).samples[0])]

    assert run("a") == run("b")


def test_eval_runs_every_task_n_times(real_service):
    fn, _ = real_service(num_tasks=3, n_samples_per_eval_prompt=2, eval_interval=1)
    out = evaluate(fn, 0)
    entry = out.data["reverse-text"]
    assert len(entry["rewards"]) == len(entry["truncated"]) == len(entry["samples"]) == 6
    assert all(isinstance(r, float) for r in entry["rewards"])
    assert [envroll_meta(s)["task_index"] for s in entry["samples"]] == [0, 0, 1, 1, 2, 2]


def test_group_rewards_need_two_samples(real_service):
    with pytest.raises(EnvrollConfigError) as err:
        real_service(taskset=CODE_GOLF, n_samples_per_prompt=1)
    assert err.value.codes == ["group_rewards_train"]
    with pytest.raises(EnvrollConfigError) as err:
        real_service(taskset=CODE_GOLF, n_samples_per_prompt=2, n_samples_per_eval_prompt=1, eval_interval=5)
    assert err.value.codes == ["group_rewards_eval"]
