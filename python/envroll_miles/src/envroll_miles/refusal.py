"""Typed refusals: trace errors that stop a step instead of being resampled.

A rollout the train path refuses by design (e.g. a prompt with an image part) fails the same way
every time, so resampling would spin; the upstream adapter re-raises such errors. Here only the
error *type* decides (the TypeScript side records ``UnsupportedError`` for these), never the
wording: a tool that merely prints "not supported" is ordinary bad luck and is resampled.
"""

from __future__ import annotations

from .samples import envroll_meta, flatten

REFUSAL_TYPES = frozenset({"UnsupportedError"})


def refusal(group: list) -> str | None:
    """The first typed refusal among the group's samples ("type: message"), if any."""
    for sample in flatten(group):
        meta = envroll_meta(sample)
        if meta.get("error_type") in REFUSAL_TYPES:
            return meta.get("error") or meta["error_type"]
    return None
