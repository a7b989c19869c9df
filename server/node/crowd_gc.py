"""Keeping a crowd's sockets out of the garbage collector's way.

The server freezes what is alive after start-up (``gc.freeze``, Settings.freeze_gc), but a
crowd arrives later: every socket brings a few hundred objects (its protocol, parser,
session, ASGI scope and tasks) that live as long as it does. Until a collection of the
oldest generation, the collector walks them again and again: with 10,000 spectators
joining a room within 30 s, collections of the younger generations took hundreds of
milliseconds each on the bench (``bench.broadcast``), and every room of the node waited.

So, while the number of open sockets grows, what is alive is frozen again (``gc.freeze``
only moves the collector's lists: it costs nothing to call). A frozen object is still freed
by reference counting when the last reference to it goes; only one in a reference cycle
waits for a collection, and frozen, it is never collected. A closed socket leaves no cycle
(tests/transport/test_socket_cycles.py), so a crowd that leaves frees its objects as it
goes, and the permanent generation shrinks with it.

When nine tenths of a crowd of 1,000 or more have left (``SHRUNK_FROM``, ``LEFT_BY``), the
permanent generation should be back near its size before the crowd came: what is still
frozen beyond that is what the crowd froze and did not free (its last sockets' objects, the
rest of the node's objects that lived through a freeze, and any reference cycle some way of
ending a socket made). Only when that is more than ``LEFT_SHARE`` of what the crowd froze
(and at least ``LEFT_MIN`` objects) is it unfrozen and collected once, then what remains is
frozen again. That collection walks the whole heap, start-up's objects included, and every
room of the node waits (0.5 s on a slow 2-core host with one room; 1.9 s when each of 6,000
spectators' sockets still left ~100 objects in cycles), so it is not made for nothing.
Reading the generation's size walks it (~4 ms a million objects): it is read at a crowd's
first freeze and at each freeze that makes a new peak, and when the crowd has left.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from collections.abc import Callable

log = logging.getLogger("server.gc")

CHECK_EVERY_S = 1.0
GROWTH = 250
"""Sockets opened since the last freeze that make the next one."""
SHRUNK_FROM = 1_000
"""A crowd this large (sockets beyond those open before it) is looked at once it left;
below it, what its sockets could leave behind is small."""
LEFT_BY = 0.9
"""The share of a crowd that has to have left before it is looked at."""
LEFT_SHARE = 0.25
LEFT_MIN = 20_000
"""A crowd is collected when more is still frozen than before it came by this share of what
it froze, and by at least this many objects."""


class CrowdFreeze:
    def __init__(self, open_sockets: Callable[[], int], *,
                 freeze: Callable[[], None] = gc.freeze,
                 unfreeze: Callable[[], None] = gc.unfreeze,
                 collect: Callable[[], object] = gc.collect,
                 frozen_count: Callable[[], int] = gc.get_freeze_count) -> None:
        self._open_sockets = open_sockets
        self._freeze, self._unfreeze, self._collect = freeze, unfreeze, collect
        self._frozen_count = frozen_count
        self._frozen_at = open_sockets()
        # Before the crowd: the sockets open and the permanent generation's size; at its
        # peak (the freeze with the most sockets open) the same.
        self._base_sockets = self._peak = self._frozen_at
        self._base_objects = self._peak_objects = frozen_count()

    def check(self) -> None:
        """Freeze when the crowd grew; once it left, collect if it left objects frozen."""
        count = self._open_sockets()
        if count >= self._frozen_at + GROWTH:
            if self._peak == self._base_sockets:  # a crowd's first freeze
                self._base_sockets = self._frozen_at
                self._base_objects = self._frozen_count()
            self._freeze()
            self._frozen_at = count
            if count > self._peak:
                self._peak, self._peak_objects = count, self._frozen_count()
            return
        crowd = self._peak - self._base_sockets
        if crowd >= SHRUNK_FROM and count <= self._peak - LEFT_BY * crowd:
            self._crowd_left(count)
        else:
            self._frozen_at = min(self._frozen_at, count)  # growth counts from the low

    def _crowd_left(self, count: int) -> None:
        frozen = self._frozen_count()
        left = frozen - self._base_objects
        crowd_objects = self._peak_objects - self._base_objects
        if left >= max(LEFT_MIN, LEFT_SHARE * crowd_objects):
            started = time.perf_counter()
            self._unfreeze()
            self._collect()
            self._freeze()
            frozen = self._frozen_count()
            # A warning: every room of the node waited for it.
            log.warning("a crowd left (%d open sockets of %d) and %d of the %d objects it "
                        "froze are still frozen: collected in %.0f ms", count, self._peak,
                        left, crowd_objects, (time.perf_counter() - started) * 1000)
        else:
            log.info("a crowd left (%d open sockets of %d): %d of the %d objects it froze are "
                     "still frozen: no collection", count, self._peak, left, crowd_objects)
        self._frozen_at = self._peak = self._base_sockets = count
        self._base_objects = self._peak_objects = frozen

    async def run(self) -> None:
        while True:
            await asyncio.sleep(CHECK_EVERY_S)
            self.check()
