"""Rollout-service replicas: what the pool needs from one service, however it was started.

* ``LocalReplica``: an ``envroll serve`` child of this process (no Ray); a restart respawns it.
* ``UrlReplica``: a service someone else runs (``--envroll-url a,b,c``); a restart waits for it
  to answer ``/health`` again.
* ``RayReplica``: a Ray actor that starts its own ``envroll serve`` on its node and reports the
  URL. A restart kills the old actor for good (dead or hung) and places a new one; the actor has
  ``max_restarts=0`` so that Ray never restarts it behind the pool's back: the pool's restart
  thread is the one owner of restarts, and the URL it connects to is always the live actor's.

``stop()`` is final: a restart still under way when it comes stops what it started.
"""

from __future__ import annotations

import os
import secrets
import signal
from typing import Any

from .process import ServiceProcess
from .service import ServiceClient


class Replica:
    name: str = "replica"
    client: ServiceClient
    stopped: bool = False

    def restart(self, timeout: float) -> None:
        raise NotImplementedError

    def stop(self) -> None:
        self.stopped = True


class LocalReplica(Replica):
    def __init__(self, name: str, config: str, eval_config: str | None = None):
        self.name = name
        self._config = config
        self._eval_config = eval_config
        self.process = ServiceProcess(config, None, eval_config=eval_config)
        self.client = self.process.client

    def restart(self, timeout: float) -> None:
        self.kill()
        self.process = ServiceProcess(self._config, None, eval_config=self._eval_config, startup_timeout=timeout)
        self.client = self.process.client
        if self.stopped:
            self.process.stop()

    def kill(self) -> None:
        """SIGKILL to the service's process group (a hung service ignores SIGTERM)."""
        proc = self.process._proc
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait()

    def stop(self) -> None:
        self.stopped = True
        self.process.stop()


class UrlReplica(Replica):
    def __init__(self, url: str, token: str | None = None):
        self.name = url
        self.client = ServiceClient(url, token=token)
        self.client.wait_healthy(60.0)

    def restart(self, timeout: float) -> None:
        self.client.wait_healthy(timeout)


class ServeActor:
    """The body of a Ray replica actor: one ``envroll serve`` on the actor's node."""

    def __init__(self, config: str, eval_config: str | None, env: dict, token: str):
        os.environ.update(env)
        import ray  # type: ignore[import-not-found]

        host = ray.util.get_node_ip_address()
        # Off-loopback the service requires a bearer token (the pool holds it).
        self.process = ServiceProcess(config, None, eval_config=eval_config, host=host, token=token)

    def url(self) -> str:
        return self.process.url

    def pid(self) -> int:
        return os.getpid()

    def serve_pid(self) -> int:
        return self.process.pid

    def kill_serve(self) -> None:
        """SIGKILL to the serve's process group. A serve ends by itself when this actor dies (EOF
        on its stdin), but a hung one never reads that EOF, and Ray's reaping of a dead worker's
        children is a cluster setting (``RAY_kill_child_processes_on_worker_exit*``)."""
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _forwarded_env() -> dict:
    """What a replica on another node needs to find and configure ``envroll serve``."""
    return {k: v for k, v in os.environ.items() if k.startswith("ENVROLL_") and k != "ENVROLL_URL"}


class RayReplica(Replica):
    def __init__(self, name: str, config: str, eval_config: str | None, num_cpus: float, startup_timeout: float = 180.0):
        import ray  # type: ignore[import-not-found]

        self._ray = ray
        self.name = name
        self._token = secrets.token_hex(16)
        self._actor_class = ray.remote(ServeActor).options(
            num_cpus=num_cpus, max_restarts=0, max_task_retries=0, scheduling_strategy="SPREAD"
        )
        self._init_args = (os.path.abspath(config), os.path.abspath(eval_config) if eval_config else None,
                           _forwarded_env(), self._token)  # fmt: skip
        self.actor = None
        try:
            self._spawn(startup_timeout)
        except BaseException:
            self._kill()
            raise

    def _spawn(self, timeout: float) -> None:
        self.actor = self._actor_class.remote(*self._init_args)
        if self.stopped:
            self._kill()
            return
        # Waits for a CPU to be free (a dead actor's is released by the kill) and for its serve.
        url = self._ray.get(self.actor.url.remote(), timeout=timeout)
        self.client = ServiceClient(url, token=self._token)
        self.client.wait_healthy(timeout)

    def _kill(self, serve_too: bool = False) -> None:
        if serve_too:
            try:
                self._ray.get(self.actor.kill_serve.remote(), timeout=10.0)
            except Exception:  # noqa: BLE001 - the actor is dead already: its serve got EOF
                pass
        try:
            self._ray.kill(self.actor, no_restart=True)
        except Exception:  # noqa: BLE001 - already gone
            pass

    def restart(self, timeout: float) -> None:
        """A dead actor and a hung one alike: kill its serve and the actor for good, and place a
        new one wherever Ray finds the CPUs."""
        self._kill(serve_too=True)
        self._spawn(timeout)

    def stop(self) -> None:
        self.stopped = True
        self._kill()


def make_replicas(count: int, config: str, eval_config: str | None, num_cpus: float) -> list[Replica]:
    """K replicas: Ray actors when Ray is initialised (Miles' case), else local processes."""
    try:
        import ray  # type: ignore[import-not-found]

        use_ray = bool(ray.is_initialized())
    except ImportError:
        use_ray = False
    made: list[Replica] = []
    try:
        for i in range(count):
            made.append(RayReplica(f"ray-{i}", config, eval_config, num_cpus) if use_ray else LocalReplica(f"local-{i}", config, eval_config))
    except BaseException:
        for r in made:
            r.stop()
        raise
    return made


def url_replicas(urls: list[str], token: str | None) -> list[Replica]:
    return [UrlReplica(u, token) for u in urls]


def kind(replicas: list[Any]) -> str:
    return type(replicas[0]).__name__ if replicas else "none"
