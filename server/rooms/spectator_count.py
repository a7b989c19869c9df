"""The spectator count a room tells its viewers, coalesced.

Every viewer is told how many spectators watch (``Spectators``). One frame to every
viewer per join or leave costs a crowd quadratically: 10,000 spectators joining within
30 s would be 50 million deliveries, far more than the game's own frames. So the count
goes out at once when none went out for ``every_s``; otherwise once more when that
interval is over, with the count as it is then (one frame however many joined or left
meanwhile). Nothing is lost: the last change is always sent, at most ``every_s`` late.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

SPECTATOR_COUNT_EVERY_S = 1.0


class SpectatorCount:
    """Calls ``send`` (which publishes the count as it stands) at most once per
    ``every_s``, and always after the last ``changed``."""

    __slots__ = ("_every_s", "_monotonic", "_send", "_sent_at", "_timer")

    def __init__(self, send: Callable[[], None], every_s: float = SPECTATOR_COUNT_EVERY_S,
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        self._send = send
        self._every_s = every_s
        self._monotonic = monotonic
        self._sent_at: float | None = None
        self._timer: asyncio.TimerHandle | None = None

    def changed(self) -> None:
        if self._timer is not None:
            return  # a send is due: it carries this change too
        now = self._monotonic()
        wait = 0.0 if self._sent_at is None else self._sent_at + self._every_s - now
        if wait <= 0:
            self._fire()
        else:
            self._timer = asyncio.get_running_loop().call_later(wait, self._fire)

    def close(self) -> None:
        """The room stopped: nothing more is sent."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _fire(self) -> None:
        self._timer = None
        self._sent_at = self._monotonic()
        self._send()
