"""A warning in the log for every garbage collection long enough to stall the rooms.

A collection runs on the event loop's thread, between two callbacks: while it walks the
heap no room decides, stores or sends anything, and every viewer of every room waits. The
server tunes the collector so that full collections come seldom (``Settings.gc_threshold``),
but when one comes at 3,000 rooms it stalls them all for tens of milliseconds or more. This
watch makes such a stall visible to the operator (and to the benchmark, which keeps the
referee's log): which generation, how long, how many objects it freed.
"""

from __future__ import annotations

import gc
import logging
import time
from collections.abc import Callable
from typing import Any

from server.metrics import GC_PAUSE_BY_GENERATION, GC_SLOW_BY_GENERATION

logger = logging.getLogger("server.gc")


class CollectionWatch:
    """A ``gc.callbacks`` entry that logs collections lasting ``warn_after_s`` or more."""

    def __init__(self, warn_after_s: float,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        self.warn_after_s = warn_after_s
        self._clock = clock
        self._started = 0.0
        self.slow_collections = 0
        """How many collections were logged since installed (for tests and a status page)."""

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        # Called by the interpreter around every collection: keep the common path to a
        # clock read and a subtraction.
        if phase == "start":
            self._started = self._clock()
            return
        took = self._clock() - self._started
        generation = info["generation"]
        GC_PAUSE_BY_GENERATION[generation].observe(took)
        if took >= self.warn_after_s:
            self.slow_collections += 1
            GC_SLOW_BY_GENERATION[generation].inc()
            logger.warning("garbage collection of generation %d took %.1f ms "
                           "(%d objects freed): every room waited",
                           info["generation"], took * 1000, info["collected"])

    def install(self) -> None:
        if self not in gc.callbacks:
            gc.callbacks.append(self)

    def uninstall(self) -> None:
        if self in gc.callbacks:
            gc.callbacks.remove(self)
