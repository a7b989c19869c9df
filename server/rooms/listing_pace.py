"""When a room writes its lobby listing after a spectator's join or leave.

The listing carries the room's spectator count. Writing it is a store round trip (two on
a Redis Cluster) that the room's task awaits, and meanwhile every message of the room
waits: a seat's command too. A spectator who comes alone is listed before its welcome (a client that has
its welcome sees itself in the lobby's list). A crowd is not: 10,000 spectators joining in
30 s (``bench.broadcast``) arrive one by one, ~333 a second, each to an empty inbox, and a
write per join held the room's task on Redis for most of the time, and a player's command
with it. So once ``alone`` changes came within ``every_s`` (or more messages wait), the
write is left to a ``ListingDue`` message posted at most once per ``every_s`` (at once when
no write was made for that long), which writes the count as it is then: one write however
many came or left meanwhile, at most ``every_s`` late, and the last change always written.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable

from server.rooms.paced_call import PacedCall

LISTING_EVERY_S = 1.0
ALONE = 4
"""Joins or leaves within ``LISTING_EVERY_S`` that are each listed at once: one more within
that second is a crowd."""


class ListingPace:
    __slots__ = ("_every_s", "_monotonic", "_paced", "_recent")

    def __init__(self, post: Callable[[], None], every_s: float = LISTING_EVERY_S,
                 alone: int = ALONE, monotonic: Callable[[], float] = time.monotonic) -> None:
        self._every_s = every_s
        self._monotonic = monotonic
        self._recent: deque[float] = deque(maxlen=alone + 1)  # this change and the last few
        self._paced = PacedCall(post, every_s, monotonic)

    def write_now(self, busy: bool) -> bool:
        """A spectator came or went: True when the caller should write the listing now;
        False when a ``ListingDue`` is (or already was) arranged for it (``busy``: more
        messages wait in the room's inbox, which a write would hold up)."""
        now = self._monotonic()
        recent = self._recent
        recent.append(now)
        crowd = len(recent) == recent.maxlen and now - recent[0] < self._every_s
        if not busy and not crowd and not self._paced.arranged:
            return True
        self._paced.arrange()
        return False

    def written(self) -> None:
        """The listing was just written (whatever made it)."""
        self._paced.done()

    def close(self) -> None:
        """The room stopped: nothing more is posted."""
        self._paced.close()
