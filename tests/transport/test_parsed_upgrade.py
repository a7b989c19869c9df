"""The websocket upgrade request is read once (``server.transport.parsed_upgrade``): the
``Request`` built from httptools' parse is the one websockets would parse from uvicorn's
re-serialisation, wherever it is built; any other request is parsed by websockets as before.
The library code this relies on is pinned in ``test_library_pins.py``."""

from __future__ import annotations

import asyncio
import base64
import logging
import os
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from websockets import http11
from websockets.http11 import MAX_LINE_LENGTH, MAX_NUM_HEADERS, Request
from websockets.server import ServerProtocol

from protocol.constants import WS_PATH
from server.transport.parsed_upgrade import upgrade_request
from testkit.serving import running_server
from tests.helpers import settings

BROWSER_HEADERS = [
    (b"host", b"referee.example:443"), (b"connection", b"Upgrade"),
    (b"pragma", b"no-cache"), (b"upgrade", b"websocket"),
    (b"origin", b"https://referee.example"), (b"sec-websocket-version", b"13"),
    (b"user-agent", b"Mozilla/5.0 (X11; Linux x86_64) Gecko/20100101 Firefox/140.0"),
    (b"accept-language", b"fr-FR,fr;q=0.9"),
    (b"sec-websocket-key", b"dGhlIHNhbXBsZSBub25jZQ=="),
    (b"sec-websocket-extensions", b"permessage-deflate; client_max_window_bits"),
    (b"x-forwarded-for", b"203.0.113.9"), (b"cookie", b"a=\xe9t\xe9"),
]


def reserialised(method: str, url: bytes, headers: list[tuple[bytes, bytes]]) -> bytes:
    """The bytes uvicorn's ``handle_websocket_upgrade`` feeds websockets."""
    output = [method.encode(), b" ", url, b" HTTP/1.1\r\n"]
    for name, value in headers:
        output += [name, b": ", value, b"\r\n"]
    output.append(b"\r\n")
    return b"".join(output)


def parsed_by_websockets(data: bytes) -> Request | None:
    """What websockets' server protocol reads from ``data``: its request, or None where it
    answers an error or gives up."""
    conn = ServerProtocol()
    conn.receive_data(data)
    requests = [event for event in conn.events_received() if isinstance(event, Request)]
    return requests[0] if requests else None


def assert_same_as_websockets(method: str, url: bytes,
                              headers: list[tuple[bytes, bytes]]) -> Request | None:
    ours = upgrade_request(method, url, headers)
    theirs = parsed_by_websockets(reserialised(method, url, headers))
    if ours is not None:
        assert theirs is not None
        assert (ours.method, ours.path, ours.protocol) == \
            (theirs.method, theirs.path, theirs.protocol)
        assert list(ours.headers.raw_items()) == list(theirs.headers.raw_items())
        # the scope uvicorn builds from the parsed request is the list httptools read
        assert [(k.encode("ascii"), v.encode("latin-1"))
                for k, v in theirs.headers.raw_items()] == headers
    return ours


def test_a_browsers_upgrade_is_built_as_websockets_parses_it() -> None:
    assert assert_same_as_websockets("GET", WS_PATH.encode() + b"?room=abc%20d",
                                     BROWSER_HEADERS) is not None


@pytest.mark.parametrize("headers", [
    [(b"x", b"v")] * MAX_NUM_HEADERS,
    [(b"x", b"v" * (MAX_LINE_LENGTH - len(b"x: \r\n")))],
    [(b"content-length", b"0"), (b"Content-Length", b"0")],  # websockets tolerates these
])
def test_requests_at_websockets_limits_are_built(headers: list[tuple[bytes, bytes]]) -> None:
    assert assert_same_as_websockets("GET", b"/ws", headers) is not None


@pytest.mark.parametrize(("url", "headers"), [
    (b"/ws", [(b"x", b"v")] * (MAX_NUM_HEADERS + 1)),  # websockets answers 431
    (b"/ws", [(b"x", b"v" * (MAX_LINE_LENGTH - len(b"x: \r\n") + 1))]),  # 431
    (b"/" + b"a" * MAX_LINE_LENGTH, []),  # 414
    (b"/ws", [(b"transfer-encoding", b"chunked")]),
    (b"/ws", [(b"content-length", b"5")]),
    (b"/ws", [(b"Transfer-Encoding", b"chunked")]),
    (b"/ws", [(b"x", b"trailing ")]),  # websockets would strip it
    (b"/ws", [(b"x", b"a\x00b")]),
    (b"/ws", [(b"bad name", b"v")]),
    (b"/w\xc3\xa9", []),
    (b"/w s", []),
])
def test_any_other_request_is_left_to_websockets(url: bytes,
                                                 headers: list[tuple[bytes, bytes]]) -> None:
    assert upgrade_request("GET", url, headers) is None


NAMES = st.one_of(st.sampled_from([b"host", b"upgrade", b"connection", b"content-length",
                                   b"transfer-encoding", b"sec-websocket-key", b"x",
                                   b"Content-Length", b"Transfer-Encoding"]),
                  st.binary(min_size=0, max_size=12))
VALUES = st.one_of(st.sampled_from([b"", b"0", b"1", b"websocket", b"Upgrade", b"\xe9t\xe9"]),
                   st.binary(max_size=40),
                   st.text(alphabet=" \t!~az09", max_size=20).map(str.encode))


@given(url=st.one_of(st.just(b"/ws?room=r1"), st.binary(max_size=30)),
       headers=st.lists(st.tuples(NAMES, VALUES), max_size=12))
def test_built_requests_always_equal_websockets_parse(
        url: bytes, headers: list[tuple[bytes, bytes]]) -> None:
    assert_same_as_websockets("GET", url, headers)


async def upgrade(port: int, extra: bytes = b"") -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    key = base64.b64encode(os.urandom(16)).decode()
    writer.write((f"GET {WS_PATH} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                  "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                  f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n").encode()
                 + extra + b"\r\n")
    response = await reader.readuntil(b"\r\n\r\n")
    writer.close()
    return response


async def test_the_server_parses_an_upgrade_once_unless_websockets_must(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # websockets parses a request's headers in ``http11.parse_headers`` (its request line
    # is read as each protocol is made: that starts its parser).
    parses: list[object] = []
    parse_headers = http11.parse_headers

    def counted(read_line: Any) -> Any:
        parses.append(read_line)
        return (yield from parse_headers(read_line))
    monkeypatch.setattr(http11, "parse_headers", counted)
    async with running_server(settings()) as url:
        port = int(url.rsplit(":", 1)[1])
        response = await upgrade(port)
        assert response.startswith(b"HTTP/1.1 101"), response
        assert b"\r\nx-referee-node: " in response
        assert parses == []  # httptools' parse only
        # At DEBUG websockets logs the request it parses: it is parsed by websockets then.
        uvicorn_error = logging.getLogger("uvicorn.error")
        level = uvicorn_error.level
        uvicorn_error.setLevel(logging.DEBUG)
        try:
            response = await upgrade(port)
        finally:
            uvicorn_error.setLevel(level)
        assert response.startswith(b"HTTP/1.1 101"), response
        assert len(parses) == 1
