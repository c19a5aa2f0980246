"""Rollout metrics logged by Miles next to its own (`envroll/*`, `rollout/dynamic_filter/drop_*`).

The four per-trace figures are also logged under the upstream Verifiers adapter's names
(`verifiers/reward_mean`, `error_rate`, `truncated_rate`, `num_turns_mean`), so dashboards built
for that adapter keep working.
"""

from __future__ import annotations

from typing import Any

from .samples import envroll_meta, flatten

# The figures upstream reports under `verifiers/<name>` (train and eval alike).
UPSTREAM_NAMES = ("reward_mean", "error_rate", "truncated_rate", "num_turns_mean")


def _reward_value(sample: Any, key: str | None) -> float | None:
    reward = sample.reward
    if isinstance(reward, dict):
        reward = reward.get(key or "reward")
    return None if reward is None else float(reward)


def prefix_cache_hit_rate(samples: list) -> float:
    """Cached over prompt tokens, summed over every turn (Miles' own ``prefix_cache_hit_rate``);
    0.0 when the engine reports no ``cached_tokens``."""
    cached = sum(getattr(s.prefix_cache_info, "cached_tokens", 0) for s in samples)
    total = sum(getattr(s.prefix_cache_info, "total_prompt_tokens", 0) for s in samples)
    return cached / total if total > 0 else 0.0


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
        f"{prefix}prefix_cache_hit_rate": prefix_cache_hit_rate(samples),
        # retries.group = shrink: failed members kept in their group untrained.
        f"{prefix}group_failure_excluded": float(
            sum(envroll_meta(s).get("group_failure") == "excluded" for s in per_trace)
        ),
        # retries.group = retry / retry-group: re-runs of single members, and of whole groups
        # (every member carries its group's count: counted once per group).
        f"{prefix}group_failure_member_retries": float(
            sum(envroll_meta(s).get("member_retries", 0) for s in per_trace)
        ),
        f"{prefix}group_failure_group_retries": float(
            sum({_group_key(s): envroll_meta(s).get("group_retries", 0) for s in per_trace}.values())
        ),
    }


def _group_key(sample) -> object:
    meta = envroll_meta(sample)
    return (meta.get("task_index"), getattr(sample, "group_index", None))


def with_upstream_names(metrics: dict, prefix: str = "envroll/") -> dict:
    """Adds ``verifiers/<name>`` for each of the four figures found under ``<prefix><name>``."""
    out = dict(metrics)
    for name in UPSTREAM_NAMES:
        if f"{prefix}{name}" in metrics:
            out[f"verifiers/{name}"] = metrics[f"{prefix}{name}"]
    return out


def drop_metrics(drops: dict) -> dict:
    return {f"rollout/dynamic_filter/drop_{reason}": float(count) for reason, count in sorted(drops.items())}
