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


def start_engine(*extra: str) -> tuple[subprocess.Popen, EngineClient]:
    cmd = [sys.executable, "-m", "envroll_engine", "--tiny", "--seed", str(SEED), "--port", "0", *extra]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    line_box: list[str] = []

    def read_first_line():
        for line in proc.stdout:  # keep draining so the child never blocks on a full pipe
            if not line_box and "listening on" in line:
                line_box.append(line.strip())

    threading.Thread(target=read_first_line, daemon=True).start()
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while not line_box:
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise RuntimeError(f"engine did not start (rc={proc.returncode})")
        time.sleep(0.05)
    return proc, EngineClient(line_box[0].rsplit(" ", 1)[-1])


def stop_engine(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()


@pytest.fixture(scope="session")
def engine():
    """Pristine tiny engine; tests using it must not change its weights."""
    proc, client = start_engine()
    yield client
    stop_engine(proc)


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

