"""The server's websocket keepalive (``ws_ping_interval_s``/``ws_ping_timeout_s``): it pings
every socket, and closes one that never answers (a connection that died without closing)."""

from __future__ import annotations

import asyncio
import base64
import os
import struct

from protocol.constants import WS_PATH
from server.config import Settings
from server.transport.uvicorn_options import websocket_options
from testkit.serving import running_server
from tests.helpers import settings

PING, CLOSE = 0x9, 0x8


async def read_frame(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    """One unmasked server frame: (opcode, payload)."""
    head = await reader.readexactly(2)
    length = head[1] & 0x7F
    if length == 126:
        length = struct.unpack("!H", await reader.readexactly(2))[0]
    elif length == 127:
        length = struct.unpack("!Q", await reader.readexactly(8))[0]
    return head[0] & 0x0F, await reader.readexactly(length)


async def test_a_socket_that_never_answers_pings_is_closed_with_1011() -> None:
    """A raw websocket that completes the handshake and never answers a ping: the server
    pings it, then closes it with 1011 once the pong is overdue."""
    config = settings(ws_ping_interval_s=0.05, ws_ping_timeout_s=0.05)
    async with running_server(config) as url:
        port = int(url.rsplit(":", 1)[1])
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        key = base64.b64encode(os.urandom(16)).decode()
        writer.write((f"GET {WS_PATH} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                      "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                      f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        response = await reader.readuntil(b"\r\n\r\n")
        assert response.startswith(b"HTTP/1.1 101"), response
        opcodes = []
        while True:
            opcode, payload = await asyncio.wait_for(read_frame(reader), 20)
            opcodes.append(opcode)
            if opcode == CLOSE:
                break
        writer.close()
    assert opcodes[0] == PING, "pinged before it was closed"
    assert struct.unpack("!H", payload[:2])[0] == 1011
    assert b"keepalive" in payload[2:]


def test_a_zero_ping_interval_turns_the_keepalive_off() -> None:
    assert websocket_options(Settings(ws_ping_interval_s=0))["ws_ping_interval"] is None
    assert websocket_options(Settings())["ws_ping_interval"] == 20.0
