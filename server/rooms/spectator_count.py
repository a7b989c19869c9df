"""The spectator count a room tells its viewers, coalesced.

Every viewer is told how many spectators watch (``Spectators``). One frame to every
viewer per join or leave costs a crowd quadratically: 10,000 spectators joining within
30 s would be 50 million deliveries, far more than the game's own frames. So the count
goes out at once when none went out for ``every_s``; otherwise once more when that
interval is over, with the count as it is then (one frame however many joined or left
meanwhile). Nothing is lost: the last change is always sent, at most an interval late.

The interval grows with the audience (``interval_s``): a count is one frame to every viewer,
so to thousands of them it costs as much as a move of the game. At one a second it was a
third of the frames a crowd of 10,000 got while joining a game played at two commands a
second (``bench.broadcast``), on the core the players' commands need; from 2,000 viewers on
it goes out every ``audience / 2,000`` seconds, at most every ``LONGEST_S``.

A room loaded back from the store holds its count for ``hold_s``
(``spectator_count_hold_s``): after a restart or a takeover its viewers come back within
seconds, and each return changed the count, sent at once or a second later to everyone back
so far (1.1 frames per returning viewer at 18,000 sockets on one node: docs/performance.md,
"The restart"), at the load's busiest moment, to tell them counts that climb back to where
they were. Each viewer is told the count in its welcome; the count goes out once when the
hold is over, if anyone joined or left meanwhile.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from server.rooms.paced_call import PacedCall

SPECTATOR_COUNT_EVERY_S = 1.0
VIEWERS_PER_S = 2_000
"""Viewers told the count per second at most, beyond ``SPECTATOR_COUNT_EVERY_S``."""
LONGEST_S = 10.0


def interval_s(audience: int, every_s: float = SPECTATOR_COUNT_EVERY_S) -> float:
    """How long between two counts sent to ``audience`` viewers."""
    return min(LONGEST_S, max(every_s, audience / VIEWERS_PER_S))


class SpectatorCount:
    """Calls ``send`` (which publishes the count as it stands) at most once per
    ``every_s``, and always after the last ``changed``."""

    __slots__ = ("_audience", "_every_s", "_paced", "_send")

    def __init__(self, send: Callable[[], None], every_s: float = SPECTATOR_COUNT_EVERY_S,
                 monotonic: Callable[[], float] = time.monotonic,
                 audience: Callable[[], int] = lambda: 0, hold_s: float = 0.0) -> None:
        """``audience``: how many viewers each count goes to (the interval grows with it);
        ``hold_s``: nothing is sent for this long from now (the room was just loaded)."""
        self._send = send
        self._every_s = every_s
        self._audience = audience
        self._paced = PacedCall(self._fire, every_s, monotonic)
        if hold_s > 0:
            self._paced.hold_until(monotonic() + hold_s)

    def changed(self) -> None:
        if self._paced.arranged:
            return  # a send is due: it carries this change too
        self._paced.every(interval_s(self._audience(), self._every_s))
        if self._paced.due_in() <= 0:
            self._fire()
        else:
            self._paced.arrange()

    def close(self) -> None:
        """The room stopped: nothing more is sent. The send and the audience are dropped:
        they are the presence's, which holds this count (a reference cycle until then)."""
        self._paced.close()
        self._send = _nothing
        self._audience = _nobody

    def _fire(self) -> None:
        self._paced.done()
        self._send()


def _nothing() -> None:
    """A closed count's send."""


def _nobody() -> int:
    """A closed count's audience."""
    return 0
