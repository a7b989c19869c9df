"""uvicorn's websocket protocol with one addition: writing a ready-made frame directly.

Through ASGI every frame of the fan-out crosses Starlette's exception wrapper, uvicorn's
``send`` coroutine and websockets' framing before ``transport.write``: about half of the
cost of a delivery. A server-to-client binary frame is only a two-to-ten-byte header and
the payload (unmasked, RFC 6455 5.2), so the session frames its payload itself and, while
the connection is open and the transport is not asking writers to pause, writes it straight
to the transport; anything else (a paused transport, a closing connection, a negotiated
extension such as compression) answers False and the session falls back to ASGI ``send``.

The hook reaches the application as an ASGI scope extension (``FRAMED_WRITE``), so an
application served by anything else simply does not find it. The subclass depends on
uvicorn's websockets-sansio implementation (its ``conn``, ``transport``, ``writable`` and
``close_sent``); pyproject pins the uvicorn versions it was checked against.
"""

from __future__ import annotations

import struct

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.http11 import Request
from websockets.protocol import State

from server.config import Settings

FRAMED_WRITE = "referee.write_framed"
"""Scope extension: ``write_framed(frame: bytes) -> bool`` (see ``binary_frame``)."""

_BINARY_FINAL = 0x82  # FIN + opcode 2


def binary_frame(payload: bytes) -> bytes:
    """``payload`` as one final, unmasked binary websocket frame (a server's frame)."""
    length = len(payload)
    if length < 126:
        header = bytes((_BINARY_FINAL, length))
    elif length < 1 << 16:
        header = struct.pack("!BBH", _BINARY_FINAL, 126, length)
    else:
        header = struct.pack("!BBQ", _BINARY_FINAL, 127, length)
    return header + payload


class FramedWritesProtocol(WebSocketsSansIOProtocol):
    def handle_connect(self, event: Request) -> None:
        super().handle_connect(event)
        scope = getattr(self, "scope", None)
        if scope is not None and not self.conn.extensions:
            scope["extensions"][FRAMED_WRITE] = self.write_framed

    def write_framed(self, frame: bytes) -> bool:
        """Write a frame made by ``binary_frame`` now; False: use ASGI ``send`` instead."""
        if (not self.handshake_complete or self.close_sent or self.disconnected
                or self.conn.state is not State.OPEN or not self.writable.is_set()
                or self.transport.is_closing()):
            return False
        self.transport.write(frame)
        return True


def uvicorn_websocket_options(settings: Settings) -> dict[str, object]:
    """uvicorn's websocket options, the same for the server and the tests' servers."""
    return {
        "ws": FramedWritesProtocol,
        "ws_max_size": settings.hard_frame_bytes,
        "ws_per_message_deflate": settings.ws_per_message_deflate,
    }
