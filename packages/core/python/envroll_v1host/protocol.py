"""NDJSON over stdio, one JSON object per line, every request answered by id.

    envroll → host   {"id": 7, "op": "score", ...}
    host → envroll   {"id": 7, "result": ...}  or  {"id": 7, "error": {"type", "message", "traceback"}}
    host → envroll   {"cb": 3, "op": "runtime.run", "rollout": "…", ...}   (a callback: the
                     rollout's runtime lives in envroll, so Python reaches it through envroll)
    envroll → host   {"cb": 3, "result": ...}  or  {"cb": 3, "error": {...}}

Requests run concurrently as asyncio tasks, so one host serves every rollout of a run; a slow
hook in one rollout does not hold up another's stop check. Blocking work (`load()`, which may
read a dataset) runs in a thread.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any, Awaitable, Callable

from envroll_v1host import PROTOCOL_VERSION
from envroll_v1host.errors import error_record

Handler = Callable[["Host", dict], Awaitable[Any]]


class CallbackError(Exception):
    """envroll answered a callback with an error; keeps its type name (e.g. SandboxError)."""

    def __init__(self, record: dict) -> None:
        super().__init__(record.get("message", ""))
        self.record = record


class Host:
    def __init__(self, out) -> None:
        self._out = out
        self._next_cb = 0
        self._callbacks: dict[int, asyncio.Future] = {}
        self.state: dict[str, Any] = {}

    def send(self, obj: dict) -> None:
        # One write per line: concurrent tasks never interleave within a line.
        self._out.write(json.dumps(obj, ensure_ascii=False, allow_nan=True).encode() + b"\n")

    async def call(self, op: str, **payload: Any) -> Any:
        self._next_cb += 1
        n = self._next_cb
        fut = asyncio.get_running_loop().create_future()
        self._callbacks[n] = fut
        self.send({"cb": n, "op": op, **payload})
        return await fut

    def answer_callback(self, msg: dict) -> None:
        fut = self._callbacks.pop(msg["cb"], None)
        if fut is None or fut.done():
            return
        if "error" in msg:
            fut.set_exception(CallbackError(msg["error"]))
        else:
            fut.set_result(msg.get("result"))


def handlers() -> dict[str, tuple[Handler, str | None]]:
    from envroll_v1host import ops

    return ops.HANDLERS


async def hello(host: Host, req: dict) -> dict:
    return {
        "protocol": PROTOCOL_VERSION,
        "pid": os.getpid(),
        "python": sys.version.split()[0],
        "executable": sys.executable,
    }


async def handle(host: Host, req: dict, table: dict) -> None:
    rid = req.get("id")
    op = req.get("op")
    entry = table.get(op)
    if entry is None:
        host.send({"id": rid, "error": {"type": "ProtocolError", "message": f"unknown op {op!r}"}})
        return
    fn, boundary = entry
    try:
        result = await fn(host, req)
        host.send({"id": rid, "result": result})
    except CallbackError as e:
        host.send({"id": rid, "error": e.record})
    except Exception as e:  # every failure is an answer; the host itself keeps serving
        host.send({"id": rid, "error": error_record(e, boundary)})


async def serve(out) -> None:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=1 << 28)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    host = Host(out)
    table = {"hello": (hello, None), **handlers()}
    tasks: set[asyncio.Task] = set()
    while True:
        line = await reader.readline()
        if not line:
            break  # envroll went away: stdin closed
        if not line.strip():
            continue
        msg = json.loads(line)
        if "cb" in msg:
            host.answer_callback(msg)
            continue
        if msg.get("op") == "exit":
            break
        task = asyncio.create_task(handle(host, msg, table))
        tasks.add(task)
        task.add_done_callback(tasks.discard)
    for t in tasks:
        t.cancel()
