"""A real uvicorn server on a free port, in the test's event loop (the server tests' conftest
and the tournament tests); the server in a process of its own is ``testkit.server_process``."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator

import uvicorn
from starlette.applications import Starlette

from server.app import create_app
from server.config import Settings
from server.rooms.engine_port import Engine
from server.transport.uvicorn_options import websocket_options


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
        **websocket_options(settings),  # type: ignore[arg-type]
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await task
        sock.close()
