"""The store contract's fixture: each room store the room layer may run on. The Redis
fixtures themselves are the root conftest's (tests/conftest.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from server.store import MemoryRoomStore
from server.store.interface import RoomStore
from server.store.redis_store import RedisRoomStore
from testkit.redis_process import RedisProcess


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
