"""One eval pass: every eval task n times, returned as Miles' eval data.

Improvements over the upstream adapter: dict rewards are reduced with
``eval_reward_key or reward_key`` (the key Miles' own eval uses), group RMs run in eval too, and
``rewards``, ``truncated`` and ``samples`` stay aligned (an empty trace is a sample with a None
reward rather than a hole in one list only).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

from . import hooks, settings
from .metrics import drop_metrics, sample_metrics
from .samples import element_from_wire, envroll_meta
from .service import ServiceClient


def eval_reward(sample: Any, key: str | None) -> float | None:
    if envroll_meta(sample).get("empty"):
        return None
    reward = sample.reward
    if isinstance(reward, dict):
        reward = reward.get(key) if key else reward.get("reward")
    return None if reward is None else float(reward)


async def collect_eval(args: Any, client: ServiceClient, types: Any, rollout_id: int, name: str):
    key = settings.reward_key(args, True)
    stream = client.open_rollout(settings.rollout_request(args, rollout_id, True, None, "start"))
    by_task: dict[int, list] = {}
    drops: Counter = Counter()
    summary = None
    try:
        while True:
            line = await asyncio.to_thread(stream.read_line)
            if line is None:
                break
            if line.get("type") == "summary":
                summary = line
                break
            if line.get("drop_reason") == "episode_error":
                drops["episode_error"] += 1
                continue
            group = [element_from_wire(e, types.Sample, types.Status) for e in line["group"]]
            await hooks.apply_rewards(args, group)
            by_task[int(line["task_index"])] = group
    finally:
        stream.close()
    if summary is None or summary.get("error"):
        reason = summary.get("error") if summary else "the stream closed early"
        raise RuntimeError(f"envroll_miles: eval {rollout_id} failed: {reason}")
    groups = [by_task[t] for t in sorted(by_task)]
    # A compact rollout counts once in eval: its last branch carries the final answer.
    rollouts = [e[-1] if isinstance(e, list) else e for g in groups for e in g]
    # As upstream: a rollout that sampled nothing keeps its place in rewards (None) and
    # truncated, but is no sample (a zero-length response would skew the sample metrics).
    data = {
        name: {
            "rewards": [eval_reward(s, key) for s in rollouts],
            "truncated": [getattr(s.status, "value", s.status) == "truncated" for s in rollouts],
            "samples": [s for s in rollouts if not envroll_meta(s).get("empty")],
        }
    }
    metrics = sample_metrics(groups, key, prefix=f"envroll/eval/{name}/")
    metrics.update({f"envroll/eval/{name}/{k.split('/')[-1]}": v for k, v in drop_metrics(drops).items()})
    return data, metrics
