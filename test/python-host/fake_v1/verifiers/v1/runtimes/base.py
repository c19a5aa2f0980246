"""FAKE (see README)."""

from dataclasses import dataclass


@dataclass(frozen=True)
class ProgramResult:
    exit_code: int
    stdout: str
    stderr: str
