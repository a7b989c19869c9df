"""Fixtures more than one folder uses: a real redis-server for the session, a client of it
from outside, a room store on it, a redis-server of a test's own to kill and start again;
and a real uvicorn server with the fake engine on a free port, in the test's event loop,
with an HTTP client of it (the lobby's and the health routes' tests).

Each folder's own conftest holds only what is local to it (the store contract's store of
each kind, the cluster's server processes, the tournaments' store, the deploy topology).
Helpers shared by several folders are plain modules: ``tests/helpers.py`` (test settings,
making a room in the lobby) and ``tests/doubles/`` (the fake engine, clock and member).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
import redis.asyncio as aioredis

from server.store.redis_store import RedisRoomStore
from testkit.redis_cluster import RedisClusterProcesses
from testkit.redis_process import RedisProcess
from testkit.serving import running_server
from tests.doubles.fake_engine import FakeEngine
from tests.helpers import settings

SETTLE_S = 10.0
"""How long the session's cluster, left by a test, may take to be whole again before it is
made anew."""


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisProcess]:
    """One redis-server for the session, on a free port. Tests share it: each keeps to its
    own rooms and keys."""
    server = RedisProcess(Path(tmp_path_factory.mktemp("redis")))
    server.start()
    try:
        yield server
    finally:
        server.stop()


class _SessionCluster:
    """The session's Redis Cluster, made when a test first asks for it, and made again when
    a test left it broken (a node that did not rejoin in time): that test fails, the ones
    after it get a whole cluster instead of failing with it."""

    def __init__(self, tmp_path_factory: pytest.TempPathFactory) -> None:
        self._tmp = tmp_path_factory
        self._cluster: RedisClusterProcesses | None = None

    def whole_one(self) -> RedisClusterProcesses:
        cluster = self._cluster
        if cluster is not None and not self._whole(cluster):
            cluster.stop()
            cluster = None
        if cluster is None:
            cluster = RedisClusterProcesses(Path(self._tmp.mktemp("redis-cluster")))
            self._cluster = cluster.__enter__()
        return cluster

    @staticmethod
    def _whole(cluster: RedisClusterProcesses) -> bool:
        """Every node running and the cluster whole (its nodes' views of the slots may take
        a moment to agree after a test moved some: they are given it); a node that does not
        answer: not."""
        if len(cluster.alive_ports()) != len(cluster.nodes):
            return False
        try:
            cluster.wait_until(cluster.whole, "the cluster whole", within_s=SETTLE_S)
        except TimeoutError:
            return False
        return True

    def stop(self) -> None:
        if self._cluster is not None:
            self._cluster.stop()


@pytest.fixture(scope="session")
def _session_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[_SessionCluster]:
    holder = _SessionCluster(tmp_path_factory)
    try:
        yield holder
    finally:
        holder.stop()


@pytest.fixture
def redis_cluster(_session_cluster: _SessionCluster) -> RedisClusterProcesses:
    """The session's local Redis Cluster (three masters, three replicas; about 2 s to
    form), whole. A test that kills a node starts it again before it ends (``restart``)."""
    return _session_cluster.whole_one()


@pytest.fixture
async def admin(redis_server: RedisProcess) -> AsyncIterator[aioredis.Redis]:
    """A plain client of the session's Redis, to look at it or act on it from outside."""
    client = aioredis.Redis.from_url(redis_server.url)
    try:
        yield client
    finally:
        await client.aclose()


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[RedisProcess]:
    """A redis-server of the test's own, to kill and start again (same port and data)."""
    server = RedisProcess(tmp_path / "redis")
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
async def redis_store(redis_server: RedisProcess) -> AsyncIterator[RedisRoomStore]:
    """The room store on the session's Redis."""
    store = RedisRoomStore.from_url(redis_server.url)
    try:
        yield store
    finally:
        await store.close()


@pytest.fixture
def fake_engine() -> FakeEngine:
    return FakeEngine()


@pytest.fixture
async def fake_server(fake_engine: FakeEngine) -> AsyncIterator[str]:
    async with running_server(settings(), fake_engine) as url:
        yield url


@pytest.fixture
async def http(fake_server: str) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=fake_server) as client:
        yield client
