"""When a room writes its lobby listing after a spectator's join or leave.

The listing carries the room's spectator count. Writing it is a store round trip (two on
Redis) that the room's task awaits, and meanwhile every message of the room waits: a seat's
command too. A spectator who comes alone is listed before its welcome (a client that has
its welcome sees itself in the lobby's list). A crowd is not: 10,000 spectators joining in
30 s (``bench.broadcast``) arrive one by one, ~333 a second, each to an empty inbox, and a
write per join held the room's task on Redis for most of the time, and a player's command
with it. So once ``alone`` changes came within ``every_s`` (or more messages wait), the
write is left to a ``ListingDue`` message posted at most once per ``every_s`` (at once when
no write was made for that long), which writes the count as it is then: one write however
many came or left meanwhile, at most ``every_s`` late, and the last change always written.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable

LISTING_EVERY_S = 1.0
ALONE = 4
"""Joins or leaves within ``LISTING_EVERY_S`` that are each listed at once: one more within
that second is a crowd."""


class ListingPace:
    __slots__ = ("_every_s", "_monotonic", "_post", "_recent", "_timer", "_written_at")

    def __init__(self, post: Callable[[], None], every_s: float = LISTING_EVERY_S,
                 alone: int = ALONE, monotonic: Callable[[], float] = time.monotonic) -> None:
        self._post = post
        self._every_s = every_s
        self._monotonic = monotonic
        self._recent: deque[float] = deque(maxlen=alone + 1)  # this change and the last few
        self._written_at: float | None = None
        self._timer: asyncio.TimerHandle | None = None

    def write_now(self, busy: bool) -> bool:
        """A spectator came or went: True when the caller should write the listing now;
        False when a ``ListingDue`` is (or already was) arranged for it (``busy``: more
        messages wait in the room's inbox, which a write would hold up)."""
        now = self._monotonic()
        recent = self._recent
        recent.append(now)
        crowd = len(recent) == recent.maxlen and now - recent[0] < self._every_s
        if not busy and not crowd and self._timer is None:
            return True
        if self._timer is None:
            wait = 0.0 if self._written_at is None else self._written_at + self._every_s - now
            self._timer = asyncio.get_running_loop().call_later(max(0.0, wait), self._fire)
        return False

    def written(self) -> None:
        """The listing was just written (whatever made it)."""
        self._written_at = self._monotonic()

    def close(self) -> None:
        """The room stopped: nothing more is posted."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _fire(self) -> None:
        self._timer = None
        self._post()
