"""Reading Miles sample groups and checking them the way Miles' trainer would.

Accepted inputs (JSON or JSONL):
  - a list of groups, each a list whose elements are samples or compact rollouts (lists of
    sibling samples sharing `rollout_id`), i.e. Miles' `list[list[Sample | list[Sample]]]`;
  - a flat list / JSONL of samples (what `envroll export` writes), grouped by `group_index`.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

from .grpo import group_advantages


@dataclass
class Checked:
    """A sample that passed the alignment checks, ready for scoring and the loss."""

    tokens: list[int]
    response_length: int
    loss_mask: list[int]  # compared against the engine; 1 = model-sampled token
    train_mask: list[int]  # enters the loss: loss_mask, or all zeros for remove_sample
    rollout_log_probs: list[float]
    advantage: float
    where: str  # "group g sample i (index=…)", for messages


def _load_records(path: str) -> list:
    text = Path(path).read_text()
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        data = [json.loads(line) for line in text.splitlines() if line.strip()]  # JSONL
    if not isinstance(data, list):
        raise ValueError(f"{path}: expected a JSON list (of groups or samples) or JSONL")
    return data


def read_groups(path: str) -> list[list[dict]]:
    """Groups of samples, compact rollouts flattened into their siblings."""
    data = _load_records(path)
    if all(isinstance(x, dict) for x in data):
        by: dict = {}  # flat: group by group_index, in order of first appearance
        for s in data:
            by.setdefault(s.get("group_index"), []).append(s)
        return list(by.values())
    groups = []
    for g in data:
        if not isinstance(g, list):
            raise ValueError("a list of groups must hold only lists")
        flat = [s for e in g for s in (e if isinstance(e, list) else [e])]
        if not all(isinstance(s, dict) for s in flat):
            raise ValueError("group elements must be sample objects or lists of them")
        groups.append(flat)
    return groups


def reward_of(s: dict, key: str | None) -> float:
    r = s.get("reward")
    if isinstance(r, dict):
        if key is None:
            raise ValueError("dict reward needs --reward-key")
        r = r.get(key)
    if isinstance(r, bool) or not isinstance(r, (int, float)) or not math.isfinite(r):
        raise ValueError(f"reward must be a finite number, got {r!r}")
    return float(r)


def alignment_errors(s: dict) -> list[str]:
    """Miles Sample.validate(): loss_mask and rollout_log_probs have response_length entries,
    tokens hold the response, and the prompt is non-empty (the first response token needs a
    preceding position to be scored from)."""
    errs = []
    tokens, R = s.get("tokens"), s.get("response_length")
    mask, lps = s.get("loss_mask"), s.get("rollout_log_probs")
    if not isinstance(tokens, list) or not all(isinstance(t, int) and not isinstance(t, bool) for t in tokens):
        return ["tokens must be a list of ints"]
    if not isinstance(R, int) or isinstance(R, bool) or R < 0:
        return [f"response_length must be an int >= 0, got {R!r}"]
    if len(tokens) <= R:
        errs.append(f"len(tokens)={len(tokens)} must exceed response_length={R} (non-empty prompt)")
    if mask is None:
        mask = [1] * R  # Miles: None means all ones
    if not isinstance(mask, list) or len(mask) != R:
        errs.append(f"len(loss_mask)={len(mask) if isinstance(mask, list) else mask!r} != response_length={R}")
    elif any(m not in (0, 1) for m in mask):
        errs.append("loss_mask entries must be 0 or 1")
    if not isinstance(lps, list) or len(lps) != R:
        errs.append(f"len(rollout_log_probs)={len(lps) if isinstance(lps, list) else lps!r} != response_length={R}")
    elif not all(isinstance(x, (int, float)) and math.isfinite(x) for x in lps):
        errs.append("rollout_log_probs must be finite numbers")
    return errs


def _rollout_key(s: dict, position: int):
    # Miles keys normalization by rollout_id, else index: compact siblings count once.
    if s.get("rollout_id") is not None:
        return ("rollout_id", s["rollout_id"])
    return ("index", s["index"]) if s.get("index") is not None else ("position", position)


def group_advantages_by_rollout(group: list[dict], reward_key: str | None) -> list[float]:
    """Per-sample advantages: one reward per rollout key (siblings must agree, as Miles
    requires), normalised across the group's rollouts, broadcast back to every sibling."""
    rewards: dict = {}
    keys = []
    for pos, s in enumerate(group):
        k, r = _rollout_key(s, pos), reward_of(s, reward_key)
        if k in rewards and rewards[k] != r:
            raise ValueError(f"siblings of {k[0]}={k[1]} have different rewards ({rewards[k]} vs {r})")
        rewards.setdefault(k, r)
        keys.append(k)
    adv = dict(zip(rewards, group_advantages(list(rewards.values())), strict=True))
    return [adv[k] for k in keys]


def check_samples(groups: list[list[dict]], reward_key: str | None) -> tuple[list[Checked], list[str]]:
    checked, errors = [], []
    for g, group in enumerate(groups):
        try:
            advs = group_advantages_by_rollout(group, reward_key)
        except ValueError as e:
            errors.append(f"group {g}: {e}")
            continue
        for i, s in enumerate(group):
            where = f"group {g} sample {i} (index={s.get('index')})"
            errs = alignment_errors(s)
            if errs:
                errors.extend(f"{where}: {e}" for e in errs)
                continue
            R = s["response_length"]
            mask = list(s.get("loss_mask") or [1] * R)
            train = [0] * R if s.get("remove_sample") else mask  # Miles zeroes removed samples' loss
            lps = [float(x) for x in s["rollout_log_probs"]]
            checked.append(Checked(list(s["tokens"]), R, mask, train, lps, advs[i], where))
    return checked, errors
