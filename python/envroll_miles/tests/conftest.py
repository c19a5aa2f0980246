"""Shared fixtures.

``fake_service`` runs the real TypeScript rollout service (real HTTP, real cursor) over a fake
environment (test/service/fake-serve.ts), so these tests need Node and the repo's node_modules
but neither the environment runtime nor an engine. The end-to-end test against the real
environment and the built-in engine lives in test_e2e_engine.py.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from functools import cache
from pathlib import Path

import pytest

import miles_stub
from envroll_miles.miles_defaults import EmptyDataSource, miles_args
from envroll_miles.miles_types import load_types, reset_types_cache

REPO = Path(__file__).resolve().parents[3]
FAKE_SERVE = REPO / "test" / "service" / "fake-serve.ts"
# The built-in tasksets by id, as a Miles user names them: `envroll serve` runs them from its
# bundle (~0.45 s of CPU to its listening line). Named by path (packages/core/src/tasksets/*/index.ts)
# the same code loaded through tsx with the core sources it imports, ~0.9 s per start, and these
# tests start ~20 services. FLAKY stays a TypeScript file named by path, the way a user's own
# taskset is loaded.
REVERSE_TEXT = "reverse-text"
TOOL_MATH = "tool-math"
CODE_GOLF = "code-golf"
FLAKY = REPO / "test" / "service" / "flaky-taskset.ts"


@cache
def fake_serve_command() -> str:
    """`node <fake-serve bundled>`: these tests start ~65 fake services, and the bundle
    (scripts/bundle-program.mjs, made afresh once per pytest process) starts in about half the CPU
    of the sources under the suite's TypeScript loader (~0.28 s against ~0.5 s)."""
    out = subprocess.run(["node", str(REPO / "scripts" / "bundle-program.mjs"), str(FAKE_SERVE)], cwd=REPO,
                         capture_output=True, text=True, check=True)  # fmt: skip
    return f"node {out.stdout.strip()}"


needs_node = pytest.mark.skipif(
    shutil.which("node") is None or not (REPO / "node_modules" / "tsx").is_dir(),
    reason="needs node and the repo's node_modules (npm ci)",
)


@pytest.fixture(autouse=True)
def miles_package():
    """Every test sees Miles' module paths (backed by stand-ins); see miles_stub.py."""
    miles_stub.install()
    yield
    miles_stub.uninstall()


@pytest.fixture
def fake_service(tmp_path, monkeypatch):
    """Returns make(fake_cfg, **miles_overrides) → (EnvrollRolloutFn, args); disposes them after."""
    monkeypatch.chdir(REPO)
    monkeypatch.setenv("ENVROLL_SERVE_COMMAND", fake_serve_command())
    for var in ("ENVROLL_URL", "ENVROLL_CONFIG", "ENVROLL_DUMP_DIR", "ENVROLL_STATE_DIR"):
        monkeypatch.delenv(var, raising=False)
    made = []

    def make(fake: dict | None = None, **overrides):
        from envroll_miles import EnvrollRolloutFn

        cfg = tmp_path / f"fake{len(made)}.json"
        cfg.write_text(json.dumps(fake or {}))
        values = dict(
            rollout_global_dataset=False,
            envroll_config=str(cfg),
            envroll_state_dir=str(tmp_path / "state"),
            sglang_router_ip="127.0.0.1",
            sglang_router_port=9,
            rollout_batch_size=2,
            n_samples_per_prompt=2,
            num_rollout=10,
        )
        values.update(overrides)
        args = miles_args(**values)
        types = load_types()
        fn = EnvrollRolloutFn(types.ConstructorInput(args=args, data_source=EmptyDataSource()))
        made.append(fn)
        return fn, args

    yield make
    for fn in made:
        fn.dispose()
    reset_types_cache()


@pytest.fixture(scope="module")
def engine():
    """The built-in engine (reference policy) for the end-to-end tests."""
    from helpers import spawn_engine  # helpers imports this module

    yield from spawn_engine(token_latency_ms=2)


@pytest.fixture
def real_service(engine, tmp_path, monkeypatch):
    """Returns make(taskset, num_tasks, env_toml, **miles_overrides) → (EnvrollRolloutFn, args) over
    the real `envroll serve` (real environment, renderer, transport) and the built-in engine;
    `env_toml`: top-level env.toml lines (before the [taskset] table)."""
    monkeypatch.chdir(REPO)
    monkeypatch.setenv("ENVROLL_SERVE_COMMAND", f"node {REPO / 'packages' / 'cli' / 'bin' / 'envroll.mjs'}")
    made = []

    def make(taskset: str | Path = REVERSE_TEXT, num_tasks: int | None = None, env_toml: str = "", **overrides):
        cfg = tmp_path / f"env{len(made)}.toml"
        extra = (f"num_tasks = {num_tasks}\n" if num_tasks else "") + env_toml
        cfg.write_text(f'model = "Qwen/Qwen3-0.6B"\n{extra}[taskset]\nid = "{taskset}"\n')
        host, port = engine.removeprefix("http://").split(":")
        values = dict(
            rollout_global_dataset=False, envroll_config=str(cfg),
            envroll_state_dir=str(tmp_path / "state"), sglang_router_ip=host, sglang_router_port=int(port),
            rollout_batch_size=2, n_samples_per_prompt=4, num_rollout=10, rollout_max_response_len=512,
            rollout_temperature=1.0,
        )  # fmt: skip
        values.update(overrides)
        args = miles_args(**values)
        from envroll_miles import EnvrollRolloutFn

        fn = EnvrollRolloutFn(load_types().ConstructorInput(args=args, data_source=EmptyDataSource()))
        made.append(fn)
        return fn, args

    yield make
    for fn in made:
        fn.dispose()
