"""Tournament tests: the tournament store of each kind, in memory and on the session's
redis-server (tests/conftest.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from server.store.redis_store import connect
from server.store.tournament_store import (
    MemoryTournamentStore,
    RedisTournamentStore,
    TournamentStore,
)
from testkit.redis_process import RedisProcess


@pytest.fixture(params=["memory", "redis"])
async def tournament_store(request: pytest.FixtureRequest) -> AsyncIterator[TournamentStore]:
    if request.param == "memory":
        yield MemoryTournamentStore()
        return
    server: RedisProcess = request.getfixturevalue("redis_server")
    client = connect(server.url)
    try:
        yield RedisTournamentStore(client)
    finally:
        await client.aclose()
