"""Engine subprocesses on free 127.0.0.1 ports, for the fixtures in conftest.py and for test modules.

A module of its own, not conftest.py: pytest runs these tests in one session with
python/envroll_miles/tests, whose conftest.py is also imported as `conftest`, so `from conftest
import …` here would get whichever was loaded last.
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
# The mark of every test file that uses the session's engines or twin model (conftest.py): the
# repo's conftest.py keeps a group on one xdist worker, so those start once, not once per worker.
SHARES_SESSION_ENGINES = pytest.mark.xdist_group("tiny-engines")
# npm test runs pytest beside several node test files, so an engine's torch import can wait a
# long time for a core on a busy 2-core machine: three start-ups passed 120 s at load ~16.
STARTUP_TIMEOUT_S = 300


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
