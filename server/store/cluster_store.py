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
- the lobby index ``{lobby}:public`` is one key, so one slot on one master: every public
  room's listing change writes it (docs/deploy.md, "Redis Cluster", lists this and the
  other single-slot keys with their limits).
"""

from __future__ import annotations

from typing import Any

from redis.asyncio.cluster import RedisCluster

from server.store.cluster_appends import ClusterAppendBatches
from server.store.redis_scripts import APPEND, CREATE
from server.store.redis_store import (
    HEALTH_CHECK_S,
    MAX_CONNECTIONS,
    PUBLIC_KEY,
    RedisRoomStore,
)


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
