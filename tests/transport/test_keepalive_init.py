"""``KeepaliveProtocol.__init__`` writes uvicorn's ``WebSocketsSansIOProtocol.__init__`` out
(without the asyncio.Queue and Event that were built only to be replaced): a protocol made by
it has every attribute uvicorn's has, with the same values, but for the lean queue and
writable flag (its source is pinned in ``test_library_pins.py``); made for a request parsed
already, its websockets protocol is still in the handshake (CONNECTING)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from uvicorn.config import Config
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from uvicorn.server import ServerState

from server.transport.keepalive import KeepaliveProtocol
from server.transport.lean_sync import LeanEvent, LeanQueue

LEAN = {"queue", "writable"}
MADE_PER_SOCKET = {"conn"}


async def app(scope: Any, receive: Any, send: Any) -> None:
    raise AssertionError("not called")


def comparable(value: Any) -> Any:
    """An attribute's value, or for an object made per protocol its type and attributes."""
    if isinstance(value, list):
        return [comparable(v) for v in value]
    if hasattr(value, "__dict__") and not isinstance(value, type) and not callable(value):
        return type(value), {k: comparable(v) for k, v in vars(value).items()}
    return value


@pytest.mark.parametrize("request_parsed", [False, True])
@pytest.mark.parametrize("deflate", [False, True])
def test_the_protocol_has_uvicorns_attributes_with_uvicorns_values(
        deflate: bool, request_parsed: bool) -> None:
    config = Config(app, ws="websockets-sansio", ws_max_size=123_456, ws_ping_interval=7.0,
                    ws_ping_timeout=3.0, ws_per_message_deflate=deflate, root_path="/r")
    config.load()
    state = ServerState()
    loop = asyncio.new_event_loop()
    try:
        ours = KeepaliveProtocol(config=config, server_state=state, app_state={"a": 1},
                                 _loop=loop, request_parsed=request_parsed)
        theirs = WebSocketsSansIOProtocol(config=config, server_state=state,
                                          app_state={"a": 1}, _loop=loop)
    finally:
        loop.close()
    assert set(vars(ours)) == set(vars(theirs))
    for name in set(vars(theirs)) - LEAN - MADE_PER_SOCKET:
        assert getattr(ours, name) == getattr(theirs, name), name
    assert isinstance(ours.queue, LeanQueue) and ours.queue.empty()
    assert isinstance(ours.writable, LeanEvent) and ours.writable.is_set()
    # websockets' protocol: the same settings; its id, parser coroutine and buffers are
    # its own
    own = {"id", "parser", "reader", "events", "writes"}
    ours_conn = {k: v for k, v in vars(ours.conn).items() if k not in own}
    theirs_conn = {k: v for k, v in vars(theirs.conn).items() if k not in own}
    assert set(vars(ours.conn)) == set(vars(theirs.conn))
    assert {k: comparable(v) for k, v in ours_conn.items()} == \
        {k: comparable(v) for k, v in theirs_conn.items()}


def test_no_asyncio_queue_or_event_is_built_for_a_socket(monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    import uvicorn.protocols.websockets.websockets_sansio_impl as sansio

    built: list[str] = []

    class Counted:
        def __init__(self, name: str) -> None:
            self.name = name

        def __call__(self, *args: Any, **kwargs: Any) -> Any:
            built.append(self.name)
            return getattr(asyncio, self.name)(*args, **kwargs)
    counting = type("asyncio", (), {"Queue": Counted("Queue"), "Event": Counted("Event"),
                                    "get_event_loop": staticmethod(asyncio.get_event_loop)})
    monkeypatch.setattr(sansio, "asyncio", counting)
    config = Config(app, ws="websockets-sansio")
    config.load()
    loop = asyncio.new_event_loop()
    try:
        KeepaliveProtocol(config=config, server_state=ServerState(), app_state={}, _loop=loop)
        WebSocketsSansIOProtocol(config=config, server_state=ServerState(), app_state={},
                                 _loop=loop)
    finally:
        loop.close()
    assert built == ["Queue", "Event"]  # uvicorn's own protocol's only
