"""EnvrollRolloutFn against the real TypeScript rollout service over a fake environment.

Covers the Miles contract (group shapes, indices, alignment, statuses, rewards), the
over-sampling loop with a zero-std dynamic filter and the abort of the remaining groups, exact
resume of the task cursor after a simulated restart, eval output, hooks, dump and dry run.
"""

from __future__ import annotations

import json
from argparse import Namespace

import hooks_for_tests
import pytest
from conftest import needs_node
from helpers import assert_batch, evaluate, task_indices, train, wait_idle

from envroll_miles import generate_rollout
from envroll_miles.miles_types import load_types
from envroll_miles.validation import EnvrollConfigError
from envroll_miles.samples import envroll_meta, flatten

pytestmark = needs_node


def test_train_batch_shape_rewards_and_statuses(fake_service):
    fn, args = fake_service({"num_tasks": 10}, rollout_batch_size=3, n_samples_per_prompt=4)
    out = train(fn, 0)
    assert_batch(out.samples, 3, 4)
    assert sorted(task_indices(out.samples)) == [0, 1, 2]
    by_task = {envroll_meta(flatten(g)[0])["task_index"]: flatten(g) for g in out.samples}
    assert [s.reward for s in by_task[0]] == [0, 1, 2, 3]
    assert {s.status.value for s in by_task[2]} == {"truncated"}  # the fake truncates task % 3 == 2
    assert out.metrics["envroll/reward_mean"] == 1.5
    assert out.metrics["envroll/truncated_rate"] == pytest.approx(1 / 3)
    assert out.metrics["envroll/error_rate"] == 0.0
    # groups are sorted by their first sample's index, as Miles' loop returns them
    firsts = [flatten(g)[0].index for g in out.samples]
    assert firsts == sorted(firsts)


def test_reward_key_gives_dict_rewards(fake_service):
    fn, args = fake_service({}, reward_key="correct")
    out = train(fn, 0)
    s = flatten(out.samples[0])[1]
    assert s.reward == {"correct": 1, "reward": 1}
    assert s.get_reward_value(args) == 1


def test_over_sampling_with_zero_std_filter_aborts_the_rest(fake_service, tmp_path):
    # Odd tasks have identical rewards (dropped by the filter); task 7 is slow and still running
    # when enough groups are kept, so it must be aborted and handed back, not lost.
    fn, args = fake_service(
        {"num_tasks": 12, "constant_reward_tasks": "odd", "slow_tasks": [7], "slow_ms": 60000},
        rollout_batch_size=3, over_sampling_batch_size=8, n_samples_per_prompt=2,
        dynamic_sampling_filter_path="hooks_for_tests.check_reward_nonzero_std",
    )  # fmt: skip
    out = train(fn, 0)
    assert_batch(out.samples, 3, 2)
    kept = task_indices(out.samples)
    assert all(t % 2 == 0 for t in kept)
    assert out.metrics["rollout/dynamic_filter/drop_zero_std_1.0"] >= 1
    # Once the service has wound the aborted request down, the slow task is back in the cursor.
    wait_idle(fn.client)
    state = json.loads((tmp_path / "state" / "cursor-0.json").read_text())
    assert 7 in state["returned"]
    assert not set(state["returned"]) & set(state["completed"])
    assert set(kept) <= set(state["completed"])


def test_partial_rollout_carries_running_groups_into_the_next_step(fake_service, tmp_path):
    # envroll's --partial-rollout: what still runs when step 0 is full is not aborted; it keeps
    # running and step 1 judges it first (stamped start_rollout_id=0), so no task is lost or redone.
    fn, args = fake_service(
        {"num_tasks": 12, "slow_tasks": [3], "slow_ms": 1500},
        rollout_batch_size=3, over_sampling_batch_size=6, n_samples_per_prompt=2, partial_rollout=True,
    )  # fmt: skip
    first = train(fn, 0)
    assert_batch(first.samples, 3, 2)
    assert sorted(task_indices(first.samples)) == [0, 1, 2]
    second = train(fn, 1)
    assert_batch(second.samples, 3, 2)
    assert sorted(task_indices(second.samples)) == [3, 4, 5]  # launched in step 0, judged in step 1
    for g in second.samples:
        assert all(s.metadata.get("start_rollout_id") == 0 for s in flatten(g))
    assert all("start_rollout_id" not in s.metadata for g in first.samples for s in flatten(g))
    third = train(fn, 2)  # the carried request is used up: a fresh one starts
    assert sorted(task_indices(third.samples)) == [6, 7, 8]
    assert all("start_rollout_id" not in s.metadata for g in third.samples for s in flatten(g))


