"""Tournament tests: a real redis-server and a room store on it (the store tests' fixtures)
beside the memory store."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator
from typing import Any

import pytest
import uvicorn
from starlette.applications import Starlette

from server.config import Settings
from server.store.redis_store import connect
from server.store.tournament_store import (
    MemoryTournamentStore,
    RedisTournamentStore,
    TournamentStore,
)
from tests.store.conftest import redis_server, redis_store
from tests.store.redis_process import RedisProcess

__all__ = ["redis_server", "redis_store"]


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


@contextlib.asynccontextmanager
async def serving(app: Starlette, app_settings: Settings) -> AsyncIterator[str]:
    """The app on 127.0.0.1:<free port> in the test's loop (as tests/server's conftest)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    config = uvicorn.Config(app, lifespan="on", log_level="warning",
                            **app_settings.websocket_options())  # type: ignore[arg-type]
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        await task
        sock.close()


def app_settings(**overrides: Any) -> Settings:
    return Settings(**{"freeze_gc": False, "grace_s": 30.0, "static_dir": None,
                       "rate_burst": 10_000, **overrides})
