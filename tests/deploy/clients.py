"""Websocket clients (testkit/wsclient.py) connected THROUGH the loopback nginx, and
the node each one landed on (the ``x-referee-node`` handshake header).

nginx sends a socket that names its room (``?room=``, as the browser client does) to the
room's node by a hash of its id; ``connect_to`` places clients on a node of the test's
choosing the way a client that names its room only in its hello is placed (round robin),
so a room's viewers can be spread over both nodes and relayed."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
from websockets.exceptions import ConnectionClosed

from protocol.constants import CloseCode
from protocol.messages import Spectators
from server.cluster.lease import lease_key
from server.store.redis_store import RedisRoomStore
from server.transport.endpoint import NODE_HEADER
from testkit.wsclient import Client
from tests.cluster.game import Room
from tests.deploy.loopback import Topology

NODES = ("node-1", "node-2")
CONNECT_ATTEMPTS = 6  # nginx alternates between the nodes; a few tries reach a given one


def node_of(client: Client) -> str:
    assert client.ws.response is not None
    return client.ws.response.headers[NODE_HEADER.decode()]


def seat_token(room: Room, seat: str | None) -> str | None:
    """Seat "A" or "B"'s token; None: a spectator."""
    return None if seat is None else room.token_a if seat == "A" else room.token_b


async def connect_to(topology: Topology, room: Room, seat: str | None, node: str,
                     since: int | None = None, hello: bool = True) -> Client:
    """A seat (None: a spectator) connected through nginx that landed on ``node``. nginx (one
    worker) alternates between the nodes, so a /healthz answered by the other node means the
    next connection goes to ``node``: the room is not opened on a node the test did not
    choose (the socket does not name its room: nginx's round robin places it).
    ``hello=False``: only the websocket, the test sends its hello."""
    async with httpx.AsyncClient() as http:
        for attempt in range(CONNECT_ATTEMPTS):
            answered = (await http.get(f"{topology.url}/healthz")).json()["node"]
            if answered == node and attempt < CONNECT_ATTEMPTS - 1:
                continue  # only ``node`` may be left: then connect anyway
            client = await Client.connect(topology.url, room.room_id, seat_token(room, seat),
                                          since, hello, name_room=False)
            if node_of(client) == node:
                return client
            await client.close()
    raise AssertionError(f"nginx never sent {seat or 'a spectator'} to {node}")


async def reconnect(topology: Topology, room: Room, seat: str | None, since: int,
                    expect_node: str) -> Client:
    """Reconnect through nginx from version ``since`` when only ``expect_node`` is up: nginx
    skips the dead or draining node (refused connection: retried on the other one), also
    when the room's hash names it. A close with ROOM_UNAVAILABLE (4011) before the welcome
    is the protocol's "reconnect" (the room changed hands as this socket joined): connected
    again, as the browser client does."""
    for attempt in range(CONNECT_ATTEMPTS):
        try:
            client = await Client.connect(topology.url, room.room_id, seat_token(room, seat), since)
        except ConnectionClosed as closed:
            if closed.rcvd is None or closed.rcvd.code != CloseCode.ROOM_UNAVAILABLE \
                    or attempt == CONNECT_ATTEMPTS - 1:
                raise
            continue
        assert node_of(client) == expect_node
        return client
    raise AssertionError("unreachable")


async def created_through_nginx(topology: Topology) -> tuple[str, Room]:
    """A room created by POST /api/rooms through nginx, and the node that served it: nginx
    (one worker) sends requests without a room round robin, so the node after the one that
    answers a /healthz serves the creation."""
    async with httpx.AsyncClient(base_url=topology.url) as http:
        answered = (await http.get("/healthz")).json()["node"]
        created = await http.post("/api/rooms", json={"ruleset": "n5"})
    assert created.status_code == 201, created.text
    body = created.json()
    creator = next(node for node in NODES if node != answered)
    return creator, Room(body["room"], body["seats"]["A"]["token"], body["seats"]["B"]["token"])


async def routed(topology: Topology, room: Room, seat: str | None,
                 since: int | None = None) -> Client:
    """A seat (None: a spectator) connected through nginx as the browser client connects:
    its URL names the room, so nginx sends it to the room's node (or, that one down, the
    next). A room that moves meanwhile (its new node waits for the old owner's lease to
    lapse, then takes it over) closes the socket with 4011, as it does the browser client's,
    which connects again: so does this."""
    for _attempt in range(3):
        try:
            return await Client.connect(topology.url, room.room_id, seat_token(room, seat),
                                        since)
        except ConnectionClosed as closed:
            assert closed.rcvd is not None and closed.rcvd.code == CloseCode.ROOM_UNAVAILABLE
    raise AssertionError(f"{seat or 'a spectator'} never joined {room.room_id}")


async def lease_holder(store: RedisRoomStore, room_id: str) -> str | None:
    """The node holding the room's lease (its owner), from Redis."""
    holder = await store.client.get(lease_key(room_id))
    return holder.decode() if isinstance(holder, bytes) else holder


async def spectators_known(client: Client, count: int) -> None:
    """Until ``client`` has been told that ``count`` spectators watch."""
    assert client.welcome is not None
    told = [client.welcome.spectators, *(m.count for m in client.of(Spectators))]
    if told[-1] != count:
        await client.until(Spectators, lambda m: m.count == count)


async def listed_spectators(base: str, room_id: str) -> list[int]:
    async with httpx.AsyncClient() as http:
        listing = (await http.get(f"{base}/api/rooms")).json()
    return [r["spectators"] for r in listing["rooms"] if r["room"] == room_id]


READINESS_GUARD_S = 60.0  # a node probes its store every second; only against a hang


async def readiness_turns(topology: Topology, node: str, status: int) -> dict[str, Any]:
    """``node``'s /readyz once it answers ``status`` (it changes by itself, when the
    node's write probe sees its Redis go or come back: polled, within a bounded time)."""
    deadline = asyncio.get_running_loop().time() + READINESS_GUARD_S
    async with httpx.AsyncClient() as http:
        while True:
            answer = await http.get(f"{topology.node_url(node)}/readyz")
            if answer.status_code == status:
                body: dict[str, Any] = answer.json()
                return body
            assert asyncio.get_running_loop().time() < deadline, answer.text
            await asyncio.sleep(0.05)
