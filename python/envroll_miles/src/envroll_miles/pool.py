"""Groups spread over several rollout-service replicas, by load, surviving replica faults.

Every group is its own ``POST /rollout`` carrying ``tasks: [{task, slot}]``: the Python side owns
the cursor and a replica only runs what it is handed. A group goes to the live replica with the
fewest groups in flight (below its capacity); every replica calls the same SGLang router with the
per-rollout routing key, so a rollout's turns stay on one engine whichever replica runs it.

Faults: a broken stream, a refused connection, a 5xx, a stream that ends without its group (a
service shutting down), or ``/health`` failing for ``health_timeout`` seconds (a hung replica)
mark the replica dead. Its unfinished groups are re-issued at once to the others with a new
attempt number, and it is restarted in the background. Each result is checked against its
group's current attempt before it is accepted (the fence): a replica that comes back late with a
re-issued group is ignored, so a group is delivered at most once per step.
"""

from __future__ import annotations

import asyncio
import heapq
import http.client
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from .replicas import Replica
from .service import RolloutStream, ServiceError

# One group re-issued this often means the group kills replicas, not bad luck.
MAX_ATTEMPTS = 5


@dataclass(order=True)
class Work:
    seq: int
    task: int = field(compare=False)
    slot: int = field(compare=False)
    attempt: int = field(default=0, compare=False)
    done: bool = field(default=False, compare=False)


class ReplicaFault(RuntimeError):
    pass


@dataclass
class ReplicaSlot:
    index: int
    replica: Replica
    capacity: int
    alive: bool = True
    in_flight: int = 0
    unhealthy_since: float | None = None
    running: dict = field(default_factory=dict)  # (seq, attempt) → open stream (or None while opening)
    stats: dict = field(default_factory=lambda: {"groups": 0, "errors": 0, "faults": 0, "restarts": 0, "in_flight_max": 0})
    times: list = field(default_factory=list)


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


class ReplicaPool:
    def __init__(self, replicas: list[Replica], group_capacity: int, health_timeout: float = 30.0,
                 health_interval: float = 1.0, restart_timeout: float = 180.0):  # fmt: skip
        if not replicas:
            raise ValueError("envroll_miles: a replica pool needs at least one replica")
        self.slots = [ReplicaSlot(i, r, max(1, group_capacity)) for i, r in enumerate(replicas)]
        self.health_timeout = health_timeout
        self.health_interval = health_interval
        self.restart_timeout = restart_timeout
        workers = sum(s.capacity for s in self.slots) + 2 * len(self.slots) + 4
        self.executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="envroll-replica")
        self._restarting: dict[int, asyncio.Future] = {}
        #: The dispatch a restarted replica is handed to (one step runs at a time).
        self.current: Dispatch | None = None

    @property
    def client(self):
        return self.slots[0].replica.client

    def dispatch(self, body: dict, step: str) -> Dispatch:
        self.current = Dispatch(self, body, step)
        return self.current

    def stop(self) -> None:
        for s in self.slots:
            for stream in list(s.running.values()):
                if stream is not None:
                    stream.close()
            s.replica.stop()
        self.executor.shutdown(wait=False, cancel_futures=True)

    def reset_stats(self) -> None:
        for s in self.slots:
            s.stats.update(groups=0, errors=0, faults=0, restarts=0, in_flight_max=s.in_flight)
            s.times.clear()

    def metrics(self) -> dict:
        out: dict[str, float] = {}
        for s in self.slots:
            p = f"envroll/replica/{s.index}/"
            for k, v in s.stats.items():
                out[p + k] = float(v)
            out[p + "in_flight"] = float(s.in_flight)
            out[p + "alive"] = 1.0 if s.alive else 0.0
            out[p + "group_time_p50_s"] = _percentile(s.times, 0.5)
            out[p + "group_time_p99_s"] = _percentile(s.times, 0.99)
        out["envroll/replicas_alive"] = float(sum(s.alive for s in self.slots))
        return out

    def declare_dead(self, slot: ReplicaSlot, why: str, dispatch: Dispatch | None) -> None:
        if not slot.alive:
            return
        slot.alive = False
        slot.stats["faults"] += 1
        print(f"envroll_miles: replica {slot.replica.name} failed ({why}); re-issuing its groups, restarting it", flush=True)
        for stream in list(slot.running.values()):
            if stream is not None:
                stream.close()
        if dispatch is not None:
            dispatch.reissue_from(slot)
        loop = asyncio.get_running_loop()
        self._restarting[slot.index] = loop.create_task(self._restart(slot))

    async def _restart(self, slot: ReplicaSlot) -> None:
        loop = asyncio.get_running_loop()
        try:
            await loop.run_in_executor(self.executor, slot.replica.restart, self.restart_timeout)
        except Exception as err:  # noqa: BLE001 - reported; the others carry on
            print(f"envroll_miles: replica {slot.replica.name} did not restart: {err}", flush=True)
            self._restarting.pop(slot.index, None)
            if self.current is not None:
                self.current.check_any_alive()
            return
        self._restarting.pop(slot.index, None)
        slot.alive = True
        slot.unhealthy_since = None
        slot.stats["restarts"] += 1
        if self.current is not None:
            self.current.pump()

    async def wait_restarts(self, timeout: float) -> None:
        """Lets a restart under way finish (tests, shutdown); never raises."""
        pending = list(self._restarting.values())
        if pending:
            await asyncio.wait(pending, timeout=timeout)


