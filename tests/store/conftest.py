"""A real redis-server for the store tests, started once per session on a free port."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import redis.asyncio as aioredis

from server.store import MemoryRoomStore
from server.store.interface import RoomStore
from server.store.redis_store import RedisRoomStore
from testkit.redis_process import RedisProcess


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisProcess]:
    server = RedisProcess(Path(tmp_path_factory.mktemp("redis")))
    server.start()
    try:
        yield server
    finally:
        server.stop()


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
    store = RedisRoomStore.from_url(redis_server.url)
    try:
        yield store
    finally:
        await store.close()


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
