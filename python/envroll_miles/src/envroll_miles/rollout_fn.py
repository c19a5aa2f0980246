"""The Miles rollout function: ``--rollout-function-path envroll_miles.EnvrollRolloutFn``.

Miles builds it once with ``RolloutFnConstructorInput(args, data_source)`` and calls it per step
with ``RolloutFnTrainInput`` or ``RolloutFnEvalInput``. It validates Miles' args, starts the
envroll rollout service (or connects to one), and turns streamed groups into Miles samples.
``generate_rollout`` is the legacy function form of the same thing.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import threading
from typing import Any

from . import validation
from .dump import dump_eval, dump_train
from .eval_loop import collect_eval
from .miles_types import load_types
from .pool import ReplicaPool
from .process import ServiceProcess
from .replicas import make_replicas, url_replicas
from .service import ServiceClient
from .settings import concurrency
from .sharded import collect_eval_sharded, collect_train_sharded
from .task_cursor import CursorStore
from .train_loop import collect_train, drop_carried

OPTIONS = [
    ("--envroll-config", dict(type=str, default=None, help="envroll env.toml (fallback: ENVROLL_CONFIG)")),
    ("--envroll-eval-config", dict(type=str, default=None, help="separate env.toml for eval (fallback: ENVROLL_EVAL_CONFIG)")),
    ("--envroll-url", dict(type=str, default=None, help="a running envroll rollout service (fallback: ENVROLL_URL)")),
    ("--envroll-dump-dir", dict(type=str, default=None, help="write every batch as JSON here (fallback: ENVROLL_DUMP_DIR)")),
    ("--envroll-state-dir", dict(type=str, default=None, help="task-cursor state (fallback: ENVROLL_STATE_DIR; default: <save>/envroll_state)")),
    ("--envroll-replicas", dict(type=int, default=None, help="run K rollout-service replicas: Ray actors when Ray is initialised, else local processes (fallback: ENVROLL_REPLICAS)")),
    ("--envroll-replica-concurrency", dict(type=int, default=None, help="rollouts in flight per replica (default: Miles' concurrency / K; fallback: ENVROLL_REPLICA_CONCURRENCY)")),
    ("--envroll-replica-cpus", dict(type=float, default=None, help="CPUs each Ray replica actor reserves (default 1; fallback: ENVROLL_REPLICA_CPUS)")),
    ("--envroll-health-timeout", dict(type=float, default=None, help="seconds without /health before a busy replica counts as hung (default 30; fallback: ENVROLL_HEALTH_TIMEOUT)")),
    ("--envroll-compact-rollouts", dict(action="store_true", default=False, help="train multi-branch traces as compact rollouts (fallback: ENVROLL_COMPACT_ROLLOUTS=1)")),
    ("--envroll-keep-failed-groups", dict(action="store_true", default=False, help="refused: replaced by retries.group in the env.toml (see the README)")),
]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Miles' ``add_user_provided_function_arguments`` hook."""
    for flag, kwargs in OPTIONS:
        try:
            parser.add_argument(flag, **kwargs)
        except argparse.ArgumentError:
            pass  # already registered (same class used as rollout and eval function)


def _opt(args: Any, name: str, env: str) -> str | None:
    return getattr(args, name, None) or os.environ.get(env) or None


def state_dir(args: Any) -> str | None:
    explicit = _opt(args, "envroll_state_dir", "ENVROLL_STATE_DIR")
    if explicit:
        return explicit
    save = getattr(args, "save", None)
    return os.path.join(save, "envroll_state") if save else None


