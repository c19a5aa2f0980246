"""FAKE verifiers for envroll's host tests (see ../README.md). Not the real package."""

__version__ = "0.0.0-fake"
