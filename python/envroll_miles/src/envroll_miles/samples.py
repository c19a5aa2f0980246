"""Sample dicts from the rollout service ↔ Miles ``Sample`` objects.

The service sends dicts shaped like ``Sample.to_dict()``. They are rebuilt field by field rather
than through ``Sample.from_dict`` so that a Miles version with a slightly different field set
still works: known fields are set, nested info dataclasses are rebuilt from their defaults'
types, and unknown keys are ignored.
"""

from __future__ import annotations

import dataclasses
import enum
from typing import Any

_NESTED = ("spec_info", "prefix_cache_info")


def sample_from_dict(data: dict, Sample: type, Status: type) -> Any:
    sample = Sample()
    names = {f.name for f in dataclasses.fields(Sample)} if dataclasses.is_dataclass(Sample) else set(data)
    for key, value in data.items():
        if key not in names:
            continue
        if key == "status":
            value = Status(value)
        elif key == "reward":
            value = _float_reward(value)
        elif key in _NESTED and isinstance(value, dict):
            current = getattr(sample, key, None)
            if dataclasses.is_dataclass(current):
                known = {f.name for f in dataclasses.fields(current)}
                value = type(current)(**{k: v for k, v in value.items() if k in known})
            else:
                continue
        setattr(sample, key, value)
    # Miles' own alignment check, so a bad sample fails here and not deep inside the trainer.
    validate = getattr(sample, "validate", None)
    if callable(validate):
        validate()
    return sample


def _float_reward(value: Any) -> Any:
    """JSON turns 1.0 into 1; Miles rewards are floats (or dicts of floats)."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return float(value)
    if isinstance(value, dict):
        return {k: _float_reward(v) for k, v in value.items()}
    return value


def element_from_wire(element: Any, Sample: type, Status: type) -> Any:
    """A group element: a sample dict, or a compact rollout (list of sample dicts)."""
    if isinstance(element, list):
        return [sample_from_dict(e, Sample, Status) for e in element]
    return sample_from_dict(element, Sample, Status)


def flatten(group: list) -> list:
    """The samples of a group, compact rollouts expanded."""
    out: list = []
    for element in group:
        out.extend(element if isinstance(element, list) else [element])
    return out


def _plain(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "tolist"):  # numpy arrays (routed experts) when present
        return value.tolist()
    return value


def sample_to_dict(sample: Any) -> dict:
    """``Sample.to_dict()`` when it exists, else the same shape built from the dataclass fields."""
    to_dict = getattr(sample, "to_dict", None)
    if callable(to_dict):
        return _plain(to_dict())
    return _plain(sample)


def element_to_dict(element: Any) -> Any:
    if isinstance(element, list):
        return [sample_to_dict(s) for s in element]
    return sample_to_dict(element)


def envroll_meta(sample: Any) -> dict:
    return (getattr(sample, "metadata", None) or {}).get("envroll", {})
