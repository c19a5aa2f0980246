"""Issue 36: each `retries.group` policy through the real `envroll serve` (its HTTP rollout
service, the episode that applies the policy) and Miles' side (EnvrollRolloutFn, the sample
conversion, the logged metrics), with the built-in engine. The taskset is reverse-text whose
task 0 has a failing member (test/service/flaky-taskset.ts): on its first attempt only
(FLAKY_MODE=first) for the policies that re-run, on every attempt for shrink and drop-group.
"""

from __future__ import annotations

import pytest
from conftest import FLAKY, needs_node
from helpers import assert_batch, task_indices, train

from envroll_miles.samples import envroll_meta, flatten

pytestmark = needs_node


def _run(real_service, monkeypatch, policy: str, mode: str):
    monkeypatch.setenv("FLAKY_MODE", mode)  # read by the serve process the rollout function starts
    fn, _ = real_service(
        taskset=FLAKY, rollout_batch_size=2, n_samples_per_prompt=3,
        env_toml=f'retries.group = {{ policy = "{policy}", max_retries = 2 }}\n',
    )  # fmt: skip
    return train(fn, 0)


def _group(out, task: int):
    return next(flatten(g) for g in out.samples if task_indices([g]) == [task])


@pytest.mark.parametrize("policy", ["retry", "retry-group"])
def test_re_running_policies_train_the_recovered_group_whole(real_service, monkeypatch, policy):
    out = _run(real_service, monkeypatch, policy, "first")
    assert_batch(out.samples, 2, 3)
    assert sorted(task_indices(out.samples)) == [0, 1]
    group = _group(out, 0)
    assert all(s.status.value != "failed" and not s.remove_sample and 1 in s.loss_mask for s in group)
    assert "rollout/dynamic_filter/drop_trace_error" not in out.metrics
    assert out.metrics["envroll/group_failure_excluded"] == 0
    if policy == "retry":
        # Only the failed member ran again.
        assert [envroll_meta(s).get("member_retries", 0) for s in group] == [1, 0, 0]
        assert out.metrics["envroll/group_failure_member_retries"] == 1
        assert out.metrics["envroll/group_failure_group_retries"] == 0
    else:
        # The whole group was re-issued once: every member says so, the metric counts the group once.
        assert [envroll_meta(s).get("group_retries", 0) for s in group] == [1, 1, 1]
        assert out.metrics["envroll/group_failure_group_retries"] == 1
        assert out.metrics["envroll/group_failure_member_retries"] == 0


def test_shrink_keeps_the_group_with_the_failed_member_untrained(real_service, monkeypatch):
    out = _run(real_service, monkeypatch, "shrink", "always")
    assert_batch(out.samples, 2, 3)
    assert sorted(task_indices(out.samples)) == [0, 1]
    excluded, *survivors = _group(out, 0)
    assert envroll_meta(excluded)["group_failure"] == "excluded" and excluded.status.value == "failed"
    assert excluded.remove_sample and set(excluded.loss_mask) == {0}
    assert excluded.reward == pytest.approx(sum(s.reward for s in survivors) / len(survivors))
    assert all(not s.remove_sample and 1 in s.loss_mask for s in survivors)
    assert out.metrics["envroll/group_failure_excluded"] == 1
    assert "rollout/dynamic_filter/drop_trace_error" not in out.metrics


def test_drop_group_trains_nothing_of_the_failed_group_and_counts_it(real_service, monkeypatch):
    out = _run(real_service, monkeypatch, "drop-group", "always")
    assert_batch(out.samples, 2, 3)
    assert 0 not in task_indices(out.samples), "the dropped group reached the trainer"
    assert out.metrics["rollout/dynamic_filter/drop_trace_error"] == 1
    assert out.metrics["envroll/group_failure_excluded"] == 0
