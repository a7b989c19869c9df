"""Keepalive pings only where they tell something: uvicorn's websockets-sansio protocol,
pinging a socket only when it has been silent for the whole interval.

A ping exists to find connections that died without closing (a sleeping laptop, a dropped
mobile network), so that a seat turns ``away`` and a dead socket's memory is freed. A
socket that sent a message since the last ping time is known to be alive: its peer was
there, and the ping would tell nothing new. uvicorn pings every socket every interval
whatever it does; at 3,000 rooms x 6 sockets that is 900 pings (and as many pongs to read)
a second (with the timers, 5.6% of the core with those rooms idle: docs/performance.md).
Playing seats send commands every few seconds, so they are hardly ever pinged now;
read-only viewers send nothing and are pinged on their own, longer interval
(``Settings.ws_viewer_ping_interval_s``, set by the endpoint once the socket's role is
known): only their resources are at stake, not a seat's presence.

A socket is pinged once it has been silent for a whole interval, so a dead connection is
still closed within one interval plus the ping timeout after its last message, as before
(a seat: 20 + 20 s by default; a viewer: 60 + 20 s). Pongs do not count as messages: a
socket that only answers pings is pinged every interval, as before.

It also holds its received messages and its writable flag in ``server.transport.lean_sync``'s
few dozen bytes instead of an ``asyncio.Queue`` and an ``asyncio.Event`` (~3 KB a socket).
Everything else is uvicorn's protocol unchanged (``server.transport.direct_frames`` writes
to it as to its base class).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from starlette.types import Scope
from uvicorn.config import Config
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from uvicorn.server import ServerState
from websockets.extensions.permessage_deflate import ServerPerMessageDeflateFactory
from websockets.frames import Frame
from websockets.http11 import Request
from websockets.protocol import State
from websockets.server import ServerProtocol

from server.transport import live_connections
from server.transport.direct_frames import SERVER_SEND
from server.transport.lean_sync import LeanEvent, LeanQueue

_UVICORN_ERROR = logging.getLogger("uvicorn.error")
"""The logger uvicorn's protocol and its websockets ``ServerProtocol`` log to."""


class KeepaliveProtocol(WebSocketsSansIOProtocol):
    """``WebSocketsSansIOProtocol`` whose keepalive pings a socket only once it has sent
    nothing for a whole interval."""

    heard_at = float("-inf")
    """The loop's time of the socket's latest message (class default: none yet)."""

    def __init__(self, config: Config, server_state: ServerState, app_state: dict[str, Any],
                 _loop: asyncio.AbstractEventLoop | None = None, *,
                 request_parsed: bool = False) -> None:
        """``request_parsed``: the upgrade request was parsed already and is handed over with
        ``receive_parsed_request`` (``server.transport.parsed_upgrade``); websockets' protocol
        then starts its parser at the frames, not at a request line it will never read."""
        # WebSocketsSansIOProtocol.__init__ as uvicorn 0.54 writes it (its source is pinned
        # by tests/transport/test_library_pins.py, the attributes it sets compared by
        # tests/transport/test_keepalive_init.py), but without the asyncio.Queue and Event
        # it builds for every socket, which were replaced at once: uvicorn's receive queue
        # and writable flag are ``server.transport.lean_sync``'s few dozen bytes instead of
        # ~3 KB; and its logger looked up once, not twice per socket.
        if not config.loaded:
            config.load()
        self.config = config
        self.app = config.loaded_app
        self.loop = _loop or asyncio.get_event_loop()
        self.logger = _UVICORN_ERROR
        self.root_path = config.root_path
        self.asgi_version = config.asgi_version
        self.app_state = app_state

        self.connections = server_state.connections
        self.tasks = server_state.tasks
        self.default_headers = server_state.default_headers

        self.transport = None  # type: ignore[assignment]
        self.server = None
        self.client = None
        self.scheme = None  # type: ignore[assignment]

        self.queue = LeanQueue()  # type: ignore[assignment]
        self.handshake_initiated = False
        self.handshake_complete = False
        self.close_sent = False
        self.disconnected = False
        self.close_timer = None
        self.close_timeout = 10.0
        self.initial_response = None

        extensions = []
        if config.ws_per_message_deflate:
            extensions = [ServerPerMessageDeflateFactory(
                server_max_window_bits=12, client_max_window_bits=12,
                compress_settings={"memLevel": 5})]
        # (``state`` is where its parser starts: ServerProtocol.parse reads a request only
        # in CONNECTING; the handshake itself then proceeds in CONNECTING as ever.)
        self.conn = ServerProtocol(extensions=extensions, max_size=config.ws_max_size,
                                   logger=_UVICORN_ERROR,
                                   state=State.OPEN if request_parsed else State.CONNECTING)
        self.conn.state = State.CONNECTING

        self.read_paused = False
        self.writable = LeanEvent()  # type: ignore[assignment]
        self.writable.set()

        self.ping_interval = config.ws_ping_interval
        self.ping_timeout = config.ws_ping_timeout
        self.ping_timer = None
        self.pong_timer = None
        self.pending_ping_payload = None
        self.ping_sent_at = 0.0
        self.last_ping_rtt = 0.0

        self.frames = []
        self.curr_msg_data_type = "bytes"
        live_connections.born(self, self.connections)

    def receive_parsed_request(self, request: Request) -> None:
        """Handle the upgrade ``request`` of a protocol made with ``request_parsed``, as
        websockets' ``ServerProtocol.parse`` hands over the request it parsed: the protocol's
        first event (then ``handle_connect`` answers it as ever)."""
        self.conn.events.append(request)
        self.handle_events()

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        # websockets' protocol holds its parser, a generator suspended in one of the
        # protocol's own methods: the generator's frame holds the protocol back, a reference
        # cycle. Nothing feeds the parser once the connection is lost; closed, its frame
        # lets go, and the protocol is freed by reference counting with the socket.
        # Otherwise only a collection frees it (the generator's finalizer breaks the cycle,
        # so a collection's leftovers never show it), and once a crowd's freeze
        # (``server.node.crowd_gc``) has put the protocol out of the collector's reach,
        # nothing does: ~1.3 KB kept for every socket that was open at a freeze.
        self.conn.parser.close()

    def handle_bytes(self, event: Frame) -> None:
        self.heard_at = self.loop.time()
        super().handle_bytes(event)

    def handle_text(self, event: Frame) -> None:
        self.heard_at = self.loop.time()
        super().handle_text(event)

    def send_keepalive_ping(self) -> None:
        interval = self.ping_interval
        silent_s = self.loop.time() - self.heard_at
        if interval is None or silent_s >= interval:
            super().send_keepalive_ping()
            return
        # Alive a moment ago: no ping now; look again when it has been silent an interval.
        self.ping_timer = None
        if not (self.close_sent or self.transport.is_closing()):
            self.ping_timer = self.loop.call_later(interval - silent_s, self.send_keepalive_ping)

    def set_ping_interval(self, seconds: float) -> None:
        """Ping this socket every ``seconds`` from its next ping on (0: keep uvicorn's)."""
        if seconds > 0 and self.ping_interval is not None:
            self.ping_interval = seconds


def set_ping_interval(scope: Scope, seconds: float) -> None:
    """``KeepaliveProtocol.set_ping_interval`` for the websocket of ``scope``, where it is
    served by that protocol (another server or protocol keeps its own keepalive)."""
    protocol = getattr(scope.get(SERVER_SEND), "__self__", None)
    if isinstance(protocol, KeepaliveProtocol):
        protocol.set_ping_interval(seconds)
