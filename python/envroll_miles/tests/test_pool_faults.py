"""The replica pool's own fault handling, on fake-environment services (fast, no engine):
streams the pool closes, the attempt fence, restarts that only count once /health answers, and
the per-replica metrics of a step.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

from conftest import REPO, fake_serve_command, needs_node
from helpers import task_indices, train

from envroll_miles.miles_types import load_types
from envroll_miles.settings import rollout_request

pytestmark = needs_node


def _slow_rollout_body(fn) -> dict:
    body = rollout_request(fn.args, 0, False, None, "start")
    body.pop("cursor", None)
    body["tasks"] = [{"task": 0, "slot": 0}]
    return body


def test_a_stream_closed_from_another_thread_ends_its_reader_quietly(fake_service):
    # The pool hangs up a replica's streams from the event loop while worker threads block
    # reading them; every such reader must end with None, never with an exception of its own.
    fn, _ = fake_service({"num_tasks": 2, "delay_ms": 60_000}, envroll_replicas=1, envroll_replica_concurrency=2)
    client = fn.pool.slots[0].replica.client
    outcomes: list[object] = []
    for _ in range(12):
        stream = client.open_rollout(_slow_rollout_body(fn))
        started = threading.Event()

        def read(stream=stream, started=started) -> None:
            started.set()
            try:
                outcomes.append(stream.read_line())
            except BaseException as err:  # noqa: BLE001 - the outcome under test
                outcomes.append(err)

        reader = threading.Thread(target=read)
        reader.start()
        started.wait(30)
        stream.close()
        reader.join(30)
        assert not reader.is_alive(), "the reader stayed blocked after close()"
    assert outcomes == [None] * 12


class _Gates:
    """Holds chosen group lines in the pool's reader threads, after they were read off a
    replica's stream and before the pool sees them: a replica that "comes back late"."""

    def __init__(self, fn, rules):
        self.fn = fn
        self.rules = rules  # (task, attempt) → callable(slot) run in the reader thread
        for slot in fn.pool.slots:
            self._wrap(slot)

    def _wrap(self, slot) -> None:
        client = slot.replica.client
        real_open = client.open_rollout

        def open_rollout(body):
            stream = real_open(body)
            key = (body["tasks"][0]["task"], int(body["request_id"].rsplit("-", 1)[1]))
            real_read = stream.read_line

            def read_line():
                line = real_read()
                if line is not None and line.get("type") == "group" and key in self.rules:
                    self.rules[key](slot)
                return line

            stream.read_line = read_line
            return stream

        client.open_rollout = open_rollout


def _wait(predicate, what: str, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


async def _step_killing_the_late_replica(fn, rollout_id: int, first_read: threading.Event, late: dict):
    """Runs a train step; once the held attempt has read its line, SIGKILLs that replica."""
    step = asyncio.ensure_future(fn(load_types().TrainInput(rollout_id=rollout_id)))
    assert await asyncio.to_thread(first_read.wait, 120), "the held attempt never read its line"
    os.killpg(late["slot"].replica.process.pid, signal.SIGKILL)
    return await step


def test_a_replica_that_comes_back_late_cannot_deliver_a_reissued_group(fake_service):
    # Task 0's first attempt has its group in hand when its replica is killed; the health check
    # declares the replica dead, task 0 is re-issued and delivered by another replica, and only
    # then does the first attempt hand its line over: it must be fenced, not delivered twice.
    # Task 2 is held until that happened, so the late line lands while the step still collects.
    fn, _ = fake_service(
        {"num_tasks": 6, "delay_ms": 50}, envroll_replicas=3, envroll_replica_concurrency=2,
        rollout_batch_size=3, n_samples_per_prompt=2, envroll_health_timeout=3.0,
    )  # fmt: skip
    first_read, second_read = threading.Event(), threading.Event()
    late: dict = {}

    def first(slot):
        late["slot"] = slot
        first_read.set()
        assert second_read.wait(120), "task 0 was never re-issued"
        late["step_open"] = not fn.pool.current.cancelled

    def held(_slot):
        _wait(lambda: fn.pool.current.fenced >= 1, "the late line to be fenced")

    _Gates(fn, {(0, 0): first, (0, 1): lambda _s: second_read.set(), (2, 0): held})

    async def run():
        out = await _step_killing_the_late_replica(fn, 0, first_read, late)
        await fn.pool.wait_restarts(120.0)
        return out

    out = asyncio.run(run())
    m = out.metrics
    victim = late["slot"].index
    assert late["step_open"] is True
    assert task_indices(out.samples) == [0, 1, 2]
    assert m["envroll/groups_delivered"] == 3.0
    assert m["envroll/groups_reissued"] == 1.0
    assert m["envroll/groups_fenced"] == 1.0
    assert m[f"envroll/replica/{victim}/faults"] == 1.0
    assert m[f"envroll/replica/{victim}/groups"] == 0.0  # its late line did not count
    assert sum(m[f"envroll/replica/{i}/groups"] for i in range(3)) == 3.0
    assert fn.pool.slots[victim].alive


def test_a_line_from_an_earlier_step_is_fenced_in_the_next(fake_service):
    # One event loop for both steps, as under Miles: step 0's first attempt at task 0 comes back
    # only once step 1 is collecting (whose first group is task 3, launch position 0 as well).
    fn, _ = fake_service(
        {"num_tasks": 6, "delay_ms": 50}, envroll_replicas=2, envroll_replica_concurrency=2,
        rollout_batch_size=3, n_samples_per_prompt=2, envroll_health_timeout=3.0,
    )  # fmt: skip
    first_read = threading.Event()
    late: dict = {}
    dispatches: list = []
    real_dispatch = fn.pool.dispatch
    fn.pool.dispatch = lambda body, step: dispatches.append(real_dispatch(body, step)) or dispatches[-1]

    def first(slot):
        late["slot"] = slot
        first_read.set()
        _wait(lambda: len(dispatches) == 2, "step 1 to start")

    _Gates(fn, {(0, 0): first})

    async def run():
        out0 = await _step_killing_the_late_replica(fn, 0, first_read, late)
        out1 = await fn(load_types().TrainInput(rollout_id=1))
        await asyncio.to_thread(_wait, lambda: dispatches[0].fenced >= 1, "the late line to be fenced")
        await fn.pool.wait_restarts(120.0)
        return out0, out1

    out0, out1 = asyncio.run(run())
    assert task_indices(out0.samples) == [0, 1, 2]
    assert task_indices(out1.samples) == [3, 4, 5]
    assert out1.metrics["envroll/groups_delivered"] == 3.0
    assert dispatches[0].fenced >= 1 and dispatches[1].fenced == 0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _fake_serve(cfg: Path, port: int) -> subprocess.Popen:
    cmd = [*fake_serve_command().split(), "serve", str(cfg), "--port", str(port)]
    return subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.DEVNULL, start_new_session=True)


