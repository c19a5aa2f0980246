"""One eval pass: every eval task n times, returned as Miles' eval data.

Improvements over the upstream adapter: dict rewards are reduced with
``eval_reward_key or reward_key`` (the key Miles' own eval uses) and group RMs run in eval too.
As upstream, a rollout that sampled nothing keeps its place in ``rewards`` (None) and
``truncated`` but is not a sample.

The sample rewards keep the shape Miles' eval logging reads with ``get_reward_value(args)``
(``args.reward_key``, not the eval key): a dict only with ``--reward-key``, else the scalar eval
reward — with ``--eval-reward-key`` alone a dict would crash the zero-std statistics it rounds.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from . import hooks, settings
from .metrics import drop_metrics, sample_metrics, with_upstream_names
from .refusal import refusal
from .samples import element_from_wire, envroll_meta
from .service import ServiceClient


def eval_reward(sample: Any, key: str | None) -> float | None:
    if envroll_meta(sample).get("empty"):
        return None
    reward = sample.reward
    if isinstance(reward, dict):
        reward = reward.get(key) if key else reward.get("reward")
    return None if reward is None else float(reward)


def _scalar_sample_reward(sample: Any, key: str | None) -> None:
    """Turns a dict reward into the scalar the eval key selects (the trace reward when the key is
    absent, as for an errored trace that never scored it)."""
    if isinstance(sample.reward, dict):
        value = sample.reward.get(key) if key else None
        sample.reward = float(sample.reward.get("reward", 0.0) if value is None else value)


def _check_key(sample: Any, key: str | None) -> None:
    """A successful rollout must have the eval reward key: a typo would log None as 0.0."""
    reward = sample.reward
    if key and isinstance(reward, dict) and key not in reward and not envroll_meta(sample).get("error"):
        raise ValueError(
            f"envroll_miles: --eval-reward-key/--reward-key {key!r} is not a reward of this environment "
            f"(it has: {sorted(reward)})"
        )


async def collect_eval(args: Any, client: ServiceClient, types: Any, rollout_id: int, name: str):
    stream = client.open_rollout(settings.rollout_request(args, rollout_id, True, None, "start"))
    lines: list[dict] = []
    try:
        while (line := await stream.next_group()) is not None:
            lines.append(line)
    finally:
        stream.close()
    summary = stream.summary
    if summary is None or summary.get("error"):
        reason = summary.get("error") if summary else "the stream closed early"
        raise RuntimeError(f"envroll_miles: eval {rollout_id} failed: {reason}")
    return await eval_output(args, types, rollout_id, name, lines)


async def eval_output(args: Any, types: Any, rollout_id: int, name: str, lines: list[dict]):
    """Every eval task's group line (from one service or several replicas) → Miles' eval data."""
    key = settings.reward_key(args, True)
    by_task: dict[int, list] = {}
    drops: Counter = Counter()
    errors: list[str] = []
    for line in lines:
        # Groups that failed as a whole come with no samples (a group reward failed, or the
        # traces could not become samples, e.g. a fork without compact rollouts).
        if line.get("drop_reason") in ("episode_error", "conversion_error"):
            drops[line["drop_reason"]] += 1
            errors.append(line.get("error") or "episode error")
            continue
        group = [element_from_wire(e, types.Sample, types.Status) for e in line["group"]]
        refused = refusal(group)
        if refused:
            raise RuntimeError(f"envroll_miles: eval {rollout_id}: {refused}")
        await hooks.apply_rewards(args, group)
        by_task[int(line["task_index"])] = group
    groups = [by_task[t] for t in sorted(by_task)]
    # A compact rollout counts once in eval: its last branch carries the final answer.
    rollouts = [e[-1] if isinstance(e, list) else e for g in groups for e in g]
    samples = [s for s in rollouts if not envroll_meta(s).get("empty")]
    if not samples:
        # Miles' eval logging takes statistics over the samples; with none it fails on a
        # zero-size array far from the cause. Say what happened instead.
        errors += [envroll_meta(s).get("error", "no sampled token") for s in rollouts]
        raise RuntimeError(
            f"envroll_miles: eval {rollout_id}: every eval rollout failed "
            f"({len(rollouts)} empty, {drops['episode_error'] + drops['conversion_error']} group(s) failed); first error: "
            f"{errors[0] if errors else 'none reported'}"
        )
    for s in rollouts:
        _check_key(s, key)
    data = {
        name: {
            "rewards": [eval_reward(s, key) for s in rollouts],
            "truncated": [getattr(s.status, "value", s.status) == "truncated" for s in rollouts],
            "samples": samples,
        }
    }
    if getattr(args, "reward_key", None) is None:
        for s in samples:
            _scalar_sample_reward(s, key)
    metrics = sample_metrics(groups, key, prefix=f"envroll/eval/{name}/")
    metrics = with_upstream_names(metrics, prefix=f"envroll/eval/{name}/")
    metrics.update({f"envroll/eval/{name}/{k.split('/')[-1]}": v for k, v in drop_metrics(drops).items()})
    return data, metrics
