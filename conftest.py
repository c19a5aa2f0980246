"""How pytest-xdist splits the Python tests between its workers (`npm test` runs them with
`--dist loadgroup`, scripts/test-plan.mjs).

Each test file is one unit of work, as `--dist loadfile` would make it, so a file's module
fixtures start once. Files marked `pytest.mark.xdist_group(name)` share one unit instead: the
envroll_engine tests that use the session's tiny engines (conftest.py there) are one group, so a
single worker starts the two engines and loads the twin model, not both (each engine is ~8 s of
CPU on this machine, and the twin another torch model load).
"""

from __future__ import annotations

import pytest


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook turns the marks into node id suffixes
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::", 1)[0]))
