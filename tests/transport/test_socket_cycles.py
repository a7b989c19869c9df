"""A closed websocket's server-side objects are freed by reference counting as it closes, not
left in reference cycles for the garbage collector.

Every socket held three such cycles (its upgraded HTTP protocol and that protocol's parser;
its websocket protocol, the ASGI scope and the protocol's ``send`` kept in it; its session,
send queue and snapshot maker): ~100 objects a socket that only a collection freed. A node
freezes a crowd's sockets (``server/node/crowd_gc.py``), so when 6,000 spectators left, the
collection that freed them walked 740,000 objects and every room of the node waited 1.9 s.

Each case runs a real uvicorn server with the app in this process and the collector off,
closes its sockets in one way, waits until the server holds no connection and no ASGI task,
finds every closed connection's protocol freed (``server.transport.live_connections``, what
a node counts when a crowd left), then finds none of a server socket's objects among those
still alive: with no collection, only reference counting freed them. (Not a collection's
leftovers in ``gc.garbage``: a cycle through a suspended generator is broken by the
generator's finalizer during the collection and never shows there, which is how websockets'
``ServerProtocol`` and its parser went unnoticed, ~1.3 KB kept for good for every socket a
crowd's freeze had put out of the collector's reach.) The same holds for sockets relayed to
their room's node: two nodes in this process on the session's Redis, every socket joining
through the one that does not run the room.
"""

from __future__ import annotations

import asyncio
import gc
import socket
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

import httpx
import msgpack
import pytest
import uvicorn
from starlette.applications import Starlette
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed
from websockets.server import ServerProtocol

from protocol import codec
from protocol.constants import PROTOCOL_VERSION, WS_PATH
from protocol.messages import Hello
from server.app import create_app
from server.cluster.node import ClusterNode
from server.cluster.owner import OwnerPort, RemoteMember
from server.cluster.relay import Relayed
from server.cluster.renewal import connect_sync
from server.config import Settings
from server.store.redis_store import RedisRoomStore
from server.transport import live_connections
from server.transport.direct_frames import DirectFrames
from server.transport.http_timeouts import TimedHttpProtocol
from server.transport.keepalive import KeepaliveProtocol
from server.transport.send_queue import SendQueue
from server.transport.session import Session
from server.transport.uvicorn_options import websocket_options
from testkit.redis_process import RedisProcess
from tests.helpers import create_room, settings

SOCKETS = 6
SERVER_SIDE = (TimedHttpProtocol, KeepaliveProtocol, ServerProtocol, Session, SendQueue,
               DirectFrames, Relayed, RemoteMember)
"""A server socket's objects, each of which a cycle used to hold (and, for a socket on
another node than its room's, the relay's record of it and the owner's stand-in for it)."""


@asynccontextmanager
async def served(node: Settings | None = None, app: Starlette | None = None
                 ) -> AsyncIterator[tuple[str, uvicorn.Server]]:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    node = node or settings()
    config = uvicorn.Config(app or create_app(node), lifespan="on", log_level="warning",
                            **websocket_options(node))  # type: ignore[arg-type]
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}", server
    finally:
        server.should_exit = True
        await task
        sock.close()


async def settled(server: uvicorn.Server) -> None:
    """Until the server holds no connection and runs no ASGI task: every socket closed on
    both sides. Bounded by loop turns (each polls the sockets), not by time."""
    state = server.server_state
    for _ in range(100_000):
        if not state.connections and not state.tasks:
            return
        await asyncio.sleep(0)
    raise AssertionError(f"still held: {len(state.connections)} connections, "
                         f"{len(state.tasks)} tasks")


async def freed(unfreed: Callable[[], int]) -> None:
    """Until no closed connection's protocol is alive: the rooms let go of their viewers as
    they handle their leaves, a few loop turns after the sockets closed. Bounded by loop
    turns, not by time."""
    for _ in range(100_000):
        if unfreed() == 0:
            return
        await asyncio.sleep(0)
    raise AssertionError(f"{unfreed()} closed connections' protocols still alive")


async def let_go(ports: list[OwnerPort]) -> None:
    """Until the owner's rooms let go of every relayed viewer: a relay's leave reaches the
    owner over Redis, and its room handles it in its inbox. Bounded by loop turns, not by
    time."""
    for _ in range(100_000):
        if not any(port.relaying() or len(port.room.inbox) for port in ports):
            return
        await asyncio.sleep(0)
    raise AssertionError("the owner's rooms still hold relayed viewers")


def server_side(things: list[Any]) -> list[str]:
    """The kinds of a server socket's objects among ``things``."""
    return sorted({type(thing).__name__ for thing in things if _is_server_side(thing)})


def _is_server_side(thing: object) -> bool:
    # By type, not isinstance: a dead weak proxy among the heap's objects raises on that.
    return issubclass(type(thing), SERVER_SIDE)


