"""Multi-process tests: a store on the session's real redis-server (tests/conftest.py),
server processes (two of them reading a clock the test moves: ``clocked``)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import redis

from server.cluster.renewal import connect_sync
from server.store.cluster_store import ClusterRoomStore
from server.store.redis_store import RedisRoomStore
from testkit.cluster_store import store_on
from testkit.redis_cluster import RedisClusterProcesses
from testkit.redis_process import RedisProcess
from testkit.server_process import ServerProcess, two_nodes
from tests.cluster.clocked_node import Clock, ClockedNode, two_clocked_nodes
from tests.cluster.stand_ins import Expiries


@pytest.fixture
async def store(redis_server: RedisProcess) -> AsyncIterator[RedisRoomStore]:
    redis_store = RedisRoomStore.from_url(redis_server.url)
    try:
        yield redis_store
    finally:
        await redis_store.close()


@pytest.fixture
async def expiries(store: RedisRoomStore) -> AsyncIterator[Expiries]:
    """Redis's own notice of each key that expires on the session's Redis (``Expiries``)."""
    watch = Expiries(store.url)
    try:
        yield watch
    finally:
        watch.close()


@pytest.fixture
async def cluster_store(redis_cluster: RedisClusterProcesses) -> AsyncIterator[ClusterRoomStore]:
    """A store on the session's real Redis Cluster (tests/conftest.py, ``redis_cluster``)."""
    async with store_on(redis_cluster) as store:
        yield store


@pytest.fixture
def own_cluster(tmp_path: Path) -> Iterator[RedisClusterProcesses]:
    """A Redis Cluster of the test's own (three masters, a replica each; about 2 s to form),
    for a test that kills a master: the session's ``redis_cluster`` keeps its masters, and
    the test does not meet what earlier tests left there (slots moved, nodes killed and
    back; once a master killed there had its replica promoted without one of its slots in
    its own map, which then said ``cluster_state:fail`` for good)."""
    with RedisClusterProcesses(tmp_path / "cluster") as cluster:
        yield cluster


@pytest.fixture
async def own_cluster_store(own_cluster: RedisClusterProcesses
                            ) -> AsyncIterator[ClusterRoomStore]:
    """A store on ``own_cluster``."""
    async with store_on(own_cluster) as store:
        yield store


@pytest.fixture
def sync_client(store: RedisRoomStore) -> Iterator[redis.Redis]:
    """A blocking client of the session's Redis (what the node identity's thread uses)."""
    client = connect_sync(store.url, 5.0)
    try:
        yield client
    finally:
        client.close()


@pytest.fixture
async def nodes(redis_server: RedisProcess) -> AsyncIterator[tuple[ServerProcess, ServerProcess]]:
    """Two ``python -m server`` processes on the session's Redis."""
    async with two_nodes(redis_server.url, ServerProcess) as started:
        yield started


@pytest.fixture
async def clocked(redis_server: RedisProcess, tmp_path: Path) -> AsyncIterator[
        tuple[Clock, ClockedNode, ClockedNode]]:
    """Two nodes on ``redis_server`` whose rooms read the clock the test moves."""
    async with two_clocked_nodes(redis_server.url, tmp_path) as nodes:
        yield nodes
