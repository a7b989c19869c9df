"""A call made at most once per interval: the timer that the spectator count and the lobby
listing of a crowd share (``spectator_count``, ``listing_pace``).

``due_in`` says how long until the interval since the call was last ``done`` is over;
``arrange`` sets a timer (a ``wake_up.WakeUp`` on the monotonic clock) for then (at once if
it is over), unless one is set already, so however many changes arrive meanwhile the call is
made once, with the state as it is then. ``hold_until`` keeps the call from being made before
a given time (the spectator count of a room just loaded back).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from server.rooms.wake_up import WakeUp


class PacedCall:
    __slots__ = ("_done_at", "_every_s", "_monotonic", "_not_before", "_wake")

    def __init__(self, call: Callable[[], None], every_s: float,
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        self._every_s = every_s
        self._monotonic = monotonic
        self._done_at: float | None = None
        self._not_before: float | None = None
        self._wake = WakeUp(call, monotonic, per_s=1.0)

    @property
    def arranged(self) -> bool:
        """A timer is set: the call is coming, and carries any change made before it."""
        return self._wake.armed

    def due_in(self) -> float:
        """Seconds until the call may be made again (0 or less: now)."""
        return self._due_at() - self._monotonic()

    def every(self, every_s: float) -> None:
        """From now on, at most once per ``every_s`` (a timer already set keeps its time)."""
        self._every_s = every_s

    def done(self) -> None:
        """The call's work was just done (by the call, or by whoever did it first)."""
        self._done_at = self._monotonic()

    def arrange(self) -> None:
        """Make the call when the interval is over, unless a timer is set already."""
        if not self._wake.armed:
            self._wake.arm(max(self._due_at(), self._monotonic()))

    def hold_until(self, at: float) -> None:
        """The call is not made before ``at`` (monotonic), however long ago it was done."""
        self._not_before = at

    def _due_at(self) -> float:
        done_at, not_before = self._done_at, self._not_before
        due = float("-inf") if done_at is None else done_at + self._every_s
        return due if not_before is None else max(due, not_before)

    def close(self) -> None:
        """Nothing more is called (the room stopped)."""
        self._wake.stop()
