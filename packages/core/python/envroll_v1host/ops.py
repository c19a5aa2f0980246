"""The protocol's operations: describe and load a taskset, then per-rollout hooks.

A loaded taskset is a handle: its Task objects by `idx`. Per rollout the host keeps only what
V1 keeps per rollout in Python — the typed `State` and the user simulator instance — keyed by the
rollout id until `release`. Each hook gets a verifiers `Trace` rebuilt from envroll's snapshot of
the conversation (trace.py), so task code reads `trace.last_reply`, `num_turns`, `metrics`… as
it would under V1.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
from typing import Any

from envroll_v1host import plugin, toolsets
from envroll_v1host.errors import ConfigProblem
from envroll_v1host.runtime import RemoteRuntime
from envroll_v1host.trace import build_trace, message_dict


def _decorated(cls: type, attr: str) -> list[dict]:
    """`@vf.<attr>` functions of a class, in V1's order (-priority, name), without an instance."""
    names = {n for k in cls.__mro__ for n, fn in vars(k).items() if callable(fn) and hasattr(fn, attr)}
    fns = [fn for n in names if hasattr(fn := getattr(cls, n), attr)]
    fns.sort(key=lambda f: (-getattr(f, f"{attr}_priority", 0), f.__name__))
    out = []
    for fn in fns:
        p = inspect.signature(fn).parameters.get("runtime")
        out.append(
            {
                "name": fn.__name__,
                "priority": getattr(fn, f"{attr}_priority", 0),
                "weight": getattr(fn, "_vf_weight", None),
                "needs_runtime": p is not None and p.default is inspect.Parameter.empty,
            }
        )
    return out


def _types(taskset_cls):
    from verifiers.v1 import Task, Taskset, TasksetConfig
    from verifiers.v1.utils.generic import generic_type

    config_cls = generic_type(taskset_cls, TasksetConfig, origin=Taskset) or TasksetConfig
    task_cls = generic_type(taskset_cls, Task, origin=Taskset) or Task
    return config_cls, task_cls


def _overrides(cls, base, name: str) -> bool:
    return getattr(cls, name) is not getattr(base, name)


def _hidden_fields(cls, task_cls) -> list[str]:
    """envroll's `hidden_fields` (not a V1 name): task row fields the agent's credential must not
    read from `GET /task` (answers). Declared on the Taskset or the Task class."""
    for owner in (cls, task_cls):
        fields = getattr(owner, "hidden_fields", None)
        if fields is None:
            continue
        if isinstance(fields, str) or not all(isinstance(f, str) for f in fields):
            raise ConfigProblem("taskset", f"{owner.__name__}.hidden_fields: expected a list of field names, got {fields!r}")
        return list(fields)
    return []


async def describe(host, req: dict) -> dict:
    plugin.add_paths(req.get("path") or [])
    mod_name = plugin.resolve_module(req["taskset_id"])
    module = importlib.import_module(mod_name)
    cls = plugin.taskset_class(module)
    config_cls, task_cls = _types(cls)
    from verifiers.v1 import Task

    task_config_cls = config_cls.model_fields["task"].annotation
    user = getattr(task_cls, "user", None)
    return {
        "module": mod_name,
        "class": cls.__name__,
        "file": getattr(module, "__file__", None),
        "version": plugin.version_of(module),
        "verifiers_version": plugin.verifiers_version(),
        "config_fields": [k for k in config_cls.model_fields if k not in ("id", "task")],
        "task_config_fields": [k for k in getattr(task_config_cls, "model_fields", {}) if k != "judges"],
        "task_class": task_cls.__name__,
        "stops": _decorated(task_cls, "stop"),
        "metrics": _decorated(task_cls, "metric"),
        "rewards": _decorated(task_cls, "reward"),
        "group_rewards": _decorated(task_cls, "group_reward"),
        "user": user.__name__ if user is not None else None,
        "toolsets": toolsets.describe(task_cls, cls),
        "setup": _overrides(task_cls, Task, "setup"),
        "finalize": _overrides(task_cls, Task, "finalize"),
        "hidden_fields": _hidden_fields(cls, task_cls),
    }


def _config_issues(e, config_cls) -> list[dict]:
    """Each pydantic error as the TOML key it names and what is wrong there."""
    issues = []
    for err in e.errors():
        loc = ".".join(str(p) for p in err["loc"])
        msg = err["msg"]
        if err["type"] == "extra_forbidden":
            msg = f"unknown key ({config_cls.__name__} has no such field)"
        issues.append({"path": f"taskset.{loc}" if loc else "taskset", "message": msg})
    return issues


def _validated_config(req: dict):
    """The taskset class and its config, validated by the taskset's own pydantic model."""
    from pydantic import ValidationError

    plugin.add_paths(req.get("path") or [])
    module = importlib.import_module(plugin.resolve_module(req["taskset_id"]))
    cls = plugin.taskset_class(module)
    config_cls, _ = _types(cls)
    raw = dict(req.get("config") or {})
    # Judges are envroll's (its port of V1's judges runs them after the rewards), so the
    # Python task config gets none and Task.score does not run them a second time.
    raw["task"] = {k: v for k, v in (raw.get("task") or {}).items() if k != "judges"}
    try:
        return cls, config_cls.model_validate({**raw, "id": req["taskset_id"]}), []
    except ValidationError as e:
        return cls, None, _config_issues(e, config_cls)


