"""Groups spread over several rollout-service replicas, by load, surviving replica faults.

Every group is its own ``POST /rollout`` carrying ``tasks: [{task, slot}]``: the Python side owns
the cursor and a replica only runs what it is handed. A group goes to the live replica with the
fewest groups in flight (below its capacity); every replica calls the same SGLang router with the
per-rollout routing key, so a rollout's turns stay on one engine whichever replica runs it.

Faults: a broken stream, a refused connection, a 5xx, a stream that ends without its group (a
service shutting down), or ``/health`` failing for ``health_timeout`` seconds (a hung replica)
mark the replica dead. Its streams are hung up, its unfinished groups re-issued at once to the
others with a new attempt number, and it is restarted by one background thread per replica
(the only owner of its restarts); it takes work again only once its new service answers
``/health``. Each result is checked before it is accepted (the fence): it must belong to the
step being collected and to its group's current attempt, so a replica that comes back late with
a re-issued group, or with a group of an earlier step, is ignored and a group is delivered at
most once per step.
"""

from __future__ import annotations

import asyncio
import heapq
import http.client
import itertools
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from .replicas import Replica
from .service import RolloutStream, ServiceError

# One group re-issued this often means the group kills replicas, not bad luck.
MAX_ATTEMPTS = 5
# Between two failed restarts of one replica (seconds; doubles up to the cap).
RESTART_BACKOFF = (1.0, 10.0)


@dataclass(order=True)
class Work:
    seq: int
    task: int = field(compare=False)
    slot: int = field(compare=False)
    attempt: int = field(default=0, compare=False)
    done: bool = field(default=False, compare=False)


class ReplicaFault(RuntimeError):
    pass


class Attempt:
    """One try of one group on one replica. ``hang_up`` may come from the event loop while a
    worker thread opens or reads the stream: whichever comes second closes it."""

    def __init__(self, dispatch: Dispatch, work: Work):
        self.dispatch = dispatch
        self.work = work
        self.number = work.attempt
        self._lock = threading.Lock()
        self._stream: RolloutStream | None = None
        self.hung_up = False

    def attach(self, stream: RolloutStream) -> bool:
        with self._lock:
            if not self.hung_up:
                self._stream = stream
                return True
        stream.close()
        return False

    def hang_up(self) -> None:
        with self._lock:
            self.hung_up = True
            stream = self._stream
        if stream is not None:
            stream.close()

    @property
    def current(self) -> bool:
        """The fence: this try may still deliver (same step, the group's latest attempt, not
        delivered yet, the step still collecting)."""
        d = self.dispatch
        return d.pool.current is d and not d.cancelled and not self.work.done and self.work.attempt == self.number


