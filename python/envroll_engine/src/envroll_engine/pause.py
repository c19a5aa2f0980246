"""/pause_generation and /continue_generation, as SGLang's scheduler applies them.

While paused nothing makes progress: a request not yet started waits before its prefill, a
running one stops between two tokens. The modes differ in what happens to running requests:
`abort` aborts them (the engine does that part), `retract` gives their KV cache back and
re-prefills prompt + output so far on resume, `in_place` keeps the KV cache as it was. After a
weight update in between, a retracted request continues exactly as the new weights would from
its prefix; an in_place one continues from keys and values the old weights computed.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Callable

MODES = ("abort", "retract", "in_place")
_POLL_S = 0.05  # how often a held request looks at its abort flag


@dataclass(frozen=True)
class Resumed:
    """Returned to a request that was held: whether its KV cache must be recomputed."""

    recompute: bool


class PauseGate:
    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._mode: str | None = None

    @property
    def paused(self) -> bool:
        return self._mode is not None

    def pause(self, mode: str) -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
        with self._cond:
            self._mode = mode

    def resume(self) -> None:
        with self._cond:
            self._mode = None
            self._cond.notify_all()

    def wait_open(self, cancelled: Callable[[], bool]) -> str | None:
        """Blocks while paused, unless `cancelled()` (an abort) becomes true. Returns the mode
        it was held under, or None when it was not held."""
        held = None
        with self._cond:
            while self._mode is not None and not cancelled():
                held = self._mode
                self._cond.wait(_POLL_S)
        return held

    def hold(self, cancelled: Callable[[], bool]) -> Resumed | None:
        """Between two tokens of a running request."""
        held = self.wait_open(cancelled)
        return None if held is None else Resumed(recompute=held == "retract")
