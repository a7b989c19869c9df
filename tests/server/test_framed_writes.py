"""Direct frame writes (server/transport/uvicorn_protocol.py): the frames are what websockets
itself would send, and the hook is offered only on plain (uncompressed) connections."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
import uvicorn
from conftest import settings
from websockets.asyncio.client import connect
from websockets.frames import Frame, Opcode

from server.transport.uvicorn_protocol import (
    FRAMED_WRITE,
    binary_frame,
    uvicorn_websocket_options,
)


@pytest.mark.parametrize("length", [0, 1, 125, 126, 65_535, 65_536, 70_000])
def test_a_binary_frame_is_byte_for_byte_what_websockets_sends(length: int) -> None:
    payload = bytes(range(256)) * (length // 256) + bytes(length % 256)
    expected = Frame(Opcode.BINARY, payload).serialize(mask=False, extensions=[])
    assert binary_frame(payload) == expected


async def framed_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Accepts, then writes a frame directly when offered (else says so through send)."""
    if scope["type"] == "lifespan":
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    await receive()  # websocket.connect
    await send({"type": "websocket.accept"})
    write = scope["extensions"].get(FRAMED_WRITE)
    if write is None or not write(binary_frame(b"framed")):
        await send({"type": "websocket.send", "bytes": b"through send"})
    await receive()  # until the client closes


@asynccontextmanager
async def serving(**overrides: Any) -> AsyncIterator[str]:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    config = uvicorn.Config(framed_app, lifespan="on", log_level="warning",
                            **uvicorn_websocket_options(settings(**overrides)))  # type: ignore[arg-type]
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        yield f"ws://127.0.0.1:{sock.getsockname()[1]}/"
    finally:
        server.should_exit = True
        await task
        sock.close()


async def test_a_plain_connection_gets_frames_written_directly() -> None:
    async with serving() as url, connect(url, compression=None) as ws:
        assert await ws.recv() == b"framed"


async def test_a_compressed_connection_is_not_offered_direct_writes() -> None:
    async with serving(ws_per_message_deflate=True) as url, connect(url) as ws:
        assert "permessage-deflate" in (ws.response.headers.get("Sec-WebSocket-Extensions") or "")
        assert await ws.recv() == b"through send"