@dataclass
class ReplicaSlot:
    index: int
    replica: Replica
    capacity: int
    alive: bool = True
    in_flight: int = 0
    unhealthy_since: float | None = None
    running: set = field(default_factory=set)  # Attempts under way on this replica
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
        self._restarting: dict[int, threading.Thread] = {}
        self._lock = threading.Lock()
        self.stopped = False
        self._serial = itertools.count()
        #: The dispatch being collected (one step runs at a time); only its results are accepted.
        self.current: Dispatch | None = None

    @property
    def client(self):
        return self.slots[0].replica.client

    def dispatch(self, body: dict, step: str) -> Dispatch:
        self.current = Dispatch(self, body, step, next(self._serial))
        for s in self.slots:
            if not s.alive:
                self._start_restart(s)  # gave up during an earlier step: try again
        return self.current

    def stop(self) -> None:
        self.stopped = True
        for s in self.slots:
            for attempt in list(s.running):
                attempt.hang_up()
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

    def restarting(self) -> bool:
        with self._lock:
            return bool(self._restarting)

    def declare_dead(self, slot: ReplicaSlot, why: str) -> None:
        """On the event loop: hang up the replica's streams, re-issue the current step's groups
        it held, restart it in the background."""
        if not slot.alive:
            return
        slot.alive = False
        slot.stats["faults"] += 1
        print(f"envroll_miles: replica {slot.replica.name} failed ({why}); re-issuing its groups, restarting it", flush=True)
        for attempt in list(slot.running):
            attempt.hang_up()
            if attempt.current:
                attempt.dispatch.retry(attempt.work)
        self._start_restart(slot)

    def _start_restart(self, slot: ReplicaSlot) -> None:
        with self._lock:
            if self.stopped or slot.index in self._restarting:
                return
            t = threading.Thread(target=self._restart, args=(slot,), name=f"envroll-restart-{slot.index}", daemon=True)
            self._restarting[slot.index] = t
        t.start()

    def _restart(self, slot: ReplicaSlot) -> None:
        """In the slot's restart thread: restart until its service answers /health, or give up at
        ``restart_timeout`` (the next step tries again)."""
        name = slot.replica.name
        deadline = time.monotonic() + self.restart_timeout
        pause = RESTART_BACKOFF[0]
        try:
            for tries in itertools.count(1):
                if self.stopped:
                    return
                try:
                    slot.replica.restart(max(1.0, deadline - time.monotonic()))
                    problem = None if slot.replica.client.health(timeout=10.0) else "its new service does not answer /health"
                except Exception as err:  # noqa: BLE001 - reported; the others carry on
                    problem = f"{type(err).__name__}: {err}"
                if problem is None and not self.stopped:
                    slot.unhealthy_since = None
                    slot.stats["restarts"] += 1
                    slot.alive = True
                    print(f"envroll_miles: replica {name} is back ({slot.replica.client.url})", flush=True)
                    return
                if self.stopped:
                    return
                if time.monotonic() + pause >= deadline:
                    print(f"envroll_miles: replica {name} did not restart in {self.restart_timeout:.0f} s "
                          f"({tries} tries; last: {problem})", flush=True)  # fmt: skip
                    return
                print(f"envroll_miles: replica {name} restart {tries} failed ({problem}); retrying", flush=True)
                time.sleep(pause)
                pause = min(2 * pause, RESTART_BACKOFF[1])
        finally:
            with self._lock:
                self._restarting.pop(slot.index, None)
            self._poke()

    def _poke(self) -> None:
        """From a restart thread: the current step may launch on the replica now (or learn that
        every replica is down)."""
        d = self.current
        if d is None or d.cancelled:
            return
        try:
            d.loop.call_soon_threadsafe(d.pump)
        except RuntimeError:
            pass  # its event loop is gone: the step is over

    def join_restarts(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                threads = list(self._restarting.values())
            if not threads or time.monotonic() >= deadline:
                return
            threads[0].join(max(0.0, deadline - time.monotonic()))

    async def wait_restarts(self, timeout: float) -> None:
        """Lets a restart under way finish (tests, shutdown); never raises."""
        await asyncio.to_thread(self.join_restarts, timeout)


class Dispatch:
    """The groups of one step (or eval pass): ``submit`` them, ``next()`` the delivered ones in
    completion order, ``cancel()`` what is left once the step has enough."""

    def __init__(self, pool: ReplicaPool, body: dict, step: str, serial: int):
        self.pool = pool
        self.body = body
        self.step = step
        self.serial = serial
        self.loop = asyncio.get_running_loop()
        self.pending: list[Work] = []
        self.out: asyncio.Queue = asyncio.Queue()
        self.cancelled = False
        self.fenced = 0
        self.reissued = 0
        self._health = self.loop.create_task(self._watch_health())

    def submit(self, work: Work) -> None:
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
            for attempt in list(s.running):
                if attempt.dispatch is self:
                    attempt.hang_up()

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
            attempt = Attempt(self, work)
            slot.in_flight += 1
            slot.stats["in_flight_max"] = max(slot.stats["in_flight_max"], slot.in_flight)
            slot.running.add(attempt)
            self.loop.create_task(self._run(slot, attempt))

    def check_any_alive(self) -> None:
        if self.cancelled or any(s.alive for s in self.pool.slots) or self.pool.restarting():
            return
        self.out.put_nowait(RuntimeError(f"envroll_miles: {self.step}: every rollout-service replica is down"))

    def retry(self, work: Work) -> None:
        work.attempt += 1
        self.reissued += 1
        if work.attempt >= MAX_ATTEMPTS:
            self.out.put_nowait(RuntimeError(
                f"envroll_miles: {self.step}: task {work.task} failed on {work.attempt} replicas in a row"))  # fmt: skip
            return
        heapq.heappush(self.pending, work)

    async def _run(self, slot: ReplicaSlot, attempt: Attempt) -> None:
        started = time.monotonic()
        try:
            kind, value = await self.loop.run_in_executor(self.pool.executor, self._attempt, slot, attempt)
        finally:
            slot.running.discard(attempt)
            slot.in_flight -= 1
        work = attempt.work
        if not attempt.current:
            self.fenced += 1  # re-issued meanwhile, or its step is over: never delivered twice
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
            self.pool.declare_dead(slot, str(value))  # re-issues the slot's other groups
            if attempt.current:
                self.retry(work)
        self.pump()

    def _attempt(self, slot: ReplicaSlot, attempt: Attempt) -> tuple[str, Any]:
        """Blocking, in a worker thread: one group on one replica → ("line"|"fault"|"fatal", …)."""
        try:
            return self._stream_group(slot, attempt)
        except Exception as err:  # noqa: BLE001 - a bug must reach the step, not die in a thread
            if attempt.hung_up:
                return ("fault", err)
            return ("fatal", RuntimeError(f"envroll_miles: {self.step}: reading replica {slot.replica.name} failed: "
                                          f"{type(err).__name__}: {err}"))  # fmt: skip

    def _stream_group(self, slot: ReplicaSlot, attempt: Attempt) -> tuple[str, Any]:
        work = attempt.work
        body = dict(self.body)
        body["tasks"] = [{"task": work.task, "slot": work.slot}]
        body["request_id"] = f"{self.step}-{work.seq}-{attempt.number}"
        try:
            stream: RolloutStream = slot.replica.client.open_rollout(body)
        except ServiceError as err:
            return ("fault" if err.status >= 500 else "fatal", err)
        except (OSError, http.client.HTTPException) as err:
            return ("fault", err)
        if not attempt.attach(stream):
            return ("fault", ReplicaFault("hung up before the group"))
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
                    pool.declare_dead(s, f"no /health answer for {pool.health_timeout:.0f} s")
