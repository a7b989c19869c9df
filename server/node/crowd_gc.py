"""Keeping a crowd's sockets out of the garbage collector's way.

The server freezes what is alive after start-up (``gc.freeze``, Settings.freeze_gc), but a
crowd arrives later: every socket brings a few hundred objects (its protocol, parser,
session, ASGI scope and tasks) that live as long as it does. Until a collection of the
oldest generation, the collector walks them again and again: with 10,000 spectators
joining a room within 30 s, collections of the younger generations took hundreds of
milliseconds each on the bench (``bench.broadcast``), and every room of the node waited.

So, while the number of open sockets grows, what is alive is frozen again (``gc.freeze``
only moves the collector's lists: it costs nothing to call). The price: a frozen object
that later becomes part of a reference cycle's garbage is not collected while frozen. When
the crowd has left (the open sockets fell to half of their peak since the last freeze), it
is unfrozen and collected once, then what remains is frozen again: one full collection,
when the node has the least to walk.
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
"""A crowd this large whose half has left is collected (below it, what its sockets leave
behind is small)."""


class CrowdFreeze:
    def __init__(self, open_sockets: Callable[[], int], *,
                 freeze: Callable[[], None] = gc.freeze,
                 unfreeze: Callable[[], None] = gc.unfreeze,
                 collect: Callable[[], object] = gc.collect) -> None:
        self._open_sockets = open_sockets
        self._freeze, self._unfreeze, self._collect = freeze, unfreeze, collect
        self._frozen_at = open_sockets()
        self._peak = self._frozen_at

    def check(self) -> None:
        """Freeze when the crowd grew; collect once when most of it left."""
        count = self._open_sockets()
        if count >= self._frozen_at + GROWTH:
            self._freeze()
            self._frozen_at = count
            self._peak = max(self._peak, count)
        elif self._peak >= SHRUNK_FROM and count <= self._peak // 2:
            started = time.perf_counter()
            self._unfreeze()
            self._collect()
            self._freeze()
            log.info("a crowd left (%d open sockets of %d): collected in %.0f ms", count,
                     self._peak, (time.perf_counter() - started) * 1000)
            self._frozen_at = self._peak = count
        else:
            self._frozen_at = min(self._frozen_at, count)  # growth counts from the low

    async def run(self) -> None:
        while True:
            await asyncio.sleep(CHECK_EVERY_S)
            self.check()
