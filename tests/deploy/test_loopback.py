"""The deploy topology on loopback (deploy/bin/loopback: redis-server, two ``python -m
server`` nodes, nginx): health of both nodes through nginx, a game over websockets through
nginx, and a SIGTERM of a node in the middle of a game: its players are sent away with
GOING_AWAY, reconnect through nginx, land on the other node and resume from their versions,
and every accepted command is in the room's Redis stream exactly once and in order."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import httpx
import pytest
from websockets.exceptions import ConnectionClosed

from protocol.constants import CloseCode
from protocol.messages import (
    Accepted,
    Command,
    Events,
    Rejected,
    Snapshot,
    WindowClosed,
    WindowOpen,
)
from server.store.redis_store import RedisRoomStore
from server.transport.endpoint import NODE_HEADER
from tests.cluster.test_restart import (
    ACTIVATE,
    MOVE,
    SHOOT_B,
    Room,
    assert_stored_exactly_once_in_order,
    create_room,
    received_events,
)
from tests.deploy.loopback import Topology, run_script, stop
from tests.server.wsclient import Client

pytestmark = [pytest.mark.redis, pytest.mark.slow, pytest.mark.deploy]

NODES = {"node-1", "node-2"}
CONNECT_ATTEMPTS = 6  # nginx alternates between the nodes; a few tries reach a given one


def node_of(client: Client) -> str:
    assert client.ws.response is not None
    return client.ws.response.headers[NODE_HEADER.decode()]


async def connect_to(topology: Topology, room: Room, side: str, node: str,
                     since: int | None = None) -> Client:
    """A seat connected THROUGH NGINX that landed on ``node``. nginx (one worker) alternates
    between the nodes, so a /healthz answered by the other node means the next connection
    goes to ``node``: the room is not opened on a node the test did not choose."""
    token = room.token_a if side == "A" else room.token_b
    async with httpx.AsyncClient() as http:
        for _attempt in range(CONNECT_ATTEMPTS):
            answered = (await http.get(f"{topology.url}/healthz")).json()["node"]
            if answered == node and _attempt < CONNECT_ATTEMPTS - 1:
                continue  # only ``node`` may be left: then connect anyway
            client = await Client.connect(topology.url, room.room_id, token, since)
            if node_of(client) == node:
                return client
            await client.close()
    raise AssertionError(f"nginx never sent seat {side} to {node}")


async def store_of(topology: Topology) -> AsyncIterator[RedisRoomStore]:
    store = RedisRoomStore.from_url(topology.redis_url)
    try:
        yield store
    finally:
        await store.close()


@pytest.fixture
async def shared_store(shared_topology: Topology) -> AsyncIterator[RedisRoomStore]:
    async for store in store_of(shared_topology):
        yield store


@pytest.fixture
async def own_store(own_topology: Topology) -> AsyncIterator[RedisRoomStore]:
    async for store in store_of(own_topology):
        yield store


async def test_status_and_both_nodes_healthy_through_nginx(shared_topology: Topology) -> None:
    status = run_script("status", "--run-dir", str(shared_topology.run_dir))
    assert status.returncode == 0, status.stdout + status.stderr
    async with httpx.AsyncClient() as http:
        answered = set()
        for _request in range(4):  # round robin over two nodes
            health = await http.get(f"{shared_topology.url}/healthz")
            assert health.status_code == 200 and health.json()["status"] == "ok"
            answered.add(health.json()["node"])
        assert answered == NODES
        for node in NODES:
            direct = await http.get(f"{shared_topology.node_url(node)}/healthz")
            assert direct.json()["node"] == node
        # The browser client and the lobby come through nginx too.
        page = await http.get(f"{shared_topology.url}/")
        assert page.status_code == 200 and "<html" in page.text.lower()


async def test_a_game_over_websockets_through_nginx(shared_topology: Topology,
                                                    shared_store: RedisRoomStore) -> None:
    room = await create_room(shared_store, aro_window_s=1.0)
    a = await connect_to(shared_topology, room, "A", "node-1")
    b = await connect_to(shared_topology, room, "B", "node-1")
    await a.until(Snapshot)
    await b.until(Snapshot)
    accepted = [await a.command(ACTIVATE), await a.command(MOVE)]
    assert all(isinstance(answer, Accepted) for answer in accepted)
    await b.until(WindowOpen)
    await b.until(WindowClosed)  # nobody declared: the node's clock closed it
    await a.until(Events, lambda m: any(e and e["type"] == "aro_window_closed"
                                        for e in m.events))
    accepted.append(await a.command(SHOOT_B))
    assert isinstance(accepted[-1], Accepted)
    await b.until(Events, lambda m: m.first + len(m.events) - 1 >= accepted[-1].version)

    seen_by_a = received_events(a)
    assert max(seen_by_a) == max(received_events(b)) == accepted[-1].version
    await assert_stored_exactly_once_in_order(
        shared_store, room, seen_by_a,
        [answer.version for answer in accepted if isinstance(answer, Accepted)])


async def test_sigterm_of_a_node_mid_game_sends_its_players_to_the_other_node(
        own_topology: Topology, own_store: RedisRoomStore) -> None:
    room = await create_room(own_store, aro_window_s=600.0)
    a = await connect_to(own_topology, room, "A", "node-1")
    b = await connect_to(own_topology, room, "B", "node-1")
    await a.until(Snapshot)
    await b.until(Snapshot)
    first = await a.command(ACTIVATE)
    assert isinstance(first, Accepted)
    await b.until(Events, lambda m: m.first + len(m.events) - 1 >= first.version)

    # A command is on its way when the node is told to stop: it is either stored and
    # answered before the close, or neither.
    await a.send(Command("racing", a.version, MOVE))
    own_topology.sigterm("node-1")
    racing: Accepted | Rejected | None = None
    with contextlib.suppress(ConnectionClosed):
        racing = await a.answer("racing")
    assert await a.close_code() == CloseCode.GOING_AWAY
    assert await b.close_code() == CloseCode.GOING_AWAY

    # Both reconnect through nginx: node-1 is gone, so they land on node-2 and resume.
    a2 = await connect_to(own_topology, room, "A", "node-2", since=a.version)
    b2 = await connect_to(own_topology, room, "B", "node-2", since=b.version)
    assert not a2.of(Snapshot) and not b2.of(Snapshot), "resumed from their versions"
    stored = await own_store.load_room(room.room_id)
    assert stored is not None
    accepted = [first.version]
    if isinstance(racing, Accepted):
        accepted.append(racing.version)
        assert stored.version == racing.version, "answered, so stored"
    else:
        assert stored.version == first.version, "not answered, so not applied"
        second = await a2.command(MOVE)
        assert isinstance(second, Accepted)
        accepted.append(second.version)
    await b2.until(WindowOpen)  # the game goes on on node-2

    seen_by_a = received_events(a, a2)
    assert max(seen_by_a) == accepted[-1] == max(received_events(b, b2))
    await assert_stored_exactly_once_in_order(own_store, room, seen_by_a, accepted)
    async with httpx.AsyncClient() as http:
        health = await http.get(f"{own_topology.url}/healthz")
    assert health.json()["node"] == "node-2", "nginx skips the stopped node"

    stop(own_topology)  # asserts that none of its processes is left (node-1 already gone)
    again = run_script("stop", "--run-dir", str(own_topology.run_dir))
    assert again.returncode == 0 and "nothing was running" in again.stdout

