"""Taskset resolution as verifiers V1 does it (`v1/loaders.py`), minus installation.

An id maps to a module the way V1 maps it: org and `@version` stripped, `-` → `_`; a built-in
under `verifiers.v1.tasksets.<mod>` first, else the top-level `<mod>`. The module must export
exactly one `Taskset` subclass in `__all__`. Nothing is installed: V1 0.2.0 would fetch a hub id
that is not importable, envroll reports it instead (NotFound, and the TS side says so).
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import os
import sys
from pathlib import Path

from envroll_v1host.errors import NotFound


def module_name(taskset_id: str) -> str:
    name = taskset_id
    if "/" in name and not name.startswith((".", "/")):
        name = name.split("/")[-1]
    name = name.split("@", 1)[0] if not name.startswith("@") else name
    return name.replace("-", "_")


def _path_module(taskset_id: str) -> str | None:
    """A local path id (`./envs/my_env`, `/x/my_env.py`): its folder goes on sys.path."""
    if not (taskset_id.startswith((".", "/")) or taskset_id.endswith(".py")):
        return None
    p = Path(taskset_id).resolve()
    if p.suffix == ".py":
        folder, mod = p.parent, p.stem
    elif (p / "__init__.py").exists():
        folder, mod = p.parent, p.name
    else:
        raise NotFound(f"{taskset_id}: not a Python module (no {p.name}.py or {p}/__init__.py)")
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
    return mod


def _find(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def resolve_module(taskset_id: str) -> str:
    """The importable module for an id, or NotFound (checked without importing it)."""
    mod = _path_module(taskset_id) or module_name(taskset_id)
    if not mod.isidentifier():
        raise NotFound(f"{taskset_id!r} maps to {mod!r}, which is not a Python module name")
    builtin = f"verifiers.v1.tasksets.{mod}"
    if _find("verifiers") and _find("verifiers.v1.tasksets") and _find(builtin):
        return builtin
    if _find(mod):
        return mod
    raise NotFound(f"no Python module {mod!r} importable by {sys.executable}")


def taskset_class(module):
    from verifiers.v1 import Taskset

    names = getattr(module, "__all__", None)
    if names is None:
        raise TypeError(f"taskset module {module.__name__!r} defines no `__all__` exporting its Taskset")
    found = [
        obj
        for n in names
        if isinstance(obj := getattr(module, n, None), type) and issubclass(obj, Taskset) and obj is not Taskset
    ]
    if len(found) != 1:
        raise TypeError(
            f"taskset module {module.__name__!r} must export exactly one Taskset subclass via "
            f"`__all__`, found {[c.__name__ for c in found]}"
        )
    return found[0]


def version_of(module) -> str | None:
    """The distribution's version, else a `pyproject.toml` beside the package (a source checkout)."""
    top = module.__name__.split(".")[0]
    try:
        dists = importlib.metadata.packages_distributions().get(top) or []
        if dists:
            return importlib.metadata.version(dists[0])
    except Exception:
        pass
    v = getattr(module, "__version__", None)
    if isinstance(v, str):
        return v
    file = getattr(module, "__file__", None)
    if file:
        pyproject = Path(file).resolve().parent.parent / "pyproject.toml"
        if pyproject.exists():
            import tomllib

            with open(pyproject, "rb") as f:
                return tomllib.load(f).get("project", {}).get("version")
    return None


def verifiers_version() -> str | None:
    try:
        return importlib.metadata.version("verifiers")
    except Exception:
        import verifiers

        return getattr(verifiers, "__version__", None)


def add_paths(paths: list[str]) -> None:
    for p in reversed(paths or []):
        p = os.path.abspath(p)
        if p not in sys.path:
            sys.path.insert(0, p)
