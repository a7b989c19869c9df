"""The closed set of protocol messages, as small frozen dataclasses.

Every message travels as one msgpack map: its tag under ``"type"`` plus its fields under
their names below, without a trailing underscore (``from_`` travels as ``from``, a Python
keyword); see ``protocol/README.md`` for examples. ``protocol.codec`` is the only
module that turns these into bytes and back. Game commands, game events and view snapshots
are carried opaquely as maps: their shapes belong to the rules core.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar

from protocol.constants import ClientTag, ServerTag

Plain = Any
"""Plain data (maps, lists, text, numbers, booleans, nil) as produced by the rules core."""


class SeatStatus(StrEnum):
    """What the other participants know about a seat's connection."""

    EMPTY = "empty"  # nobody has taken the seat yet
    CONNECTED = "connected"
    AWAY = "away"  # disconnected, may still come back within the grace period
    ABANDONED = "abandoned"  # the grace period ran out; the seat may still come back


# --- client -> server -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Hello:
    """First message of every connection: who the client is and where it wants to be.

    ``token`` is a seat token (a player) or None (a spectator). ``since`` is the last event
    version the client holds when it reconnects, or None for a fresh start (snapshot).
    """

    TAG: ClassVar[ClientTag] = ClientTag.HELLO
    protocol: int
    room: str
    token: str | None = None
    since: int | None = None


@dataclass(frozen=True, slots=True)
class Command:
    """A game command from a seat: answered exactly once, by ``rejected``, by the ``events``
    frame whose ``accepted`` names it, or (a repeated id, or an acceptance without events)
    by ``accepted``.

    ``id`` is chosen by the client and unique per seat; repeating it returns the first
    answer. ``version`` is the room's event version the command was issued against.
    """

    TAG: ClassVar[ClientTag] = ClientTag.COMMAND
    id: str
    version: int
    body: dict[str, Plain]


@dataclass(frozen=True, slots=True)
class Sync:
    """Ask for the events after ``since`` (or a snapshot when they are gone or since is None)."""

    TAG: ClassVar[ClientTag] = ClientTag.SYNC
    since: int | None = None


@dataclass(frozen=True, slots=True)
class Ping:
    """Application-level ping, answered by ``pong`` with the same nonce."""

    TAG: ClassVar[ClientTag] = ClientTag.PING
    nonce: int


@dataclass(frozen=True, slots=True)
class OptionsRequest:
    """Ask what this seat may legally do now; answered by ``options``."""

    TAG: ClassVar[ClientTag] = ClientTag.OPTIONS


@dataclass(frozen=True, slots=True)
class HistoryRequest:
    """Ask for this viewer's own events from version ``from_`` (wire name ``from``, at
    least 1) on, in its own numbering; answered by one ``history`` page (or ``rejected``
    with ``id``). The client asks again from the version after the page until it holds
    every event up to the version it wants."""

    TAG: ClassVar[ClientTag] = ClientTag.HISTORY
    id: str
    from_: int


@dataclass(frozen=True, slots=True)
class Measure:
    """Ask the server's geometry for a distance, and from a trooper for its Line of Fire,
    front arc and range MODs (``server/rules/table/measure.py``); answered by ``measurement``
    (or ``rejected`` with ``id``).

    ``from_`` (wire name ``from``) is a trooper id or a point ``[x, y]`` (inches); ``to``
    is a point on the table; ``silhouette`` is the size of the imagined target standing at
    ``to`` (None: the trooper's own)."""

    TAG: ClassVar[ClientTag] = ClientTag.MEASURE
    id: str
    from_: str | list[float]
    to: list[float]
    silhouette: int | None = None


ClientMessage = Hello | Command | Sync | Ping | OptionsRequest | HistoryRequest | Measure


