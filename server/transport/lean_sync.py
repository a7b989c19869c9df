"""A socket's receive queue and writable flag, in a few dozen bytes each.

uvicorn's websocket protocol keeps, per connection, an ``asyncio.Queue`` of received
messages and an ``asyncio.Event`` that says whether its transport takes writes. Each
``collections.deque`` inside them is 760 bytes empty, and a ``Queue`` has three of them,
an ``Event`` one: ~3 KB of every socket's memory (18,000 sockets: 54 MB) for a queue that
holds at most one message or two (uvicorn pauses reading as soon as one waits) and a
flag that is set nearly always. These two classes do what uvicorn asks of them -- one
consumer (the endpoint's ``receive``), any number of waiters on the flag -- with a list
made only while something waits.
"""

from __future__ import annotations

import asyncio
from typing import Generic, TypeVar

T = TypeVar("T")


class LeanQueue(Generic[T]):
    """The part of ``asyncio.Queue`` uvicorn uses (``put_nowait``, ``get``, ``empty``),
    unbounded, for one consumer at a time."""

    __slots__ = ("_items", "_waiter")

    def __init__(self) -> None:
        self._items: list[T] | None = None
        self._waiter: asyncio.Future[None] | None = None

    def put_nowait(self, item: T) -> None:
        if self._items is None:
            self._items = [item]
        else:
            self._items.append(item)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def get(self) -> T:
        while not self._items:
            waiter = self._waiter = asyncio.get_running_loop().create_future()
            try:
                await waiter
            finally:
                if self._waiter is waiter:
                    self._waiter = None
        items = self._items
        item = items.pop(0)
        if not items:
            self._items = None
        return item

    def empty(self) -> bool:
        return not self._items

    def qsize(self) -> int:
        return len(self._items) if self._items else 0


class LeanEvent:
    """``asyncio.Event``'s ``set``, ``clear``, ``is_set`` and ``wait``."""

    __slots__ = ("_set", "_waiters")

    def __init__(self) -> None:
        self._set = False
        self._waiters: list[asyncio.Future[bool]] | None = None

    def is_set(self) -> bool:
        return self._set

    def set(self) -> None:
        if self._set:
            return
        self._set = True
        waiters, self._waiters = self._waiters, None
        for waiter in waiters or ():
            if not waiter.done():
                waiter.set_result(True)

    def clear(self) -> None:
        self._set = False

    async def wait(self) -> bool:
        if self._set:
            return True
        waiter: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        if self._waiters is None:
            self._waiters = [waiter]
        else:
            self._waiters.append(waiter)
        try:
            return await waiter
        finally:
            if self._waiters is not None and waiter in self._waiters:
                self._waiters.remove(waiter)
                if not self._waiters:
                    self._waiters = None
