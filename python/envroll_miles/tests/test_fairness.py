"""Over-sampling must not bias training by rollout length.

With more groups launched than a step keeps, judging groups in completion order keeps the fast
ones; a slow task is aborted, handed back, launched again first next step, and loses the race
again — re-run and discarded step after step, never trained. These tests count, per task, how
often it was run (the fake service logs every group it starts) and trained (the kept groups)
over many steps.
"""

from __future__ import annotations

from collections import Counter

from conftest import needs_node
from helpers import task_indices, train

pytestmark = needs_node

# Tasks 3, 7, 11 take 60x longer than the others.
SLOW = {"num_tasks": 12, "slow_every": 4, "slow_ms": 120, "delay_ms": 2}


def _run(fake_service, tmp_path, steps: int, cfg: dict, **over):
    log = tmp_path / "runs.log"
    fn, _ = fake_service({**SLOW, **cfg, "runs_log": str(log)}, rollout_batch_size=3, over_sampling_batch_size=6,
                         n_samples_per_prompt=2, **over)  # fmt: skip
    trained = Counter()
    for step in range(steps):
        trained.update(task_indices(train(fn, step).samples))
    fn.dispose()  # the service stops; every group it started is in the log
    runs = Counter(int(line.split()[1]) for line in log.read_text().splitlines() if line.startswith("train "))
    return trained, runs


def test_every_task_trains_equally_often_whatever_its_length(fake_service, tmp_path):
    trained, runs = _run(fake_service, tmp_path, steps=16, cfg={})  # 48 groups: 4 epochs of 12
    assert trained == Counter({t: 4 for t in range(12)})
    slow = [3, 7, 11]
    fast = [t for t in range(12) if t not in slow]
    # Surplus runs (launched, then handed back unjudged) do not fall on the slow tasks.
    assert max(runs[t] - trained[t] for t in slow) <= max(runs[t] - trained[t] for t in fast)


def test_only_the_filter_decides_what_is_not_trained(fake_service, tmp_path):
    # Task 5's groups have identical rewards, so the zero-std filter drops them: 11 tasks train,
    # 33 kept groups are exactly 3 epochs of them.
    trained, _ = _run(fake_service, tmp_path, steps=11, cfg={"constant_reward_tasks": [5]},
                      dynamic_sampling_filter_path="hooks_for_tests.check_reward_nonzero_std")  # fmt: skip
    assert trained == Counter({t: 3 for t in range(12) if t != 5})
