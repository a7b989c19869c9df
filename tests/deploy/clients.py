"""Websocket clients (testkit/wsclient.py) connected THROUGH the loopback nginx, and
the node each one landed on (the ``x-referee-node`` handshake header)."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx

from protocol.messages import Spectators
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
    choose. ``hello=False``: only the websocket, the test sends its hello."""
    async with httpx.AsyncClient() as http:
        for attempt in range(CONNECT_ATTEMPTS):
            answered = (await http.get(f"{topology.url}/healthz")).json()["node"]
            if answered == node and attempt < CONNECT_ATTEMPTS - 1:
                continue  # only ``node`` may be left: then connect anyway
            client = await Client.connect(topology.url, room.room_id, seat_token(room, seat),
                                          since, hello)
            if node_of(client) == node:
                return client
            await client.close()
    raise AssertionError(f"nginx never sent {seat or 'a spectator'} to {node}")


async def reconnect(topology: Topology, room: Room, seat: str | None, since: int,
                    expect_node: str) -> Client:
    """Reconnect through nginx from version ``since`` when only ``expect_node`` is up: nginx
    skips the dead or draining node (refused connection: retried on the other one)."""
    client = await Client.connect(topology.url, room.room_id, seat_token(room, seat), since)
    assert node_of(client) == expect_node
    return client


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
