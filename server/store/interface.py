"""The storage seam: what a room needs from durable storage, and nothing more.

A room is a sequence of numbered events plus a snapshot of its state at some version (its
``snapshot_version``): the room's state now is that snapshot with the events after it
applied in order. Every event is kept for the room's whole life (never trimmed): a
finished game's record (``server.lobby.record``) is all of them, read with
``events_since(room_id, 0)``. ``append`` writes events (and, when the room takes one, a new snapshot)
atomically, guarded twice: ``expected_version`` (optimistic concurrency) and
``fence`` (the fencing token from ``claim_room``, so that a node that lost its lease cannot
write after another node took the room). Payloads are bytes (msgpack of plain data, made by
``protocol.codec.pack_plain``); the store never interprets them.

Two things ride in the same atomic ``append`` as the events they belong to:

- **the answer** to the seat's command those events accept (``Answer``: the encoded frame a
  repeated command id gets back). The store keeps each seat's latest ``answers_kept`` and
  ``load_room`` returns them, so a command id sent again after a restart, a takeover, or a
  write that landed although the room never heard back, gets its first answer and is not
  applied twice.
- **the room's retention** (``retention_ms``): how long the store keeps the room after its
  last write. Every key of a room expires together; a room gone that way is gone for every
  method (``load_room`` and ``claim_room`` find nothing, ``append`` raises ``StaleWriter``,
  the public list drops it). 0 = kept for ever. ``set_deadlines`` renews it like a write.

The in-memory implementation is ``server.store.memory.MemoryRoomStore``; a Redis one (events
in a Redis Stream, snapshot + meta in a hash, leases with fencing tokens) implements the
same Protocol.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from server.store.caster_links import CasterLink, Full, Recorded, Withdrawn

Visibility = Literal["public", "private"]


RegisteredArmy = str | Mapping[str, Any]
"""A seat's registered army: a shipped list's id, or an army document (docs/armies.md)."""


@dataclass(frozen=True, slots=True)
class RoomSettings:
    """What the room's creator chose; fixed for the room's life."""

    ruleset: str
    aro_window_s: float
    visibility: Visibility
    spectator_delay_s: float = 0.0
    """Spectators see each event this long after it happened (casters at least 60 s):
    ``server.rooms.spectator_delay``."""
    fixed_seed: int | None = None
    """A number that fixed the dice (test rooms, only with ``Settings.allow_fixed_seed``);
    None for every room made by the public lobby: its dice secret is random. Never shown."""
    table: str | Mapping[str, Any] = ""
    """The table the game is set up on (``server.rules.table.table_catalogue.room_choice``): a
    shipped layout's id, or the checked document of a table sent whole (docs/tables.md). ""
    in rooms stored before tables could be chosen: the ruleset's sparse sample layout, the
    only table there was then."""
    clock_s: int = 0
    """Chess clocks: each player's time for the whole game, in seconds (ITS: 4500, 1:15
    each); 0: the room plays without clocks (``server/rules/orders/clocks.py``)."""
    armies: Mapping[str, RegisteredArmy] = field(default_factory=dict)
    """The army a seat ("A", "B") must choose: a tournament table's registered armies
    (``server/tournaments/routes.py``), each a shipped list's id or the army document the
    player registered (the seat chooses it by its ``"id"``); a seat left out chooses freely.
    {} in every lobby room and in rooms stored before registered armies."""

    aro_min_open_s: float = 0.0
    """Uniform ARO windows (``server/rooms/window_hold.py``, docs/fair-play.md): while the
    reactive side could hold a trooper whose presence or eligibility is private, every ARO
    window stays open at least this long, however soon its player closes it. 0: off (lobby
    rooms by default, and rooms stored before the setting); tournament rooms: 3 s."""

    mission: str = ""
    """The mission the game is played on: a shipped mission's id of the room's ruleset
    (``server.lobby.missions``; the rules core's ``GameSetup.mission``). "": no
    mission, the annihilation game (every room stored before missions)."""

    bot: str = ""
    """The seat ("A" or "B") the referee's practice bot plays (``server/bot``, docs/bot.md);
    "": none (every room stored before the bot, and every tournament room)."""
    bot_level: str = ""
    """The bot's level ("random" or "sensible"; "" without a bot)."""

    @property
    def fixed_dice(self) -> bool:
        return self.fixed_seed is not None


@dataclass(frozen=True, slots=True)
class RoomMeta:
    """What a room is made with: stored once by ``create_room`` and never changed."""

    room_id: str
    settings: RoomSettings
    token_hash_a: str  # sha256 hex of seat A's token; the token itself is never stored
    token_hash_b: str
    created_ms: int
    dice_commitment: str = ""
    """SHA-256 commitment to the dice secret (64 hex): public from the room's creation."""
    organizer_hash: str = ""
    """sha256 hex of the organizer token (it makes caster links, ``server.lobby.tokens``);
    "" in rooms stored before organizers."""
    bot_token: str = ""
    """The practice bot's seat token ("" without a bot): the server's own credential, never
    handed out, kept so that whichever node runs the room runs its bot (``server/bot/seating``)."""


@dataclass(frozen=True, slots=True)
class Deadline:
    """A timer that outlives the process: e.g. kind "aro_window", key "12:1"."""

    kind: str
    key: str
    at_ms: int  # Unix milliseconds


@dataclass(frozen=True, slots=True)
class Listing:
    """A public room's line in the lobby list."""

    room_id: str
    ruleset: str
    phase: str
    round: int
    turn: int
    active: str | None
    spectators: int
    seats_taken: int
    updated_ms: int
    fixed_dice: bool = False


@dataclass(frozen=True, slots=True)
class Answer:
    """The first answer to a seat's command, stored with the events that accept it: the
    exact frame a repeated ``command_id`` of that seat gets back."""

    seat: str  # "A" or "B"
    command_id: str
    frame: bytes


@dataclass(frozen=True, slots=True)
class StoredRoom:
    """A room as stored: its state at ``version`` is ``snapshot`` (the state at
    ``snapshot_version``) with ``events`` (versions snapshot_version+1 .. version, in order)
    applied. ``answers``: each seat's latest stored answers, oldest first per seat.
    ``armies``: the snapshot's army lists when stored apart from it (``append``), else None
    (the snapshot holds its own)."""

    meta: RoomMeta
    version: int
    snapshot: bytes
    deadlines: tuple[Deadline, ...]
    snapshot_version: int
    events: tuple[bytes, ...]
    answers: tuple[Answer, ...] = ()
    armies: bytes | None = None


@dataclass(frozen=True, slots=True)
class Timeline:
    """What a delayed feed needs to resume after a restart or a takeover
    (``server.rooms.spectator_delay``): the room's state at version 0 (None in rooms stored
    before it was kept) and every event with, at the same index, the Unix ms its commit was
    stored at (0 in rooms stored before) and the deadline of the ARO window open after that
    commit (0: none)."""

    first_snapshot: bytes | None
    events: tuple[bytes, ...]
    committed_ms: tuple[int, ...]
    window_ms: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Commits:
    """The events after a version with their commit times (``RoomStore.commits_since``): what a
    reader that keeps a room's state at a version needs to continue it
    (``server.tournaments.folds``)."""

    events: tuple[bytes, ...]
    committed_ms: tuple[int, ...]


class StaleWriter(Exception):
    """``append`` refused: the version moved on or a newer claim holds the room."""


TRY_AGAIN = ("storage is unavailable: try again, with the same command id (a command is applied "
             "at most once, and a write that landed after all gets its first answer)")


class StorageUnavailable(Exception):
    """The store cannot be reached now (Redis down, restarting, loading its append-only
    file): nothing was decided, try again. A room answers the command ``storage_unavailable``
    and never acknowledges it."""

    def __init__(self, detail: str = "") -> None:
        super().__init__(f"{TRY_AGAIN} ({detail})" if detail else TRY_AGAIN)


class SomeRoomsUnavailable(StorageUnavailable):
    """``load_rooms`` read some of the rooms only (on a Redis Cluster, a shard that cannot
    confirm its rooms on a replica while the others can): ``outcomes`` holds each room, in
    order, as loaded or as the ``StorageUnavailable`` of its read. A caller that does not
    look inside treats the whole call as failed."""

    def __init__(self, detail: str,
                 outcomes: Sequence[StoredRoom | StorageUnavailable | None]) -> None:
        super().__init__(detail)
        self.outcomes = outcomes


ANSWERS_KEPT = 256
"""Answers kept per seat unless ``append`` says otherwise (``Settings.answer_cache_size``)."""


class RoomStore(Protocol):
    async def create_room(self, meta: RoomMeta, snapshot: bytes, listing: Listing | None,
                          *, retention_ms: int = 0) -> None:
        """Store a new room at version 0; ``listing`` None keeps it off the public list;
        ``retention_ms`` > 0: the room is deleted that long after its last write."""

    async def claim_room(self, room_id: str, owner: str) -> int | None:
        """Take the room for ``owner``; returns a fencing token larger than every earlier
        one for this room, or None when the room does not exist."""

    async def load_room(self, room_id: str) -> StoredRoom | None:
        """The room's meta, version, latest snapshot and every event after that snapshot.
        On a Redis Cluster that waits for replicas, returned only once they have all of it
        (else ``StorageUnavailable``: ``server.store.cluster_store``)."""

    async def load_meta(self, room_id: str) -> RoomMeta | None:
        """The room's meta alone (None: no such room, or its retention ran out), for a
        reader that needs nothing else (the lobby's room page, a seat's or the organizer's
        token check): none of the snapshot, events or answers ``load_room`` reads. A room's
        meta is written once, by ``create_room``, and never changed (its settings,
        registered armies, token hashes and dice commitment included; the retention and the
        caster links are kept beside it, not in it), so any read of it is the one the room
        was created with. Not confirmed on a replica as ``load_room`` is on a Redis Cluster
        that waits for replicas: it need not be, since a room's creation is answered only
        once replicas have it (``durable_call``) and its id reaches no one before that (a
        creation refused "try again" may have left its room on the master alone, but its
        id was never handed out nor listed)."""

    async def loaded_version(self, room_id: str) -> int | None:
        """The room's version as ``load_room`` would return it, without the room (None: no
        such room): on a Redis Cluster that waits for replicas, confirmed on a replica as
        the load is. For a reader that keeps what it read of the room before and clips its
        next reads to a confirmed version (``server.store.clipped_reads``: the tournament
        dashboard's folds)."""

    async def load_metas(self, room_ids: Sequence[str]) -> list[RoomMeta | None]:
        """``load_meta`` of each id, in order, in one call (one round trip on Redis): a node
        opening relays to rooms other nodes own needs their metas only, batched as
        ``load_rooms`` is (``server.rooms.room_loads``)."""

    async def load_rooms(self, room_ids: Sequence[str]) -> list[StoredRoom | None]:
        """``load_room`` of each id, in order, in one call (one round trip on Redis): the
        registry batches the rooms opened at once (``server.rooms.room_loads``)."""

    async def append(
        self,
        room_id: str,
        *,
        fence: int,
        expected_version: int,
        events: Sequence[bytes],
        snapshot: bytes | None,
        deadlines: Sequence[Deadline],
        listing: Listing | None,
        answer: Answer | None = None,
        answers_kept: int = ANSWERS_KEPT,
        retention_ms: int | None = None,
        committed_ms: int = 0,
        window_ms: int = 0,
        armies: bytes | None = None,
    ) -> int:
        """Atomically add ``events`` as versions expected_version+1..., each with
        ``committed_ms`` (when the room committed them) and ``window_ms`` (the deadline of
        the ARO window open after them, 0: none) for ``timeline``; replace the open
        deadlines and the listing, and -- when ``snapshot`` is not None -- replace the
        snapshot with it (it is the state at the new version) and, with ``armies``, the army
        lists kept apart from the snapshots with them (``armies`` only with a ``snapshot``:
        a snapshot without them is read with the latest stored; ``ValueError`` else);
        with ``answer``, add it to
        its seat's answers, of which the latest ``answers_kept`` are kept; set the room's
        retention to ``retention_ms`` (None: keep the room's) and start it again from now.
        Returns the new version. Raises ``StaleWriter`` when the room is not at
        ``expected_version`` or ``fence`` is not the latest claim (or the room is gone).
        No event is ever dropped."""

    async def set_deadlines(self, room_id: str, *, fence: int,
                            deadlines: Sequence[Deadline]) -> None:
        """Replace the room's open deadlines without an event (a seat's presence changed)
        and start its retention again from now; raises ``StaleWriter`` when ``fence`` is
        not the latest claim."""

    async def events_since(self, room_id: str, version: int) -> Sequence[bytes] | None:
        """The events after ``version`` in order (``0``: every event of the room), or None
        when ``version`` is not one the room has passed (or the room does not exist)."""

    async def timeline(self, room_id: str) -> Timeline | None:
        """The room's first state and every event with its commit time (``Timeline``), or
        None when the room does not exist."""

    async def commits_since(self, room_id: str, version: int) -> Commits | None:
        """The events after ``version`` with their commit times (as ``timeline`` gives
        them), or None when ``version`` is not one the room has passed (or the room does not
        exist)."""

    async def set_listing(self, room_id: str, listing: Listing | None) -> None:
        """Update (or with None remove) the room's public list entry, e.g. spectator counts;
        nothing for a room that does not exist (any more)."""

    async def public_rooms(self, limit: int) -> Sequence[Listing]:
        """Public rooms that still exist, most recently updated first."""

    async def caster_links(self, room_id: str) -> tuple[CasterLink, ...] | None:
        """The records of the room's caster links, oldest first (``caster_links``), or None
        when the room does not exist."""

    async def record_caster_link(self, room_id: str, nonce: str,
                                 created_ms: int) -> Recorded | None:
        """Record a new caster link: "recorded", "full" (the room holds ``MAX_MADE``
        records or more: not recorded) or None (no such room)."""

    async def current_caster_link(self, room_id: str, nonce: str,
                                  created_ms: int) -> CasterLink | Full | None:
        """The room's oldest caster link in use; when none is, ``nonce`` recorded as a new
        link made at ``created_ms`` (as ``record_caster_link``) and returned; at once, so
        two calls at once make one link. "full": none in use and ``MAX_MADE`` records (none
        recorded); None: no such room."""

    async def withdraw_caster_link(self, room_id: str, nonce: str,
                                   at_ms: int) -> tuple[Withdrawn, CasterLink] | None:
        """Withdraw the caster link of ``nonce`` (recorded now if it was not, up to
        ``MAX_RECORDS``): its status and record, or None (no such room). Idempotent: a link
        withdrawn before answers "already_withdrawn" with its first withdrawal's time."""

    async def close(self) -> None: ...
