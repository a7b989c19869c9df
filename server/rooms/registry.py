"""The rooms live on this node: created through the lobby, started on first connection.

``open`` claims a room (fencing token; with several nodes only the lease winner gets one),
loads it from the store and starts its actor task; a room that another node owns is opened
as a relay to that node (``Ownership``), for which only the room's meta is read. Concurrent
opens of the same room share one load, and the store reads of the rooms opened at once go
in one batch (``room_loads``): after a restart thousands of hellos arrive together and no
room's read waits for another's.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from protocol.constants import CloseCode
from server.config import Settings
from server.fanout import Fanout
from server.lobby.tokens import new_organizer_token, new_room_id, new_seat_token, token_hash
from server.metrics import ROOMS
from server.rooms.door import RoomDoor
from server.rooms.engine_port import Engine, State
from server.rooms.numbering import (
    NONE_SEEN,
    Seen,
    pack_room_snapshot,
    replayed,
    snapshot_read,
)
from server.rooms.ownership import Claimed, HeldBy, Ownership, SoleOwner
from server.rooms.retention import retention_of
from server.rooms.room import Room, now_ms
from server.rooms.room_loads import RoomLoads
from server.rooms.spectator_delay import Clock
from server.store import Answer, Deadline, Listing, RoomMeta, RoomSettings, RoomStore

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class CreatedRoom:
    meta: RoomMeta
    token_a: str  # handed out once, never stored
    token_b: str
    organizer: str = ""  # the organizer token (makes caster links); handed out once too


class RoomHooks(Protocol):
    """Told when a room starts on this node and when it stops here (the practice bot's
    ``server.bot.seating.Bots``: the node that runs a room runs its bot)."""

    def started(self, meta: RoomMeta) -> None: ...

    def stopped(self, room_id: str) -> None: ...


class NodeShuttingDown(Exception):
    """This node is shutting down: it opens no room any more (the client reconnects, through
    the load balancer, to another node)."""


Warmed = Literal["started", "held", "gone", "already"]
"""What ``RoomRegistry.warm`` did: started the room; left it to the node holding its lease;
found no such room; found it live, loading or relayed here already."""


class _HeldElsewhere(Exception):
    """A warm-up's claim found the room leased to another node (a hello waiting on that
    claim opens the room again, which relays it)."""


class RoomRegistry:
    def __init__(self, store: RoomStore, fanout: Fanout, engine: Engine, settings: Settings,
                 ownership: Ownership | None = None):
        self.store = store
        self._fanout = fanout
        self._engine = engine
        self._settings = settings
        self.ownership = ownership or SoleOwner(store, node_name(settings))
        self._closing = False
        self._rooms: dict[str, Room] = {}
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._loading: dict[str, asyncio.Future[RoomDoor | None]] = {}
        self._loads = RoomLoads(lambda room_ids: self.store.load_rooms(room_ids))
        self._metas = RoomLoads(lambda room_ids: self.store.load_metas(room_ids))
        self.hooks: RoomHooks | None = None
        self.clock: Clock = now_ms
        """Unix ms now, for the rooms' commit times and delayed feeds: tests replace it
        (before they create or open rooms) to move time without sleeping."""

    @property
    def node_id(self) -> str:
        return self.ownership.node_id

    async def create(
        self, settings: RoomSettings, initial_state: State | None = None
    ) -> CreatedRoom:
        """Start a new game and store it at version 0. ``initial_state`` replaces the new
        game (scenario starts for tests and tournaments; the lobby never passes it)."""
        state = initial_state
        if state is None:
            state = self._engine.new_game(settings.ruleset, settings.fixed_seed, settings.table,
                                          settings.armies, settings.mission)
        if settings.clock_s > 0 and self._engine.clocks_fields(state, 0) is None:
            # (a scenario's state too, unless it brings its own clocks: they start now)
            state = self._engine.start_clocks(state, settings.clock_s * 1000, self.clock())
        token_a, token_b = new_seat_token(), new_seat_token()
        organizer = new_organizer_token()
        bot_token = {"A": token_a, "B": token_b}.get(settings.bot, "")
        meta = RoomMeta(new_room_id(), settings, token_hash(token_a), token_hash(token_b),
                        now_ms(), self._engine.dice_commitment(state), token_hash(organizer),
                        bot_token)
        listing = None
        if settings.visibility == "public":
            summary = self._engine.public_summary(state)
            listing = Listing(meta.room_id, settings.ruleset, str(summary["phase"]),
                              int(summary["round"]), int(summary["turn"]), summary.get("active"),
                              0, 0, meta.created_ms, settings.fixed_dice)
        snapshot = pack_room_snapshot(self._engine.state_to_plain(state), NONE_SEEN)
        await self.store.create_room(
            meta, snapshot, listing,
            retention_ms=retention_of(self._settings, self._engine, state))
        # Start it here, from the state in hand: no decode of what was just encoded.
        if self._closing or not self._settings.claim_on_create:
            # Stored; whichever node opens it runs it (behind a balancer routing by room:
            # the node its sockets are sent to).
            return CreatedRoom(meta, token_a, token_b, organizer)
        claim = await self.ownership.claim(meta.room_id)
        if isinstance(claim, Claimed):
            await self.ownership.serve(
                self._start(meta, state, version=0, fence=claim.fence, deadlines=()))
        return CreatedRoom(meta, token_a, token_b, organizer)

    async def open(self, room_id: str) -> RoomDoor | None:
        """The live room (or a relay to its owner), loading and starting it if needed; None
        if no such room. Raises ``NodeShuttingDown`` once ``shutdown`` has begun."""
        if self._closing:
            raise NodeShuttingDown(self.node_id)
        room = self._rooms.get(room_id)
        if room is not None and not room.stopped:
            return room
        relay = self.ownership.relay_for(room_id)
        if relay is not None:
            return relay
        pending = self._loading.get(room_id)
        if pending is not None:
            try:
                return await asyncio.shield(pending)
            except _HeldElsewhere:  # a warm-up's claim found another node running it
                return await self.open(room_id)
        return await self._loading_once(room_id, self._load)

    async def _loading_once(self, room_id: str,
                            load: Callable[[str], Awaitable[RoomDoor | None]]
                            ) -> RoomDoor | None:
        """``load(room_id)`` as the room's one load in flight: an ``open`` meanwhile waits
        for it and gets its door (or re-raises what it raised)."""
        future: asyncio.Future[RoomDoor | None] = asyncio.get_running_loop().create_future()
        self._loading[room_id] = future
        try:
            door = await load(room_id)
            future.set_result(door)
            return door
        except BaseException as error:
            future.set_exception(error)
            future.exception()  # mark retrieved: the waiters re-raise it themselves
            raise
        finally:
            del self._loading[room_id]

    async def _load(self, room_id: str) -> RoomDoor | None:
        # Claim before loading: once our fence is the room's, no older owner can append
        # after the state we read.
        claim = await self.ownership.claim(room_id)
        if claim is None:
            return None
        if isinstance(claim, HeldBy):
            # Another node runs it: a relay needs its meta alone (batched as the loads are).
            meta = await self._metas.load(room_id)
            return None if meta is None else await self.ownership.relay(meta, claim.node_id)
        return await self._load_claimed(room_id, claim)

    async def _load_claimed(self, room_id: str, claim: Claimed) -> Room | None:
        stored = await self._loads.load(room_id)  # (batched with the rooms opened at once)
        if stored is None:
            return None
        if len(stored.events) != stored.version - stored.snapshot_version:
            raise RuntimeError(f"room {room_id}: the store lacks events after its snapshot")
        at_snapshot, seen, took_apart = snapshot_read(self._engine, stored.snapshot,
                                                      stored.snapshot_version, stored.armies)
        state, seen = replayed(self._engine, at_snapshot, seen, stored.events)
        # The store's army lists are known to be this state's only when the snapshot was
        # read with them (one holding its own may follow lists that changed since); and
        # they are the snapshot's, not the replayed state's.
        armies_stored = self._engine.armies_of(at_snapshot) if took_apart else None
        room = self._start(stored.meta, state, stored.version, claim.fence, stored.deadlines,
                           snapshot_version=stored.snapshot_version, seen=seen,
                           answers=stored.answers, armies_stored=armies_stored, loaded=True,
                           unattended_since_ms=claim.unattended_since_ms)
        await self.ownership.serve(room)
        return room

    async def warm(self, room_id: str) -> Warmed:
        """Start a room this node ran before it restarted (``server.cluster.warm_up``),
        ahead of its players' hellos: claimed, loaded and started as ``open`` does, and
        a hello meanwhile shares that load. Unlike ``open`` it opens no relay: a room held
        by another node is left to it (a hello waiting on this claim opens the relay then).
        Raises ``NodeShuttingDown`` once ``shutdown`` has begun, and the store's errors."""
        if self._closing:
            raise NodeShuttingDown(self.node_id)
        room = self._rooms.get(room_id)
        if ((room is not None and not room.stopped) or room_id in self._loading
                or self.ownership.relay_for(room_id) is not None):
            return "already"
        try:
            door = await self._loading_once(room_id, self._load_unless_held)
        except _HeldElsewhere:  # (a hello waiting on this claim opens the relay itself)
            return "held"
        return "gone" if door is None else "started"

    async def _load_unless_held(self, room_id: str) -> RoomDoor | None:
        """``_load`` for the warm-up: a room leased to another node raises
        ``_HeldElsewhere`` instead of opening a relay."""
        claim = await self.ownership.claim(room_id)
        if isinstance(claim, HeldBy):
            raise _HeldElsewhere(claim.node_id)
        return None if claim is None else await self._load_claimed(room_id, claim)

    def _start(self, meta: RoomMeta, state: State, version: int, fence: int,
               deadlines: Sequence[Deadline], snapshot_version: int = 0,
               seen: Seen = NONE_SEEN, answers: Sequence[Answer] = (),
               armies_stored: object | None = None, loaded: bool = False,
               unattended_since_ms: int | None = None) -> Room:
        room_id = meta.room_id
        room = Room(meta, state=state, version=version, fence=fence, deadlines=deadlines,
                    engine=self._engine, store=self.store, fanout=self._fanout,
                    settings=self._settings, snapshot_version=snapshot_version, seen=seen,
                    answers=answers, clock=self.clock, armies_stored=armies_stored,
                    loaded=loaded, unattended_since_ms=unattended_since_ms)
        self._rooms[room_id] = room
        ROOMS.inc()  # until its task ends (_forget)
        task = asyncio.create_task(room.run(), name=f"room-{room_id}")
        self._tasks[room_id] = task
        task.add_done_callback(lambda _: self._forget(room_id, room))
        if self.hooks is not None:
            self.hooks.started(meta)
        return room

    def _forget(self, room_id: str, room: Room) -> None:
        ROOMS.dec()
        self.ownership.forget(room)
        if self._rooms.get(room_id) is room:
            del self._rooms[room_id]
            del self._tasks[room_id]
            if self.hooks is not None:
                self.hooks.stopped(room_id)

    def live_rooms(self) -> int:
        return len(self._rooms)

    @property
    def closing(self) -> bool:
        return self._closing

    async def shutdown(self) -> None:
        """Open no room any more; stop every room, closing its sockets with GOING_AWAY, then
        release this node's leases (another node may take the rooms over at once, not after
        they expire). A room handles what is already in its inbox first, so in-flight
        commands are stored and answered before the close. Idempotent."""
        self._closing = True
        while True:
            # A load that began before the flag may still start its room: wait for it too.
            for loading in [f for f in self._loading.values() if not f.done()]:
                with contextlib.suppress(Exception):
                    await asyncio.shield(loading)
            tasks = [task for task in self._tasks.values() if not task.done()]
            if not tasks:
                break
            for room in list(self._rooms.values()):
                room.stop(CloseCode.GOING_AWAY, "server shutting down")
            for task in tasks:
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        await self.ownership.close()


def node_name(settings: Settings) -> str:
    """``settings.node_id`` (REFEREE_NODE_ID), else a random name for this process."""
    return settings.node_id or f"node-{uuid.uuid4().hex[:12]}"

