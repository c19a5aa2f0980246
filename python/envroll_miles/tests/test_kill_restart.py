"""The rollout service dies in the middle of a train step (SIGKILL, or SIGTERM from a supervisor),
and the trainer restarts from its checkpoint the way Miles does: a new EnvrollRolloutFn, a new
`envroll serve` on the same state dir, the interrupted step run again.

Real `envroll serve`, real environment (reverse-text), the built-in engine slowed per token so the
kill lands while groups are in flight. Across the steps that completed, every task is trained
exactly once and none is skipped — the persisted cursor, not `rollout_id × batch_size`, decides.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
import urllib.request

import pytest
from conftest import REPO, REVERSE_TEXT, needs_node
from helpers import assert_batch, spawn_engine, task_indices, train

from envroll_miles.miles_defaults import EmptyDataSource, miles_args
from envroll_miles.miles_types import load_types

pytestmark = needs_node

BIN = REPO / "packages" / "cli" / "bin" / "envroll.mjs"


@pytest.fixture(scope="module")
def engine():
    yield from spawn_engine(token_latency_ms=10)


def engine_in_flight(url: str) -> int:
    with urllib.request.urlopen(f"{url}/engine_stats", timeout=5) as r:
        return int(json.load(r)["inFlight"])


@pytest.fixture
def trainer(engine, tmp_path, monkeypatch):
    """make() → a fresh EnvrollRolloutFn (and its own `envroll serve`) on one shared state dir."""
    monkeypatch.chdir(REPO)
    monkeypatch.setenv("ENVROLL_SERVE_COMMAND", f"node {BIN}")
    for var in ("ENVROLL_URL", "ENVROLL_CONFIG", "ENVROLL_STATE_DIR"):
        monkeypatch.delenv(var, raising=False)
    cfg = tmp_path / "env.toml"
    cfg.write_text(f'model = "Qwen/Qwen3-0.6B"\nnum_tasks = 40\n[taskset]\nid = "{REVERSE_TEXT}"\n')
    host, port = engine.removeprefix("http://").split(":")
    made = []

    def make():
        from envroll_miles import EnvrollRolloutFn

        args = miles_args(
            rollout_global_dataset=False, envroll_config=str(cfg), envroll_state_dir=str(tmp_path / "state"),
            sglang_router_ip=host, sglang_router_port=int(port), rollout_batch_size=3, n_samples_per_prompt=2,
            sglang_server_concurrency=6, num_rollout=10, rollout_max_response_len=512, rollout_temperature=1.0,
        )  # fmt: skip
        fn = EnvrollRolloutFn(load_types().ConstructorInput(args=args, data_source=EmptyDataSource()))
        made.append(fn)
        return fn

    yield make
    for fn in made:
        fn.dispose()


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_serve_killed_mid_step_then_restarted_runs_every_task_once(trainer, engine, sig):
    fn = trainer()
    trained = task_indices(train(fn, 0).samples)

    # Step 1 runs in the background; the service is killed while its groups are in flight.
    outcome: dict = {}

    def step1() -> None:
        try:
            outcome["batch"] = train(fn, 1)
        except BaseException as err:  # noqa: BLE001 — whatever it is, it must not be a batch
            outcome["error"] = err

    worker = threading.Thread(target=step1)
    worker.start()
    deadline = time.monotonic() + 60
    while engine_in_flight(engine) == 0:
        assert time.monotonic() < deadline, "step 1 never reached the engine"
        time.sleep(0.01)
    proc = fn.process._proc
    os.kill(proc.pid, sig)
    worker.join(60)
    assert not worker.is_alive(), "the trainer hung on a dead service"
    assert "error" in outcome, "a step whose service died returned a batch"
    assert proc.wait(30) == (-signal.SIGKILL if sig == signal.SIGKILL else 143)
    fn.dispose()

    # Miles restarts from the step-0 checkpoint: step 1 again, then step 2, on a new service.
    fn2 = trainer()
    for step in (1, 2):
        out = train(fn2, step)
        assert_batch(out.samples, 3, 2)
        trained += task_indices(out.samples)
    assert len(trained) == len(set(trained)), f"a task was trained twice: {trained}"
    assert sorted(trained) == list(range(9)), f"a task was skipped: {sorted(trained)}"
    # Nothing of the killed step is left running on the engine.
    deadline = time.monotonic() + 10
    while engine_in_flight(engine) > 0:
        assert time.monotonic() < deadline, "requests of the killed service still run on the engine"
        time.sleep(0.05)
