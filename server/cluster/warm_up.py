"""A warm restart: a node started again under its id loads the rooms it was running.

After a ``kill -9`` the node's rooms came back only as each room's first hello arrived:
claim, load, decode and start sat on the critical path of its players' reconnection, and
the node waited on those round trips while the handshakes queued (bench/README.md,
"The restart's floor"). Now, right after start-up, the node reads which rooms its id ran
(``room_index``) and opens them in the background, ``BATCH`` at a time (their claims and
loads go out batched per loop turn: ``ScriptBatches``, ``RoomLoads``), so a returning
player's hello finds its room live, or shares its load already in flight.

Each room goes through ``RoomRegistry.warm``: claimed first, so a room another node took
meanwhile (``HeldBy``) is left to it (no relay is opened for it) and a deleted one (no such
room) is skipped; both leave the index. A room that fails to load (the store) stays in the
index, and its first hello opens it as before. Nothing waits for the warm-up: a hello for a
room it has not reached yet opens the room itself. It stops on shutdown (no new batch; the
batch under way ends with the registry's shutdown) and logs one summary line. A warmed room
nobody comes back to idles out as any room does (``idle_room_s``).

Off with ``REFEREE_WARM_RESTART=0``: rooms start on their first hello, as before.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from server.cluster.room_index import RoomIndex
from server.rooms.registry import NodeShuttingDown, Warmed
from server.store.redis_errors import StorageUnavailable

log = logging.getLogger(__name__)

BATCH = 50
"""Rooms opened at once: their claims and loads go to Redis together, and a bounded batch
keeps the decode of its rooms from holding the loop (and the handshakes) for long. At 200
a batch held the loop 0.58-0.66 s on a slow host, and made objects enough to fill the
youngest generation within it: a collection that walked them all and freed nothing."""


@dataclass
class WarmUpReport:
    loaded: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # held by another node, gone, or live
    failed: list[str] = field(default_factory=list)
    seconds: float = 0.0


class WarmUp:
    def __init__(self, index: RoomIndex, warm: Callable[[str], Awaitable[Warmed]],
                 unindex: Callable[[list[str]], None], batch: int = BATCH,
                 after_batch: Callable[[], None] = lambda: None) -> None:
        """``warm``: the registry's ``warm``; ``unindex``: ``ClusterNode.unindex``;
        ``after_batch``: called once each batch is open (the app freezes the collector's
        view of what is alive then: the rooms just loaded live as long as they are
        played, and young collections would walk them again and again)."""
        self._index = index
        self._warm = warm
        self._unindex = unindex
        self._batch = batch
        self._after_batch = after_batch
        self._stopping = False
        self._task: asyncio.Task[WarmUpReport] | None = None

    def start(self) -> None:
        """Begin in the background (the node is ready: nothing waits for this)."""
        self._task = asyncio.create_task(self.run(), name="warm-restart")

    @property
    def done(self) -> asyncio.Task[WarmUpReport] | None:
        return self._task

    def stop(self) -> None:
        """Start no further batch (shutdown)."""
        self._stopping = True

    async def run(self) -> WarmUpReport:
        started = time.monotonic()
        report = WarmUpReport()
        try:
            room_ids = await self._index.rooms()
        except StorageUnavailable as error:
            log.warning("warm restart: the rooms this node ran could not be read (%s); they "
                        "start on their players' hellos", error)
            return report
        leave: list[str] = []
        for at in range(0, len(room_ids), self._batch):
            if self._stopping:
                break
            batch = room_ids[at:at + self._batch]
            outcomes = await asyncio.gather(*(self._warm(room_id) for room_id in batch),
                                            return_exceptions=True)
            for room_id, outcome in zip(batch, outcomes, strict=True):
                if outcome == "started":
                    report.loaded.append(room_id)
                elif outcome in ("held", "gone"):
                    report.skipped.append(room_id)
                    leave.append(room_id)
                elif outcome == "already":
                    report.skipped.append(room_id)
                elif isinstance(outcome, NodeShuttingDown):
                    self._stopping = True
                elif isinstance(outcome, BaseException):
                    if not report.failed:
                        log.warning("warm restart: room %s not loaded (its first hello "
                                    "opens it): %r", room_id, outcome)
                    report.failed.append(room_id)
            self._after_batch()
        if leave:
            self._unindex(leave)
        report.seconds = time.monotonic() - started
        log.info("warm restart: %d rooms loaded, %d skipped, %d failed in %.2f s%s",
                 len(report.loaded), len(report.skipped), len(report.failed), report.seconds,
                 " (stopped by the shutdown)" if self._stopping else "")
        return report
