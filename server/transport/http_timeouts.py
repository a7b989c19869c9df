"""Header and body read timeouts for the node's HTTP connections (uvicorn's httptools
protocol, which has none: a connection that sends part of its headers, or trickles them a
byte at a time, or declares a body and never sends it whole, was held for ever; the review
kept 250 such sockets open for 100 s on a bare node).

- **Headers**: from the connection's start, and from the first byte of each later request
  on it, the request's headers must be whole within ``http_header_timeout_s``.
- **Body**: from the end of the headers, the whole body within ``http_body_timeout_s``
  (the lobby's own reader answers a slow body it reads with 408 sooner, ``BODY_TIMEOUT_S``;
  this bounds a body nobody reads too).

A connection past either is closed (nothing is answered: its client is not reading the
protocol). A websocket upgrade leaves these timers behind: the websocket has its own
handshake timeout and keepalive. Idle keep-alive connections between requests are uvicorn's
``timeout_keep_alive``. nginx in front has its own (``client_header_timeout``,
``client_body_timeout``: docs/deploy.md); these are for a node served bare.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from uvicorn.logging import TRACE_LOG_LEVEL
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from server.transport import live_connections
from server.transport.keepalive import KeepaliveProtocol
from server.transport.parsed_upgrade import upgrade_request

_WS_LOGGER = logging.getLogger("uvicorn.error")
"""The logger uvicorn gives websockets' protocol: at DEBUG websockets logs the request it
parses, so the request is then parsed by it as before."""


class TimedHttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with header and body read deadlines (class attributes,
    set by ``timed_http_protocol``)."""

    header_timeout_s: float = 10.0
    body_timeout_s: float = 30.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._read_deadline: asyncio.TimerHandle | None = None
        live_connections.born(self, self.connections)

    def _arm(self, seconds: float) -> None:
        self._disarm()
        if seconds > 0:
            self._read_deadline = self.loop.call_later(seconds, self._read_timed_out)

    def _disarm(self) -> None:
        if self._read_deadline is not None:
            self._read_deadline.cancel()
            self._read_deadline = None

    def _read_timed_out(self) -> None:
        self._read_deadline = None
        if self.transport is not None and not self.transport.is_closing():
            self.transport.close()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm(self.header_timeout_s)  # the first request's headers

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        if self._read_deadline is None:  # a later request on a kept-alive connection
            self._arm(self.header_timeout_s)

    def on_headers_complete(self) -> None:
        super().on_headers_complete()
        if self.parser.should_upgrade() and self._should_upgrade():
            self._disarm()  # a websocket: its own timeouts from here
        else:
            self._arm(self.body_timeout_s)

    def on_message_complete(self) -> None:
        self._disarm()
        super().on_message_complete()

    def handle_websocket_upgrade(self) -> None:
        self._disarm()
        # The request as httptools read it, not re-serialised and parsed again by
        # websockets (``server.transport.parsed_upgrade``), where that is exactly the same.
        ws_class: Any = self.ws_protocol_class
        request = None
        if (isinstance(ws_class, type) and issubclass(ws_class, KeepaliveProtocol)
                and not _WS_LOGGER.isEnabledFor(logging.DEBUG)):
            request = upgrade_request(self.scope["method"], self.url, self.headers)
        if request is None:
            super().handle_websocket_upgrade()
            self._answer_refused_upgrade()
            return
        # uvicorn's HttpToolsProtocol.handle_websocket_upgrade (pinned by
        # tests/transport/test_library_pins.py), with the parsed request handed over.
        if self.logger.level <= TRACE_LOG_LEVEL:
            prefix = "{}:{} - ".format(*self.client) if self.client else ""
            self.logger.log(TRACE_LOG_LEVEL, "%sUpgrading to WebSocket", prefix)
        self.connections.discard(self)
        protocol: KeepaliveProtocol = ws_class(
            config=self.config, server_state=self.server_state, app_state=self.app_state,
            request_parsed=True)
        protocol.connection_made(self.transport)
        protocol.receive_parsed_request(request)
        self.transport.set_protocol(protocol)
        # This protocol is done, and never told so (connection_lost goes to the websocket's):
        # drop its parser as uvicorn's connection_lost does, since the parser holds this
        # protocol's callbacks. Else the pair is a reference cycle only the collector frees,
        # one per websocket (tests/transport/test_socket_cycles.py).
        self.parser = None  # type: ignore[assignment]

    def _answer_refused_upgrade(self) -> None:
        """Write websockets' answer to an upgrade request its parser refused (431 past its
        header limits, 414 past its line limit; none to what is not HTTP) and close: uvicorn
        leaves that answer unsent, so the connection was held open for ever (no request
        reaches the app, whose handshake timeout never starts; the header deadline is
        behind it)."""
        protocol = self.transport.get_protocol()
        if (isinstance(protocol, WebSocketsSansIOProtocol) and not protocol.handshake_initiated
                and not self.transport.is_closing()):
            self.transport.write(b"".join(protocol.conn.data_to_send()))
            self.transport.close()


def timed_http_protocol(header_timeout_s: float, body_timeout_s: float
                        ) -> type[TimedHttpProtocol]:
    """The protocol class uvicorn makes each connection with (``Config(http=...)``), with
    these deadlines (0: none)."""
    return type("TimedHttpProtocol", (TimedHttpProtocol,),
                {"header_timeout_s": header_timeout_s, "body_timeout_s": body_timeout_s})
