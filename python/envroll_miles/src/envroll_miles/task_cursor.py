"""The exact train-task cursor, owned by the Python side when several service replicas run.

The same model and the same state file as the service's own cursor
(``packages/core/src/service/cursor.ts``, ``cursor-<rollout_id>.json`` = the state after that
step), so a run can switch between one replica and several and still resume exactly: a *slot* is
the running index ``epoch × num_tasks + position``, the task is that position of the epoch's
order (identity, or a seeded permutation per epoch), returned slots go out again lowest first.
Replicas only ever run the (task, slot) pairs handed to them.
"""

from __future__ import annotations

import bisect
import json
import os
import re
from dataclasses import dataclass

_FILE_RE = re.compile(r"^cursor-(\d+)\.json$")
_M32 = 0xFFFFFFFF


def _imul(a: int, b: int) -> int:
    """``Math.imul`` as an unsigned 32-bit result."""
    return (a * b) & _M32


def mulberry32(seed: int):
    """The service's PRNG (``random.ts``), bit for bit, so both sides permute tasks alike."""
    state = [seed & _M32]

    def next_float() -> float:
        state[0] = (state[0] + 0x6D2B79F5) & _M32
        t = state[0]
        t = _imul(t ^ (t >> 15), t | 1)
        t ^= (t + _imul(t ^ (t >> 7), t | 61)) & _M32
        return ((t ^ (t >> 14)) & _M32) / 4294967296

    return next_float


def epoch_order(num_tasks: int, shuffle: bool, seed: int, epoch: int) -> list[int]:
    order = list(range(num_tasks))
    if not shuffle:
        return order
    rng = mulberry32((seed ^ _imul(epoch + 1, 0x9E3779B1)) & _M32)
    for i in range(len(order) - 1, 0, -1):
        j = int(rng() * (i + 1))
        order[i], order[j] = order[j], order[i]
    return order


@dataclass(frozen=True)
class Taken:
    task: int
    slot: int


def fresh_state(taskset_id: str, num_tasks: int, shuffle: bool, seed: int) -> dict:
    return {
        "version": 2, "taskset_id": taskset_id, "num_tasks": num_tasks, "shuffle": shuffle, "seed": seed,
        "rollout_id": -1, "epoch": 0, "offset": 0, "returned": [], "completed": [],
        "completed_total": 0, "handed_out_total": 0,
    }  # fmt: skip


class TaskCursor:
    def __init__(self, state: dict):
        self.state = state
        self._order = epoch_order(state["num_tasks"], state["shuffle"], state["seed"], state["epoch"])
        self._in_flight: set[int] = set()
        self._other: tuple[int, list[int]] | None = None

    def begin_rollout(self, rollout_id: int) -> None:
        if self.state["rollout_id"] != rollout_id:
            self.state["rollout_id"] = rollout_id
            self.state["completed"] = []

    def task_of(self, slot: int) -> int:
        n = self.state["num_tasks"]
        epoch = slot // n
        if epoch == self.state["epoch"]:
            return self._order[slot % n]
        if self._other is None or self._other[0] != epoch:
            self._other = (epoch, epoch_order(n, self.state["shuffle"], self.state["seed"], epoch))
        return self._other[1][slot % n]

    def take(self) -> Taken:
        s = self.state
        s["handed_out_total"] += 1
        if s["returned"]:
            slot = s["returned"].pop(0)
        else:
            if s["offset"] >= len(self._order):
                s["epoch"] += 1
                s["offset"] = 0
                self._order = epoch_order(s["num_tasks"], s["shuffle"], s["seed"], s["epoch"])
            slot = s["epoch"] * s["num_tasks"] + s["offset"]
            s["offset"] += 1
        self._in_flight.add(slot)
        return Taken(self.task_of(slot), slot)

    def complete(self, t: Taken) -> None:
        self._in_flight.discard(t.slot)
        self.state["completed"].append(t.task)
        self.state["completed_total"] += 1

    def give_back(self, t: Taken) -> None:
        self._in_flight.discard(t.slot)
        bisect.insort(self.state["returned"], t.slot)

    def snapshot(self) -> dict:
        """The persisted form: anything still in flight counts as returned."""
        out = json.loads(json.dumps(self.state))
        out["returned"] = sorted(set(out["returned"]) | self._in_flight)
        return out


class CursorStore:
    """``cursor-<rollout_id>.json`` files under ``state_dir`` (None: memory only)."""

    def __init__(self, state_dir: str | None):
        self.dir = state_dir
        self.current: TaskCursor | None = None

    def open(self, rollout_id: int, taskset_id: str, num_tasks: int, shuffle: bool, seed: int) -> TaskCursor:
        """The cursor for step ``rollout_id``: the state after step ``rollout_id − 1`` (memory,
        else the newest file at or below it), else a fresh one."""
        cur = self.current
        if cur is not None and cur.state["rollout_id"] == rollout_id - 1:
            state = cur.snapshot()
        else:
            state = self._load_at_or_below(rollout_id - 1)
        if state is not None and (state["taskset_id"] != taskset_id or state["num_tasks"] != num_tasks):
            raise RuntimeError(
                f"envroll_miles: saved task cursor is for taskset {state['taskset_id']} with "
                f"{state['num_tasks']} tasks, but the service has {taskset_id} with {num_tasks} tasks; "
                "use a fresh --envroll-state-dir"
            )
        cursor = TaskCursor(state or fresh_state(taskset_id, num_tasks, shuffle, seed))
        cursor.begin_rollout(rollout_id)
        self.current = cursor
        return cursor

    def save(self, cursor: TaskCursor) -> str | None:
        if not self.dir:
            return None
        os.makedirs(self.dir, exist_ok=True)
        path = os.path.join(self.dir, f"cursor-{cursor.state['rollout_id']}.json")
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w") as f:
            json.dump(cursor.snapshot(), f, indent=1)
            f.write("\n")
        os.replace(tmp, path)  # a crash mid-write never leaves a truncated state file
        return path

    def _load_at_or_below(self, rollout_id: int) -> dict | None:
        if not self.dir or rollout_id < 0 or not os.path.isdir(self.dir):
            return None
        ids = [int(m.group(1)) for m in map(_FILE_RE.match, os.listdir(self.dir)) if m]
        ids = [i for i in ids if i <= rollout_id]
        if not ids:
            return None
        path = os.path.join(self.dir, f"cursor-{max(ids)}.json")
        with open(path) as f:
            state = json.load(f)
        if state.get("version") != 2:
            raise RuntimeError(f"envroll_miles: {path}: unknown cursor state version {state.get('version')}")
        return state
