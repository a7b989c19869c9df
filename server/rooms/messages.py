"""The messages a room's inbox carries (client commands and history requests, joins, leaves,
timer expiries)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from protocol.messages import Command, HistoryRequest
from server.fanout.slices import Hold
from server.rooms.seats import Member


@dataclass(frozen=True, slots=True)
class Join:
    """A viewer completed the handshake; ``seat`` is "A"/"B" or None for a spectator."""

    member: Member
    seat: str | None
    since: int | None
    done: asyncio.Future[None]
    greet: bool = True
    """False when the member already has its welcome and snapshot from elsewhere (a relay's
    crowd kit, ``server.cluster.crowd_kit``): the room registers it and sends nothing."""


@dataclass(frozen=True, slots=True)
class Leave:
    member: Member


@dataclass(frozen=True, slots=True)
class Submit:
    member: Member
    seat: str | None
    command: Command
    received: float  # time.perf_counter() when it was queued (referee_command_latency_seconds)
    hold: Hold | None = None
    """A seat's command keeps the node's crowds' slices waiting until it is handled
    (``server.fanout.slices``); released by the room."""


@dataclass(frozen=True, slots=True)
class Resync:
    """The viewer asked (``sync``) for the events after ``since`` or a snapshot."""

    member: Member
    since: int | None


@dataclass(frozen=True, slots=True)
class AskHistory:
    """The viewer asked (``history``) for a page of its own events."""

    member: Member
    request: HistoryRequest


@dataclass(frozen=True, slots=True)
class WindowExpired:
    key: str  # the AroWindow key whose deadline passed


@dataclass(frozen=True, slots=True)
class HeldCloseDue:
    """A held close of ARO window ``key`` may take effect (``server.rooms.window_hold``)."""

    key: str


@dataclass(frozen=True, slots=True)
class GraceExpired:
    side: str
    epoch: int


@dataclass(frozen=True, slots=True)
class IdleExpired:
    """Nobody has been connected to the room for ``idle_room_s`` since ``epoch`` began."""

    epoch: int


@dataclass(frozen=True, slots=True)
class ReleaseDue:
    """A delayed feed's next commit may be due (``server.rooms.delayed_viewers``)."""


@dataclass(frozen=True, slots=True)
class ClockDue:
    """The running chess clock may have reached 0 (``server.rooms.clock_timer``)."""


@dataclass(frozen=True, slots=True)
class ListingDue:
    """A crowd's joins or leaves are to be listed (``server.rooms.listing_pace``)."""


@dataclass(frozen=True, slots=True)
class PresenceDue:
    """The seats' presence that joins left to store (``server.rooms.stored_deadlines``)."""


@dataclass(frozen=True, slots=True)
class OutageDue:
    """The store refused the room's writes: try to give the span back now
    (``server.rooms.store_outage``)."""


@dataclass(frozen=True, slots=True)
class Stop:
    close_code: int
    reason: str


InboxMessage = (
    Join | Leave | Submit | Resync | AskHistory | WindowExpired | HeldCloseDue | GraceExpired
    | IdleExpired
    | ReleaseDue | ClockDue | ListingDue | PresenceDue | OutageDue | Stop
)
