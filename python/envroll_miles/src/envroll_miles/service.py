"""HTTP client of the envroll rollout service (standard library only).

``POST /rollout`` answers NDJSON: one line per finished group, then a summary line. Reading is
blocking (``http.client`` handles the chunked framing); the async rollout function reads through
``asyncio.to_thread`` so Miles' event loop keeps running. Closing a stream closes its socket,
which makes the service abort that request's in-flight episodes and engine requests.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import socket
import threading
import time
from typing import Any
from urllib.parse import urlsplit


class ServiceError(RuntimeError):
    def __init__(self, status: int, message: str):
        self.status = status
        super().__init__(f"envroll service answered {status}: {message}")


class RolloutStream:
    """One ``POST /rollout`` response. ``close()`` may come from any thread, also while another
    thread blocks in ``read_line``: it only shuts the socket down (the reader wakes at once) and
    leaves tearing down the response to whoever reads, so http.client's chunked reader never
    sees its file vanish under it. A reader of a closed stream gets None, whatever the broken
    read raised: a stream the caller hung up on is the caller's own doing, not a fault."""

    def __init__(self, conn: http.client.HTTPConnection, response: http.client.HTTPResponse):
        self._conn = conn
        self._response = response
        self._lock = threading.Lock()
        self._reading = False
        self._released = False
        self.closed = False
        #: The summary line, once read (None: not reached, or the stream broke off before it).
        self.summary: dict | None = None

    async def next_group(self) -> dict | None:
        """The next group line, read off the event loop; None at the summary (then kept on
        ``summary``) or at the end of the stream."""
        line = await asyncio.to_thread(self.read_line)
        if line is None:
            return None
        if line.get("type") == "summary":
            self.summary = line
            return None
        return line

    def read_line(self) -> dict | None:
        """The next line as a dict; None at the end of the stream, or once ``close`` was called
        (before or during the read). One reader at a time."""
        with self._lock:
            if self.closed:
                return None
            self._reading = True
        try:
            raw = self._response.readline()
        except Exception:
            if self.closed:
                return None
            raise
        finally:
            with self._lock:
                self._reading = False
                if self.closed:
                    self._release()
        if not raw or self.closed:
            return None
        return json.loads(raw)

    def close(self) -> None:
        """Hang up: the service aborts whatever this request still has in flight."""
        with self._lock:
            if self.closed:
                return
            self.closed = True
            sock = self._conn.sock
            try:
                if sock is not None:
                    sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            if not self._reading:
                self._release()

    def _release(self) -> None:
        """Closes the response and the connection; called with the lock held, by the reader
        (after its read) or by ``close`` when nobody reads."""
        if not self._released:
            self._released = True
            self._response.close()
            self._conn.close()


class ServiceClient:
    def __init__(self, url: str, token: str | None = None, timeout: float | None = None):
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"envroll_miles: bad service URL {url!r}")
        self.url = url.rstrip("/")
        self._parts = parts
        self._token = token
        # Rollouts can take long between two lines; only the connect is bounded by default.
        self._timeout = timeout

    def _connection(self, timeout: float | None) -> http.client.HTTPConnection:
        cls = http.client.HTTPSConnection if self._parts.scheme == "https" else http.client.HTTPConnection
        return cls(self._parts.hostname, self._parts.port, timeout=timeout)

    def _headers(self) -> dict:
        headers = {"content-type": "application/json", "accept": "application/x-ndjson"}
        if self._token:
            headers["authorization"] = f"Bearer {self._token}"
        return headers

    def _request(self, method: str, path: str, body: Any = None, timeout: float | None = 30.0):
        conn = self._connection(timeout)
        data = None if body is None else json.dumps(body).encode()
        conn.request(method, path, body=data, headers=self._headers())
        return conn, conn.getresponse()

    def _json(self, method: str, path: str, body: Any = None, timeout: float = 30.0) -> Any:
        conn, response = self._request(method, path, body, timeout=timeout)
        try:
            text = response.read().decode()
        finally:
            conn.close()
        payload = json.loads(text) if text else {}
        if response.status != 200:
            raise ServiceError(response.status, payload.get("error", text) if isinstance(payload, dict) else text)
        return payload

    def health(self, timeout: float = 30.0) -> bool:
        try:
            return self._json("GET", "/health", timeout=timeout).get("status") == "ok"
        except (OSError, ServiceError, ValueError, http.client.HTTPException):
            return False

    def wait_healthy(self, timeout: float = 120.0, process: Any = None) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.health():
                return
            if process is not None and process.poll() is not None:
                raise RuntimeError(f"envroll_miles: the rollout service exited with code {process.returncode}")
            time.sleep(0.1)
        raise TimeoutError(f"envroll_miles: the rollout service at {self.url} is not healthy after {timeout} s")

    def info(self) -> dict:
        return self._json("GET", "/info")

    def abort(self, rollout_id: int | None = None) -> int:
        body = {} if rollout_id is None else {"rollout_id": int(rollout_id)}
        return int(self._json("POST", "/abort", body).get("aborted", 0))

    def release(self, request_id: str, used: list[int]) -> list[int]:
        """Stops a train request and hands back every group it launched whose line is not among
        ``used`` (launch positions, ``seq``): still running, or delivered and never judged."""
        body = {"request_id": request_id, "used": [int(u) for u in used]}
        return list(self._json("POST", "/release", body)["released"])

    def open_rollout(self, body: dict) -> RolloutStream:
        conn, response = self._request("POST", "/rollout", body, timeout=self._timeout)
        if response.status != 200:
            text = response.read().decode()
            conn.close()
            try:
                message = json.loads(text).get("error", text)
            except ValueError:
                message = text
            raise ServiceError(response.status, message)
        return RolloutStream(conn, response)
