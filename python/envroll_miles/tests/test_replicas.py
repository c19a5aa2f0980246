"""Several rollout-service replicas behind one trainer (local processes; Ray in test_ray.py).

Fake-environment services (test/service/fake-serve.ts) keep these fast; the built-in-engine run
is in test_replicas_engine.py.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
from collections import Counter

from conftest import REPO, needs_node
from helpers import assert_batch, task_indices, train

from envroll_miles.miles_types import load_types
from envroll_miles.task_cursor import epoch_order

pytestmark = needs_node


def _epochs(trained: list[int], num_tasks: int) -> list[list[int]]:
    return [sorted(trained[i : i + num_tasks]) for i in range(0, len(trained), num_tasks)]


def test_three_replicas_share_steps_by_load_with_one_exact_cursor(fake_service, tmp_path):
    fn, _ = fake_service(
        {"num_tasks": 6, "delay_ms": 40}, envroll_replicas=3, envroll_replica_concurrency=2,
        rollout_batch_size=3, n_samples_per_prompt=2,
    )  # fmt: skip
    trained: list[int] = []
    for step in range(4):
        out = train(fn, step)
        assert_batch(out.samples, 3, 2)
        trained += task_indices(out.samples)
        m = out.metrics
        groups = [m[f"envroll/replica/{i}/groups"] for i in range(3)]
        assert sum(groups) == m["envroll/groups_delivered"] == 3
        # One group in flight per replica (concurrency 2 / n 2), three launched at once: one each.
        assert groups == [1.0, 1.0, 1.0]
        assert all(m[f"envroll/replica/{i}/group_time_p99_s"] > 0 for i in range(3))
    # The trainer owns the cursor: two epochs, every task exactly once in each, in cursor order.
    assert trained == [0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5]
    state = json.loads((tmp_path / "state" / "cursor-3.json").read_text())
    assert (state["epoch"], state["offset"], state["returned"]) == (1, 6, [])


def test_over_sampling_hands_unjudged_groups_back_across_replicas(fake_service, tmp_path):
    fn, _ = fake_service(
        {"num_tasks": 8, "delay_ms": 20, "slow_tasks": [1], "slow_ms": 1500}, envroll_replicas=2,
        envroll_replica_concurrency=4, rollout_batch_size=2, over_sampling_batch_size=5, n_samples_per_prompt=2,
    )  # fmt: skip
    out = train(fn, 0)
    # Launch order decides: the slow task 1 is waited for, not beaten by faster later ones.
    assert task_indices(out.samples) == [0, 1]
    state = json.loads((tmp_path / "state" / "cursor-0.json").read_text())
    assert state["returned"] == [2, 3, 4] and state["completed"] == [0, 1]
    assert task_indices(train(fn, 1).samples) == [2, 3]


def _kill_mid_step(fn, rollout_id: int, victim: int, how=signal.SIGKILL):
    """Runs a train step and, once the victim replica runs a group, sends it `how`."""
    types = load_types()

    async def run():
        step = asyncio.ensure_future(fn(types.TrainInput(rollout_id=rollout_id)))
        slot = fn.pool.slots[victim]
        while slot.in_flight == 0:
            await asyncio.sleep(0.005)
        await asyncio.sleep(0.1)
        os.killpg(slot.replica.process.pid, how)
        out = await step
        await fn.pool.wait_restarts(60.0)
        return out

    return asyncio.run(run())


def test_a_killed_replica_is_replaced_and_its_groups_reissued_exactly_once(fake_service, tmp_path):
    runs = tmp_path / "runs.log"
    fn, _ = fake_service(
        {"num_tasks": 6, "delay_ms": 400, "runs_log": str(runs)}, envroll_replicas=3,
        envroll_replica_concurrency=2, rollout_batch_size=6, n_samples_per_prompt=2,
    )  # fmt: skip
    old_pid = fn.pool.slots[1].replica.process.pid
    out = _kill_mid_step(fn, 0, victim=1)
    assert_batch(out.samples, 6, 2)
    assert task_indices(out.samples) == [0, 1, 2, 3, 4, 5]
    m = out.metrics
    assert m["envroll/replica/1/faults"] == 1.0
    assert m["envroll/groups_reissued"] >= 1.0
    # The killed replica had started a group, which then ran again elsewhere: run twice, trained once.
    ran = Counter(line.split()[1] for line in runs.read_text().split("\n") if line)
    assert sum(ran.values()) > 6 and max(ran.values()) == 2
    slot = fn.pool.slots[1]
    assert slot.alive and slot.replica.process.pid != old_pid
    # The next step runs on all three again and the cursor is still exact (epoch 1: all six once).
    out = train(fn, 1)
    assert task_indices(out.samples) == [0, 1, 2, 3, 4, 5]
    assert out.metrics["envroll/replica/1/groups"] > 0


def test_a_hung_replica_is_declared_dead_by_health_timeout(fake_service, tmp_path):
    fn, _ = fake_service(
        {"num_tasks": 6, "delay_ms": 400}, envroll_replicas=2, envroll_replica_concurrency=2,
        rollout_batch_size=4, n_samples_per_prompt=2, envroll_health_timeout=1.0,
    )  # fmt: skip
    out = _kill_mid_step(fn, 0, victim=0, how=signal.SIGSTOP)
    assert task_indices(out.samples) == [0, 1, 2, 3]
    assert out.metrics["envroll/replica/0/faults"] == 1.0
    assert fn.pool.slots[0].alive


def test_eval_is_sharded_over_replicas(fake_service):
    fn, _ = fake_service({"num_eval_tasks": 5, "delay_ms": 30}, envroll_replicas=2, envroll_replica_concurrency=2,
                       n_samples_per_eval_prompt=2)
    types = load_types()
    out = asyncio.run(fn(types.EvalInput(rollout_id=0)))
    (data,) = out.data.values()
    assert len(data["samples"]) == 10
    assert sorted({s.metadata["envroll"]["task_index"] for s in data["samples"]}) == [0, 1, 2, 3, 4]
    assert len({s.index for s in data["samples"]}) == 10
    name = next(iter(out.data))
    assert sum(out.metrics[f"envroll/eval/{name}/replica/{i}/groups"] for i in range(2)) == 5


def test_the_python_cursor_permutes_tasks_exactly_as_the_service_does(tmp_path):
    # The trainer's cursor and the service's read each other's cursor-<step>.json files.
    cases = [(10, 42, 0), (7, 3, 5), (100, 0, 2)]
    script = tmp_path / "orders.ts"
    script.write_text(
        f'import {{ epochOrder }} from "{REPO / "packages" / "core" / "src" / "service" / "cursor.ts"}";\n'
        f"console.log(JSON.stringify({json.dumps(cases)}.map(([n, s, e]) => epochOrder(n, true, s, e))));\n"
    )
    out = subprocess.run(["node", "--import", "tsx", str(script)], cwd=REPO, capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == [epoch_order(n, True, s, e) for n, s, e in cases]
