"""The spectator count a room tells its viewers, coalesced.

Every viewer is told how many spectators watch (``Spectators``). One frame to every
viewer per join or leave costs a crowd quadratically: 10,000 spectators joining within
30 s would be 50 million deliveries, far more than the game's own frames. So the count
goes out at once when none went out for ``every_s``; otherwise once more when that
interval is over, with the count as it is then (one frame however many joined or left
meanwhile). Nothing is lost: the last change is always sent, at most ``every_s`` late.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from server.rooms.paced_call import PacedCall

SPECTATOR_COUNT_EVERY_S = 1.0


class SpectatorCount:
    """Calls ``send`` (which publishes the count as it stands) at most once per
    ``every_s``, and always after the last ``changed``."""

    __slots__ = ("_paced", "_send")

    def __init__(self, send: Callable[[], None], every_s: float = SPECTATOR_COUNT_EVERY_S,
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        self._send = send
        self._paced = PacedCall(self._fire, every_s, monotonic)

    def changed(self) -> None:
        if self._paced.arranged:
            return  # a send is due: it carries this change too
        if self._paced.due_in() <= 0:
            self._fire()
        else:
            self._paced.arrange()

    def close(self) -> None:
        """The room stopped: nothing more is sent."""
        self._paced.close()

    def _fire(self) -> None:
        self._paced.done()
        self._send()
