"""An upgrade request websockets refuses is answered and closed, not held open: uvicorn
left websockets' answer unsent, and nothing else ever closed such a connection (no request
reaches the app, whose handshake timeout never starts; the header deadline is behind it)."""

from __future__ import annotations

import asyncio
import base64
import os

from websockets.http11 import MAX_NUM_HEADERS

from protocol.constants import WS_PATH
from testkit.serving import running_server
from tests.helpers import settings

BOUND_S = 30.0
"""Only how long a failing run waits before it fails (it hung for ever)."""


async def test_an_upgrade_past_websockets_header_limit_gets_431_and_is_closed() -> None:
    async with running_server(settings()) as url:
        port = int(url.rsplit(":", 1)[1])
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        key = base64.b64encode(os.urandom(16)).decode()
        too_many = "".join(f"x-h{i}: v\r\n" for i in range(MAX_NUM_HEADERS))
        writer.write((f"GET {WS_PATH} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                      "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                      f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                      f"{too_many}\r\n").encode())
        answer = await asyncio.wait_for(reader.read(), BOUND_S)  # to the server's close
        writer.close()
    assert answer.startswith(b"HTTP/1.1 431"), answer