@contextmanager
def left_alive(watched: Callable[[object], bool] = _is_server_side) -> Iterator[list[Any]]:
    """Collect first, then turn the collector off: the list the block gets is filled, when
    the block ends, with the ``watched`` objects (by default a server socket's) made in it
    and still alive. Reference counting frees an object as its last reference goes; one in
    a reference cycle stays."""
    gc.collect()
    before = {id(thing) for thing in gc.get_objects() if watched(thing)}
    found: list[Any] = []
    gc.disable()
    try:
        yield found
        found.extend(thing for thing in gc.get_objects()
                     if id(thing) not in before and watched(thing))
    finally:
        gc.enable()


async def joined(url: str, hello: Hello) -> ClientConnection:
    ws = await connect(url, ping_interval=None, compression=None, proxy=None)
    await ws.send(codec.encode(hello))
    while msgpack.unpackb(await ws.recv())["type"] != "welcome":
        pass
    return ws


async def closed(ws: ClientConnection) -> None:
    await ws.close()


async def aborted(ws: ClientConnection) -> None:
    """The connection drops with no close frame: a client that vanished."""
    ws.transport.abort()


Ending = Callable[[ClientConnection], Awaitable[None]]


async def room_joined(created_at: str, joined_at: str) -> list[ClientConnection]:
    """A room made through server ``created_at``, its two seats and its spectators joined
    through server ``joined_at``."""
    async with httpx.AsyncClient(base_url=created_at) as http:
        room = await create_room(http)
    url = "ws" + joined_at.removeprefix("http") + WS_PATH + f"?room={room['room']}"
    tokens = [room["seats"]["A"]["token"], room["seats"]["B"]["token"]]
    tokens += [None] * (SOCKETS - 2)
    return [await joined(url, Hello(PROTOCOL_VERSION, room["room"], token, 0))
            for token in tokens]


async def seats_and_spectators(base: str, end: Ending) -> None:
    for ws in await room_joined(base, base):
        await end(ws)


async def refused(base: str, _end: Ending) -> None:
    """Sockets whose first frame is not a hello: refused and closed by the server."""
    async with httpx.AsyncClient(base_url=base) as http:
        room = await create_room(http)
    url = "ws" + base.removeprefix("http") + WS_PATH + f"?room={room['room']}"
    for _ in range(SOCKETS):
        ws = await connect(url, ping_interval=None, compression=None, proxy=None)
        await ws.send(b"\x01not a hello")
        with pytest.raises(ConnectionClosed) as closing:  # an error frame, then the close
            while True:
                await ws.recv()
        assert closing.value.rcvd is not None and closing.value.rcvd.code == 4002


@pytest.mark.parametrize(("play", "end"), [
    (seats_and_spectators, closed),
    (seats_and_spectators, aborted),
    (refused, closed),
], ids=["closed", "dropped", "refused"])
async def test_a_closed_socket_leaves_no_cycle_for_the_collector(play: Any, end: Ending) -> None:
    async with served() as (base, server):
        with left_alive() as alive:
            await play(base, end)
            await settled(server)
            # What a node counts when a crowd left (server/node/crowd_gc.py): every closed
            # connection's protocol freed once its room has seen it leave.
            await freed(live_connections.unfreed)
        assert server_side(alive) == [], "left for the collector"


@asynccontextmanager
async def cluster_node(redis_url: str, node_id: str
                       ) -> AsyncIterator[tuple[str, uvicorn.Server]]:
    """A node of a cluster on ``redis_url``, in this process."""
    node = settings(lease_s=5.0, lease_renew_s=1.0)
    store = RedisRoomStore.from_url(redis_url)
    cluster = ClusterNode(store.client, node_id, node, connect_sync(store.url, node.lease_s))
    try:
        async with served(node, create_app(node, store=store, cluster=cluster)) as serving:
            yield serving
    finally:
        await store.close()


@pytest.mark.parametrize("end", [closed, aborted], ids=["closed", "dropped"])
async def test_a_socket_relayed_to_its_rooms_node_leaves_no_cycle_either(
        redis_server: RedisProcess, end: Ending) -> None:
    """Every socket of a room joins through another node than the room's own: each is
    relayed (the relay's ``Relayed`` on its node, a ``RemoteMember`` on the owner; the
    spectators greeted from a crowd kit), and its objects go as it closes all the same."""
    async with (cluster_node(redis_server.url, "cycles-owner") as (owner, owning),
                cluster_node(redis_server.url, "cycles-relay") as (relay, relaying)):
        with left_alive() as alive:
            sockets = await room_joined(owner, relay)
            relayed = sum(1 for found in gc.get_objects() if type(found) is Relayed)
            assert relayed == SOCKETS, "every socket went through a relay"
            for ws in sockets:
                await end(ws)
            del sockets
            await settled(relaying)
            await settled(owning)
            await freed(live_connections.unfreed)
            await let_go([found for found in gc.get_objects() if type(found) is OwnerPort])
        assert server_side(alive) == [], "left for the collector"
