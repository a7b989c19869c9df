"""``ClusterNode``: this node's part in serving rooms together with other nodes.

It implements the registry's ``Ownership``: a claim is a lease (``RedisLeases.acquire``);
a room leased to another node is served here through a ``RelayRoom``. One task renews,
once per ``lease_renew_s``, in ONE Redis round trip: the leases of every room this node
owns, its own liveness key, the lease holders of the rooms it relays and the liveness of
the nodes its owned rooms have relayed viewers on. Then:

- an owned room whose lease is lost stops at once (its sockets close with 4011; its
  clients reconnect, the new owner serves them). Its writes are refused by the fence anyway.
- a relayed room whose lease is free (its owner died) is taken over here when this node
  has viewers of it: claim (new fence), load, start; the relay's viewers reconnect (4011).
  A relayed room whose holder changed sends its viewers to reconnect too.
- relayed viewers of a node that stopped renewing its liveness leave their rooms (seat
  presence ``away``, spectator counts) as if they had disconnected.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

import redis.asyncio as aioredis

from protocol.constants import CloseCode
from server.cluster.bus import BusUnavailable, RoomBus
from server.cluster.fanout import ClusterFanout
from server.cluster.lease import RedisLeases
from server.cluster.owner import OwnerPort, RoomOutlet
from server.cluster.relay import RelayRoom
from server.config import Settings
from server.rooms.door import RoomDoor
from server.rooms.ownership import Claim
from server.rooms.room import Room
from server.store import RoomMeta, StorageUnavailable

log = logging.getLogger(__name__)


class ClusterNode:
    def __init__(self, client: aioredis.Redis, node_id: str, settings: Settings) -> None:
        self._node_id = node_id
        self._settings = settings
        self.leases = RedisLeases(client, node_id, int(settings.lease_s * 1000))
        self.bus = RoomBus(client, node_id, self._bus_reset)
        self.fanout = ClusterFanout(self._outlet)
        self._ports: dict[str, OwnerPort] = {}
        self._relays: dict[str, RelayRoom] = {}
        self._taking_over: set[str] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._ticker: asyncio.Task[None] | None = None
        self._closing = False
        self._held: set[str] = set()  # rooms whose lease this node took (released on close)
        self.open_rooms: Callable[[str], Awaitable[RoomDoor | None]] | None = None
        """The registry's ``open``, for takeovers (set by ``create_app``)."""

    @property
    def node_id(self) -> str:
        return self._node_id

    async def start(self) -> None:
        await self.bus.start()
        self._ticker = asyncio.create_task(self._tick_forever(), name="lease-ticker")

    # --- Ownership ----------------------------------------------------------------------

    async def claim(self, room_id: str) -> Claim | None:
        return await self.leases.acquire(room_id)

    def relay_for(self, room_id: str) -> RoomDoor | None:
        relay = self._relays.get(room_id)
        return None if relay is None or relay.stopped else relay

    async def relay(self, meta: RoomMeta, owner: str) -> RoomDoor:
        existing = self.relay_for(meta.room_id)
        if existing is not None:
            return existing
        relay = RelayRoom(self.bus, self._node_id, meta, owner,
                          self._settings.relay_join_timeout_s, self._relay_empty)
        self._relays[meta.room_id] = relay
        try:
            await relay.open()
        except BusUnavailable as error:
            self._relays.pop(meta.room_id, None)
            raise StorageUnavailable(str(error)) from error
        return relay

    async def serve(self, room: Room) -> None:
        port = OwnerPort(self.bus, room)
        self._ports[room.room_id] = port
        self._held.add(room.room_id)
        try:
            await port.open()
        except BusUnavailable as error:
            log.warning("room %s: relays cannot reach it yet: %s", room.room_id, error)

    def forget(self, room: Room) -> None:
        port = self._ports.get(room.room_id)
        if port is not None and port.room is room:
            del self._ports[room.room_id]
            self._spawn(port.close())
            if room.left_idle:
                # Give the lease back now rather than let it run out, so the next viewer's
                # node may serve the room at once. (A room stopped for a lost lease has
                # none to give; on shutdown ``close`` releases every lease in one pipeline.)
                self._spawn(self._release(room.room_id, room.fence))

    async def _release(self, room_id: str, fence: int) -> None:
        try:
            await self.leases.release_room(room_id, fence)
        except StorageUnavailable as error:
            log.warning("room %s: lease not released (it will expire): %s", room_id, error)
            return
        # Only now: until released, ``close`` still gives it back with the others.
        if room_id not in self._ports:
            self._held.discard(room_id)

    async def close(self) -> None:
        """Stop renewing, release every lease this node holds, close the bus."""
        self._closing = True
        if self._ticker is not None:
            self._ticker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._ticker
        for relay in list(self._relays.values()):
            relay.moved(CloseCode.GOING_AWAY, "server shutting down")
        try:
            await self.leases.release(sorted(self._held))
        except StorageUnavailable as error:
            log.warning("leases not released (they will expire): %s", error)
        await self.bus.close()
        for task in list(self._tasks):
            task.cancel()

    # --- the renewal tick ---------------------------------------------------------------

    async def _tick_forever(self) -> None:
        # Not ``while True``: the cancellation by ``close`` can be lost inside the Redis
        # client (seen right after a Redis restart: the node's shutdown then waited for its
        # whole budget), and the loop must end anyway.
        while not self._closing:
            try:
                await self.tick()
            except StorageUnavailable as error:
                log.warning("lease renewal: %s", error)
            except Exception:
                log.exception("lease renewal failed")
            await asyncio.sleep(self._settings.lease_renew_s)

    async def tick(self) -> None:
        owned = [(room_id, port.room.fence) for room_id, port in self._ports.items()
                 if not port.room.stopped]
        relayed = [room_id for room_id, relay in self._relays.items() if not relay.stopped]
        nodes = sorted({node for port in self._ports.values() for node in port.nodes()})
        report = await self.leases.tick(owned, relayed, nodes)
        for room_id in report.lost:
            port = self._ports.get(room_id)
            if port is not None:
                log.warning("room %s: lease lost; stopping it", room_id)
                port.room.stop(CloseCode.ROOM_UNAVAILABLE, "room moved; reconnect")
        for room_id, holder in report.holders.items():
            relay = self._relays.get(room_id)
            if relay is None or relay.stopped:
                continue
            if holder is None and relay.has_viewers():
                self._spawn(self._take_over(relay))
            elif holder is not None and holder != relay.owner:
                relay.moved(CloseCode.ROOM_UNAVAILABLE, "room moved; reconnect")
        for node in report.dead_nodes:
            log.warning("node %s stopped renewing; its viewers leave", node)
            for port in self._ports.values():
                port.node_died(node)

    async def _take_over(self, relay: RelayRoom) -> None:
        room_id = relay.room_id
        if room_id in self._taking_over or self.open_rooms is None:
            return
        self._taking_over.add(room_id)
        try:
            relay.stopped = True  # new opens claim instead of reusing this relay
            self._relays.pop(room_id, None)
            try:
                door = await self.open_rooms(room_id)
            except StorageUnavailable as error:
                log.warning("room %s: takeover failed: %s", room_id, error)
                door = None
            log.info("room %s: owner %s gone; %s", room_id, relay.owner,
                     "taken over" if isinstance(door, Room) else f"now {door}")
            # Its viewers reconnect (and resume) to whichever node they reach.
            relay.moved(CloseCode.ROOM_UNAVAILABLE, "room moved; reconnect")
            await relay.close()
        finally:
            self._taking_over.discard(room_id)

    # --- helpers ------------------------------------------------------------------------

    def _outlet(self, room_id: str) -> RoomOutlet | None:
        port = self._ports.get(room_id)
        return None if port is None else port.outlet

    def _relay_empty(self, relay: RelayRoom) -> None:
        if self._relays.get(relay.room_id) is relay:
            relay.stopped = True
            del self._relays[relay.room_id]
            self._spawn(relay.close())

    def _bus_reset(self) -> None:
        for relay in list(self._relays.values()):
            relay.moved(CloseCode.ROOM_UNAVAILABLE, "room bus reset; reconnect")
        for port in self._ports.values():
            port.reset()

    def _spawn(self, coroutine: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
