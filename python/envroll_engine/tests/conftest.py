"""Shared fixtures: engine subprocesses on free 127.0.0.1 ports and an in-process twin model.

The engine runs as a real `python -m envroll_engine` subprocess so the tests cover the CLI,
the HTTP layer and the cross-process determinism the e2e check relies on.
"""

from __future__ import annotations

import http.client
import json
import subprocess
import sys
import threading
import time
from urllib.parse import urlparse

import pytest

SEED = 0
STARTUP_TIMEOUT_S = 120


class EngineClient:
    def __init__(self, url: str):
        self.url = url
        u = urlparse(url)
        self.host, self.port = u.hostname, u.port

    def request(self, method: str, path: str, body=None, timeout: float = 120.0):
        """Returns (status, parsed JSON or raw text)."""
        conn = http.client.HTTPConnection(self.host, self.port, timeout=timeout)
        data = None if body is None else json.dumps(body)
        conn.request(method, path, body=data, headers={"Content-Type": "application/json"})
        resp = conn.getresponse()
        raw = resp.read().decode()
        conn.close()
        try:
            return resp.status, json.loads(raw) if raw else None
        except json.JSONDecodeError:
            return resp.status, raw

    def post(self, path: str, body=None, **kw):
        return self.request("POST", path, body if body is not None else {}, **kw)

    def get(self, path: str, **kw):
        return self.request("GET", path, **kw)

    def generate(self, body: dict, expect: int = 200):
        status, out = self.post("/generate", body)
        assert status == expect, (status, out)
        return out


class Spawned:
    """An engine subprocess that may still be starting; ready() waits for its listening line."""

    def __init__(self, *extra: str, weights: tuple[str, ...] = ("--tiny",)):
        cmd = [sys.executable, "-m", "envroll_engine", *weights, "--seed", str(SEED), "--port", "0", *extra]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self._line: list[str] = []
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self):
        for line in self.proc.stdout:  # keep draining so the child never blocks on a full pipe
            if not self._line and "listening on" in line:
                self._line.append(line.strip())

    def ready(self) -> EngineClient:
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while not self._line:
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.proc.kill()
                raise RuntimeError(f"engine did not start (rc={self.proc.returncode})")
            time.sleep(0.05)
        return EngineClient(self._line[0].rsplit(" ", 1)[-1])

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


@pytest.fixture(scope="session")
def _spawned():
    """Both engines start at once: their imports and model builds overlap on the two cores."""
    procs = {"engine": Spawned(), "trainee": Spawned("--weight-version", "0")}
    yield procs
    for p in procs.values():
        p.stop()


@pytest.fixture(scope="session")
def engine(_spawned):
    """Pristine tiny engine; tests using it must not change its weights."""
    return _spawned["engine"].ready()


@pytest.fixture(scope="session")
def trainee(_spawned):
    """Tiny engine whose weights the training tests move step by step."""
    return _spawned["trainee"].ready()


@pytest.fixture(scope="session")
def twin():
    """The same seeded tiny model loaded in this process, for teacher forcing."""
    import torch

    from envroll_engine.model import load

    torch.set_num_threads(1)  # as the engine and train_check default to; far faster on a busy box
    return load(model_dir=None, tiny=True, seed=SEED)


@pytest.fixture(scope="session")
def tokenizer(twin):
    return twin.tokenizer
