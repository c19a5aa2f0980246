"""``--envroll-dump-dir``: every returned train/eval batch as one JSON file, for inspection and
for replaying what the trainer saw. Sample dicts are shaped like Miles' ``Sample.to_dict()``."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from .samples import element_to_dict, sample_to_dict


def dump_dir(args: Any) -> str | None:
    return getattr(args, "envroll_dump_dir", None) or os.environ.get("ENVROLL_DUMP_DIR") or None


def _jsonable_args(args: Any) -> dict:
    out = {}
    for key, value in sorted(vars(args).items()):
        try:
            json.dumps(value)
        except (TypeError, ValueError):
            value = repr(value)
        out[key] = value
    return out


def _write(path: Path, payload: dict) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(payload, ensure_ascii=False))
    os.replace(tmp, path)
    return str(path)


def _target(args: Any, kind: str, rollout_id: int, path: str | None) -> Path | None:
    """Where a dump goes: the explicit path, else `<dump dir>/<kind>_<rollout id>.json`; None when neither is set."""
    directory = dump_dir(args)
    if path is None and directory is None:
        return None
    return Path(path) if path else Path(directory) / f"{kind}_{rollout_id:06d}.json"


def dump_train(args: Any, rollout_id: int, groups: list, metrics: dict, path: str | None = None) -> str | None:
    target = _target(args, "train", rollout_id, path)
    if target is None:
        return None
    payload = {
        "kind": "train",
        "rollout_id": rollout_id,
        "groups": [[element_to_dict(e) for e in g] for g in groups],
        "metrics": metrics,
        "args": _jsonable_args(args),
    }
    return _write(target, payload)


def dump_eval(args: Any, rollout_id: int, data: dict, metrics: dict, path: str | None = None) -> str | None:
    target = _target(args, "eval", rollout_id, path)
    if target is None:
        return None
    plain = {
        name: {
            "rewards": entry["rewards"],
            "truncated": entry["truncated"],
            "samples": [sample_to_dict(s) for s in entry["samples"]],
        }
        for name, entry in data.items()
    }
    payload = {"kind": "eval", "rollout_id": rollout_id, "data": plain, "metrics": metrics, "args": _jsonable_args(args)}
    return _write(target, payload)