# --- server -> client -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Welcome:
    """The handshake's answer: the client's role and the room's current version and seats.

    It is followed by exactly one of ``events`` (what the client missed since its ``since``,
    possibly nothing, with the ARO window as it stands) or a ``snapshot``.
    """

    TAG: ClassVar[ServerTag] = ServerTag.WELCOME
    protocol: int
    room: str
    role: str  # "A", "B", "spectator" or "caster"
    version: int
    settings: dict[str, Plain]
    seats: dict[str, str]  # "A"/"B" -> SeatStatus value
    spectators: int = 0  # spectators watching now
    dice_commitment: str = ""
    """SHA-256 commitment to the room's dice secret (64 hex), published before any roll;
    the secret is revealed by the ``game_ended`` event (docs/fair-play.md)."""
    fixed_dice: bool = False
    """The room's dice come from a number chosen at creation (a test room): whoever chose
    it knows every die. Only servers run with REFEREE_ALLOW_FIXED_SEED=1 make such rooms."""
    delay_s: float = 0.0
    """How many seconds behind the room this connection's feed runs: 0 for seats, the
    room's ``spectator_delay_s`` for spectators, at least 60 for casters
    (``server.rooms.spectator_delay``)."""


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The client's full view at ``version``; replaces whatever it held.

    ``window`` is the ARO window (see ``window_fields``) while one runs, else it is nil;
    ``seats`` maps "A"/"B" to a SeatStatus value; ``clocks`` the chess clocks: nil in a
    room without them, else "A" and "B" each map to ``remaining_ms`` (as of the frame),
    ``running`` and ``out_of_time`` (protocol/README.md).
    """

    TAG: ClassVar[ServerTag] = ServerTag.SNAPSHOT
    version: int
    state: dict[str, Plain]
    window: dict[str, Plain] | None
    seats: dict[str, str]
    clocks: dict[str, Plain] | None = None


@dataclass(frozen=True, slots=True)
class Events:
    """Consecutive events with versions ``first``, ``first + 1``, ... in this viewer's own
    numbering (``server.rooms.numbering``): an event the viewer may not know of is not in
    it at all, and each entry is an event as this viewer may see it. ``events`` may be
    empty (``first`` is then the version after the one the client holds): the catch-up of a
    client that missed nothing, or a window the room closed without an event.

    ``window`` is the ARO window as it stands after these events (see ``window_fields``),
    or None when none is open: a client replaces its window with it on every ``events``
    frame, as on a snapshot. Carrying it here, rather than in frames of its own, saves a
    frame per socket each time a command opens or closes a window.

    ``accepted`` is the id of this viewer's own command that these events are the
    acceptance of, or None: the frame is then that command's one answer, standing for
    ``Accepted(accepted, last)`` with ``last`` the version of its last event (see
    ``command_answer``). Only the commander's frame names it (a seat's frame goes to that
    seat's connection alone), so an accepted command costs its commander one frame, not two.
    """

    TAG: ClassVar[ServerTag] = ServerTag.EVENTS
    first: int
    events: list[dict[str, Plain] | None]
    """Each entry is a map: the server no longer sends the ``None`` placeholders it sent
    before per-viewer numbering (2026-11-24)."""
    window: dict[str, Plain] | None
    accepted: str | None = None
    clocks: dict[str, Plain] | None = None
    """The chess clocks as they stand after these events (as ``Snapshot.clocks``), or None in
    a room without them: a client replaces its clocks with it on every ``events`` frame."""

    @property
    def last(self) -> int:
        """The version of the last event (``first - 1`` when there is none)."""
        return self.first + len(self.events) - 1


def window_fields(order: int, step: int, reactive: str, deadline_ms: int,
                  remaining_ms: int, guts: str | None = None) -> dict[str, Plain]:
    """An open ARO window as ``snapshot`` and ``events`` carry it: the ``reactive`` side
    ("A"/"B") declares AROs for step ``step`` (1 or 2) of Order ``order`` until
    ``deadline_ms``, the server's wall clock (Unix milliseconds); ``remaining_ms`` is the
    time left when the server built the frame, for clients whose clock differs. A Guts
    window has ``guts``: the trooper whose owner (``reactive``) chooses its Guts movement,
    with ``step`` 0; an ARO window has no ``guts`` key."""
    fields: dict[str, Plain] = {"order": order, "step": step, "reactive": reactive,
                                "deadline_ms": deadline_ms, "remaining_ms": remaining_ms}
    if guts is not None:
        fields["guts"] = guts
    return fields


@dataclass(frozen=True, slots=True)
class Accepted:
    """The command ``id`` was applied; the room is now at ``version``.

    Sent on its own only when the acceptance did not travel in an ``events`` frame (see
    ``Events.accepted``): the answer to a repeated id, and to a command accepted without
    events."""

    TAG: ClassVar[ServerTag] = ServerTag.ACCEPTED
    id: str
    version: int


@dataclass(frozen=True, slots=True)
class Rejected:
    """The command ``id`` was not applied, or the query ``id`` (``history``, ``measure``)
    was refused, for the stable reason ``code``."""

    TAG: ClassVar[ServerTag] = ServerTag.REJECTED
    id: str
    code: str
    message: str


def command_answer(message: ServerMessage) -> Accepted | Rejected | None:
    """The answer to a command that ``message`` is, if it is one: an ``accepted`` or a
    ``rejected``, or an ``events`` frame that names the command it accepts (as the
    ``Accepted`` it stands for)."""
    if isinstance(message, Accepted | Rejected):
        return message
    if isinstance(message, Events) and message.accepted is not None:
        return Accepted(message.accepted, message.last)
    return None


@dataclass(frozen=True, slots=True)
class Presence:
    """A seat's connection changed; ``grace_deadline_ms`` is set while it is ``away``."""

    TAG: ClassVar[ServerTag] = ServerTag.PRESENCE
    seat: str
    status: str  # SeatStatus value
    grace_deadline_ms: int | None = None


