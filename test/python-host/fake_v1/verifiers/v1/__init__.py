"""FAKE, V1-shaped API (see ../../README.md): just what the host and fake_env_v1 use."""

from __future__ import annotations

import contextvars
from typing import Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field


def _mark(attr, **extra):
    def deco(f):
        setattr(f, attr, True)
        for k, v in extra.items():
            setattr(f, k, v)
        return f

    return deco


def stop(f=None, priority=0):
    d = _mark("stop", stop_priority=priority)
    return d if f is None else d(f)


def metric(f=None, priority=0):
    d = _mark("metric", metric_priority=priority)
    return d if f is None else d(f)


def reward(f=None, weight=1.0, priority=0):
    d = _mark("reward", reward_priority=priority, _vf_weight=weight)
    return d if f is None else d(f)


def group_reward(f=None, weight=1.0, priority=0):
    d = _mark("group_reward", group_reward_priority=priority, _vf_weight=weight)
    return d if f is None else d(f)


def discover_decorated(obj, attr):
    names = {n for k in type(obj).__mro__ for n, fn in vars(k).items() if callable(fn) and hasattr(fn, attr)}
    ms = [m for n in names if hasattr(m := getattr(obj, n), attr)]
    ms.sort(key=lambda m: (-getattr(m, f"{attr}_priority", 0), m.__name__))
    return ms


def generic_type(cls, base, origin=None):
    for klass in cls.__mro__:
        for ob in getattr(klass, "__orig_bases__", ()):
            for a in getattr(ob, "__args__", ()):
                if isinstance(a, type) and issubclass(a, base):
                    return a
    return None


class State(BaseModel):
    model_config = ConfigDict(extra="forbid")


def state_cls(cls):
    return generic_type(cls, State) or State


class TaskData(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    idx: int
    prompt: Any = None
    system_prompt: str | None = None


class TaskConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TasksetConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str = ""
    task: TaskConfig = TaskConfig()


class MessageNode(BaseModel):
    parent: int | None = None
    message: dict
    sampled: bool = False


class TraceTask(BaseModel):
    type: str
    data: Any


class Trace(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)
    id: str = "t"
    task: TraceTask
    nodes: list[MessageNode] = Field(default_factory=list)
    metrics: dict[str, float] = Field(default_factory=dict)
    rewards: dict[str, float] = Field(default_factory=dict)
    info: dict[str, Any] = Field(default_factory=dict)
    stop_condition: str | None = None
    state: Any = None

    @property
    def num_turns(self) -> int:
        return sum(1 for n in self.nodes if n.sampled)

    @property
    def last_reply(self) -> str:
        replies = [n.message for n in self.nodes if n.sampled]
        return (replies[-1].get("content") or "").strip() if replies else ""

    def record_metric(self, name, value):
        self.metrics[name] = float(value)

    def record_reward(self, name, value, weight=1.0):
        self.rewards[name] = float(value) * weight


_call_state: contextvars.ContextVar = contextvars.ContextVar("fake_call_state", default=None)


class UserConfig(BaseModel):
    pass


class User:
    def __init__(self, config):
        self.config = config

    @property
    def state(self):
        return _call_state.get()

    async def setup(self):
        pass

    async def setup_task(self, task):
        pass


def _invoke(fn, available):
    import inspect

    params = inspect.signature(fn).parameters
    return fn(**{k: v for k, v in available.items() if k in params})


D = TypeVar("D")
S = TypeVar("S")
C = TypeVar("C")


class Task(Generic[D, S]):
    user: ClassVar[type | None] = None
    tools: ClassVar[tuple] = ()

    def __init__(self, data, config=None):
        self.data = data
        self.config = config

    def user_server(self):
        return type(self).user(UserConfig()) if type(self).user else None

    async def setup(self, trace, runtime):
        return None

    async def finalize(self, trace, runtime):
        return None

    async def score(self, trace, runtime=None):
        available = {"task": self.data, "trace": trace, "runtime": runtime}
        for fn in discover_decorated(self, "metric"):
            r = await _invoke(fn, available)
            for k, v in (r.items() if isinstance(r, dict) else [(fn.__name__, r)]):
                trace.record_metric(k, v)
        for fn in discover_decorated(self, "reward"):
            trace.record_reward(fn.__name__, await _invoke(fn, available), fn._vf_weight)

    async def score_group(self, traces):
        for fn in discover_decorated(self, "group_reward"):
            scores = await fn(traces)
            for t, s in zip(traces, scores):
                t.record_reward(fn.__name__, s, fn._vf_weight)


class Taskset(Generic[D, C]):
    tools: ClassVar[tuple] = ()

    def __init__(self, config):
        self.config = config
