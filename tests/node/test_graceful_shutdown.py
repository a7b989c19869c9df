"""Graceful shutdown (server/node/shutdown.py): on SIGTERM a node stops accepting, lets a command
already in flight be stored and answered, closes its websockets with GOING_AWAY, refuses new
handshakes with GOING_AWAY, answers /healthz 503, and stops within its time budget even when
a socket never goes away. In-process uvicorn (``GracefulServer``) with a store whose write
can be held open, so "in flight" is a fact, not a race."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
import uvicorn
from starlette.applications import Starlette

from protocol.constants import PROTOCOL_VERSION, CloseCode
from protocol.messages import Accepted, Command, Hello, Snapshot
from server.app import create_app
from server.node.shutdown import GracefulServer, close_within
from server.rooms.registry import RoomRegistry
from server.store import MemoryRoomStore
from server.transport.endpoint import NODE_HEADER
from server.transport.uvicorn_options import websocket_options
from testkit.wsclient import Client
from tests.doubles.fake_engine import FakeEngine
from tests.helpers import create_room, settings

NODE = "node-under-test"
ACT = {"type": "act", "value": 1}


class HeldStore(MemoryRoomStore):
    """Holds ``append`` open once ``hold`` is set, until ``release`` is set."""

    def __init__(self) -> None:
        super().__init__()
        self.hold = False
        self.entered = asyncio.Event()
        self.release = asyncio.Event()

    async def append(self, room_id: str, **kwargs: Any) -> int:
        if self.hold:
            self.entered.set()
            await self.release.wait()
        return await super().append(room_id, **kwargs)


@dataclass
class Node:
    base: str
    app: Starlette
    store: HeldStore
    server: GracefulServer
    serving: asyncio.Task[None]
    draining: asyncio.Event  # set once the registry's shutdown has begun

    @property
    def registry(self) -> RoomRegistry:
        registry: RoomRegistry = self.app.state.registry
        return registry

    def sigterm(self) -> None:
        """What uvicorn's SIGTERM handler does."""
        self.server.should_exit = True


@pytest.fixture
async def node_factory() -> AsyncIterator[Callable[..., Awaitable[Node]]]:
    nodes: list[Node] = []

    async def start(**overrides: Any) -> Node:
        store = HeldStore()
        app_settings = settings(node_id=NODE, **overrides)
        app = create_app(app_settings, engine=FakeEngine(), store=store)
        draining = asyncio.Event()
        registry: RoomRegistry = app.state.registry
        shutdown = registry.shutdown

        async def observed_shutdown() -> None:
            draining.set()
            await shutdown()

        registry.shutdown = observed_shutdown  # type: ignore[method-assign]
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", 0))
        sock.listen(128)
        config = uvicorn.Config(app, lifespan="on", log_level="warning",
                                **websocket_options(app_settings))  # type: ignore[arg-type]
        server = GracefulServer(config, app, app_settings.shutdown_timeout_s)
        serving = asyncio.create_task(server.serve(sockets=[sock]))
        node = Node(f"http://127.0.0.1:{sock.getsockname()[1]}", app, store, server, serving,
                    draining)
        nodes.append(node)
        return node

    yield start
    for node in nodes:
        node.server.should_exit = True
        node.store.release.set()
        await node.serving


async def seat_a(node: Node, http: httpx.AsyncClient) -> Client:
    room = await create_room(http)
    client = await Client.connect(node.base, room["room"], room["seats"]["A"]["token"])
    await client.until(Snapshot)
    return client


async def test_a_command_in_flight_is_stored_and_answered_before_the_going_away_close(
        node_factory: Callable[..., Awaitable[Node]]) -> None:
    node = await node_factory()
    async with httpx.AsyncClient(base_url=node.base) as http:
        a = await seat_a(node, http)
        assert a.ws.response is not None
        assert a.ws.response.headers[NODE_HEADER.decode()] == NODE

        node.store.hold = True
        await a.send(Command("in-flight", a.version, ACT))
        await node.store.entered.wait()  # the room is writing the command's events
        node.sigterm()
        await node.draining.wait()  # the shutdown waits for the room...
        assert not node.serving.done()
        node.store.release.set()  # ...which finishes its write

        answer = await a.answer("in-flight")
        assert isinstance(answer, Accepted) and answer.version == 1
        stored = await node.store.load_room(a.welcome.room if a.welcome else "")
        assert stored is not None and stored.version == 1
        assert await a.close_code() == CloseCode.GOING_AWAY
        await node.serving


async def test_while_draining_healthz_is_503_and_a_new_hello_is_sent_away(
        node_factory: Callable[..., Awaitable[Node]]) -> None:
    node = await node_factory()
    async with httpx.AsyncClient(base_url=node.base) as http:
        a = await seat_a(node, http)
        room = a.welcome.room if a.welcome else ""
        # Connected before the shutdown; its hello comes during it.
        late = await Client.connect(node.base, room, hello=False)
        node.store.hold = True
        await a.send(Command("held", a.version, ACT))
        await node.store.entered.wait()
        node.sigterm()
        await node.draining.wait()

        health = await http.get("/healthz")  # a kept-alive connection still answers
        assert health.status_code == 503 and health.json()["node"] == NODE
        await late.send(Hello(PROTOCOL_VERSION, room, None, None))
        assert await late.close_code() == CloseCode.GOING_AWAY
        assert not late.frames, "no error frame: nothing was wrong with the request"

        node.store.release.set()
        assert await a.close_code() == CloseCode.GOING_AWAY
        await node.serving


async def test_the_shutdown_ends_within_its_budget_even_if_a_socket_never_leaves(
        node_factory: Callable[..., Awaitable[Node]]) -> None:
    # A socket that never says hello would hold the drain for the whole handshake timeout.
    node = await node_factory(handshake_timeout_s=600.0, shutdown_timeout_s=0.2)
    silent = await Client.connect(node.base, "no-room", hello=False)
    node.sigterm()
    await node.serving  # returns: the budget ran out and uvicorn closed the rest
    assert await silent.close_code() is not None


async def test_a_storage_close_that_never_ends_is_left_behind_and_logged(
        caplog: pytest.LogCaptureFixture) -> None:
    never = asyncio.get_running_loop().create_future()  # a wait_closed that never ends
    await close_within(never, "the room store", seconds=0.01)
    assert never.cancelled(), "not waited for any more"
    assert "the room store did not close within" in caplog.text


async def test_a_storage_close_that_ends_is_awaited(caplog: pytest.LogCaptureFixture) -> None:
    closed: list[str] = []

    async def close() -> None:
        closed.append("closed")

    await close_within(close(), "the room store")
    assert closed == ["closed"] and "did not close" not in caplog.text