@dataclass(frozen=True, slots=True)
class Error:
    """A frame that was not a usable message; the connection stays open."""

    TAG: ClassVar[ServerTag] = ServerTag.ERROR
    code: str
    message: str


@dataclass(frozen=True, slots=True)
class Pong:
    TAG: ClassVar[ServerTag] = ServerTag.PONG
    nonce: int


@dataclass(frozen=True, slots=True)
class Options:
    """The seat's legal choices at room ``version`` (the rules core's ``seat_options``;
    empty for a spectator). Stale once the client holds a newer version."""

    TAG: ClassVar[ServerTag] = ServerTag.OPTIONS
    version: int
    options: dict[str, Plain]


@dataclass(frozen=True, slots=True)
class Spectators:
    """How many spectators watch the room now (sent to everyone when it changes)."""

    TAG: ClassVar[ServerTag] = ServerTag.SPECTATORS
    count: int


@dataclass(frozen=True, slots=True)
class History:
    """One page of the answer to ``history`` ``id``: this viewer's events with versions
    ``first``, ``first + 1``, ... in its own numbering, each as it would have received it
    live (an event it may not know of is not in it). ``last`` is the viewer's version when
    the page was made; ``events`` is empty when ``first`` is past it. A page holds at most
    500 events (``server.rooms.history``): ask again from ``first + len(events)``."""

    TAG: ClassVar[ServerTag] = ServerTag.HISTORY
    id: str
    first: int
    events: list[dict[str, Plain]]
    last: int


@dataclass(frozen=True, slots=True)
class Measurement:
    """The answer to ``measure`` ``id``, from the server's geometry
    (``server/rules/table/measure.py``). ``from_`` (wire ``from``) and ``to`` repeat the request.

    ``distance`` (inches): from a trooper, between its base and the base of a target of
    Silhouette ``silhouette`` standing at ``to``, as attacks measure range; between two
    points, centre to centre. From a trooper, ``line_of_fire`` and ``in_front_arc`` say
    whether it has Line of Fire to that target and whether some of the target's base is
    in its 180-degree front arc; ``weapons`` lists ``{"weapon", "name", "mod"}`` for each
    weapon (``mod`` nil: out of range), or is nil when the viewer may not know them (an
    enemy Camouflage Marker). Between two points those four are nil."""

    TAG: ClassVar[ServerTag] = ServerTag.MEASUREMENT
    id: str
    from_: str | list[float]
    to: list[float]
    distance: float
    silhouette: int | None
    line_of_fire: bool | None
    in_front_arc: bool | None
    weapons: list[dict[str, Plain]] | None


ServerMessage = (
    Welcome
    | Snapshot
    | Events
    | Accepted
    | Rejected
    | Presence
    | Error
    | Pong
    | Options
    | Spectators
    | History
    | Measurement
)

CLIENT_MESSAGES: tuple[type[ClientMessage], ...] = (
    Hello, Command, Sync, Ping, OptionsRequest, HistoryRequest, Measure)
SERVER_MESSAGES: tuple[type[ServerMessage], ...] = (
    Welcome,
    Snapshot,
    Events,
    Accepted,
    Rejected,
    Presence,
    Error,
    Pong,
    Options,
    Spectators,
    History,
    Measurement,
)