def test_a_replica_is_alive_again_only_once_it_answers_health_and_a_failed_restart_is_retried(fake_service, tmp_path):
    cfg = tmp_path / "fake.json"
    cfg.write_text(json.dumps({"num_tasks": 6, "delay_ms": 300}))
    ports = [_free_port(), _free_port()]
    procs = [_fake_serve(cfg, p) for p in ports]
    try:
        fn, _ = fake_service(
            None, envroll_url=",".join(f"http://127.0.0.1:{p}" for p in ports), envroll_replica_concurrency=2,
            rollout_batch_size=4, n_samples_per_prompt=2,
        )  # fmt: skip
        pool = fn.pool
        pool.restart_timeout = 2.0  # a service that is not back in 2 s: this restart gives up
        types = load_types()

        async def step0():
            step = asyncio.ensure_future(fn(types.TrainInput(rollout_id=0)))
            await asyncio.to_thread(_wait, lambda: pool.slots[1].in_flight > 0, "replica 1 to run a group")
            os.killpg(procs[1].pid, signal.SIGKILL)
            out = await step
            await pool.wait_restarts(120.0)
            return out

        out0 = asyncio.run(step0())
        assert task_indices(out0.samples) == [0, 1, 2, 3]
        assert out0.metrics["envroll/replica/1/faults"] == 1.0
        # Nobody answers on its URL: the restart gave up and the slot stays out of the rotation.
        assert not pool.slots[1].alive
        out1 = train(fn, 1)
        assert task_indices(out1.samples) == [4, 5, 0, 1]
        assert out1.metrics["envroll/replica/1/groups"] == 0.0
        asyncio.run(pool.wait_restarts(120.0))  # the step's own try gives up as well
        assert not pool.slots[1].alive
        procs[1].wait(10)
        procs[1] = _fake_serve(cfg, ports[1])
        _wait(pool.slots[1].replica.client.health, "the service to come back on its port")
        # The next step tries the restart again; the slot is back once /health answers.
        out2 = train(fn, 2)
        assert task_indices(out2.samples) == [2, 3, 4, 5]
        asyncio.run(pool.wait_restarts(120.0))
        assert pool.slots[1].alive and pool.slots[1].replica.client.health()
        out3 = train(fn, 3)
        assert out3.metrics["envroll/replica/1/groups"] >= 1.0
        assert out3.metrics["envroll/replicas_alive"] == 2.0
    finally:
        for p in procs:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait(10)


def test_per_replica_metrics_are_in_the_step_metrics(fake_service):
    delay_ms = 120
    fn, _ = fake_service(
        {"num_tasks": 8, "delay_ms": delay_ms, "error_tasks": [1, 4]}, envroll_replicas=2,
        envroll_replica_concurrency=4, rollout_batch_size=4, n_samples_per_prompt=2,
    )  # fmt: skip
    m = train(fn, 0).metrics
    groups = [m[f"envroll/replica/{i}/groups"] for i in range(2)]
    errors = [m[f"envroll/replica/{i}/errors"] for i in range(2)]
    # 4 kept + the 2 errored (dropped); lines that arrive after the step is full are counted by
    # their replica but never judged.
    assert sum(groups) >= m["envroll/groups_delivered"] >= 6
    assert sum(errors) == m["rollout/dynamic_filter/drop_trace_error"] == 2
    for i in range(2):
        p = f"envroll/replica/{i}/"
        assert m[p + "alive"] == 1.0 and m[p + "faults"] == 0.0
        assert 0.0 <= m[p + "in_flight"] <= 2.0  # capacity: concurrency 4 / n 2
        assert 1.0 <= m[p + "in_flight_max"] <= 2.0
        if groups[i]:
            # A group takes at least the environment's delay; p99 is never below p50.
            assert delay_ms / 1000 <= m[p + "group_time_p50_s"] <= m[p + "group_time_p99_s"]
    assert m["envroll/replicas_alive"] == 2.0