def test_exact_resume_after_restart(fake_service):
    cfg = {"num_tasks": 10, "constant_reward_tasks": [1]}
    over = dict(rollout_batch_size=2, n_samples_per_prompt=2,
                dynamic_sampling_filter_path="hooks_for_tests.check_reward_nonzero_std")  # fmt: skip
    fn, _ = fake_service(cfg, **over)
    assert sorted(task_indices(train(fn, 0).samples)) == [0, 2]  # task 1 ran and was filtered out
    fn.dispose()  # the trainer dies; the service stops with it
    fn2, _ = fake_service(cfg, **over)
    assert sorted(task_indices(train(fn2, 1).samples)) == [3, 4]
    # Restarting from the step-0 checkpoint replays step 1 exactly.
    fn2.dispose()
    fn3, _ = fake_service(cfg, **over)
    assert sorted(task_indices(train(fn3, 1).samples)) == [3, 4]
    assert sorted(task_indices(train(fn3, 2).samples)) == [5, 6]


def test_failed_groups_are_dropped_and_counted(fake_service):
    fn, _ = fake_service({"error_tasks": [0, 3]}, rollout_batch_size=3)
    out = train(fn, 0)
    assert sorted(task_indices(out.samples)) == [1, 2, 4]
    assert out.metrics["rollout/dynamic_filter/drop_trace_error"] == 2
    # The old keep flag points at the one policy key now (retries.group in the env.toml).
    with pytest.raises(EnvrollConfigError, match=r"retries\.group in the env\.toml"):
        fake_service({"error_tasks": [0]}, rollout_batch_size=1, envroll_keep_failed_groups=True)


def test_shrunk_groups_keep_survivors_and_mask_excluded_members(fake_service):
    # retries.group = shrink: member 0 failed and was excluded by the episode; the group is kept
    # at full size, the excluded member trains nothing and carries the survivors' mean reward.
    fn, _ = fake_service({"shrink_tasks": [0]}, rollout_batch_size=1)
    out = train(fn, 0)
    assert task_indices(out.samples) == [0]
    excluded, survivor = flatten(out.samples[0])
    assert envroll_meta(excluded)["group_failure"] == "excluded" and excluded.status.value == "failed"
    assert excluded.remove_sample and set(excluded.loss_mask) == {0}
    assert excluded.reward == survivor.reward == 1
    assert not survivor.remove_sample and 1 in survivor.loss_mask
    assert "rollout/dynamic_filter/drop_trace_error" not in out.metrics
    assert out.metrics["envroll/group_failure_excluded"] == 1


def test_multi_branch_traces_need_compact_rollouts(fake_service):
    # Without compact rollouts a forked group fails alone (typed, counted); the step goes on.
    fn, _ = fake_service({"multi_branch_tasks": [1]})
    out = train(fn, 0)
    assert out.metrics["rollout/dynamic_filter/drop_conversion_error"] == 1
    assert all(envroll_meta(s)["task_index"] != 1 for g in out.samples for s in flatten(g))
    fn2, _ = fake_service({"multi_branch_tasks": [1]}, envroll_compact_rollouts=True,
                          custom_rm_path="hooks_for_tests.constant_rm")  # fmt: skip
    out = train(fn2, 0)
    assert_batch(out.samples, 2, 2)
    elements = [e for g in out.samples for e in g]
    # All or nothing: Miles flattens by the first element, so one-branch traces are lists too.
    assert all(isinstance(e, list) for e in elements)
    compact = [e for e in elements if len(e) > 1]
    assert len(compact) == 2  # both rollouts of task 1
    for siblings in compact:
        assert len(siblings) == 2
        assert siblings[0].rollout_id == siblings[1].rollout_id is not None
        assert [s.reward for s in siblings] == [0.5, 0.5]
        assert [envroll_meta(s)["branch_index"] for s in siblings] == [0, 1]


