"""Takeovers of relayed rooms whose owner is gone, at most ``limit`` at a time.

When a node dies (or its leases lapse), every room it owned becomes free at once on every
node relaying it. Started all together, the takeovers of 2,239 rooms exhausted the Redis
connection pool that the rooms' own writes need (docs/performance.md: "takeover failed:
No connection available"). So each free room waits for one of ``limit`` slots (the
``takeover_concurrency`` setting, well under the pool's 64 connections); a room already
waiting or being taken over is not asked for again, and a failed attempt is not retried
here: the next renewal round that still sees the lease free asks again.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any


class Takeovers:
    def __init__(self, limit: int, take: Callable[[str], Awaitable[None]],
                 spawn: Callable[[Coroutine[Any, Any, None]], None]) -> None:
        self._slots = asyncio.Semaphore(limit)
        self._take = take
        self._spawn = spawn
        self._asked: set[str] = set()  # waiting for a slot or being taken over

    def request(self, room_id: str) -> None:
        """Take ``room_id`` over when a slot is free, unless that is already arranged."""
        if room_id not in self._asked:
            self._asked.add(room_id)
            self._spawn(self._run(room_id))

    async def _run(self, room_id: str) -> None:
        try:
            async with self._slots:
                await self._take(room_id)
        finally:
            self._asked.discard(room_id)
