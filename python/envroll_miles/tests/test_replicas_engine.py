"""Three rollout-service replicas against the built-in engine: local processes always, Ray actors
when ``ray`` is importable (``pip install -e 'python/envroll_miles[ray]'``).

Each checks a train step and an eval, and a replica killed mid-step: the step still completes
with every task exactly once, and the replica is back for the next step.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import signal
import time
import urllib.request

import pytest
from conftest import REPO, REVERSE_TEXT, needs_node
from helpers import assert_batch, evaluate, task_indices, train

from envroll_miles.miles_types import load_types
from envroll_miles.replicas import RayReplica

pytestmark = needs_node

# Imported by the tests that use it: collecting this file (every pytest-xdist worker of npm test
# collects it, though only test:slow runs it) would otherwise import ray, ~0.75 s of CPU.
HAS_RAY = importlib.util.find_spec("ray") is not None

SETTINGS = dict(
    envroll_replicas=3, envroll_replica_concurrency=4, rollout_batch_size=6, n_samples_per_prompt=2,
    n_samples_per_eval_prompt=2, num_tasks=6,
)  # fmt: skip


def _engine_post(engine: str, path: str, body: dict) -> None:
    req = urllib.request.Request(f"{engine}{path}", json.dumps(body).encode(), {"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as res:
        assert res.status == 200, f"{path} answered {res.status}"


def _step_with_kill(fn, engine: str, rollout_id: int, kill) -> object:
    """Kills replica 1 while its group is certainly in flight: the engine holds every request
    (`/pause_generation` in place) from before the step until the pool has declared the replica
    dead, so the group cannot finish first however slowly the kill and its news arrive."""
    types = load_types()

    async def run():
        _engine_post(engine, "/pause_generation", {"mode": "in_place"})
        try:
            step = asyncio.ensure_future(fn(types.TrainInput(rollout_id=rollout_id)))
            slot = fn.pool.slots[1]
            while slot.in_flight == 0 and not step.done():
                await asyncio.sleep(0.005)
            assert not step.done(), "the step finished while generation was paused"
            kill(slot.replica)
            # Held until the pool has seen the death: a Ray actor's serve only learns of it from
            # its stdin closing, and a group that generation let finish first is no fault at all.
            deadline = time.monotonic() + 60
            while slot.alive and time.monotonic() < deadline:
                await asyncio.sleep(0.01)
        finally:
            _engine_post(engine, "/continue_generation", {})
        out = await step
        await fn.pool.wait_restarts(120.0)
        return out

    return asyncio.run(run())


def _check(fn, engine: str, kill) -> None:
    step0 = train(fn, 0)
    assert_batch(step0.samples, 6, 2)
    assert task_indices(step0.samples) == [0, 1, 2, 3, 4, 5]
    assert sum(step0.metrics[f"envroll/replica/{i}/groups"] for i in range(3)) == 6
    assert min(step0.metrics[f"envroll/replica/{i}/groups"] for i in range(3)) >= 1
    out = evaluate(fn, 0)
    (data,) = out.data.values()
    assert len(data["samples"]) == 2 * fn.info["num_eval_tasks"]
    step1 = _step_with_kill(fn, engine, 1, kill)
    assert task_indices(step1.samples) == [0, 1, 2, 3, 4, 5]  # epoch 1: each task once more
    assert step1.metrics["envroll/replica/1/faults"] == 1.0
    assert fn.pool.slots[1].alive
    step2 = train(fn, 2)
    assert task_indices(step2.samples) == [0, 1, 2, 3, 4, 5]


def test_three_local_replicas_train_eval_and_survive_a_kill(engine, real_service):
    fn, _ = real_service(**SETTINGS)
    assert type(fn.pool.slots[0].replica).__name__ == "LocalReplica"
    _check(fn, engine, lambda r: os.killpg(r.process.pid, signal.SIGKILL))


@pytest.fixture(scope="module")
def ray_cluster():
    """The ray module, with a local cluster started."""
    if not HAS_RAY:
        pytest.skip("ray is not importable: pip install -e 'python/envroll_miles[ray]' to run the Ray replica test")
    # Ray's own reaping of a dead worker's children off: these tests check envroll's cleanup,
    # which must not depend on a cluster setting.
    reaping = {"RAY_kill_child_processes_on_worker_exit": "0", "RAY_kill_child_processes_on_worker_exit_with_raylet_subreaper": "0"}
    saved = {k: os.environ.get(k) for k in reaping}
    os.environ.update(reaping)
    import ray

    ray.init(num_cpus=3, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


def test_three_ray_actor_replicas_train_eval_and_survive_actor_death(ray_cluster, engine, real_service):
    ray = ray_cluster
    fn, _ = real_service(**SETTINGS, envroll_replica_cpus=1)
    assert type(fn.pool.slots[0].replica).__name__ == "RayReplica"
    # Three actors of one CPU each fill the three-CPU cluster: all are placed, one per CPU.
    assert ray.available_resources().get("CPU", 0) == 0
    _check(fn, engine, lambda r: os.kill(ray.get(r.actor.pid.remote()), signal.SIGKILL))


def _gone(pid: int) -> bool:
    """No such process, or a zombie waiting for its reaper."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def test_a_hung_ray_replica_is_replaced_and_its_serve_does_not_outlive_it(ray_cluster, engine, tmp_path, monkeypatch):
    ray = ray_cluster
    # A hung service never reads the EOF that ends it when its actor dies: the restart must
    # kill it, or every hang leaves a stopped `envroll serve` holding its port and memory.
    monkeypatch.setenv("ENVROLL_SERVE_COMMAND", f"node {REPO / 'packages' / 'cli' / 'bin' / 'envroll.mjs'}")
    cfg = tmp_path / "env.toml"
    cfg.write_text(f'model = "Qwen/Qwen3-0.6B"\n[taskset]\nid = "{REVERSE_TEXT}"\n')
    replica = RayReplica("ray-hung", str(cfg), None, num_cpus=1)
    old_pid = None
    try:
        old_pid = ray.get(replica.actor.serve_pid.remote(), timeout=60)
        os.kill(old_pid, signal.SIGSTOP)
        assert not replica.client.health(timeout=2.0)
        replica.restart(120.0)
        assert replica.client.health()
        assert ray.get(replica.actor.serve_pid.remote(), timeout=60) != old_pid
        deadline = time.monotonic() + 30
        while not _gone(old_pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _gone(old_pid), "the hung serve outlived its replaced actor"
    finally:
        replica.stop()
        if old_pid is not None and not _gone(old_pid):
            os.kill(old_pid, signal.SIGKILL)