def test_empty_traces_drop_the_group(fake_service):
    fn, _ = fake_service({"empty_tasks": [0]}, rollout_batch_size=2)
    out = train(fn, 0)
    assert sorted(task_indices(out.samples)) == [1, 2]
    assert out.metrics["rollout/dynamic_filter/drop_empty_trace"] == 1


def test_typed_refusals_stop_the_step_but_wording_alone_does_not(fake_service):
    msg = "streaming is not supported in training mode"
    fn, _ = fake_service({"error_tasks": [1], "error_message": msg, "error_type": "UnsupportedError"},
                         rollout_batch_size=3)  # fmt: skip
    with pytest.raises(RuntimeError, match="envroll_miles: step 0: UnsupportedError: streaming is not supported"):
        train(fn, 0)
    # A tool failing with the same words is bad luck: the group is dropped and the step goes on.
    fn2, _ = fake_service({"error_tasks": [1], "error_message": msg}, rollout_batch_size=3)
    out = train(fn2, 0)
    assert sorted(task_indices(out.samples)) == [0, 2, 3]
    assert out.metrics["rollout/dynamic_filter/drop_trace_error"] == 1


def test_miles_rm_overrides_environment_reward(fake_service):
    fn, _ = fake_service({}, custom_rm_path="hooks_for_tests.constant_rm")
    assert {s.reward for g in train(fn, 0).samples for s in flatten(g)} == {0.5}
    fn_g, _ = fake_service({}, custom_rm_path="hooks_for_tests.group_rank_rm", group_rm=True, n_samples_per_prompt=3)
    assert [[s.reward for s in flatten(g)] for g in train(fn_g, 0).samples] == [[0.0, 1.0, 2.0]] * 2


def test_sample_filter_and_all_samples_hooks(fake_service):
    hooks_for_tests.CALLS["sample_filter"].clear()
    hooks_for_tests.CALLS["all_samples"].clear()
    fn, _ = fake_service(
        {"constant_reward_tasks": [0]}, rollout_batch_size=2,
        dynamic_sampling_filter_path="hooks_for_tests.check_reward_nonzero_std",
        rollout_sample_filter_path="hooks_for_tests.sample_filter",
        rollout_all_samples_process_path="hooks_for_tests.all_samples",
    )  # fmt: skip
    out = train(fn, 0)
    assert hooks_for_tests.CALLS["sample_filter"] == [2]
    assert hooks_for_tests.CALLS["all_samples"][0] >= 3  # the filtered-out group too
    assert all(flatten(g)[0].remove_sample for g in out.samples)


def test_eval_output_reduces_dict_rewards_with_eval_key(fake_service):
    fn, args = fake_service(
        {"num_eval_tasks": 3}, n_samples_per_eval_prompt=2, reward_key="reward", eval_reward_key="correct",
        custom_rm_path=None,
    )  # fmt: skip
    out = evaluate(fn, 0)
    assert list(out.data) == ["fake-v1"]
    entry = out.data["fake-v1"]
    assert len(entry["rewards"]) == len(entry["truncated"]) == len(entry["samples"]) == 6
    assert entry["rewards"] == [0.0, 1.0] * 3
    assert entry["truncated"] == [False, False, False, False, True, True]
    assert isinstance(entry["samples"][0].reward, dict)
    assert out.metrics["envroll/eval/fake-v1/reward_mean"] == 0.5


def test_eval_empty_rollouts_are_none_rewards_but_no_samples(fake_service):
    fn, _ = fake_service({"num_eval_tasks": 3, "empty_tasks": [0]}, n_samples_per_eval_prompt=2)
    entry = evaluate(fn, 0).data["fake-v1"]
    assert len(entry["rewards"]) == len(entry["truncated"]) == 6
    assert entry["rewards"][0] is None
    assert None not in entry["rewards"][1:]
    assert len(entry["samples"]) == 5
    assert all(s.response_length > 0 for s in entry["samples"])


