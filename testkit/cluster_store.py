"""A room store on a test Redis Cluster (``testkit.redis_cluster``), closed on leaving: the
one way tests open a ``ClusterRoomStore``, whatever they ask it to wait for."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from server.store.cluster_store import ClusterRoomStore
from testkit.redis_cluster import RedisClusterProcesses


@asynccontextmanager
async def store_on(cluster: RedisClusterProcesses, **options: Any
                   ) -> AsyncIterator[ClusterRoomStore]:
    """A store on ``cluster`` (``options``: ``ClusterRoomStore.from_url``'s, e.g.
    ``wait_replicas``, ``wait_ms``), closed on leaving."""
    store = ClusterRoomStore.from_url(cluster.url, **options)
    try:
        yield store
    finally:
        await store.close()
