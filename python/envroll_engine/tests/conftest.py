"""Shared fixtures: engine subprocesses on free 127.0.0.1 ports and an in-process twin model.

The engine runs as a real `python -m envroll_engine` subprocess so the tests cover the CLI,
the HTTP layer and the cross-process determinism the e2e check relies on.
"""

from __future__ import annotations

import pytest

from engine_spawn import SEED, Spawned


@pytest.fixture(scope="session")
def _spawned():
    """Both engines start at once: their imports and model builds overlap on the two cores."""
    procs = {"engine": Spawned(), "trainee": Spawned("--weight-version", "0")}
    yield procs
    for p in procs.values():
        p.stop()


@pytest.fixture(scope="session")
def engine(_spawned):
    """Pristine tiny engine; tests using it must not change its weights."""
    return _spawned["engine"].ready()


@pytest.fixture(scope="session")
def trainee(_spawned):
    """Tiny engine whose weights the training tests move step by step."""
    return _spawned["trainee"].ready()


@pytest.fixture(scope="session")
def twin():
    """The same seeded tiny model loaded in this process, for teacher forcing."""
    import torch

    from envroll_engine.model import load

    torch.set_num_threads(1)  # as the engine and train_check default to; far faster on a busy box
    return load(model_dir=None, tiny=True, seed=SEED)


@pytest.fixture(scope="session")
def tokenizer(twin):
    return twin.tokenizer
