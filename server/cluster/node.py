"""``ClusterNode``: this node's part in serving rooms together with other nodes.

It implements the registry's ``Ownership``: a claim is a lease (``RedisLeases.acquire``);
a room leased to another node is served here through a ``RelayRoom``. A thread of its own
(``RenewalThread``, so that a busy event loop does not starve it) renews, once per
``lease_renew_s``, in ONE Redis round trip: the leases of every room this node owns, its
own liveness key and its room index's time to live, the lease holders of the rooms it
relays and the liveness of the nodes its owned rooms have relayed viewers on. Then, back
on the event loop:

- an owned room whose lease is lost stops at once (its sockets close with 4011; its
  clients reconnect, the new owner serves them). Its writes are refused by the fence anyway.
- a relayed room whose lease is free (its owner died) is taken over here when this node
  has viewers of it, at most ``takeover_concurrency`` at a time (``Takeovers``): claim (new
  fence), load, start; the relay's viewers reconnect (4011). A takeover that fails (Redis)
  keeps the relay and its viewers; the next round that sees the lease free tries again.
  A relayed room whose holder changed sends its viewers to reconnect too.
- relayed viewers of a node that stopped renewing its liveness leave their rooms (seat
  presence ``away``, spectator counts) as if they had disconnected.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

import redis
import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster as AsyncRedisCluster
from redis.cluster import RedisCluster

from protocol.constants import CloseCode
from server.cluster.bus import Bus, BusUnavailable, RoomBus
from server.cluster.cluster_renewal import ClusterLeaseRenewal
from server.cluster.fanout import ClusterFanout
from server.cluster.lease import RedisLeases, TickReport
from server.cluster.owner import OwnerPort, RoomOutlet
from server.cluster.relay import RelayRoom
from server.cluster.renewal import LeaseRenewal
from server.cluster.renewer import RenewalThread, Watched
from server.cluster.room_index import RoomIndex
from server.cluster.sharded_bus import ShardedRoomBus
from server.cluster.takeover import Takeovers
from server.cluster.wire import in_channel, out_channel
from server.config import Settings
from server.metrics import (
    LEASE_CLAIMED,
    LEASE_HELD_ELSEWHERE,
    LEASE_LOSSES,
    LEASE_NO_ROOM,
    RELAYS,
    RELAYS_OPENED,
    TAKEN_OVER,
    TAKEOVER_FAILED,
    TAKEOVER_OTHER,
)
from server.rooms.door import RoomDoor
from server.rooms.ownership import Claim, Claimed
from server.rooms.room import Room
from server.store import RoomMeta, StorageUnavailable

log = logging.getLogger(__name__)


class ClusterNode:
    def __init__(self, client: aioredis.Redis | AsyncRedisCluster, node_id: str,
                 settings: Settings, renewal_client: redis.Redis | RedisCluster,
                 instance: str | None = None) -> None:
        """``client`` serves the event loop; ``renewal_client`` (synchronous, a connection
        of its own: ``renewal.connect_sync``) serves the renewal thread only. ``instance``:
        this process's token in the node id's instance lock (``identity.establish``),
        renewed with the leases and released on close. Both clients of a Redis Cluster
        (``cluster_renewal.connect_sync_cluster``): the renewal round split by master, the
        room bus on sharded pub/sub."""
        if settings.lease_loop_stall_s < settings.lease_renew_s:
            raise ValueError("lease_loop_stall_s must be at least lease_renew_s (the loop's "
                             "heartbeat comes every lease_renew_s / 2)")
        if settings.takeover_concurrency < 1:
            raise ValueError("takeover_concurrency must be at least 1")
        if settings.room_index_ttl_s <= settings.lease_renew_s:
            raise ValueError("room_index_ttl_s must be above lease_renew_s (each renewal "
                             "round gives the room index its time to live again)")
        self._node_id = node_id
        self._settings = settings
        lease_ms = int(settings.lease_s * 1000)
        index_ttl_ms = int(settings.room_index_ttl_s * 1000)
        self.leases = RedisLeases(client, node_id, lease_ms,  # type: ignore[arg-type]
                                  instance)
        renewal: LeaseRenewal
        self.bus: Bus
        if isinstance(client, AsyncRedisCluster):
            assert isinstance(renewal_client, RedisCluster)
            renewal = ClusterLeaseRenewal(renewal_client, node_id, lease_ms, instance,
                                          index_ttl_ms)
            self.bus = ShardedRoomBus(client, node_id, self._bus_reset)
        else:
            assert isinstance(renewal_client, redis.Redis)
            renewal = LeaseRenewal(renewal_client, node_id, lease_ms, instance, index_ttl_ms)
            self.bus = RoomBus(client, node_id, self._bus_reset)
        self.renewer = RenewalThread(
            renewal, settings.lease_renew_s, settings.lease_loop_stall_s, self._watched,
            self._apply, self._released)
        self.fanout = ClusterFanout(self._outlet)
        self._ports: dict[str, OwnerPort] = {}
        self._relays: dict[str, RelayRoom] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self.takeovers = Takeovers(settings.takeover_concurrency, self._take_over, self._spawn)
        self._closing = False
        self._instance = instance
        self._held: dict[str, int] = {}  # room -> fence of the lease taken (released on close)
        self.open_rooms: Callable[[str], Awaitable[RoomDoor | None]] | None = None
        """The registry's ``open``, for takeovers (set by ``create_app``)."""
        self.displaced = False
        """Another process took this node's id (``lease.NodeInstance``): no more rooms here."""
        self.room_index = RoomIndex(client, node_id, index_ttl_ms)
        """The rooms served here, for a warm restart under this id (``room_index``)."""

    @property
    def node_id(self) -> str:
        return self._node_id

    def identity_problem(self) -> str | None:
        """For ``/readyz``: why this node must not be sent players, as far as its id goes."""
        if self.displaced:
            return (f"node id {self._node_id} is held by another process now; this one "
                    "serves no room (restart it)")
        return None

    def lease_problem(self) -> str | None:
        """For ``/readyz``: the lease renewal's last round failed, so this node's leases
        are not being renewed (an expired one is re-taken by the first round that goes
        through, under the room's unchanged fence). Until then another node's viewer could
        find a room of this node free and take it over, so players go elsewhere."""
        since = self.renewer.failing_since
        if since is None:
            return None
        return (f"lease renewal failing for {time.monotonic() - since:.1f} s: this node's "
                "room leases are not renewed")

    async def start(self) -> None:
        # Before the first renewal round stamps over it: a previous process of this node
        # id's last stamp, from which the rooms it ran are given back their time.
        await self.leases.read_predecessor()
        await self.bus.start()
        self.renewer.start()

    # --- Ownership ----------------------------------------------------------------------

    async def claim(self, room_id: str) -> Claim | None:
        if self.displaced:
            raise StorageUnavailable(f"node id {self._node_id} is held by another process")
        claim = await self.leases.acquire(room_id)
        (LEASE_NO_ROOM if claim is None
         else LEASE_CLAIMED if isinstance(claim, Claimed) else LEASE_HELD_ELSEWHERE).inc()
        return claim

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
        RELAYS.inc()  # (referee_relays follows self._relays)
        try:
            await relay.open()
        except BusUnavailable as error:
            self._relays.pop(meta.room_id, None)
            RELAYS.dec()
            raise StorageUnavailable(str(error)) from error
        RELAYS_OPENED.inc()
        return relay

    async def serve(self, room: Room) -> None:
        port = OwnerPort(self.bus, room)
        self._ports[room.room_id] = port
        self._held[room.room_id] = room.fence
        self.renewer.own(room.room_id, room.fence)
        self.room_index.add(room.room_id)
        try:
            await port.open()
        except BusUnavailable as error:
            log.warning("room %s: relays cannot reach it yet: %s", room.room_id, error)

    def forget(self, room: Room) -> None:
        port = self._ports.get(room.room_id)
        if port is not None and port.room is room:
            del self._ports[room.room_id]
            self._spawn(port.close())
            # An idle room gives its lease back now rather than let it run out, so the next
            # viewer's node may serve the room at once; the renewal thread sends the release
            # after any renewal of it. (A room stopped for a lost lease has none to give; on
            # shutdown ``close`` releases every lease in one pipeline.)
            self.renewer.disown(room.room_id, room.fence, release=room.left_idle)
            self.room_index.remove(room.room_id)

    def unindex(self, room_ids: list[str]) -> None:
        """The warm-up found these rooms gone or held by another node: out of the index,
        unless one is served here again by now."""
        for room_id in room_ids:
            if room_id not in self._ports:
                self.room_index.remove(room_id)

    def _released(self, room_ids: list[str]) -> None:
        # Only now: until released, ``close`` still gives them back with the others.
        for room_id in room_ids:
            if room_id not in self._ports:
                self._held.pop(room_id, None)

    async def close(self) -> None:
        """Stop renewing, release every lease this node holds (under its fence) and its
        node id, close the bus."""
        self._closing = True
        await self.renewer.stop()  # first: a renewal after the release would re-take
        for relay in list(self._relays.values()):
            relay.moved(CloseCode.GOING_AWAY, "server shutting down")
        try:
            await self.leases.release_held(
                sorted(self._held.items()), self._instance,
                None if self.displaced else self.renewer.room_clock())
        except StorageUnavailable as error:
            log.warning("leases not released (they will expire): %s", error)
        if not self.displaced:  # (else the index is the new process's)
            await self.room_index.clear()
        await self.bus.close()
        for task in list(self._tasks):
            task.cancel()

    # --- what the renewal thread reads and learns (on the event loop) -------------------

    def _watched(self) -> Watched:
        relayed = [room_id for room_id, relay in self._relays.items() if not relay.stopped]
        nodes = sorted({node for port in self._ports.values() for node in port.nodes()})
        return relayed, nodes

    def _apply(self, report: TickReport) -> None:
        if report.displaced and not self.displaced:
            self._displaced()
        for room_id, fence in report.lost_leases:
            port = self._ports.get(room_id)
            # Under that fence only: the room may have been claimed again here since.
            if port is not None and not port.room.stopped and port.room.fence == fence:
                log.warning("room %s: lease lost; stopping it", room_id)
                LEASE_LOSSES.inc()
                self.renewer.disown(room_id, port.room.fence, release=False)
                port.room.stop(CloseCode.ROOM_UNAVAILABLE, "room moved; reconnect")
        for room_id, holder in report.holders.items():
            relay = self._relays.get(room_id)
            if relay is None or relay.stopped:
                continue
            if holder is None and relay.has_viewers():
                self.takeovers.request(room_id)
            elif holder is not None and holder != relay.owner:
                relay.moved(CloseCode.ROOM_UNAVAILABLE, "room moved; reconnect")
        for node in report.dead_nodes:
            log.warning("node %s stopped renewing; its viewers leave", node)
            for port in self._ports.values():
                port.node_died(node)

    def _displaced(self) -> None:
        """Another process runs under this node id (this one's loop stalled past its lease
        and a new process took the id): serve nothing more; ``/readyz`` says why."""
        self.displaced = True
        self.room_index.stop()
        log.error("node id %s is held by another process now: stopping every room here; "
                  "restart this node", self._node_id)
        for port in list(self._ports.values()):
            if not port.room.stopped:
                self.renewer.disown(port.room.room_id, port.room.fence, release=False)
                port.room.stop(CloseCode.ROOM_UNAVAILABLE, "room moved; reconnect")
        for relay in list(self._relays.values()):
            relay.moved(CloseCode.ROOM_UNAVAILABLE, "room moved; reconnect")

    async def _take_over(self, room_id: str) -> None:
        """Run by ``Takeovers`` once a slot is free."""
        relay = self._relays.get(room_id)
        if (relay is None or relay.stopped or not relay.has_viewers() or self._closing
                or self.open_rooms is None):
            return  # it changed while waiting for the slot
        relay.stopped = True  # new opens claim instead of reusing this relay
        del self._relays[room_id]
        RELAYS.dec()
        try:
            door = await self.open_rooms(room_id)
        except StorageUnavailable as error:
            log.warning("room %s: takeover failed: %s", room_id, error)
            TAKEOVER_FAILED.inc()
            if self._keep_relay(relay):
                return
            door = None
        else:
            (TAKEN_OVER if isinstance(door, Room) else TAKEOVER_OTHER).inc()
        log.info("room %s: owner %s gone; %s", room_id, relay.owner,
                 "taken over" if isinstance(door, Room) else f"now {door}")
        # Its viewers reconnect (and resume) to whichever node they reach.
        relay.moved(CloseCode.ROOM_UNAVAILABLE, "room moved; reconnect")
        await relay.close()

    def _keep_relay(self, relay: RelayRoom) -> bool:
        """After a failed takeover: the relay (and its viewers) stay, and the next renewal
        round that finds the lease still free asks again. Not if something else opened the
        room here meanwhile, or nobody is left to serve."""
        room_id = relay.room_id
        if (room_id in self._relays or room_id in self._ports or self._closing
                or not relay.has_viewers()):
            return False
        relay.stopped = False
        self._relays[room_id] = relay
        RELAYS.inc()
        return True

    # --- helpers ------------------------------------------------------------------------

    def _outlet(self, room_id: str) -> RoomOutlet | None:
        """The room's outlet while another node relays it (``ClusterFanout``)."""
        port = self._ports.get(room_id)
        return None if port is None or not port.relaying() else port.outlet

    def _relay_empty(self, relay: RelayRoom) -> None:
        if self._relays.get(relay.room_id) is relay:
            relay.stopped = True
            del self._relays[relay.room_id]
            RELAYS.dec()
            self._spawn(relay.close())

    def _bus_reset(self, lost: frozenset[str] | None = None) -> None:
        """The bus lost subscriptions: ``lost`` channels (on a cluster: those of the masters
        whose connection dropped), or every one (None: one Redis)."""
        for room_id, relay in list(self._relays.items()):
            if lost is None or out_channel(room_id) in lost:
                relay.moved(CloseCode.ROOM_UNAVAILABLE, "room bus reset; reconnect")
        for room_id, port in self._ports.items():
            if lost is None or in_channel(room_id) in lost:
                port.reset()

    def _spawn(self, coroutine: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