class Dispatch:
    """The groups of one step (or eval pass): ``submit`` them, ``next()`` the delivered ones in
    completion order, ``cancel()`` what is left once the step has enough."""

    def __init__(self, pool: ReplicaPool, body: dict, step: str):
        self.pool = pool
        self.body = body
        self.step = step
        self.loop = asyncio.get_running_loop()
        self.pending: list[Work] = []
        self.out: asyncio.Queue = asyncio.Queue()
        self.cancelled = False
        self.fenced = 0
        self.reissued = 0
        self.works: dict[int, Work] = {}
        self._health = self.loop.create_task(self._watch_health())

    def submit(self, work: Work) -> None:
        self.works[work.seq] = work
        heapq.heappush(self.pending, work)
        self.pump()

    async def next(self) -> tuple[Work, dict]:
        item = await self.out.get()
        if isinstance(item, BaseException):
            raise item
        return item

    def cancel(self) -> None:
        self.cancelled = True
        self.pending.clear()
        self._health.cancel()
        for s in self.pool.slots:
            for stream in list(s.running.values()):
                if stream is not None:
                    stream.close()

    def _pick(self) -> ReplicaSlot | None:
        free = [s for s in self.pool.slots if s.alive and s.in_flight < s.capacity]
        return min(free, key=lambda s: (s.in_flight / s.capacity, s.in_flight, s.index)) if free else None

    def pump(self) -> None:
        while self.pending and not self.cancelled:
            slot = self._pick()
            if slot is None:
                self.check_any_alive()
                return
            work = heapq.heappop(self.pending)
            slot.in_flight += 1
            slot.stats["in_flight_max"] = max(slot.stats["in_flight_max"], slot.in_flight)
            key = (work.seq, work.attempt)
            slot.running[key] = None
            self.loop.create_task(self._run(slot, work, work.attempt))

    def check_any_alive(self) -> None:
        if any(s.alive for s in self.pool.slots) or self.pool._restarting or self.cancelled:
            return
        self.out.put_nowait(RuntimeError(f"envroll_miles: {self.step}: every rollout-service replica is down"))

    def reissue_from(self, slot: ReplicaSlot) -> None:
        for seq, _attempt in list(slot.running):
            work = self.works.get(seq)
            if work is not None and not work.done:
                self._retry(work)

    def _retry(self, work: Work) -> None:
        work.attempt += 1
        self.reissued += 1
        if work.attempt >= MAX_ATTEMPTS:
            self.out.put_nowait(RuntimeError(
                f"envroll_miles: {self.step}: task {work.task} failed on {work.attempt} replicas in a row"))  # fmt: skip
            return
        heapq.heappush(self.pending, work)

    async def _run(self, slot: ReplicaSlot, work: Work, attempt: int) -> None:
        started = time.monotonic()
        key = (work.seq, attempt)
        try:
            kind, value = await self.loop.run_in_executor(self.pool.executor, self._attempt, slot, work, attempt)
        finally:
            slot.running.pop(key, None)
            slot.in_flight -= 1
        current = not self.cancelled and not work.done and work.attempt == attempt
        if not current:
            self.fenced += 1  # re-issued meanwhile, or the step is over: never delivered twice
        elif kind == "line":
            work.done = True
            slot.stats["groups"] += 1
            if value.get("drop_reason"):
                slot.stats["errors"] += 1
            slot.times.append(time.monotonic() - started)
            self.out.put_nowait((work, value))
        elif kind == "fatal":
            self.out.put_nowait(value)
        else:
            # Its other groups are re-issued by declare_dead; this one has left `running` already.
            self.pool.declare_dead(slot, str(value), self)
            self._retry(work)
        self.pump()

    def _attempt(self, slot: ReplicaSlot, work: Work, attempt: int) -> tuple[str, Any]:
        """Blocking, in a worker thread: one group on one replica → ("line"|"fault"|"fatal", …)."""
        body = dict(self.body)
        body["tasks"] = [{"task": work.task, "slot": work.slot}]
        body["request_id"] = f"{self.step}-{work.seq}-{attempt}"
        key = (work.seq, attempt)
        try:
            stream: RolloutStream = slot.replica.client.open_rollout(body)
        except ServiceError as err:
            return ("fault" if err.status >= 500 else "fatal", err)
        except (OSError, http.client.HTTPException) as err:
            return ("fault", err)
        slot.running[key] = stream
        if self.cancelled or work.attempt != attempt:
            stream.close()
        group = None
        try:
            while (line := stream.read_line()) is not None:
                if line.get("type") == "summary":
                    if group is None and line.get("error"):
                        return ("fatal", RuntimeError(f"envroll_miles: the rollout service stopped {self.step}: {line['error']}"))
                    break
                group = line
        except (OSError, http.client.HTTPException, ValueError) as err:
            if group is None:
                return ("fault", err)
        finally:
            stream.close()
        if group is None:
            return ("fault", ReplicaFault("the stream ended without the group"))
        return ("line", group)

    async def _watch_health(self) -> None:
        """A replica whose ``/health`` fails for ``health_timeout`` seconds is hung: declared dead."""
        pool = self.pool
        while not self.cancelled:
            await asyncio.sleep(pool.health_interval)
            busy = [s for s in pool.slots if s.alive and s.in_flight > 0]
            probe = min(pool.health_interval * 2, 5.0)
            results = await asyncio.gather(
                *(self.loop.run_in_executor(pool.executor, s.replica.client.health, probe) for s in busy)
            )
            now = time.monotonic()
            for s, ok in zip(busy, results):
                if ok or not s.alive:
                    s.unhealthy_since = None
                    continue
                s.unhealthy_since = s.unhealthy_since or now
                if now - s.unhealthy_since >= pool.health_timeout:
                    pool.declare_dead(s, f"no /health answer for {pool.health_timeout:.0f} s", self)
