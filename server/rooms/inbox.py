"""A room's inbox: the one queue through which everything that changes a room passes.

Client commands are bounded (``offer`` refuses when ``capacity`` of them are waiting, and
the transport answers ``room_busy``); control messages (joins, leaves, timer expiries) are
always accepted by ``post``: they are bounded by the room's sockets and timers, and losing
one would lose a disconnect or a deadline. Order is arrival order for both kinds.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Generic, TypeVar

T = TypeVar("T")


class RoomInbox(Generic[T]):
    def __init__(self, capacity: int) -> None:
        self._capacity = capacity
        self._items: deque[tuple[T, bool]] = deque()
        self._bounded_waiting = 0
        self._waiter: asyncio.Future[None] | None = None

    def offer(self, item: T) -> bool:
        """Enqueue a client command; False (and nothing enqueued) when the inbox is full."""
        if self._bounded_waiting >= self._capacity:
            return False
        self._bounded_waiting += 1
        self._push((item, True))
        return True

    def post(self, item: T) -> None:
        """Enqueue a control message; always accepted."""
        self._push((item, False))

    async def get(self) -> T:
        while not self._items:
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        item, bounded = self._items.popleft()
        if bounded:
            self._bounded_waiting -= 1
        return item

    def drain(self) -> list[T]:
        """Remove and return everything waiting (used when the room stops)."""
        items = [item for item, _ in self._items]
        self._items.clear()
        self._bounded_waiting = 0
        return items

    def __len__(self) -> int:
        return len(self._items)

    def _push(self, entry: tuple[T, bool]) -> None:
        self._items.append(entry)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)
