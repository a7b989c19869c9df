"""The store contract's fixture: each room store the room layer may run on; and a store on
the session's Redis Cluster that waits for one replica. The Redis fixtures themselves are the
root conftest's (tests/conftest.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from server.store import MemoryRoomStore
from server.store.cluster_store import ClusterRoomStore
from server.store.interface import RoomStore
from server.store.redis_store import RedisRoomStore
from testkit.cluster_store import store_on
from testkit.redis_cluster import RedisClusterProcesses
from testkit.redis_process import RedisProcess

CLUSTER_WAIT_MS = 1000
"""How long ``confirmed_store``'s appends and loads wait for their replica: what a test that
stops the replica waits before the refusal (a bound, not a timing)."""


@pytest.fixture(params=["memory", "redis"])
async def store(request: pytest.FixtureRequest) -> AsyncIterator[RoomStore]:
    """Each store the room layer may run on, for the tests of the store's contract."""
    if request.param == "memory":
        yield MemoryRoomStore()
        return
    server: RedisProcess = request.getfixturevalue("redis_server")
    redis_store = RedisRoomStore.from_url(server.url)
    try:
        yield redis_store
    finally:
        await redis_store.close()


@pytest.fixture
async def confirmed_store(redis_cluster: RedisClusterProcesses) -> AsyncIterator[ClusterRoomStore]:
    """A store on the session's Redis Cluster whose appends and loads are confirmed on one
    replica within ``CLUSTER_WAIT_MS``."""
    async with store_on(redis_cluster, wait_replicas=1, wait_ms=CLUSTER_WAIT_MS) as store:
        yield store
