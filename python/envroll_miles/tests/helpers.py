"""Small assertions shared by the test files."""

from __future__ import annotations

import asyncio
import re
import subprocess
import threading
import time

from conftest import REPO

from envroll_miles.miles_types import load_types
from envroll_miles.samples import envroll_meta, flatten


def train(fn, rollout_id: int):
    types = load_types()
    return asyncio.run(fn(types.TrainInput(rollout_id=rollout_id)))


def evaluate(fn, rollout_id: int):
    types = load_types()
    return asyncio.run(fn(types.EvalInput(rollout_id=rollout_id)))


def task_indices(groups) -> list[int]:
    return [envroll_meta(flatten(g)[0])["task_index"] for g in groups]


def assert_batch(groups, batch: int, n: int) -> None:
    """Miles' batch invariants: shape, unique indices, one group_index per group, aligned arrays."""
    types = load_types()
    assert len(groups) == batch
    indices = []
    for g in groups:
        assert len(g) == n
        samples = flatten(g)
        assert len({s.group_index for s in samples}) == 1
        for s in samples:
            assert isinstance(s, types.Sample)
            assert isinstance(s.status, types.Status)
            assert s.status.value in ("completed", "truncated", "failed")
            assert len(s.loss_mask) == len(s.rollout_log_probs) == s.response_length
            assert len(s.tokens) >= s.response_length
            indices.append(s.index)
    assert len(indices) == len(set(indices))
    assert len({flatten(g)[0].group_index for g in groups}) == batch


def wait_idle(client, timeout: float = 10.0) -> None:
    """Until the service has no active request (an aborted stream winds down asynchronously)."""
    deadline = time.monotonic() + timeout
    while client.info()["active_requests"] > 0:
        assert time.monotonic() < deadline, "the service kept an active request"
        time.sleep(0.02)


def spawn_engine(token_latency_ms: int):
    """Generator for a module fixture: the built-in engine (reference policy) on a free port, slowed
    per token so that aborts land on requests really in flight; yields its URL, stops it after."""
    cmd = ["node", str(REPO / "packages" / "cli" / "bin" / "envroll.mjs"), "engine", "--port", "0", "--policy", "reference",
           "--token-latency-ms", str(token_latency_ms)]  # fmt: skip
    proc = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.PIPE, text=True, start_new_session=True)
    assert proc.stdout is not None
    url = None
    for line in proc.stdout:
        m = re.search(r"listening on (http://\S+)", line)
        if m:
            url = m.group(1)
            break
    assert url, "the engine did not start"
    # Keep draining stdout so the engine never blocks on a full pipe.
    threading.Thread(target=lambda: [None for _ in proc.stdout], daemon=True).start()
    yield url
    proc.terminate()
    proc.wait(10)
