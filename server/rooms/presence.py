"""Who is connected to a room, and what its viewers are told of it.

A room has two seats and a crowd of read-only viewers (spectators and casters). A seat is
``connected`` while its connection is; when it leaves, the seat is ``away`` for a grace
period (``grace_s``, on the wall clock) and then ``abandoned``: an ARO window whose
reactive seat is abandoned closes at once (``aro_window``). A second connection to a
seat replaces the first. Every change of a seat is told to every viewer (a ``presence``
frame); the spectator count too, coalesced (``SpectatorCount``). The seats' presence is
stored with the room's deadlines (``deadlines``, kind ``seat_grace``), so a room loaded
again after a restart or a takeover keeps each away seat's original grace deadline, moved
on by the time no server ran the room (``restore``). When nobody is connected, a countdown
(``idle_room_s``) lets the room leave memory; a join makes it stale.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

from protocol.constants import CloseCode
from protocol.messages import SeatStatus
from server.config import Settings
from server.fanout import Delivery, Fanout
from server.rooms import frames
from server.rooms.messages import GraceExpired, IdleExpired
from server.rooms.seats import (
    ABANDONED_AT_MS,
    CONNECTED_AT_MS,
    SEAT_GRACE,
    Member,
    Seat,
    presence_deadlines,
)
from server.rooms.spectator_count import SpectatorCount
from server.rooms.spectator_delay import Clock
from server.store import Deadline


class Presence:
    def __init__(self, room_id: str, settings: Settings, fanout: Fanout,
                 version: Callable[[], int], post: Callable[[GraceExpired | IdleExpired], None],
                 stored: Sequence[Deadline], unix_ms: Clock, returning: bool = False) -> None:
        """``version``: the room's global version now (its frames' ``Delivery``);
        ``stored``: the room's stored deadlines, as it was loaded; ``unix_ms``: the wall
        clock the grace periods run on; ``returning``: the room was loaded back, its viewers
        coming back (its spectator count held meanwhile: ``SpectatorCount``)."""
        self.room_id = room_id
        self.seats = {side: Seat(side) for side in ("A", "B")}
        self.spectators: set[Member] = set()
        """This node's read-only viewers of the room (spectators and casters)."""
        self._fanout = fanout
        self._version = version
        self._post = post
        self._unix_ms = unix_ms
        self._grace_ms = int(settings.grace_s * 1000)
        self._idle_s = settings.idle_room_s
        self._stored = {d.key: d.at_ms for d in stored if d.kind == SEAT_GRACE}
        self._count = SpectatorCount(
            self._send_count, audience=lambda: len(self.spectators),
            hold_s=settings.spectator_count_hold_s if returning else 0.0)
        self._idle_timer: asyncio.TimerHandle | None = None
        self.idle_epoch = 0
        """The idle countdown's: an ``IdleExpired`` of an older one is stale."""

    # --- seats ------------------------------------------------------------------------

    def seat_joined(self, side: str, member: Member) -> None:
        """``member`` holds seat ``side`` now, replacing the connection that held it."""
        seat = self.seats[side]
        previous = seat.member
        if previous is not None and previous is not member:
            self._fanout.unsubscribe(self.room_id, previous)
            previous.close(CloseCode.REPLACED, "this seat connected again elsewhere")
        seat.cancel_grace()
        seat.member = member
        seat.status = SeatStatus.CONNECTED

    def seats_of(self, member: Member) -> list[Seat]:
        return [seat for seat in self.seats.values() if seat.member is member]

    def went_away(self, seat: Seat) -> None:
        """``seat``'s connection left: it is away for its grace period, and everyone is told."""
        seat.member = None
        self._start_grace(seat, self._unix_ms() + self._grace_ms)
        self.publish(seat)

    def grace_expired(self, message: GraceExpired) -> Seat | None:
        """The seat whose grace period ``message`` ended, abandoned now (everyone is told),
        or None: it came back since, or the message is an older period's."""
        seat = self.seats[message.side]
        if seat.status is not SeatStatus.AWAY or seat.grace_epoch != message.epoch:
            return None
        seat.grace_timer = None
        seat.grace_deadline_ms = None
        seat.status = SeatStatus.ABANDONED
        self.publish(seat)
        return seat

    def abandoned(self, side: str) -> bool:
        return self.seats[side].status is SeatStatus.ABANDONED

    def restore(self, unattended_ms: int = 0) -> bool:
        """Seats as the store left them (``presence_deadlines``): a room loaded after a
        restart or a takeover keeps each away seat's original grace deadline, moved on by
        ``unattended_ms``, the time no server ran the room before the load (nobody could
        come back meanwhile: ``ownership.Claimed.unattended_since_ms``); abandoned seats
        stay abandoned, and seats connected then start their grace period now. True if a
        stored deadline moved (the store is then behind)."""
        moved = False
        for side, at_ms in self._stored.items():
            seat = self.seats.get(side)
            if seat is None:
                continue
            if at_ms == CONNECTED_AT_MS:
                self._start_grace(seat, self._unix_ms() + self._grace_ms)
            elif at_ms == ABANDONED_AT_MS:
                seat.status = SeatStatus.ABANDONED
            else:
                # A deadline that had passed before the server went away is past still, and
                # expires at once.
                self._start_grace(seat, at_ms + unattended_ms)
                moved = moved or unattended_ms > 0
        return moved

    def _start_grace(self, seat: Seat, deadline_ms: int) -> None:
        """``seat`` is away until ``deadline_ms`` (Unix ms), then abandoned."""
        seat.status = SeatStatus.AWAY
        seat.cancel_grace()
        seat.grace_deadline_ms = deadline_ms
        expiry = GraceExpired(seat.side, seat.grace_epoch)
        delay = max(0.0, (deadline_ms - self._unix_ms()) / 1000)
        seat.grace_timer = asyncio.get_running_loop().call_later(delay, self._post, expiry)

    def deadlines(self) -> tuple[Deadline, ...]:
        """What the store keeps of the seats' presence."""
        return presence_deadlines(self.seats.values())

    def statuses(self) -> dict[str, str]:
        return {side: seat.status.value for side, seat in self.seats.items()}

    def taken(self) -> int:
        """How many seats are not empty (the lobby's listing)."""
        return sum(seat.status is not SeatStatus.EMPTY for seat in self.seats.values())

    def publish(self, seat: Seat) -> None:
        self._fanout.publish(self.room_id,
                             Delivery.same(self._version(), frames.presence(seat)))

    # --- spectators and casters -------------------------------------------------------

    def spectator_joined(self, member: Member) -> None:
        self.spectators.add(member)
        self._count.changed()  # coalesced: a frame a second at most (less to a crowd)

    def spectator_left(self, member: Member) -> bool:
        """Whether ``member`` was a read-only viewer here (it is gone now)."""
        if member not in self.spectators:
            return False
        self.spectators.discard(member)
        self._count.changed()
        return True

    def _send_count(self) -> None:
        # Counts this node's spectators of the room.
        frame = frames.spectators(len(self.spectators))
        self._fanout.publish(self.room_id, Delivery.same(self._version(), frame))

    # --- nobody connected -------------------------------------------------------------

    def empty(self) -> bool:
        return not self.spectators and all(s.member is None for s in self.seats.values())

    def joining(self) -> None:
        """A viewer is joining: a pending ``IdleExpired`` is stale now."""
        self.idle_epoch += 1

    def arm_idle(self) -> None:
        """Start the idle countdown if nobody is connected (a join makes it stale)."""
        if not self.empty():
            return
        self.idle_epoch += 1
        if self._idle_timer is not None:
            self._idle_timer.cancel()
        self._idle_timer = asyncio.get_running_loop().call_later(
            self._idle_s, self._post, IdleExpired(self.idle_epoch))

    def idle_now(self, message: IdleExpired, *, busy: bool, serving: bool) -> bool:
        """Whether the room may stop now: still nobody since the countdown of ``message``
        began, nothing waiting in its inbox (``busy``), and no ARO window whose deadline
        this process must serve (``serving``). Busy or serving, the countdown starts again:
        what waits may not be a join or a leave (a listing's or a deadline's turn), and
        nothing else would start it."""
        if message.epoch != self.idle_epoch or not self.empty():
            return False
        if busy or serving:
            self.arm_idle()
            return False
        return True

    def close(self) -> list[Member]:
        """The room stopped: no timer runs and nothing more is sent. Returns who is
        connected (the seats', then the crowd), for the room to close."""
        self._count.close()
        if self._idle_timer is not None:
            self._idle_timer.cancel()
        members = [seat.member for seat in self.seats.values() if seat.member is not None]
        for seat in self.seats.values():
            seat.cancel_grace()
        return [*members, *self.spectators]
