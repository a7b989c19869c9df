"""The bytes a room sends and stores, made in one place.

The room decides, and its collaborators (``presence``, ``catch_up``, ``aro_window``, ...)
keep their state; none of them builds a wire frame. They hand what a viewer is to be told
-- a command's answer, the events it missed, a seat's presence, its welcome -- to the
functions here, which make the ``protocol`` message and encode it (``protocol.codec``), as
a client actor in lila-ws translates while the game never sees the wire. The events of one
commit, one frame per audience, are made by ``event_frames.events_delivery`` (re-exported
here; ``bench.rules_cost`` times it on its own). The stored forms of events (the store's
payloads) are made and read here too, so the room never touches the codec.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from protocol import codec
from protocol.constants import PROTOCOL_VERSION
from protocol.messages import (
    Accepted,
    Events,
    History,
    Options,
    Presence,
    Rejected,
    Snapshot,
    Spectators,
    Welcome,
)
from server.fanout import AUDIENCES, Audience, Delivery
from server.rooms.engine_port import Plain
from server.rooms.event_frames import Answering, events_delivery
from server.rooms.numbering import Seen
from server.rooms.seats import Seat

__all__ = [
    "Answering", "accepted", "crowd_snapshot", "events", "events_delivery", "history",
    "options", "packed_view", "plains_of", "presence", "rejected", "seat_snapshot",
    "spectators", "stored_events", "welcome", "window_only",
]

Fields = dict[str, Plain] | None
"""A frame's ``window`` or ``clocks`` (``window_fields``, ``clocks_fields``), or None."""


# --- a command's or a query's answer ---------------------------------------------------


def rejected(request_id: str, code: str, message: str) -> bytes:
    return codec.encode(Rejected(request_id, code, message))


def accepted(command_id: str, version: int) -> bytes:
    """A standalone acceptance, ``version`` in the commander's own numbering."""
    return codec.encode(Accepted(command_id, version))


def options(version: int, choices: dict[str, Plain]) -> bytes:
    return codec.encode(Options(version, choices))


def history(request_id: str, first: int, page: list[Plain], last: int) -> bytes:
    return codec.encode(History(request_id, first, page, last))


# --- what a viewer missed ---------------------------------------------------------------


def events(first: int, view: list[Plain], window: Fields, clocks: Fields) -> bytes:
    """One viewer's events from its ``first``-th (none: ``first`` is its next), with the
    window and the clocks as they stand."""
    return codec.encode(Events(first, view, window, clocks=clocks))


def seat_snapshot(version: int, state_view: dict[str, Plain], window: Fields,
                  seats: dict[str, str], clocks: Fields) -> bytes:
    """A seat's full view: made each time (one connection asks for it)."""
    return codec.encode(Snapshot(version, state_view, window, seats, clocks))


def crowd_snapshot(version: int, packed_state: bytes, window: Fields,
                   seats: dict[str, str], clocks: Fields) -> bytes:
    """A crowd's full view, its state already packed (``packed_view``: shared by every
    snapshot of that state)."""
    return codec.encode_with_packed(Snapshot(version, {}, window, seats, clocks),
                                    state=packed_state)


def packed_view(state_view: Plain) -> bytes:
    return codec.pack_plain(state_view)


def welcome(room_id: str, audience: Audience, version: int, settings: dict[str, object],
            seats: dict[str, str], spectator_count: int, dice_commitment: str,
            fixed_dice: bool, delay_s: float) -> bytes:
    return codec.encode(Welcome(PROTOCOL_VERSION, room_id, audience.value, version,
                                settings, seats, spectator_count,
                                dice_commitment, fixed_dice, delay_s))


# --- what everyone is told --------------------------------------------------------------


def presence(seat: Seat) -> bytes:
    return codec.encode(Presence(seat.side, seat.status.value, seat.grace_deadline_ms))


def spectators(count: int) -> bytes:
    return codec.encode(Spectators(count))


def window_only(version: int, seen: Seen, live: Callable[[Audience], bool],
                window: Fields, clocks: Callable[[], Fields]) -> Delivery:
    """The window changed without an event (dropped: ``window`` None; or running again):
    an ``events`` frame with no event and the window as it stands to every audience that
    gets live frames (``clocks`` read for each, as of its frame)."""
    frames = {audience: events(seen[audience] + 1, [], window, clocks())
              if live(audience) else b"" for audience in AUDIENCES}
    return Delivery(version, frames[Audience.A], frames[Audience.B],
                    frames[Audience.SPECTATOR], frames[Audience.CASTER])


# --- the stored forms of events ----------------------------------------------------------


def stored_events(plains: Sequence[Plain]) -> list[bytes]:
    """The store's payloads of events (their ``event_to_plain`` forms)."""
    return [codec.pack_plain(plain) for plain in plains]


def plains_of(payloads: Sequence[bytes]) -> list[Plain]:
    return [codec.unpack_plain(payload) for payload in payloads]
