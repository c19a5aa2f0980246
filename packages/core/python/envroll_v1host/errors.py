"""Exceptions as protocol records: the V1 error type name, message and Python traceback."""

from __future__ import annotations

import traceback

# V1's typed rollout errors keep their own name; anything else is named by the boundary the
# caller crossed (a reward that raises ValueError is a TaskError, as in V1's `boundary`).
V1_TYPES = {
    "TaskError",
    "UserError",
    "ToolsetError",
    "SandboxError",
    "HarnessError",
    "InterceptionError",
    "ProviderError",
    "OverlongPromptError",
    "TunnelError",
}


class ConfigProblem(Exception):
    """A taskset config the taskset's own pydantic model refused; `path` is the TOML key."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(message)
        self.path = path


class NotFound(Exception):
    """No importable Python module for a taskset id (the TS side then tries other loaders)."""


def error_record(e: BaseException, boundary: str | None) -> dict:
    name = type(e).__name__
    if isinstance(e, ConfigProblem):
        return {"type": "ConfigError", "message": str(e), "path": e.path}
    if isinstance(e, NotFound):
        return {"type": "NotFound", "message": str(e)}
    mro = {k.__name__ for k in type(e).__mro__}
    typed = next((n for n in (name, *sorted(mro)) if n in V1_TYPES), None)
    kind = typed or boundary or "TaskError"
    message = str(e) if typed else f"{name}: {e}"
    tb = "".join(traceback.format_exception(type(e), e, e.__traceback__))
    return {"type": kind, "message": message, "traceback": tb}
