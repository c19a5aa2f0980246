"""Rollout metrics logged by Miles next to its own (`envroll/*`, `rollout/dynamic_filter/drop_*`)."""

from __future__ import annotations

from typing import Any

from .samples import envroll_meta, flatten


def _reward_value(sample: Any, key: str | None) -> float | None:
    reward = sample.reward
    if isinstance(reward, dict):
        reward = reward.get(key or "reward")
    return None if reward is None else float(reward)


def sample_metrics(groups: list, reward_key: str | None, prefix: str = "envroll/") -> dict:
    samples = [s for g in groups for s in flatten(g)]
    if not samples:
        return {}
    # One entry per trace: compact siblings share their trace's numbers.
    traces = {}
    for s in samples:
        traces[envroll_meta(s).get("trace_id", id(s))] = s
    per_trace = list(traces.values())
    rewards = [r for r in (_reward_value(s, reward_key) for s in per_trace) if r is not None]
    status = [getattr(s.status, "value", s.status) for s in per_trace]
    turns = [envroll_meta(s).get("num_turns", 0) for s in per_trace]
    return {
        f"{prefix}reward_mean": sum(rewards) / len(rewards) if rewards else 0.0,
        f"{prefix}error_rate": status.count("failed") / len(per_trace),
        f"{prefix}truncated_rate": status.count("truncated") / len(per_trace),
        f"{prefix}num_turns_mean": sum(turns) / len(turns),
        f"{prefix}num_samples": float(len(samples)),
    }


def drop_metrics(drops: dict) -> dict:
    return {f"rollout/dynamic_filter/drop_{reason}": float(count) for reason, count in sorted(drops.items())}
