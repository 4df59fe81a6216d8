"""Garbage collection in the quiet moments between key presses, not in the middle of one.

CPython collects whenever allocations pass a threshold, which falls inside a key press as often as
not: at 200 combatants a full one is the whole margin between a frame on time and a late one
(docs/benchmarks.md). While the main screen is shown, automatic collection is
off and this collects instead when the table is quiet: once each change has been drawn and saved,
and every few seconds besides (dialogs and the like make garbage too).
"""

from __future__ import annotations

import gc
import time

EVERY = 2.0  # s between collections when nothing is being saved
FULL_EVERY = 20  # quiet moments between full collections (the others collect the young)


class IdleCollector:
    def __init__(self) -> None:
        self._moments = 0
        self._was_enabled = True
        self._last = time.monotonic()

    def start(self) -> None:
        self._was_enabled = gc.isenabled()
        gc.disable()

    def stop(self) -> None:
        if self._was_enabled:
            gc.enable()

    def quiet_moment(self) -> None:
        """After a change is drawn and saved: collect."""
        self._moments += 1
        self._last = time.monotonic()
        gc.collect(2 if self._moments % FULL_EVERY == 0 else 1)

    def tick(self) -> None:
        """Every ``EVERY`` seconds: collect if no change has given a quiet moment since."""
        if time.monotonic() - self._last >= EVERY:
            self.quiet_moment()