async def check_config(host, req: dict) -> dict:
    """The taskset's own validator, asked by envroll's config validator before anything loads."""
    _, _, issues = _validated_config(req)
    return {"issues": issues}


async def load(host, req: dict) -> dict:
    cls, config, issues = _validated_config(req)
    if config is None:
        # check_config passed this config already; refused now, it is the taskset's failure to load.
        lines = "\n".join(f"{i['path']}: {i['message']}" for i in issues)
        raise ConfigProblem(issues[0]["path"], lines)
    taskset = cls(config)
    tasks = await asyncio.to_thread(taskset.load)
    handles = host.state.setdefault("handles", {})
    handle = len(handles) + 1
    by_idx: dict[int, Any] = {}
    for t in tasks:
        by_idx.setdefault(t.data.idx, t)
    handles[handle] = {"taskset": taskset, "tasks": by_idx}
    return {"handle": handle, "rows": [t.data.model_dump(mode="json") for t in tasks]}


def _task(host, req: dict):
    entry = host.state["handles"][req["handle"]]
    return entry["tasks"][req["idx"]]


def _rollout(host, req: dict, task) -> dict:
    rollouts = host.state.setdefault("rollouts", {})
    r = rollouts.get(req["rollout"])
    if r is None:
        from verifiers.v1.state import state_cls

        r = rollouts[req["rollout"]] = {"state": state_cls(type(task))(), "user": None, "tools": None}
    return r


def _context(host, req: dict):
    task = _task(host, req)
    r = _rollout(host, req, task)
    trace = build_trace(task, req.get("trace") or {}, r["state"])
    runtime = RemoteRuntime(host, req["rollout"], req["runtime"]) if req.get("runtime") else None
    return task, r, trace, runtime


def _after(trace) -> dict:
    return {"info": trace.info}


async def setup(host, req: dict) -> dict:
    task, _, trace, runtime = _context(host, req)
    await task.setup(trace, runtime)
    return _after(trace)


async def finalize(host, req: dict) -> dict:
    task, _, trace, runtime = _context(host, req)
    await task.finalize(trace, runtime)
    return _after(trace)


async def stop(host, req: dict) -> str | None:
    from verifiers.v1.decorators import discover_decorated

    task, _, trace, _ = _context(host, req)
    for fn in discover_decorated(task, "stop"):
        if await fn(trace):
            return fn.__name__
    return None


async def user(host, req: dict) -> list[dict]:
    from verifiers.v1.mcp.server import _call_state

    task, r, _, _ = _context(host, req)
    if r["user"] is None:
        u = task.user_server()
        token = _call_state.set(r["state"])
        try:
            await u.setup()
            await u.setup_task(task.data)
        finally:
            _call_state.reset(token)
        r["user"] = u
    token = _call_state.set(r["state"])
    try:
        messages = await r["user"].respond(req["message"])
    finally:
        _call_state.reset(token)
    return [message_dict(m) for m in messages]


async def tool(host, req: dict) -> str:
    task, r, _, _ = _context(host, req)
    if req.get("shared"):
        entry = host.state["handles"][req["handle"]]
        if "shared" not in entry:
            entry["shared"] = asyncio.ensure_future(toolsets.open_shared(entry["taskset"]))
        servers = await entry["shared"]
    else:
        if r["tools"] is None:
            r["tools"] = await toolsets.open_servers(task, r["state"])
        servers = r["tools"]
    return await toolsets.call(servers, r["state"], req["server"], req["tool"], req.get("args") or {})


async def score(host, req: dict) -> dict:
    task, _, trace, runtime = _context(host, req)
    await task.score(trace, runtime)
    return {"metrics": trace.metrics, "rewards": trace.rewards, "info": trace.info}


async def score_group(host, req: dict) -> list[dict]:
    from verifiers.v1.state import state_cls

    task = _task(host, req)
    traces = [build_trace(task, snap, state_cls(type(task))()) for snap in req["traces"]]
    await task.score_group(traces)
    return [t.rewards for t in traces]


async def release(host, req: dict) -> None:
    host.state.get("rollouts", {}).pop(req["rollout"], None)


HANDLERS = {
    "describe": (describe, "TaskError"),
    "check_config": (check_config, "TaskError"),
    "load": (load, "TaskError"),
    "setup": (setup, "TaskError"),
    "finalize": (finalize, "TaskError"),
    "stop": (stop, "TaskError"),
    "user": (user, "UserError"),
    "tool": (tool, "ToolsetError"),
    "score": (score, "TaskError"),
    "score_group": (score_group, "TaskError"),
    "release": (release, None),
}
