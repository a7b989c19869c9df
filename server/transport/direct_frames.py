"""Writing a room's frames straight to the socket's transport, framed once by us.

Each frame the fan-out delivers would otherwise go through uvicorn's ASGI ``send``: a coroutine
that waits on the connection's ``writable`` event, looks the message up, has websockets'
sans-I/O protocol build a ``Frame`` and serialize it, and joins its output -- Python work per
socket and frame, thousands of times a second on a busy node, for bytes that are the same two
to ten header octets plus the payload on every socket. A server's frames are not masked (RFC
6455 §5.1), so we frame the payload ourselves and write it to the transport (the pattern of
gorilla/websocket's ``PreparedMessage``).

Spectators' sockets always write this way: a room's frame goes to thousands of them
(``bench.broadcast``: 10,000 spectators of one room on two nodes), and through ASGI each
delivery cost much more node CPU than written directly (docs/performance.md).
Seats' sockets too, unless ``Settings.direct_frames`` is off (``REFEREE_DIRECT_FRAMES=0``):
through ASGI a seat's frame costs clearly more than one written directly
(docs/performance.md, "Direct frames").

A frame handed to many sockets in a row is framed once: the last payload's framing is
kept (``binary_frame`` is called with the same bytes object for every subscriber of an
audience, ``server.fanout.local``).

This reaches below ASGI into uvicorn's websockets-sansio protocol (the implementation the
server names in ``server.transport.uvicorn_options``), so it is used only where it is exactly
what ``send`` would do:

* the connection is uvicorn's ``WebSocketsSansIOProtocol``, or a subclass of it that keeps
  its ``send`` (the server's is ``server.transport.keepalive``'s; the server's own ``send``
  is its bound method; ``KeepServerSend`` hands it to the endpoint past Starlette's wrapper),
* no extension was negotiated (compression, off by default, needs websockets' encoder),
* at each write: the handshake is done, no close was sent or received, the peer is
  connected, the transport is not closing, and its writer is not paused (a reader that
  does not keep up: then ``send`` would wait, and the session queues instead).

Otherwise the session sends through ASGI as before. ``tests/transport/test_direct_frames.py``
checks the frames against websockets' parser and this path against the installed uvicorn.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.protocol import State

SERVER_SEND = "referee.server_send"
"""The scope key under which ``KeepServerSend`` keeps the server's own ``send``."""

_BINARY_FINAL = 0x82  # FIN + opcode 2 (binary); RSV bits clear: no extension


def binary_frame(payload: bytes) -> bytes:
    """``payload`` as one unmasked, final binary websocket frame (RFC 6455 §5.2); the same
    bytes object framed again (the next subscriber of a fan-out) is not framed anew."""
    if payload is _last[0]:
        return _last[1]
    framed = _frame(payload)
    _last[0], _last[1] = payload, framed
    return framed


_last: list[bytes] = [b"", bytes((_BINARY_FINAL, 0))]
"""The last payload framed and its frame (one slot: a fan-out frames one payload for many
sockets in a row). Held by identity, so a payload is kept alive until the next one."""


def _frame(payload: bytes) -> bytes:
    length = len(payload)
    if length < 126:
        return bytes((_BINARY_FINAL, length)) + payload
    if length < 65536:
        return bytes((_BINARY_FINAL, 126)) + length.to_bytes(2, "big") + payload
    return bytes((_BINARY_FINAL, 127)) + length.to_bytes(8, "big") + payload


class KeepServerSend:
    """ASGI middleware: keeps the server's ``send`` of each websocket in its scope, and
    hands the game's websocket (``websocket_path``) straight to its endpoint.

    Starlette's exception middleware hands the app a wrapper around ``send``; the endpoint
    needs the server's own to find the connection's transport. Past this middleware a
    websocket would go through Starlette's exception middleware and router: five more
    coroutines suspended for the socket's whole life (~2 KB of every socket's memory),
    and the exception wrapper on every frame sent through ASGI. The endpoint handles its
    own errors (an exception it does not handle ends the socket as it would through
    Starlette, which only re-raises what no handler takes)."""

    def __init__(self, app: ASGIApp, websocket_app: ASGIApp | None = None,
                 websocket_path: str = "") -> None:
        self.app = app
        self.websocket_app = websocket_app
        self.websocket_path = websocket_path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "websocket":
            await self.app(scope, receive, send)
            return
        scope[SERVER_SEND] = send
        try:
            if (self.websocket_app is not None
                    and _route_path(scope) == self.websocket_path):
                await self.websocket_app(scope, receive, send)
            else:
                await self.app(scope, receive, send)
        finally:
            # The protocol holds the scope, and ``send`` is the protocol's bound method: a
            # reference cycle only the collector would free, one per websocket.
            scope.pop(SERVER_SEND, None)


def _route_path(scope: Scope) -> str:
    """The path as the app's routes see it: without the ``root_path`` it is mounted at."""
    path: str = scope["path"]
    root: str = scope.get("root_path", "")
    return path[len(root):] if root and path.startswith(root) else path


class DirectFrames:
    """Writes frames to one connection's transport while that is what ``send`` would do."""

    __slots__ = ("_protocol",)

    def __init__(self, protocol: WebSocketsSansIOProtocol) -> None:
        self._protocol = protocol

    @classmethod
    def for_scope(cls, scope: Scope) -> DirectFrames | None:
        """The direct writer for the websocket of ``scope``, or None where frames must go
        through ASGI (another server or implementation, or an extension negotiated)."""
        protocol = getattr(scope.get(SERVER_SEND), "__self__", None)
        # uvicorn's protocol or a subclass that keeps its ``send`` (``keepalive``'s).
        if (not isinstance(protocol, WebSocketsSansIOProtocol)
                or type(protocol).send is not WebSocketsSansIOProtocol.send
                or protocol.conn.extensions):
            return None
        return cls(protocol)

    def write(self, payload: bytes) -> bool:
        """Write ``payload`` as one binary frame now; False (nothing written) where
        ``send`` would wait or refuse: the caller sends it through ASGI instead."""
        # (``_open_transport``'s checks, inlined: a fan-out calls this for every socket)
        protocol = self._protocol
        if (protocol.close_sent or protocol.disconnected or not protocol.handshake_complete
                or not protocol.writable.is_set() or protocol.conn.state is not State.OPEN):
            return False
        transport = protocol.transport
        if transport.is_closing():
            return False
        transport.write(binary_frame(payload))
        return True

    def write_all(self, payloads: Sequence[bytes]) -> bool:
        """Write each of ``payloads`` as a binary frame, in order, in one write (the kernel
        sends them in one segment where they fit); False (nothing written) as ``write``."""
        transport = self._open_transport()
        if transport is None:
            return False
        transport.write(b"".join([_frame(payload) for payload in payloads]))
        return True

    def _open_transport(self) -> asyncio.Transport | None:
        """The transport, while writing to it is what ``send`` would do."""
        protocol = self._protocol
        if (protocol.close_sent or protocol.disconnected or not protocol.handshake_complete
                or not protocol.writable.is_set() or protocol.conn.state is not State.OPEN):
            return None
        transport = protocol.transport
        return None if transport.is_closing() else transport
