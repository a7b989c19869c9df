"""The loopback topology (redis-server, two nodes, nginx) for the deploy tests, started by
``loopback run`` and always stopped by closing its stdin (see tests/deploy/loopback.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from server.store.redis_store import RedisRoomStore
from tests.deploy.loopback import Topology, running


@pytest.fixture(scope="module")
def shared_topology(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Topology]:
    """One topology for the tests of a module that leave it as they found it."""
    with running(tmp_path_factory.mktemp("loopback")) as topology:
        yield topology


@pytest.fixture
def own_topology(tmp_path: Path) -> Iterator[Topology]:
    """A topology for one test that stops, kills or restarts parts of it."""
    with running(tmp_path / "loopback") as topology:
        yield topology


async def store_of(topology: Topology) -> AsyncIterator[RedisRoomStore]:
    store = RedisRoomStore.from_url(topology.redis_url)
    try:
        yield store
    finally:
        await store.close()


@pytest.fixture
async def shared_store(shared_topology: Topology) -> AsyncIterator[RedisRoomStore]:
    async for store in store_of(shared_topology):
        yield store


@pytest.fixture
async def own_store(own_topology: Topology) -> AsyncIterator[RedisRoomStore]:
    async for store in store_of(own_topology):
        yield store
