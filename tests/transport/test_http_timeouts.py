"""Slow or partial HTTP headers and bodies are timed out on a bare node (the review: 200
slow and 50 idle partial-header sockets stayed open 100 s): real sockets against a real
uvicorn with the node's protocol (``server.transport.uvicorn_options``), its deadlines set small
here, and uvicorn's own keep-alive timeout set long so that only these deadlines can close
a connection. Each test waits for the server to close the socket (``recv`` returns b"")."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator

import uvicorn

from server.app import create_app
from server.config import Settings
from server.transport.uvicorn_options import websocket_options
from tests.doubles.fake_engine import FakeEngine
from tests.helpers import settings

GUARD_S = 30.0
"""Only against a hung test: a socket the server never closes fails the test after it."""


@contextlib.asynccontextmanager
async def node(config: Settings) -> AsyncIterator[int]:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(512)
    server = uvicorn.Server(uvicorn.Config(
        create_app(config, engine=FakeEngine()), lifespan="on", log_level="warning",
        timeout_keep_alive=3600, **websocket_options(config)))  # type: ignore[arg-type]
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        yield sock.getsockname()[1]
    finally:
        server.should_exit = True
        await task
        sock.close()


async def closed_by_server(port: int, sent: bytes) -> bytes:
    """Connect, send ``sent``, then read until the server closes: what it answered."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        if sent:
            writer.write(sent)
            await writer.drain()
        return await asyncio.wait_for(reader.read(), GUARD_S)  # to EOF: the server closed
    finally:
        writer.close()


PARTIAL_HEADERS = b"GET /livez HTTP/1.1\r\nHost: referee\r\nX-Slow: 1"


async def test_idle_and_partial_header_sockets_are_closed_after_the_header_deadline() -> None:
    async with node(settings(http_header_timeout_s=0.3)) as port:
        answers = await asyncio.gather(*(
            [closed_by_server(port, b"") for _ in range(20)]  # connected, nothing sent
            + [closed_by_server(port, PARTIAL_HEADERS) for _ in range(40)]))
    assert answers == [b""] * 60, "closed unanswered"


async def test_a_second_request_trickled_on_a_kept_alive_connection_is_closed_too() -> None:
    async with node(settings(http_header_timeout_s=0.3)) as port:
        first = b"GET /livez HTTP/1.1\r\nHost: referee\r\n\r\n"
        answered = await closed_by_server(port, first + PARTIAL_HEADERS)
    assert answered.startswith(b"HTTP/1.1 200"), answered[:80]
    assert answered.count(b"HTTP/1.1") == 1, "the second request never completed"


async def test_a_body_never_sent_whole_is_closed_after_the_body_deadline() -> None:
    async with node(settings(http_body_timeout_s=0.3)) as port:
        # /livez answers without reading the body; the rest of it never comes.
        unread = b"GET /livez HTTP/1.1\r\nHost: referee\r\nContent-Length: 100\r\n\r\n{"
        answered = await closed_by_server(port, unread)
    assert answered.startswith(b"HTTP/1.1 200"), answered[:80]


async def test_whole_requests_and_websockets_are_not_cut_by_the_deadlines() -> None:
    from websockets.asyncio.client import connect

    from protocol import codec
    from protocol.constants import PROTOCOL_VERSION, WS_PATH
    from protocol.messages import Hello, Ping, Pong

    async with node(settings(http_header_timeout_s=0.3, http_body_timeout_s=0.3)) as port:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        created = b'{"ruleset": "n5"}'
        writer.write(b"POST /api/rooms HTTP/1.1\r\nHost: referee\r\nContent-Type: "
                     b"application/json\r\nContent-Length: " + str(len(created)).encode()
                     + b"\r\nConnection: close\r\n\r\n" + created)
        answer = await asyncio.wait_for(reader.read(), GUARD_S)
        writer.close()
        assert answer.startswith(b"HTTP/1.1 201"), answer[:80]
        room = answer.split(b'"room":"', 1)[1].split(b'"', 1)[0].decode()
        async with connect(f"ws://127.0.0.1:{port}{WS_PATH}") as ws:
            await ws.send(codec.encode(Hello(PROTOCOL_VERSION, room, None, None)))
            await ws.recv()  # welcome
            # A socket opened after the websocket's upgrade is closed by its header deadline:
            # by then the websocket's own deadlines (had they stayed) would have passed too.
            assert await closed_by_server(port, PARTIAL_HEADERS) == b""
            for nonce in range(3):  # ... and the websocket still answers
                await ws.send(codec.encode(Ping(nonce)))
                while not isinstance(codec.decode_server(await ws.recv()), Pong):
                    pass
