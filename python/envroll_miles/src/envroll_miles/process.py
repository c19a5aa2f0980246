"""Start the envroll rollout service as a child process, or find the one to connect to.

The service is TypeScript (``envroll serve``). Command resolution, first match wins:
``ENVROLL_SERVE_COMMAND`` (e.g. ``node /opt/envroll/packages/cli/bin/envroll.mjs``); ``ENVROLL_HOME``
(a checkout: ``node $ENVROLL_HOME/packages/cli/bin/envroll.mjs``); the checkout this package sits in (an
editable install from ``python/envroll_miles``); else ``npx envroll``.
"""

from __future__ import annotations

import atexit
import os
import re
import shlex
import shutil
import subprocess
import sys
import threading
from pathlib import Path

from .service import ServiceClient

_URL_RE = re.compile(r"listening on (http://\S+)")


def serve_command() -> list[str]:
    explicit = os.environ.get("ENVROLL_SERVE_COMMAND")
    if explicit:
        return shlex.split(explicit)
    home = os.environ.get("ENVROLL_HOME")
    candidates = [Path(home)] if home else []
    candidates.append(Path(__file__).resolve().parents[4])  # <repo>/python/envroll_miles/src/envroll_miles
    for root in candidates:
        launcher = root / "packages" / "cli" / "bin" / "envroll.mjs"
        if launcher.is_file():
            return [shutil.which("node") or "node", str(launcher)]
    return [shutil.which("npx") or "npx", "envroll"]


class ServiceProcess:
    """A running ``envroll serve`` child; ``stop()`` (also at interpreter exit) ends it."""

    def __init__(
        self,
        config: str,
        state_dir: str | None = None,
        eval_config: str | None = None,
        startup_timeout: float = 180.0,
        host: str = "127.0.0.1",
        token: str | None = None,
    ):
        cmd = [*serve_command(), "serve", str(config), "--host", host, "--port", "0"]
        if token:
            cmd += ["--token", token]
        if state_dir:
            cmd += ["--state-dir", str(state_dir)]
        if eval_config:
            cmd += ["--eval-config", str(eval_config)]
        # The child exits when this pipe closes, so a SIGKILLed trainer leaves no orphan service.
        cmd.append("--exit-with-stdin")
        self.command = cmd
        self._proc = subprocess.Popen(
            cmd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=None,  # the service's log goes to the trainer's stderr
            text=True,
            start_new_session=True,
        )
        self.url = self._await_url(startup_timeout)
        # Keep draining stdout so the child never blocks on a full pipe.
        threading.Thread(target=self._forward, daemon=True).start()
        self.client = ServiceClient(self.url, token=token)
        self.client.wait_healthy(startup_timeout, process=self._proc)
        atexit.register(self.stop)

    def _await_url(self, timeout: float) -> str:
        found: list[str] = []
        lines: list[str] = []

        def scan() -> None:
            assert self._proc.stdout is not None
            for line in self._proc.stdout:
                lines.append(line)
                m = _URL_RE.search(line)
                if m:
                    found.append(m.group(1).rstrip("/"))
                    return

        reader = threading.Thread(target=scan, daemon=True)
        reader.start()
        reader.join(timeout)
        if not found:
            self.stop()
            raise RuntimeError(
                "envroll_miles: `" + " ".join(self.command) + "` did not report its URL"
                + (f"; output: {''.join(lines)[-2000:]}" if lines else "")
            )
        return found[0]

    def _forward(self) -> None:
        assert self._proc.stdout is not None
        for line in self._proc.stdout:
            sys.stderr.write(f"[envroll serve] {line}")

    @property
    def pid(self) -> int:
        return self._proc.pid

    def alive(self) -> bool:
        return self._proc.poll() is None

    def stop(self, timeout: float = 15.0) -> None:
        if self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