class EnvrollRolloutFn:
    add_arguments = staticmethod(add_arguments)

    def __init__(self, input: Any):
        self.args = input.args
        self.data_source = input.data_source
        self.types = load_types()
        validation.check(validation.miles_problems(self.args))
        self.process: ServiceProcess | None = None
        self.pool: ReplicaPool | None = None
        url = _opt(self.args, "envroll_url", "ENVROLL_URL")
        token = os.environ.get("ENVROLL_TOKEN")
        urls = [u.strip() for u in (url or "").split(",") if u.strip()]
        replicas = _opt(self.args, "envroll_replicas", "ENVROLL_REPLICAS")
        if len(urls) > 1 or replicas is not None:
            self._start_pool(urls, token, replicas)
        elif url:
            self.client = ServiceClient(url, token=token)
            self.client.wait_healthy(60.0)
        else:
            config = _opt(self.args, "envroll_config", "ENVROLL_CONFIG")
            if not config:
                validation.check([("no_config", validation.MESSAGES["no_config"])])
            eval_config = _opt(self.args, "envroll_eval_config", "ENVROLL_EVAL_CONFIG")
            self.process = ServiceProcess(config, state_dir(self.args), eval_config=eval_config)
            self.client = self.process.client
        self.info = self.client.info()
        try:
            validation.check(validation.environment_problems(self.args, self.info))
        except validation.EnvrollConfigError:
            self.dispose()
            raise
        self.eval_name = getattr(self.args, "envroll_eval_name", None) or self.info.get("taskset_id") or "envroll"

    def _start_pool(self, urls: list[str], token: str | None, replicas: Any) -> None:
        """Several services behind this one trainer; the cursor is then kept here (task_cursor.py)."""
        args = self.args
        if getattr(args, "partial_rollout", False):  # the replica path judges per step; it has no carry-over
            validation.check([("partial_rollout_replicas", "envroll_miles: --partial-rollout works with one rollout service; with several (--envroll-replicas, several --envroll-url) it is not supported yet")])
        if urls and replicas is not None:
            validation.check([("replicas_and_urls", "envroll_miles: --envroll-replicas starts services; with --envroll-url (several) give one or the other")])
        if urls:
            made = url_replicas(urls, token)
        else:
            count = int(replicas)
            if count < 1:
                validation.check([("replicas", f"envroll_miles: --envroll-replicas must be ≥ 1, got {count}")])
            config = _opt(args, "envroll_config", "ENVROLL_CONFIG")
            if not config:
                validation.check([("no_config", validation.MESSAGES["no_config"])])
            cpus = float(_opt(args, "envroll_replica_cpus", "ENVROLL_REPLICA_CPUS") or 1)
            made = make_replicas(count, config, _opt(args, "envroll_eval_config", "ENVROLL_EVAL_CONFIG"), cpus)
        per = _opt(args, "envroll_replica_concurrency", "ENVROLL_REPLICA_CONCURRENCY")
        self.per_replica = int(per) if per else max(1, -(-concurrency(args) // len(made)))
        n = int(getattr(args, "n_samples_per_prompt", None) or 1)
        health = float(_opt(args, "envroll_health_timeout", "ENVROLL_HEALTH_TIMEOUT") or 30.0)
        self.pool = ReplicaPool(made, max(1, self.per_replica // n), health_timeout=health)
        self.store = CursorStore(state_dir(args))
        self.client = self.pool.client
        infos = [r.client.info() for r in made]
        for r, other in zip(made[1:], infos[1:]):
            if (other.get("taskset_id"), other.get("num_tasks")) != (infos[0].get("taskset_id"), infos[0].get("num_tasks")):
                self.pool.stop()
                raise validation.EnvrollConfigError([("replicas_differ", 
                    f"envroll_miles: replica {r.name} serves {other.get('taskset_id')} ({other.get('num_tasks')} tasks), "
                    f"the first one {infos[0].get('taskset_id')} ({infos[0].get('num_tasks')} tasks)"
                )])

    async def __call__(self, input: Any) -> Any:
        await _configure_dumper(self.args)
        pool = self.pool
        if getattr(input, "evaluation", False):
            if pool is not None:
                data, metrics = await collect_eval_sharded(
                    self.args, pool, self.info, self.types, input.rollout_id, self.eval_name, self.per_replica
                )
            else:
                data, metrics = await collect_eval(self.args, self.client, self.types, input.rollout_id, self.eval_name)
            dump_eval(self.args, input.rollout_id, data, metrics)
            return self.types.EvalOutput(data=data, metrics=metrics)
        if pool is not None:
            groups, metrics = await collect_train_sharded(
                self.args, pool, self.store, self.info, self.types, input.rollout_id, self.data_source, self.per_replica
            )
        else:
            groups, metrics = await collect_train(self.args, self.client, self.types, input.rollout_id, self.data_source)
        dump_train(self.args, input.rollout_id, groups, metrics)
        return self.types.TrainOutput(samples=groups, metrics=metrics)

    def dispose(self) -> None:
        if getattr(self, "client", None) is not None:
            drop_carried(self.client)  # a --partial-rollout stream left open
        if self.pool is not None:
            self.pool.stop()
            self.pool = None
        if self.process is not None:
            self.process.stop()
            self.process = None


async def _configure_dumper(args: Any) -> None:
    """``--dumper-enable`` / ``--dumper-inference``: Miles' own per-step call that points the SGLang
    dumper at ``--dumper-dir`` (as the upstream adapter makes it). Only reachable inside Miles."""
    if not (getattr(args, "dumper_enable", False) or getattr(args, "dumper_inference", None)):
        return
    from miles.utils import dumper_utils  # type: ignore[import-not-found]

    await dumper_utils.configure_sglang(args)


def _run(coro: Any) -> Any:
    """Runs a coroutine from sync code, also when the caller already has a running loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    box: dict = {}

    def target() -> None:
        try:
            box["value"] = asyncio.run(coro)
        except BaseException as err:  # re-raised in the caller's thread
            box["error"] = err

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box["value"]


_legacy: dict = {}


def generate_rollout(args: Any, rollout_id: int, data_source: Any, evaluation: bool = False) -> Any:
    """Legacy form: ``--rollout-function-path envroll_miles.generate_rollout``.

    Returns the same ``RolloutFnTrainOutput`` / ``RolloutFnEvalOutput`` (metrics included) as the
    class; Miles passes those through unchanged. Under ``MILES_USE_LEGACY_ROLLOUT_V1=1`` Miles
    calls no ``add_arguments`` hook, so the ``--envroll-*`` flags do not exist there: configure
    it with the environment variables (``ENVROLL_CONFIG`` or ``ENVROLL_URL``, ``ENVROLL_EVAL_CONFIG``,
    ``ENVROLL_STATE_DIR``, ``ENVROLL_DUMP_DIR``, ``ENVROLL_COMPACT_ROLLOUTS=1``). One adapter (one service) serves train and eval.
    """
    key = (id(args), id(data_source))
    fn = _legacy.get(key)
    if fn is None:
        types = load_types()
        fn = _legacy[key] = EnvrollRolloutFn(types.ConstructorInput(args=args, data_source=data_source))
    types = fn.types
    inp = types.EvalInput(rollout_id=rollout_id) if evaluation else types.TrainInput(rollout_id=rollout_id)
    return _run(fn(inp))


generate_rollout.add_arguments = add_arguments  # type: ignore[attr-defined]
