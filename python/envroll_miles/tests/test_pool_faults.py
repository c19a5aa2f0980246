"""The replica pool's own fault handling, on fake-environment services (fast, no engine):
streams the pool closes, the attempt fence, restarts that only count once /health answers, and
the per-replica metrics of a step.
"""

from __future__ import annotations

import threading

from conftest import needs_node

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
