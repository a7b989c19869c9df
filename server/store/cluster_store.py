"""The RoomStore on a Redis Cluster (``REFEREE_REDIS_CLUSTER=1``).

The same keys and scripts as on one Redis (``server.store.redis_store``): every key of a
room carries the room's ``{room:<id>}`` hash tag, so each script (create, claim, append,
deadlines, listing, load, caster links, and the lease scripts of ``server.cluster.lease``)
touches one slot, on one master, atomically. The rooms spread over the masters by the hash
of their id.

What differs:

- the client is redis-py's asyncio ``RedisCluster`` (``REDIS_URL`` names any node; it reads
  the slot map from it and follows ``MOVED``); a pipeline of calls on several rooms
  (``load_rooms``, the claims and deadline writes of one loop turn, the lobby's listing
  reads) is split by master, one round trip per master, in parallel;
- the appends and a room's creation go to the master of the room's slot on a pipelined
  connection of their own and are answered only once ``wait_replicas`` replicas have them
  (``WAIT``; ``server.store.cluster_appends``);
- a room's load (``load_room``, ``load_rooms``: the registry opening rooms after a restart,
  a takeover, a ``STALE version``) is answered only once ``wait_replicas`` replicas have
  what it read: the reads of each master are followed, in the same pipeline on the same
  connection, by a write of their own and ``WAIT`` (``ClusterAppendBatches.confirmed_calls``).
  An append refused "try again" may have landed on the master; without this, the room
  loaded from it would answer that command, sent again under its id, ``accepted`` from its
  stored answer while no replica had it. Not confirmed in time: the load raises
  ``NotReplicated`` (a ``StorageUnavailable``: the seat is told "try again"); rooms not
  read (``MOVED``, a dead master) are read again once the slot map is read again
  (``LOAD_ATTEMPTS``); in a batch, the rooms of the other masters are served
  (``SomeRoomsUnavailable``). With ``wait_replicas`` 0 (and no ``aof``) loads read as on
  one Redis. ``load_meta`` is not confirmed: a room's meta never changes after its
  creation, which was confirmed before the room's id was handed out (``_create``);
- the lobby index ``{lobby}:public`` is one key, so one slot on one master: every public
  room's listing change writes it (docs/deploy.md, "Redis Cluster", lists this and the
  other single-slot keys with their limits).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from redis.asyncio.cluster import RedisCluster

from server.store.cluster_appends import ClusterAppendBatches
from server.store.interface import SomeRoomsUnavailable, StorageUnavailable, StoredRoom
from server.store.redis_errors import storage_call
from server.store.redis_scripts import APPEND, CREATE, LOAD, VERSION
from server.store.redis_store import (
    HEALTH_CHECK_S,
    MAX_CONNECTIONS,
    PUBLIC_KEY,
    RedisRoomStore,
    room_keys,
    state_key,
    stored_room,
)

LOAD_ATTEMPTS = 3
"""Reads of a room at most, the slot map read again between them (redis-py's cluster client
tries a command three times, following ``MOVED`` or a dead node's replacement)."""


def connect_cluster(url: str) -> RedisCluster:
    """The cluster client: ``url`` names any node (``redis://`` or ``rediss://``, with the
    password and TLS options of a plain URL; no database number, no unix socket)."""
    return RedisCluster.from_url(url, max_connections=MAX_CONNECTIONS,
                                 socket_connect_timeout=2.0, socket_timeout=5.0,
                                 health_check_interval=HEALTH_CHECK_S)


class ClusterRoomStore(RedisRoomStore):
    cluster = True

    def __init__(self, client: RedisCluster, url: str = "", *, wait_replicas: int = 1,
                 wait_ms: int = 1000, aof: bool = False) -> None:
        self.appends = ClusterAppendBatches(client, APPEND, PUBLIC_KEY, aof=aof,
                                            wait_replicas=wait_replicas, wait_ms=wait_ms)
        # (RedisCluster offers the commands the store sends on redis.asyncio.Redis.)
        super().__init__(client, url, self.appends)  # type: ignore[arg-type]
        self.cluster_client = client

    @classmethod
    def from_url(cls, url: str, *, wait_replicas: int = 1, wait_ms: int = 1000,
                 aof: bool = False) -> ClusterRoomStore:
        return cls(connect_cluster(url), url, wait_replicas=wait_replicas, wait_ms=wait_ms,
                   aof=aof)

    async def _create(self, keys: list[str], args: list[Any]) -> None:
        await self.appends.durable_call(CREATE, keys, args)

    async def load_room(self, room_id: str) -> StoredRoom | None:
        if not self.appends.waits:
            return await super().load_room(room_id)
        (stored,) = await self._confirmed_loads("load_room", [room_id])
        return stored

    async def load_rooms(self, room_ids: Sequence[str]) -> list[StoredRoom | None]:
        if not self.appends.waits or not room_ids:
            return await super().load_rooms(room_ids)
        return await self._confirmed_loads("load_rooms", room_ids)

    async def loaded_version(self, room_id: str) -> int | None:
        if not self.appends.waits:
            return await super().loaded_version(room_id)
        async with storage_call("loaded_version"):
            (outcome,) = await self.appends.confirmed_calls(VERSION, [([state_key(room_id)], ())])
        if isinstance(outcome, Exception):
            raise outcome
        return None if outcome is None else int(outcome)

    async def _confirmed_loads(self, call: str,
                               room_ids: Sequence[str]) -> list[StoredRoom | None]:
        """The rooms as stored, each confirmed on ``wait_replicas`` replicas of its master
        (one pipeline per master). A room not confirmed (``NotReplicated``), or not read
        (``StorageUnavailable``): that error when it is the only room, else
        ``SomeRoomsUnavailable`` with every room's outcome (the rooms of the other masters
        are served; ``server.rooms.room_loads``)."""
        outcomes: list[Any] = [None] * len(room_ids)
        todo = list(range(len(room_ids)))
        for attempt in range(1, LOAD_ATTEMPTS + 1):
            async with storage_call(call):
                read = await self.appends.confirmed_calls(
                    LOAD, [(room_keys(room_ids[index]), ()) for index in todo])
            for index, outcome in zip(todo, read, strict=True):
                outcomes[index] = outcome
            # Not read (the slot map out of date: MOVED, a dead master): read the map again
            # and those rooms again, as redis-py's cluster client does. Not confirmed
            # (NotReplicated): no retry, it waited its time already.
            todo = [index for index in todo if type(outcomes[index]) is StorageUnavailable]
            if not todo or attempt == LOAD_ATTEMPTS:
                break
            await self.appends.router.refresh()
        failed = [outcome for outcome in outcomes if isinstance(outcome, Exception)]
        if not failed:
            return [stored_room(outcome) for outcome in outcomes]
        if len(outcomes) == 1 or any(not isinstance(error, StorageUnavailable)
                                     for error in failed):
            raise failed[0]  # (a script error: the whole call fails as it would on one Redis)
        raise SomeRoomsUnavailable(
            f"{call}: {len(failed)} of {len(outcomes)} rooms: {failed[0]}",
            [outcome if isinstance(outcome, StorageUnavailable) else stored_room(outcome)
             for outcome in outcomes])
