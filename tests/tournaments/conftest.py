"""Tournament tests: a real redis-server (the store tests' fixture) beside the memory store."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from server.store.redis_store import connect
from server.store.tournament_store import (
    MemoryTournamentStore,
    RedisTournamentStore,
    TournamentStore,
)
from tests.store.redis_process import RedisProcess


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisProcess]:
    server = RedisProcess(Path(tmp_path_factory.mktemp("redis")))
    server.start()
    try:
        yield server
    finally:
        server.stop()


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
