"""Multi-process tests: the store tests' real redis-server, a store on it, server processes."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from server.store.redis_store import RedisRoomStore
from tests.store.conftest import redis_server
from tests.store.redis_process import RedisProcess

__all__ = ["redis_server", "store"]


@pytest.fixture
async def store(redis_server: RedisProcess) -> AsyncIterator[RedisRoomStore]:
    redis_store = RedisRoomStore.from_url(redis_server.url)
    try:
        yield redis_store
    finally:
        await redis_store.close()
