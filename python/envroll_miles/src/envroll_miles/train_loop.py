"""One train step: stream groups from the service until ``rollout_batch_size`` are kept.

``--partial-rollout`` (envroll's meaning): the groups still running when a step is full are not
aborted. They keep running in the rollout service through the weight update (a live episode
cannot be rebuilt from a token prefix, so envroll never resumes one: it keeps it alive), and the
next step judges them first; every turn carries the ``weight_version`` that sampled it, and the
samples of such a group carry ``metadata["start_rollout_id"]``, as Miles stamps its own.

Over-sampling: each request asks for ``over_sampling_batch_size`` groups; groups are rewarded by
the Miles RM (if any) and passed through the dynamic filter.

Fairness: groups are judged in **launch order**, not completion order. A group that finished
early waits until every group launched before it is judged; the step ends once enough are kept,
and everything launched after that point goes back to the cursor (``/release``), to be launched
first next step — where it is early in the order and is judged first. Keeping the first
finishers instead (Miles' own loop and the upstream adapter do) biases training against long
rollouts: a slow task loses the race in every step it is tried. Here which tasks train depends
only on the task order and the filter; speed decides nothing. The price is that a step waits for
its slowest kept group, as it does without over-sampling.

If a request ends short (the filter dropped too many), a refill request continues the step.
"""

from __future__ import annotations

import asyncio
import uuid
from collections import Counter
from typing import Any

from . import hooks, prefill, settings
from .metrics import drop_metrics, sample_metrics, with_upstream_names
from .refusal import refusal
from .samples import element_from_wire, flatten
from .service import ServiceClient

# A step that keeps nothing this many requests in a row is failing, not unlucky (every group is
# dropped): raise instead of spinning forever.
MAX_IDLE_REQUESTS = 8


def _first_index(group: list) -> int:
    samples = flatten(group)
    return samples[0].index if samples and samples[0].index is not None else 0


class _Step:
    """What one step has collected so far, across its requests."""

    def __init__(self, args: Any, types: Any, rollout_id: int):
        self.args = args
        self.types = types
        self.rollout_id = rollout_id
        self.target = int(args.rollout_batch_size)
        self.kept: list = []
        self.all_groups: list = []
        self.drops: Counter = Counter()
        self.delivered = 0

    @property
    def full(self) -> bool:
        return len(self.kept) >= self.target

    async def judge(self, line: dict) -> None:
        """Drop, filter or keep one group line (the next one in launch order)."""
        group = [element_from_wire(e, self.types.Sample, self.types.Status) for e in line["group"]]
        reason = line.get("drop_reason")
        refused = refusal(group)
        if refused:
            raise RuntimeError(f"envroll_miles: step {self.rollout_id}: {refused}")
        # The service drops what the environment's group-failure policy (retries.group) dropped.
        if reason:
            self.drops[reason] += 1
            if group:
                self.all_groups.append(group)
            return
        await hooks.apply_rewards(self.args, group)
        self.all_groups.append(group)
        keep, why = hooks.dynamic_filter(self.args, group)
        if keep:
            self.kept.append(group)
        else:
            self.drops[why or "filtered"] += 1


class _Request:
    """One ``POST /rollout`` stream and what of it is judged. With ``--partial-rollout`` it may
    outlive its step: the groups it still runs keep running in the service through the weight
    update and are judged first by the next step."""

    def __init__(self, step: _Step, client: ServiceClient, mode: str, per_request: int):
        body = settings.rollout_request(step.args, step.rollout_id, False, per_request, mode)
        body["request_id"] = self.request_id = uuid.uuid4().hex
        self.client = client
        self.stream = client.open_rollout(body)
        self.started_in = step.rollout_id
        self.waiting: dict[int, dict] = {}  # finished, not yet judged: launch position → line
        self.frontier = 0  # the next launch position to judge
        self.used: list[int] = []

    async def _judge(self, step: _Step, line: dict) -> None:
        if step.rollout_id != self.started_in:  # Miles' partial-rollout stamp
            for e in line["group"]:
                for s in e if isinstance(e, list) else [e]:
                    s.setdefault("metadata", {})["start_rollout_id"] = self.started_in
        await step.judge(line)

    async def drain(self, step: _Step) -> dict | None:
        """Judges lines until the step is full or the stream ends; returns the summary (None
        while the stream is still open)."""
        while self.frontier in self.waiting and not step.full:  # carried from an earlier step
            await self._judge(step, self.waiting.pop(self.frontier))
            self.used.append(self.frontier)
            self.frontier += 1
        while not step.full:
            line = await self.stream.next_group()
            if line is None:
                break
            step.delivered += 1
            self.waiting[int(line["seq"])] = line
            while self.frontier in self.waiting and not step.full:
                await self._judge(step, self.waiting.pop(self.frontier))
                self.used.append(self.frontier)
                self.frontier += 1
        summary = self.stream.summary
        if summary is not None:
            # Everything has arrived; positions that never did were aborted and handed back.
            for seq in sorted(self.waiting):
                if step.full:
                    break
                await self._judge(step, self.waiting.pop(seq))
                self.used.append(seq)
        return summary

    @property
    def pending(self) -> bool:
        return self.stream.summary is None or bool(self.waiting)

    async def release(self) -> None:
        """Stops what still runs and hands every launched-but-unjudged group back to the cursor."""
        try:
            if self.pending:
                await asyncio.to_thread(self.client.release, self.request_id, self.used)
        finally:
            self.stream.close()  # hanging up aborts whatever this request still runs


