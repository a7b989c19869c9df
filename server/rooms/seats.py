"""What a room remembers about each seat: its connection and presence (``presence``; the
answers to its latest commands are ``answers``')."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Protocol, cast

from protocol.messages import SeatStatus
from server.fanout import Audience
from server.store import Deadline

SEAT_GRACE = "seat_grace"
"""The kind of the stored deadline that carries a seat's presence across restarts."""
CONNECTED_AT_MS = 0
ABANDONED_AT_MS = 1


def role_seat(role: str | None) -> str | None:
    """The seat a connection's role holds: "A" or "B", else None -- a spectator or a caster
    (whose role, "caster", travels where a seat would, e.g. in a relayed join), both read
    only."""
    return role if role == "A" or role == "B" else None


class Member(Protocol):
    """A connected viewer as the room sees it (implemented by the transport's Session)."""

    @property
    def audience(self) -> Audience: ...

    def deliver(self, frame: bytes) -> None:
        """Enqueue a frame for this viewer only; never blocks."""

    def close(self, code: int, reason: str) -> None:
        """Send what is queued, then close the connection with ``code``."""


class HoldsFrames(Protocol):
    """A member whose frames can be held and then written together: a joining viewer's
    welcome and catch-up go out in one write (one TCP segment for the client to read)
    instead of two (``CatchUp.greet``)."""

    def hold_frames(self) -> None:
        """Keep the frames delivered from now on, in order, until ``send_held``."""

    def send_held(self) -> None:
        """Write the held frames, together where the socket allows; deliver as usual again."""


def frame_holder(member: Member) -> HoldsFrames | None:
    """``member`` if it can hold its frames (a socket of this node), else None."""
    # (hasattr: isinstance against a runtime-checkable protocol costs ~20 µs a join)
    return cast(HoldsFrames, member) if hasattr(member, "send_held") else None


def deliver_together(member: Member, frames: Iterable[bytes]) -> None:
    """``frames`` to ``member`` in order, in one write where it can hold its frames."""
    holds = frame_holder(member)
    if holds is not None:
        holds.hold_frames()
    for frame in frames:
        member.deliver(frame)
    if holds is not None:
        holds.send_held()


@dataclass(slots=True)
class Seat:
    side: str  # "A" or "B"
    member: Member | None = None
    status: SeatStatus = SeatStatus.EMPTY
    grace_deadline_ms: int | None = None
    grace_timer: asyncio.TimerHandle | None = None
    grace_epoch: int = 0  # a GraceExpired message for an older epoch is stale
    audience: Audience = field(init=False)

    def __post_init__(self) -> None:
        self.audience = Audience(self.side)

    def cancel_grace(self) -> None:
        if self.grace_timer is not None:
            self.grace_timer.cancel()
            self.grace_timer = None
        self.grace_deadline_ms = None
        self.grace_epoch += 1


def presence_deadlines(seats: Iterable[Seat]) -> tuple[Deadline, ...]:
    """What the store keeps of the seats' presence, as deadlines of kind ``seat_grace`` keyed
    by side (an empty seat has none): ``at_ms`` is the end of the grace period while the
    seat is away, ``ABANDONED_AT_MS`` (long past) once abandoned, ``CONNECTED_AT_MS`` while
    connected: a restart drops every socket, so for a connected seat the grace period
    starts when the room is loaded again."""
    kept = []
    for seat in seats:
        if seat.status is SeatStatus.AWAY and seat.grace_deadline_ms is not None:
            kept.append(Deadline(SEAT_GRACE, seat.side, seat.grace_deadline_ms))
        elif seat.status is SeatStatus.ABANDONED:
            kept.append(Deadline(SEAT_GRACE, seat.side, ABANDONED_AT_MS))
        elif seat.status is SeatStatus.CONNECTED:
            kept.append(Deadline(SEAT_GRACE, seat.side, CONNECTED_AT_MS))
    return tuple(kept)
