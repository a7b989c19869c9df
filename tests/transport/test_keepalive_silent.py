"""Keepalive pings only for silent sockets (``server/transport/keepalive.py``): a socket
that sent a message since the last ping time is not pinged then; one that sent nothing (or
only answered pings) is; a read-only viewer gets its own, longer interval. The ping timers
are driven by hand here (``send_keepalive_ping`` is what uvicorn's timer calls)."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from uvicorn.config import Config
from uvicorn.server import ServerState
from websockets.frames import Frame, Opcode
from websockets.protocol import State

from protocol.messages import Snapshot
from server.config import Settings
from server.transport import endpoint
from server.transport.direct_frames import SERVER_SEND, DirectFrames
from server.transport.keepalive import KeepaliveProtocol
from server.transport.uvicorn_options import websocket_options
from testkit.serving import running_server
from testkit.wsclient import Client
from tests.helpers import create_room, settings


class FakeTransport:
    def __init__(self) -> None:
        self.written: list[bytes] = []

    def is_closing(self) -> bool:
        return False

    def write(self, data: bytes) -> None:
        self.written.append(data)

    def pause_reading(self) -> None:
        pass

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return default


async def _app(scope: Any, receive: Any, send: Any) -> None:  # never called here
    raise AssertionError


def open_protocol(interval: float = 20.0) -> tuple[KeepaliveProtocol, FakeTransport]:
    """The server's protocol on an open websocket (handshake done), on a fake transport."""
    config = Config(app=_app, ws=KeepaliveProtocol, ws_ping_interval=interval,
                    ws_ping_timeout=20.0)
    config.load()
    protocol = KeepaliveProtocol(config, ServerState(), {}, asyncio.get_running_loop())
    transport = FakeTransport()
    protocol.connection_made(transport)  # type: ignore[arg-type]
    protocol.conn.state = State.OPEN
    protocol.handshake_complete = True
    return protocol, transport


def pings(transport: FakeTransport) -> int:
    return sum(chunk[0] & 0x0F == Opcode.PING for chunk in transport.written if chunk)


async def test_a_silent_socket_is_pinged_and_one_heard_from_is_not() -> None:
    protocol, transport = open_protocol()
    protocol.send_keepalive_ping()
    assert pings(transport) == 1, "nothing heard: pinged, as uvicorn does"
    assert protocol.pong_timer is not None, "and its pong awaited"
    protocol.pong_timer.cancel()
    protocol.pong_timer = None

    protocol.handle_bytes(Frame(Opcode.BINARY, b"command"))  # a message from the peer
    heard_at = protocol.heard_at
    protocol.send_keepalive_ping()
    assert pings(transport) == 1, "heard from within the interval: no ping"
    assert protocol.pong_timer is None, "and no pong awaited"
    assert protocol.ping_timer is not None
    # (call_later reads the clock again: a hair later than the check did)
    assert heard_at + 20.0 <= protocol.ping_timer.when() <= protocol.loop.time() + 20.0, \
        "it looks again when the socket has been silent for a whole interval"
    protocol.ping_timer.cancel()

    protocol.heard_at = heard_at - 20.0  # (as if that message were an interval old)
    protocol.send_keepalive_ping()
    assert pings(transport) == 2, "silent for a whole interval: pinged"
    protocol.stop_keepalive()


async def test_a_pong_is_not_a_message_that_spares_the_next_ping() -> None:
    protocol, transport = open_protocol()
    protocol.send_keepalive_ping()
    assert protocol.pending_ping_payload is not None
    protocol.handle_pong(Frame(Opcode.PONG, protocol.pending_ping_payload))
    assert protocol.ping_timer is not None, "the next ping is scheduled on the pong"
    protocol.ping_timer.cancel()
    protocol.send_keepalive_ping()
    assert pings(transport) == 2
    protocol.stop_keepalive()


async def test_the_viewer_interval_applies_from_the_next_ping() -> None:
    protocol, _transport = open_protocol(interval=20.0)
    protocol.set_ping_interval(60.0)
    assert protocol.ping_interval == 60.0
    protocol.set_ping_interval(0)
    assert protocol.ping_interval == 60.0, "0: keep the interval it has"
    off, _ = open_protocol(interval=20.0)
    off.ping_interval = None  # keepalive turned off (ws_ping_interval_s=0)
    off.set_ping_interval(60.0)
    assert off.ping_interval is None, "stays off"


async def test_direct_frames_write_to_the_servers_protocol() -> None:
    protocol, _transport = open_protocol()
    scope = {SERVER_SEND: protocol.send}
    assert DirectFrames.for_scope(scope) is not None, "the writer steps in: send is uvicorn's"


def test_the_server_serves_websockets_with_the_keepalive_protocol() -> None:
    assert websocket_options(Settings())["ws"] is KeepaliveProtocol
    assert Settings().ws_viewer_ping_interval_s == 60.0


async def test_spectators_get_the_viewer_interval_and_seats_keep_theirs(
        monkeypatch: pytest.MonkeyPatch) -> None:
    given: list[float] = []
    monkeypatch.setattr(endpoint, "set_ping_interval",
                        lambda _scope, seconds: given.append(seconds))
    async with running_server(settings(ws_viewer_ping_interval_s=45.0)) as url:
        async with httpx.AsyncClient(base_url=url) as http:
            room = await create_room(http)
        seat = await Client.connect(url, room["room"], room["seats"]["A"]["token"])
        await seat.until(Snapshot)
        assert given == [], "a seat keeps ws_ping_interval_s"
        spectator = await Client.connect(url, room["room"])
        await spectator.until(Snapshot)
        assert given == [45.0]
        await spectator.ws.close()
        await seat.ws.close()


async def test_the_protocol_holds_the_lean_queue_and_flag() -> None:
    from server.transport.lean_sync import LeanEvent, LeanQueue

    protocol, _transport = open_protocol()
    assert isinstance(protocol.queue, LeanQueue)
    assert isinstance(protocol.writable, LeanEvent) and protocol.writable.is_set()
    protocol.stop_keepalive()
