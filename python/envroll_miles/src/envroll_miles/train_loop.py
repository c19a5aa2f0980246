"""One train step: stream groups from the service until ``rollout_batch_size`` are kept.

Over-sampling: each request asks for ``over_sampling_batch_size`` groups; groups are rewarded by
the Miles RM (if any) and passed through the dynamic filter as they arrive. As soon as enough are
kept, ``/release`` tells the service how many lines were used: it aborts the groups still running
and hands their tasks, and those of groups already sent but never read, back to its cursor, so the
next step runs them instead of skipping them. If a request ends short, a refill continues the step.
"""

from __future__ import annotations

import asyncio
import uuid
from collections import Counter
from typing import Any

from . import hooks, settings
from .metrics import drop_metrics, sample_metrics
from .samples import element_from_wire, envroll_meta, flatten
from .service import ServiceClient

# A trace error with this text is a configuration problem (e.g. a harness that streams), not bad
# luck: resampling would fail the same way, so it stops the step at once, as upstream does.
UNSUPPORTED_MARKER = "not supported"


def _unsupported_error(group: list) -> str | None:
    for sample in flatten(group):
        error = envroll_meta(sample).get("error") or ""
        if UNSUPPORTED_MARKER in error:
            return error
    return None


# A step that keeps nothing this many requests in a row is failing, not unlucky (every group is
# dropped): raise instead of spinning forever.
MAX_IDLE_REQUESTS = 8


def _first_index(group: list) -> int:
    samples = flatten(group)
    return samples[0].index if samples and samples[0].index is not None else 0


async def collect_train(args: Any, client: ServiceClient, types: Any, rollout_id: int, data_source: Any):
    target = int(args.rollout_batch_size)
    per_request = max(target, int(getattr(args, "over_sampling_batch_size", None) or target))
    keep_failed = bool(getattr(args, "envroll_keep_failed_groups", False))
    kept: list = []
    all_groups: list = []
    drops: Counter = Counter()
    mode = "start"
    requests = idle = delivered = 0
    while len(kept) < target:
        body = settings.rollout_request(args, rollout_id, False, per_request, mode)
        body["request_id"] = request_id = uuid.uuid4().hex
        stream = client.open_rollout(body)
        mode = "continue"
        requests += 1
        kept_before = len(kept)
        summary = None
        consumed = 0
        try:
            while len(kept) < target:
                line = await asyncio.to_thread(stream.read_line)
                if line is None:
                    break
                if line.get("type") == "summary":
                    summary = line
                    break
                delivered += 1
                consumed += 1
                group = [element_from_wire(e, types.Sample, types.Status) for e in line["group"]]
                reason = line.get("drop_reason")
                unsupported = _unsupported_error(group) if reason == "trace_error" else None
                if unsupported:
                    raise RuntimeError(f"envroll_miles: step {rollout_id}: {unsupported}")
                if reason == "episode_error" or (reason and not keep_failed):
                    drops[reason] += 1
                    if group:
                        all_groups.append(group)
                    continue
                await hooks.apply_rewards(args, group)
                all_groups.append(group)
                keep, why = hooks.dynamic_filter(args, group)
                if keep:
                    kept.append(group)
                else:
                    drops[why or "filtered"] += 1
            if summary is None and len(kept) >= target:
                await asyncio.to_thread(client.release, request_id, consumed)
        finally:
            # Hanging up aborts whatever this request still runs (also when a hook raised).
            stream.close()
        if summary is not None and summary.get("error"):
            raise RuntimeError(f"envroll_miles: the rollout service stopped step {rollout_id}: {summary['error']}")
        if summary is None and len(kept) < target:
            raise RuntimeError(f"envroll_miles: the rollout service closed step {rollout_id}'s stream early")
        idle = idle + 1 if len(kept) == kept_before else 0
        if idle >= MAX_IDLE_REQUESTS:
            raise RuntimeError(
                f"envroll_miles: step {rollout_id} kept no group in {idle} consecutive requests "
                f"(drops: {dict(drops)}); check the environment, the engine and the filter"
            )
    kept.sort(key=_first_index)
    hooks.run_sample_filter(args, kept)
    hooks.run_all_samples_hook(args, all_groups, data_source)
    # Rates over every group that ran (the dropped ones too), so failures are not hidden by the filter.
    metrics = sample_metrics(all_groups, getattr(args, "reward_key", None))
    metrics["envroll/kept_reward_mean"] = sample_metrics(kept, getattr(args, "reward_key", None)).get(
        "envroll/reward_mean", 0.0
    )
    metrics.update(drop_metrics(drops))
    metrics["envroll/groups_delivered"] = float(delivered)
    metrics["envroll/requests"] = float(requests)
    return kept, metrics
