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
node counts the connection protocols still alive beyond those still connected
(``server.transport.live_connections``): a socket's objects all hang off its protocol, so
a socket left in a reference cycle keeps its protocol alive. Only when more than
``LEFT_SHARE`` of the sockets that left (and at least ``LEFT_MIN``) are unfreed, and no
fewer than a check before (a room lets go of its viewers as it handles their leaves, which
a crowd queues by the thousand), is the crowd unfrozen and collected once, then what remains
is frozen again. That collection walks the whole heap, start-up's objects included, and
every room of the node waits: 0.5 s on a slow 2-core host with one room and nothing to
free, 1.9 s when each of 6,000 spectators' sockets still left ~100 objects in cycles, so it
is not made for nothing. (The permanent generation's size cannot tell a socket's leftovers
from what the game made and kept while the crowd watched, its history: judged by it, both
nodes of ``bench.broadcast`` collected 1.0 and 1.2 s for nothing when 10,000 left.)
"""

from __future__ import annotations

import asyncio
import gc
import itertools
import logging
import time
from collections.abc import Callable

from server.transport import live_connections

log = logging.getLogger("server.gc")

CHECK_EVERY_S = 1.0
"""How often a crowd that left is looked at (its unfreed connections counted again)."""
GROWTH_CHECK_S = 0.1
"""How often the open sockets are counted for growth. Between two freezes the long-lived
objects of sockets that join (and of the rooms a restart loads) pile up in the youngest
generation, and a collection of it walks them all and frees nothing: counted once a second,
one such collection of 69-82 ms came every second while 3,600 sockets rejoined 600 rooms
after a restart (``bench.run``, a slow host). Counting is a length read."""
GROWTH = 250
"""Sockets opened since the last freeze that make the next one."""
SHRUNK_FROM = 1_000
"""A crowd this large (sockets beyond those open before it) is looked at once it left;
below it, what its sockets could leave behind is small."""
LEFT_BY = 0.9
"""The share of a crowd that has to have left before it is looked at."""
LEFT_SHARE = 0.25
LEFT_MIN = 50
"""A crowd is collected when this share of the sockets that left, and at least this many
connections, are still alive."""


class CrowdFreeze:
    def __init__(self, open_sockets: Callable[[], int], *,
                 unfreed: Callable[[], int] = live_connections.unfreed,
                 freeze: Callable[[], None] = gc.freeze,
                 unfreeze: Callable[[], None] = gc.unfreeze,
                 collect: Callable[[], object] = gc.collect) -> None:
        """``unfreed``: connections closed but not freed (``live_connections.unfreed``)."""
        self._open_sockets = open_sockets
        self._unfreed = unfreed
        self._freeze, self._unfreeze, self._collect = freeze, unfreeze, collect
        self._frozen_at = open_sockets()
        # The sockets open before the crowd, and at its peak (the freeze with the most).
        self._base_sockets = self._peak = self._frozen_at
        self._unfreed_before: int | None = None  # at the last check, once the crowd left

    def grown(self) -> bool:
        """Freeze if the crowd grew by ``GROWTH`` sockets since the last freeze; whether it
        did."""
        count = self._open_sockets()
        if count < self._frozen_at + GROWTH:
            return False
        if self._peak == self._base_sockets:  # a crowd's first freeze
            self._base_sockets = self._frozen_at
        self._freeze()
        self._frozen_at = count
        self._peak = max(self._peak, count)
        return True

    def check(self) -> None:
        """Freeze when the crowd grew; once it left, collect if it left sockets unfreed."""
        if self.grown():
            return
        count = self._open_sockets()
        crowd = self._peak - self._base_sockets
        if crowd >= SHRUNK_FROM and count <= self._peak - LEFT_BY * crowd:
            self._crowd_left(count)
        else:
            self._frozen_at = min(self._frozen_at, count)  # growth counts from the low

    def _crowd_left(self, count: int) -> None:
        unfreed = self._unfreed()
        gone = self._peak - count
        left_behind = unfreed >= max(LEFT_MIN, LEFT_SHARE * gone)
        if left_behind and (self._unfreed_before is None or unfreed < self._unfreed_before):
            # Still being let go of (the rooms handle their leaves one by one): look again
            # at the next check; collect only what stays.
            self._unfreed_before = unfreed
            return
        self._unfreed_before = None
        if left_behind:
            started = time.perf_counter()
            self._unfreeze()
            self._collect()
            self._freeze()
            # A warning: every room of the node waited for it.
            log.warning("a crowd left (%d open sockets of %d) with %d connections unfreed: "
                        "collected in %.0f ms (%d unfreed now)", count, self._peak, unfreed,
                        (time.perf_counter() - started) * 1000, self._unfreed())
        else:
            log.info("a crowd left (%d open sockets of %d) with %d connections unfreed: no "
                     "collection", count, self._peak, unfreed)
        self._frozen_at = self._peak = self._base_sockets = count

    async def run(self) -> None:
        ticks_per_check = round(CHECK_EVERY_S / GROWTH_CHECK_S)
        for tick in itertools.count(1):
            await asyncio.sleep(GROWTH_CHECK_S)
            if tick % ticks_per_check == 0:
                self.check()
            else:
                self.grown()
