"""Server fixtures: a real uvicorn server on a free port, in the test's event loop."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
import uvicorn
from fake_engine import FakeEngine
from starlette.applications import Starlette

from server.app import create_app
from server.config import Settings
from server.rooms.engine_port import Engine

TEST_SETTINGS = dict(freeze_gc=False, grace_s=30.0, static_dir=None)


@contextlib.asynccontextmanager
async def running_server(
    settings: Settings, engine: Engine | None = None, app: Starlette | None = None
) -> AsyncIterator[str]:
    """Serve the app on 127.0.0.1:<free port>; yields the base URL.

    The socket is bound and listening before uvicorn starts, so clients may connect at once:
    their connections wait in the backlog until the server accepts them (no polling).
    """
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        app or create_app(settings, engine=engine), lifespan="on", log_level="warning",
        **settings.websocket_options(),  # type: ignore[arg-type]
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await task
        sock.close()


def settings(**overrides: Any) -> Settings:
    return Settings(**{**TEST_SETTINGS, **overrides})  # type: ignore[arg-type]


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


async def create_room(http: httpx.AsyncClient, **options: Any) -> dict[str, Any]:
    response = await http.post("/api/rooms", json={"ruleset": "n5", **options})
    assert response.status_code == 201, response.text
    return response.json()  # type: ignore[no-any-return]
