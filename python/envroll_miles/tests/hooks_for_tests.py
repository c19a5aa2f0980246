"""Miles-style hooks the tests point ``--*-path`` flags at."""

from __future__ import annotations

import statistics
from types import SimpleNamespace

CALLS: dict = {"sample_filter": [], "all_samples": []}


def _samples(group):
    out = []
    for e in group:
        out.extend(e if isinstance(e, list) else [e])
    return out


def check_reward_nonzero_std(args, group, **kwargs):
    """Same rule as Miles' filter_hub check (std > 1e-8, reason zero_std_<reward>), written here."""
    rewards = [s.get_reward_value(args) for s in _samples(group)]
    if statistics.pstdev(rewards) > 1e-8:
        return SimpleNamespace(keep=True, reason=None)
    return SimpleNamespace(keep=False, reason=f"zero_std_{round(rewards[0], 1)}")


async def constant_rm(args, sample):
    return 0.5


async def group_rank_rm(args, samples):
    return [float(i) for i, _ in enumerate(samples)]


def sample_filter(args, data):
    CALLS["sample_filter"].append(len(data))
    for group in data:
        _samples(group)[0].remove_sample = True


def all_samples(args, all_groups, data_source):
    CALLS["all_samples"].append(len(all_groups))
