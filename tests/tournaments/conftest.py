"""Tournament tests: a real redis-server and a room store on it (the store tests' fixtures)
beside the memory store."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest
from starlette.applications import Starlette

from server.config import Settings
from server.store.redis_store import connect
from server.store.tournament_store import (
    MemoryTournamentStore,
    RedisTournamentStore,
    TournamentStore,
)
from testkit.redis_process import RedisProcess
from testkit.serving import running_server
from tests.store.conftest import admin, redis_server, redis_store

__all__ = ["admin", "redis_server", "redis_store"]


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


def serving(app: Starlette, app_settings: Settings) -> contextlib.AbstractAsyncContextManager[str]:
    """The app on 127.0.0.1:<free port> in the test's loop (tests/server's running_server)."""
    return running_server(app_settings, app=app)


def app_settings(**overrides: Any) -> Settings:
    """Test settings; every test's organizer and players are at 127.0.0.1, so the limits
    per address (registrations, tournaments, rooms) are off unless a test sets them
    (test_registration_limits.py, test_round_limits.py)."""
    return Settings(**{"freeze_gc": False, "grace_s": 30.0, "static_dir": None,
                       "rate_burst": 10_000, "client_registration_burst": 0,
                       "registrations_per_address": 0, "client_tournament_burst": 0,
                       "client_room_burst": 0, **overrides})
