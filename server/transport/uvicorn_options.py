"""uvicorn's protocol options for a node, the same for the server and the tests' servers:
which HTTP parser and websocket protocol serve, with the node's limits and ping intervals
(``server.config.Settings``). Here rather than on ``Settings``: the settings are the ground
floor every package reads, and the protocols belong to the transport."""

from __future__ import annotations

from server.config import Settings
from server.transport.http_timeouts import timed_http_protocol
from server.transport.keepalive import KeepaliveProtocol


def websocket_options(settings: Settings) -> dict[str, object]:
    """The keyword arguments of ``uvicorn.Config`` for the node's HTTP and websockets."""
    return {
        # The upgrade requests' HTTP parser: httptools (C), not h11 (pure Python, what
        # uvicorn falls back to): after a restart every client's upgrade arrives at once;
        # with header and body read deadlines, which uvicorn has none of.
        "http": timed_http_protocol(settings.http_header_timeout_s, settings.http_body_timeout_s),
        # uvicorn's websockets-sansio ("auto" picks it today; named so it stays the fast
        # one), pinging only silent sockets.
        "ws": KeepaliveProtocol,
        "ws_max_size": settings.hard_frame_bytes,
        "ws_per_message_deflate": settings.ws_per_message_deflate,
        "ws_ping_interval": settings.ws_ping_interval_s or None,
        "ws_ping_timeout": settings.ws_ping_timeout_s,
    }
