"""A room's inbox: the one queue through which everything that changes a room passes.

Client commands are bounded (``offer`` refuses when ``capacity`` of them are waiting, and
the transport answers ``room_busy``); control messages (joins, leaves, timer expiries) are
always accepted by ``post``: they are bounded by the room's sockets and timers, and losing
one would lose a disconnect or a deadline. Order is arrival order for both kinds.

The crowd's messages (a spectator's or caster's join, leave or resync: ``post_crowd``)
wait in a lane of their own, in their own arrival order, taken only when nothing else
waits: a seat's command or a timer is never queued behind thousands of joins (10,000
spectators joining in 30 s, ``bench.broadcast``). And after ``crowd_batch`` of them in a
row, ``get`` gives the loop one turn before the next, so that the sockets' readers can
queue the commands that then go first; a crowd's joins are admitted in batches. A read-only
viewer changes nothing a seat's command depends on, so they may be handled later: a
spectator who joins after a command gets a snapshot with its events.

The loop also gets a turn between the other lane and the crowd's next message: a command's
(or a timer's) frames are then on their way (the room bus's writer and the sockets run in
that turn) before a join's first snapshot of the new version is made (a full table's snapshot
is milliseconds of work: docs/performance.md, "Big audiences").
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Generic, TypeVar

T = TypeVar("T")

CROWD_BATCH = 8
"""Crowd messages handled in a row before the loop gets a turn (a few milliseconds of
joins; ``bench.broadcast`` measures what they cost)."""


class RoomInbox(Generic[T]):
    def __init__(self, capacity: int, crowd_batch: int = CROWD_BATCH) -> None:
        self._capacity = capacity
        self._crowd_batch = crowd_batch
        self._items: deque[tuple[T, bool]] = deque()
        self._crowd: deque[T] = deque()
        self._crowd_in_a_row = 0
        self._after_seats = False
        self._bounded_waiting = 0
        self._waiter: asyncio.Future[None] | None = None

    def offer(self, item: T) -> bool:
        """Enqueue a client command; False (and nothing enqueued) when the inbox is full."""
        if self._bounded_waiting >= self._capacity:
            return False
        self._bounded_waiting += 1
        self._items.append((item, True))
        self._wake()
        return True

    def post(self, item: T) -> None:
        """Enqueue a control message; always accepted."""
        self._items.append((item, False))
        self._wake()

    def post_crowd(self, item: T) -> None:
        """Enqueue a read-only viewer's control message; always accepted, taken after
        everything ``offer``ed or ``post``ed (in the order of the crowd's own)."""
        self._crowd.append(item)
        self._wake()

    async def get(self) -> T:
        if self._crowd_in_a_row >= self._crowd_batch or (
                self._after_seats and not self._items and self._crowd):
            self._crowd_in_a_row = 0
            await asyncio.sleep(0)  # one loop turn: commands arrive, and go first
        self._after_seats = False
        while not self._items and not self._crowd:
            self._crowd_in_a_row = 0
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        if self._items:
            self._crowd_in_a_row = 0
            item, bounded = self._items.popleft()
            if bounded:
                self._bounded_waiting -= 1
            self._after_seats = True
            return item
        self._crowd_in_a_row += 1
        return self._crowd.popleft()

    def drain(self) -> list[T]:
        """Remove and return everything waiting (used when the room stops)."""
        items = [item for item, _ in self._items]
        items.extend(self._crowd)
        self._items.clear()
        self._crowd.clear()
        self._bounded_waiting = 0
        return items

    def __len__(self) -> int:
        return len(self._items) + len(self._crowd)

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)