# The request a step left open under --partial-rollout, per service client.
_carried: dict[int, _Request] = {}


def drop_carried(client: ServiceClient) -> None:
    """Hangs up the request a step left open (the service aborts what it still runs)."""
    req = _carried.pop(id(client), None)
    if req is not None:
        req.stream.close()


async def _run_request(step: _Step, client: ServiceClient, mode: str, per_request: int) -> dict | None:
    """One ``POST /rollout`` (or the one the previous step left open); returns its summary (None
    when the step filled first). Without --partial-rollout what it still runs is released."""
    req = _carried.pop(id(client), None) or _Request(step, client, mode, per_request)
    keep = False
    try:
        summary = await req.drain(step)
        keep = bool(getattr(step.args, "partial_rollout", False)) and step.full and req.pending
        if keep:
            _carried[id(client)] = req
        return summary
    finally:
        if not keep:
            await req.release()


async def collect_train(args: Any, client: ServiceClient, types: Any, rollout_id: int, data_source: Any):
    step = _Step(args, types, rollout_id)
    per_request = max(step.target, int(getattr(args, "over_sampling_batch_size", None) or step.target))
    mode = "start"
    requests = idle = 0
    while not step.full:
        kept_before = len(step.kept)
        summary = await _run_request(step, client, mode, per_request)
        mode = "continue"
        requests += 1
        if summary is not None and summary.get("error"):
            raise RuntimeError(f"envroll_miles: the rollout service stopped step {rollout_id}: {summary['error']}")
        if summary is None and not step.full:
            raise RuntimeError(f"envroll_miles: the rollout service closed step {rollout_id}'s stream early")
        idle = idle + 1 if len(step.kept) == kept_before else 0
        if idle >= MAX_IDLE_REQUESTS:
            raise RuntimeError(
                f"envroll_miles: step {rollout_id} kept no group in {idle} consecutive requests "
                f"(drops: {dict(step.drops)}); check the environment, the engine and the filter"
            )
    step.kept.sort(key=_first_index)
    return await finish_step(step, data_source, requests)


async def finish_step(step: _Step, data_source: Any, requests: int) -> tuple[list, dict]:
    """The kept batch after Miles' hooks and prefill recompute, with the step's metrics."""
    args, kept = step.args, step.kept
    hooks.run_sample_filter(args, kept)
    hooks.run_all_samples_hook(args, step.all_groups, data_source)
    rescored = await asyncio.to_thread(prefill.recompute, args, [s for g in kept for s in flatten(g)])
    # Rates over every group that ran (the dropped ones too), so failures are not hidden by the filter.
    reward_key = getattr(args, "reward_key", None)
    metrics = with_upstream_names(sample_metrics(step.all_groups, reward_key))
    metrics["envroll/kept_reward_mean"] = sample_metrics(kept, reward_key).get("envroll/reward_mean", 0.0)
    metrics.update(drop_metrics(step.drops))
    metrics["envroll/groups_delivered"] = float(step.delivered)
    metrics["envroll/requests"] = float(requests)
    if prefill.enabled(args):
        metrics["envroll/prefill_rescored_samples"] = float(rescored)
    return kept, metrics
