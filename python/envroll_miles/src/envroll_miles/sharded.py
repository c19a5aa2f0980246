"""Train steps and eval passes over a pool of rollout-service replicas (``--envroll-replicas``,
or several ``--envroll-url``s).

The same judging as with one service (train_loop.py: launch order, over-sampling in rounds of
``over_sampling_batch_size``, the same drops and hooks), but the task cursor lives here
(task_cursor.py, saved as ``cursor-<step>.json`` under the state dir as the service saves it):
each launched group is a (task, slot) taken from it, a judged group completes it, and everything
launched but not judged when the step is full goes back, to be launched first next step.
"""

from __future__ import annotations

import asyncio
from typing import Any

from . import settings
from .eval_loop import eval_output
from .pool import ReplicaPool, Work
from .task_cursor import CursorStore, Taken
from .train_loop import MAX_IDLE_REQUESTS, _Step, finish_step


class _Numbering:
    """``group_index`` / ``index`` unique over a whole batch (each replica numbers from 0)."""

    def __init__(self) -> None:
        self.group = 0
        self.sample = 0

    def apply(self, line: dict) -> None:
        for element in line["group"]:
            for s in element if isinstance(element, list) else [element]:
                s["group_index"] = self.group
                s["index"] = self.sample
                self.sample += 1
        line["group_index"] = self.group
        self.group += 1


def _body(args: Any, pool: ReplicaPool, rollout_id: int, evaluation: bool, per_replica: int) -> dict:
    body = settings.rollout_request(args, rollout_id, evaluation, None, "start")
    body.pop("cursor", None)
    body["concurrency"] = per_replica
    return body


async def collect_train_sharded(args: Any, pool: ReplicaPool, store: CursorStore, info: dict, types: Any,
                                rollout_id: int, data_source: Any, per_replica: int):  # fmt: skip
    step = _Step(args, types, rollout_id)
    per_request = max(step.target, int(getattr(args, "over_sampling_batch_size", None) or step.target))
    cursor = store.open(
        rollout_id, str(info.get("taskset_id")), int(info["num_tasks"]),
        bool(getattr(args, "rollout_shuffle", False)), int(settings._get(args, "rollout_seed", 42)),
    )  # fmt: skip
    pool.reset_stats()
    dispatch = pool.dispatch(_body(args, pool, rollout_id, False, per_replica), f"step {rollout_id}")
    numbering = _Numbering()
    launched: dict[int, Work] = {}
    judged: set[int] = set()
    seq = rounds = idle = 0
    try:
        while not step.full:
            kept_before = len(step.kept)
            first = seq
            for _ in range(per_request):
                t = cursor.take()
                launched[seq] = work = Work(seq, t.task, t.slot)
                dispatch.submit(work)
                seq += 1
            waiting: dict[int, dict] = {}
            frontier = first
            while frontier < seq and not step.full:
                work, line = await dispatch.next()
                step.delivered += 1
                waiting[work.seq] = line
                while frontier in waiting and not step.full:
                    line = waiting.pop(frontier)
                    numbering.apply(line)
                    await step.judge(line)
                    judged.add(frontier)
                    cursor.complete(Taken(launched[frontier].task, launched[frontier].slot))
                    frontier += 1
            rounds += 1
            idle = idle + 1 if len(step.kept) == kept_before else 0
            if idle >= MAX_IDLE_REQUESTS and not step.full:
                raise RuntimeError(
                    f"envroll_miles: step {rollout_id} kept no group in {idle} consecutive requests "
                    f"(drops: {dict(step.drops)}); check the environment, the engine and the filter"
                )
    finally:
        dispatch.cancel()
        for s, work in launched.items():
            if s not in judged:
                cursor.give_back(Taken(work.task, work.slot))
        await asyncio.to_thread(store.save, cursor)
    kept, metrics = await finish_step(step, data_source, rounds)
    metrics["envroll/groups_reissued"] = float(dispatch.reissued)
    metrics["envroll/groups_fenced"] = float(dispatch.fenced)
    metrics.update(pool.metrics())
    return kept, metrics


async def collect_eval_sharded(args: Any, pool: ReplicaPool, info: dict, types: Any, rollout_id: int,
                               name: str, per_replica: int):  # fmt: skip
    tasks = int(info.get("num_eval_tasks") or 0)
    pool.reset_stats()
    dispatch = pool.dispatch(_body(args, pool, rollout_id, True, per_replica), f"eval {rollout_id}")
    lines: list[dict] = []
    try:
        for t in range(tasks):
            dispatch.submit(Work(t, t, t))
        while len(lines) < tasks:
            _work, line = await dispatch.next()
            lines.append(line)
    finally:
        dispatch.cancel()
    lines.sort(key=lambda line: int(line["task_index"]))
    numbering = _Numbering()
    for line in lines:
        numbering.apply(line)
    data, metrics = await eval_output(args, types, rollout_id, name, lines)
    metrics.update({f"envroll/eval/{name}/{k.removeprefix('envroll/')}": v for k, v in pool.metrics().items()})
    return data, metrics
