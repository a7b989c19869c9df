"""The game's websocket goes from ``KeepServerSend`` straight to its endpoint, past
Starlette's exception middleware and router (``server/transport/direct_frames.py``); every
other request, and a websocket at another path, goes on through the app."""

from __future__ import annotations

from typing import Any

import httpx

from protocol.messages import Snapshot
from server.transport.direct_frames import SERVER_SEND, KeepServerSend
from testkit.serving import running_server
from testkit.wsclient import Client
from tests.helpers import create_room, settings


class Recording:
    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []
        self.kept: list[Any] = []  # the scope's SERVER_SEND while called

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        self.calls.append((scope["path"], send))
        self.kept.append(scope.get(SERVER_SEND))


async def _receive() -> Any:
    return {}


async def _send(message: Any) -> None:
    pass


async def test_the_websocket_path_goes_straight_to_its_endpoint() -> None:
    app, endpoint = Recording(), Recording()
    middleware = KeepServerSend(app, websocket_app=endpoint, websocket_path="/ws")
    scope = {"type": "websocket", "path": "/ws", "root_path": ""}
    await middleware(scope, _receive, _send)
    assert endpoint.calls == [("/ws", _send)], "the server's own send, past Starlette"
    assert endpoint.kept == [_send], "the server's send in the scope while the socket lives"
    assert SERVER_SEND not in scope, "and gone after (the protocol holds the scope: a cycle)"
    assert app.calls == []

    await middleware({"type": "websocket", "path": "/other", "root_path": ""}, _receive, _send)
    await middleware({"type": "http", "path": "/ws", "root_path": ""}, _receive, _send)
    assert [path for path, _ in app.calls] == ["/other", "/ws"], "the rest through the app"

    mounted = {"type": "websocket", "path": "/referee/ws", "root_path": "/referee"}
    await middleware(mounted, _receive, _send)
    assert len(endpoint.calls) == 2, "the path as routes see it (under a root_path)"


async def test_a_seat_and_a_spectator_play_through_the_short_route() -> None:
    async with running_server(settings()) as url:
        async with httpx.AsyncClient(base_url=url) as http:
            room = await create_room(http)
        seat = await Client.connect(url, room["room"], room["seats"]["A"]["token"])
        spectator = await Client.connect(url, room["room"])
        await seat.until(Snapshot)
        await spectator.until(Snapshot)
        await spectator.ws.close()
        await seat.ws.close()
