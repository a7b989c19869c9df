"""The room's chess-clock timer: it wakes the room when the running clock reaches 0.

The clocks themselves are game state (``server/rules/orders/clocks.py``): remaining ms per
side and which side runs since which room time, moved on by the room's clock stamped on
every command. The room only needs to act when nobody acts: at the running side's deadline
it posts ``ClockDue`` to its own inbox (a ``wake_up.WakeUp``), and the actor then sends the rules core a
``clock_expired`` system command stamped with that deadline (``Room._on_clock_due``). The
deadline is read from the state after every commit and when a room is loaded, so a room
restarted or taken over by another node arms the same deadline; one already past fires at
once. A stale wake-up (the clock switched since) finds no deadline passed and re-arms.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from server.rooms.messages import ClockDue
from server.rooms.spectator_delay import Clock
from server.rooms.wake_up import WakeUp


class ClockTimer:
    def __init__(self, clock: Clock, post: Callable[[ClockDue], None]) -> None:
        self._wake = WakeUp(partial(post, ClockDue()), clock)
        self.deadline: tuple[str, int] | None = None
        """(side, room time) of the armed deadline, or None."""

    def arm(self, deadline: tuple[str, int] | None) -> None:
        """Wake the room at ``deadline`` (side, Unix ms), replacing any earlier one; None
        cancels. With a test's fake clock the wake-up may come at the wrong real time: the
        room reads the clock again when it wakes (tests call ``Room.clock_due``)."""
        if deadline is not None and deadline == self.deadline:
            # Set for it already, or woken for it: a wake-up the room found early closes
            # the timer before arming it again (``Room._on_clock_due``).
            return
        self.deadline = deadline
        self._wake.arm(None if deadline is None else deadline[1])

    def due(self) -> bool:
        """The armed deadline has passed by the room's clock."""
        return self._wake.due()

    def close(self) -> None:
        self._wake.close()
        self.deadline = None
