"""Miles-side hooks applied to returned groups, with the signatures Miles documents.

Rewards: ``--group-rm`` (batched over a group), else ``--custom-rm-path`` / ``--rm-type`` per
sample. Either **overrides** the environment's reward, as in Miles' own loop. Miles' reward hub
(``miles.rollout.rm_hub``) is used when importable so built-in ``--rm-type`` values work;
without Miles only ``--custom-rm-path`` can run.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
from typing import Any, Callable



def load_function(path: str) -> Callable:
    """``pkg.module.attr`` → the attribute; Miles' own loader (which checks its function registry
    first) when importable, else importlib."""
    try:
        from miles.utils.misc import load_function as miles_load  # type: ignore[import-not-found]
    except ImportError:
        miles_load = None
    if miles_load is not None:
        return miles_load(path)
    module_name, _, attr = path.rpartition(".")
    if not module_name:
        raise ValueError(f"envroll_miles: {path!r} is not a dotted path to a function")
    return getattr(importlib.import_module(module_name), attr)


async def _maybe_await(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


def _rm_hub() -> Any:
    try:
        return importlib.import_module("miles.rollout.rm_hub")
    except ImportError:
        return None


def has_miles_rm(args: Any) -> bool:
    return bool(getattr(args, "custom_rm_path", None) or getattr(args, "rm_type", None))


def _scored(group: list) -> list[tuple[Any, list]]:
    """(sample the RM sees, samples that get its reward) per group element.

    Miles requires the siblings of a compact rollout to carry identical rewards, so the RM scores
    the last sibling (the final answer) and its reward is copied to the others.
    """
    return [(e[-1], e) if isinstance(e, list) else (e, [e]) for e in group]


async def apply_rewards(args: Any, group: list) -> None:
    """Replaces the envroll reward of every sample of ``group`` with the Miles RM's, when one is set."""
    if not has_miles_rm(args):
        return
    scored = _scored(group)
    samples = [s for s, _ in scored]
    hub = _rm_hub()
    if getattr(args, "group_rm", False):
        if hub is not None and hasattr(hub, "batched_async_rm"):
            rewards = await _maybe_await(hub.batched_async_rm(args, samples))
        else:
            rewards = await _maybe_await(_custom_rm(args)(args, samples))
        if len(rewards) != len(samples):
            raise ValueError(f"envroll_miles: group RM returned {len(rewards)} rewards for {len(samples)} samples")
    else:
        call = hub.async_rm if hub is not None and hasattr(hub, "async_rm") else _custom_rm(args)
        rewards = await asyncio.gather(*(_maybe_await(call(args, s)) for s in samples))
    for (_, targets), reward in zip(scored, rewards):
        for sample in targets:
            sample.reward = reward


def _custom_rm(args: Any) -> Callable:
    path = getattr(args, "custom_rm_path", None)
    if not path:
        raise ValueError(
            f"envroll_miles: --rm-type {getattr(args, 'rm_type', None)!r} needs Miles' reward hub "
            "(miles.rollout.rm_hub), which is not importable here; use --custom-rm-path"
        )
    return load_function(path)


def dynamic_filter(args: Any, group: list) -> tuple[bool, str | None]:
    """``--dynamic-sampling-filter-path``: keep the group? (a bool or an object with keep/reason)."""
    path = getattr(args, "dynamic_sampling_filter_path", None)
    if not path:
        return True, None
    result = load_function(path)(args, group)
    if hasattr(result, "keep"):
        return bool(result.keep), (getattr(result, "reason", None) or "filtered")
    return bool(result), None if result else "filtered"


def run_sample_filter(args: Any, groups: list) -> None:
    path = getattr(args, "rollout_sample_filter_path", None)
    if path:
        load_function(path)(args, groups)


def run_all_samples_hook(args: Any, all_groups: list, data_source: Any) -> None:
    """Sees every group, filtered-out ones too; gets ``data_source.get_samples`` like Miles' loop."""
    path = getattr(args, "rollout_all_samples_process_path", None)
    if path:
        load_function(path)(args, all_groups, getattr(data_source, "get_samples", data_source))
