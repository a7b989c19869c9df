"""The uvicorn and websockets code the transport copies or reaches into, pinned as read when
our code was written: a library upgrade that changes any of it fails here, and the module
named beside it must be read again against the new version before its digest is updated."""

from __future__ import annotations

import hashlib
import inspect
from collections.abc import Callable
from typing import Any

import pytest
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.http11 import Request, parse_headers
from websockets.server import ServerProtocol

PINNED: dict[str, tuple[Callable[..., Any], str, str]] = {
    # name: (the library's function, sha256 of its source (16 hex digits), who relies on it)
    "uvicorn HttpToolsProtocol.handle_websocket_upgrade": (
        HttpToolsProtocol.handle_websocket_upgrade, "179c4f769386ab89",
        "server/transport/http_timeouts.py: TimedHttpProtocol.handle_websocket_upgrade"),
    "uvicorn WebSocketsSansIOProtocol.__init__": (
        WebSocketsSansIOProtocol.__init__, "631dcd744eab875f",
        "server/transport/keepalive.py: KeepaliveProtocol.__init__"),
    "websockets ServerProtocol.parse": (
        ServerProtocol.parse, "8c4d10340de4d32f", "server/transport/parsed_upgrade.py"),
    "websockets Request.parse": (
        Request.parse, "fd00e2611149536e", "server/transport/parsed_upgrade.py"),
    "websockets parse_headers": (
        parse_headers, "90bddf8d62394fe6", "server/transport/parsed_upgrade.py"),
}


@pytest.mark.parametrize("name", sorted(PINNED))
def test_the_library_code_relied_on_is_the_code_read(name: str) -> None:
    function, digest, reader = PINNED[name]
    source = inspect.getsource(function)
    assert hashlib.sha256(source.encode()).hexdigest()[:16] == digest, \
        f"{name} changed: read {reader} against it again, then update its digest"
