"""The room's chess-clock timer: it wakes the room when the running clock reaches 0.

The clocks themselves are game state (``server/rules/orders/clocks.py``): remaining ms per
side and which side runs since which room time, moved on by the room's clock stamped on
every command. The room only needs to act when nobody acts: at the running side's deadline
it posts ``ClockDue`` to its own inbox (a ``wake_up.WakeUp``), and the actor then sends the rules core a
``clock_expired`` system command stamped with that deadline (``expired``). The
deadline is read from the state after every commit and when a room is loaded, so a room
restarted or taken over by another node arms the same deadline; one already past fires at
once. A stale wake-up (the clock switched since) finds no deadline passed and re-arms.
Every frame carries the clocks as they stand (``fields``, with the time left when the
frame is made); a room without chess clocks (``clock_s`` 0) arms nothing and carries none.

While the store refused the room's writes, the running clock is held for that span once it
is back (``give_back``, from ``server.rooms.store_outage``).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from functools import partial

from server.rooms.engine_port import Engine, Plain, State, Verdict
from server.rooms.messages import ClockDue
from server.rooms.spectator_delay import Clock
from server.rooms.wake_up import WakeUp

log = logging.getLogger("server.rooms.room")  # (the room's task's lines, as before the split)


class ClockTimer:
    def __init__(self, room_id: str, clock: Clock, post: Callable[[ClockDue], None],
                 engine: Engine, enabled: bool,
                 commit: Callable[[Verdict], Awaitable[object]]) -> None:
        """``enabled``: the room has chess clocks; ``commit``: the room's commit of an
        accepted verdict."""
        self.room_id = room_id
        self._wake = WakeUp(partial(post, ClockDue()), clock)
        self._clock = clock
        self._engine = engine
        self._commit = commit
        self.enabled = enabled
        self.deadline: tuple[str, int] | None = None
        """(side, room time) of the armed deadline, or None."""

    def arm_for(self, state: State) -> None:
        """Wake the room at the running clock's deadline in ``state`` (after every commit,
        and from the stored state when the room is loaded: a restarted room's same one)."""
        if self.enabled:
            self.arm(self._engine.clock_deadline(state))

    def fields(self, state: State) -> dict[str, Plain] | None:
        """The chess clocks as frames carry them (``remaining_ms`` as of now), or None."""
        if not self.enabled:
            return None
        fields: dict[str, Plain] | None = self._engine.clocks_fields(state, self._clock())
        return fields

    def arm(self, deadline: tuple[str, int] | None) -> None:
        """Wake the room at ``deadline`` (side, Unix ms), replacing any earlier one; None
        cancels. With a test's fake clock the wake-up may come at the wrong real time: the
        room reads the clock again when it wakes (tests call ``Room.clock_due``)."""
        if deadline is not None and deadline == self.deadline:
            # Set for it already, or woken for it: a wake-up the room found early closes
            # the timer before arming it again (``expired``).
            return
        self.deadline = deadline
        self._wake.arm(None if deadline is None else deadline[1])

    async def give_back(self, state: State, from_ms: int, now_ms: int) -> bool:
        """The store refused the room's public writes from ``from_ms`` until now: commit
        the rules core's hold of the running clock for that span (raises
        ``StorageUnavailable`` while the store still refuses). True if a hold was committed
        (none without clocks, or with none running)."""
        engine = self._engine
        if not self.enabled or engine.clock_deadline(state) is None:
            return False
        verdict = engine.decide(state, None, engine.hold_clocks_command(from_ms, now_ms),
                                at_ms=now_ms)
        if verdict.events is None:
            log.error("room %s: holding the chess clocks refused: %s", self.room_id,
                      verdict.code)
            return False
        if not verdict.events:
            return False
        await self._commit(verdict)
        log.info("room %s: chess clocks held for %.1f s the store refused its writes",
                 self.room_id, (now_ms - from_ms) / 1000)
        return True

    def due(self) -> bool:
        """The armed deadline has passed by the room's clock."""
        return self._wake.due()

    def close(self) -> None:
        self._wake.close()
        self.deadline = None

    async def expired(self, state: State) -> None:
        """At the running clock's deadline (in ``state``, the room's now): the rules core
        records its time-out (stamped with the deadline itself, however late the timer),
        and what follows from it."""
        engine = self._engine
        deadline = engine.clock_deadline(state)
        if deadline is None or self._clock() < deadline[1]:
            self.close()  # stale (the clock switched) or early: wait again
            self.arm_for(state)
            return
        side, at_ms = deadline
        verdict = engine.decide(state, None, engine.clock_expired_command(side, at_ms),
                                at_ms=at_ms)
        if verdict.events is None:
            log.error("room %s: chess clock %s time-out refused: %s", self.room_id, side,
                      verdict.code)
            self.close()
            return
        await self._commit(verdict)
