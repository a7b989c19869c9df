"""On a Redis Cluster: which master serves a key, and one pipelined connection per master.

The store's hot writes (a room's appends, ``server.store.cluster_appends``) and the room
bus (``server.cluster.sharded_bus``) do not go through redis-py's command path (see
``server.store.append_channel`` for why); on a cluster they need to know which master
serves the slot of a key (the ``{room:<id>}`` hash tag: every key of one room, and its bus
channel, hash to the same slot). redis-py's ``RedisCluster`` keeps that map (``CLUSTER
SLOTS``, refreshed when it meets ``MOVED`` or a dead node); ``ClusterRouter`` reads it and
keeps an ``AppendChannel`` per master, opened with the node's own connection settings (the
URL's password, TLS, timeouts, client name).

After a failure (a connection lost, ``MOVED``, ``CLUSTERDOWN``) ``refresh`` reads the map
again (one refresh at a time; callers meanwhile share it): after a master's ``kill -9`` its
slots name the dead node until its replica is promoted (about ``cluster-node-timeout`` plus
an election), and the writes meanwhile are answered "try again".
"""

from __future__ import annotations

import asyncio
import logging

from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.cluster import PRIMARY
from redis.exceptions import (
    AskError,
    ClusterDownError,
    ReadOnlyError,
    RedisClusterException,
    RedisError,
    TryAgainError,
)
from redis.exceptions import ConnectionError as RedisConnectionError

from server.store.append_channel import AppendChannel

log = logging.getLogger(__name__)

MOVED_CODES = ("MOVED", "ASK", "CLUSTERDOWN", "TRYAGAIN", "READONLY")
"""Error replies that mean "the slot is not served here now": read the map again."""


def slot_moved(error: Exception) -> bool:
    # Read from the wire by our own parsers, the reply keeps its code ("MOVED 12 host:port");
    # read by redis-py's, it is a class of its own and the message lacks the code.
    return (isinstance(error, (AskError, TryAgainError, ClusterDownError, ReadOnlyError))
            or str(error).split(" ", 1)[0] in MOVED_CODES)


MIGRATING_CODES = ("ASK", "TRYAGAIN")
"""Error replies of a slot being moved (``MIGRATING``/``IMPORTING``): the slot map still names
its old master until the move is done, so reading it again tells nothing new."""


def slot_migrating(error: Exception) -> bool:
    return str(error).split(" ", 1)[0] in MIGRATING_CODES


def asked_to(error: Exception) -> str | None:
    """The ``host:port`` an ``ASK <slot> <host:port>`` reply sends the command to (else
    None)."""
    words = str(error).split(" ")
    return words[2] if len(words) == 3 and words[0] == "ASK" else None


class ClusterRouter:
    def __init__(self, client: RedisCluster) -> None:
        self.client = client
        self._channels: dict[str, AppendChannel] = {}
        self._refreshing: asyncio.Future[None] | None = None

    async def ready(self) -> None:
        """Read the slot map once (the client's first command would). No node answering
        (redis-py's ``RedisClusterException``, which is not a ``RedisError``) is a
        ``ConnectionError``, as any other unreachable Redis is to the callers."""
        if not self.client.nodes_manager.slots_cache:
            try:
                await self.client.initialize()
            except RedisClusterException as error:
                raise RedisConnectionError(str(error)) from error

    def node_for(self, key: str) -> ClusterNode:
        """The master that serves ``key``'s slot, as the map last read says."""
        manager = self.client.nodes_manager
        return manager.get_node_from_slot(self.client.keyslot(key))

    def node_at(self, address: str) -> ClusterNode:
        """The master at ``host:port`` (an ``ASK``'s target): the map's node when the map
        names it, else a node with the same connection settings (a master added to scale
        out serves no slot before its first one is moved to it: ``CLUSTER SLOTS`` does not
        list it). The map is not changed: an ``ASK`` is for one command."""
        host, port = address.rsplit(":", 1)
        manager = self.client.nodes_manager
        node = manager.get_node(host, int(port))
        if node is None:
            node = ClusterNode(host, int(port), PRIMARY, **manager.connection_kwargs)
        return node

    def channel(self, node: ClusterNode) -> AppendChannel:
        """The pipelined connection to ``node`` (opened by its ``connect``)."""
        channel = self._channels.get(node.name)
        if channel is None:
            # A ClusterNode carries its connection class and settings as a pool does.
            channel = self._channels[node.name] = AppendChannel(node)  # type: ignore[arg-type]
        return channel

    async def refresh(self) -> None:
        """Read the slot map again (one read at a time; a failed read is logged: the next
        failure asks again)."""
        if self._refreshing is None or self._refreshing.done():
            self._refreshing = asyncio.ensure_future(self._refresh())
        await asyncio.shield(self._refreshing)

    def refresh_soon(self) -> None:
        if self._refreshing is None or self._refreshing.done():
            self._refreshing = asyncio.ensure_future(self._refresh())

    async def _refresh(self) -> None:
        try:
            await self.client.nodes_manager.initialize()
        except (RedisError, OSError, RedisClusterException) as error:
            log.warning("Redis Cluster: could not read the slot map again: %s", error)
            return
        serving = {node.name for node in self.client.get_primaries()}
        for name in [name for name in self._channels if name not in serving]:
            await self._channels.pop(name).close()  # a master that is gone or demoted

    async def close(self) -> None:
        channels, self._channels = list(self._channels.values()), {}
        for channel in channels:
            await channel.close()