def test_eval_group_rm_runs_in_eval_too(fake_service):
    fn, _ = fake_service({"num_eval_tasks": 2}, n_samples_per_eval_prompt=3,
                         custom_rm_path="hooks_for_tests.group_rank_rm", group_rm=True)  # fmt: skip
    assert evaluate(fn, 0).data["fake-v1"]["rewards"] == [0.0, 1.0, 2.0] * 2


def test_legacy_function_form_is_configured_by_environment_variables(fake_service, tmp_path, monkeypatch):
    # Under MILES_USE_LEGACY_ROLLOUT_V1=1 Miles registers no --envroll-* flags: args lack them.
    fn, args = fake_service({"multi_branch_tasks": [0]})
    fn.dispose()
    bare = Namespace(**{k: v for k, v in vars(args).items() if not k.startswith("envroll_")})
    monkeypatch.setenv("ENVROLL_CONFIG", args.envroll_config)
    monkeypatch.setenv("ENVROLL_STATE_DIR", str(tmp_path / "legacy-state"))
    monkeypatch.setenv("ENVROLL_COMPACT_ROLLOUTS", "1")
    from envroll_miles import rollout_fn

    try:
        out = generate_rollout(bare, 0, None)
        types = load_types()
        assert isinstance(out, types.TrainOutput)  # Miles passes the output types through as they are
        assert len(out.samples) == 2
        assert all(isinstance(e, list) for g in out.samples for e in g)  # ENVROLL_COMPACT_ROLLOUTS took
        assert out.metrics["envroll/reward_mean"] == out.metrics["verifiers/reward_mean"] == 0.5
        assert (tmp_path / "legacy-state" / "cursor-0.json").is_file()
        ev = generate_rollout(bare, 0, None, evaluation=True)
        assert isinstance(ev, types.EvalOutput) and "fake-v1" in ev.data
        assert "verifiers/reward_mean" in ev.metrics
        assert len(rollout_fn._legacy) == 1  # one adapter (one service) for train and eval
    finally:
        for cached in rollout_fn._legacy.values():
            cached.dispose()
        rollout_fn._legacy.clear()


def test_dump_dir_writes_each_batch(fake_service, tmp_path):
    fn, args = fake_service({}, envroll_dump_dir=str(tmp_path / "dump"))
    train(fn, 4)
    evaluate(fn, 4)
    t = json.loads((tmp_path / "dump" / "train_000004.json").read_text())
    assert t["kind"] == "train" and len(t["groups"]) == 2 and len(t["groups"][0]) == 2
    sample = t["groups"][0][0]
    assert sample["status"] in ("completed", "truncated") and isinstance(sample["spec_info"], dict)
    assert t["args"]["rollout_batch_size"] == 2
    e = json.loads((tmp_path / "dump" / "eval_000004.json").read_text())
    assert e["kind"] == "eval" and set(e["data"]["fake-v1"]) == {"rewards", "truncated", "samples"}


def test_dry_run_calls_the_class_like_miles(fake_service, tmp_path, monkeypatch, capsys):
    from envroll_miles import dry_run

    cfg = tmp_path / "dry.json"
    cfg.write_text("{}")
    out = tmp_path / "out.json"
    argv = ["--config", str(cfg), "--engine", "http://127.0.0.1:9", "--rollout-batch-size", "2",
            "--n-samples-per-prompt", "3", "--rollout-id", "0", "--dump", str(out),
            "--state-dir", str(tmp_path / "dry-state")]  # fmt: skip
    assert dry_run.main(argv) == 0
    dumped = json.loads(out.read_text())
    assert dumped["kind"] == "train" and [len(g) for g in dumped["groups"]] == [3, 3]
    assert json.loads(capsys.readouterr().out)["miles_types"] is True
    assert dry_run.main([*argv[:-2], "--eval", "--state-dir", str(tmp_path / "dry-state")]) == 0
    assert json.loads(out.read_text())["kind"] == "eval"
