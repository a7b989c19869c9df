"""The deploy topology on loopback (deploy/bin/loopback: redis-server, two ``python -m
server`` nodes, nginx): both nodes healthy through nginx; one room played through nginx
with its two players on different nodes and spectators on both (a counter-shooting ARO, a
window that times out): every viewer gets every event in order, the spectator count is right
everywhere, and the room's Redis stream holds every accepted command exactly once in order.
And the script's own housekeeping: a start that fails leaves nothing running."""

from __future__ import annotations

import socket
from pathlib import Path

import httpx
import pytest

from protocol.messages import (
    Accepted,
    Events,
    Snapshot,
)
from server.store.redis_store import RedisRoomStore
from tests.cluster.game import (
    ACTIVATE,
    COUNTER_SHOT,
    MOVE,
    SHOOT_B,
    assert_stored_exactly_once_in_order,
    close_window,
    create_room,
    received_events,
)
from tests.deploy.clients import (
    NODES,
    connect_to,
    created_through_nginx,
    lease_holder,
    listed_spectators,
    node_of,
    routed,
    spectators_known,
)
from tests.deploy.loopback import Topology, load_script, run_script
from tests.support.windows import closed, history, opened, until_closed

pytestmark = [pytest.mark.redis, pytest.mark.slow, pytest.mark.deploy]

# A-t5's second Order: B-t3 (alive after the first) may react again; nobody declares.
MOVE_ON = {"type": "declare_skill", "skill": {"type": "move", "route": [[22.5, 6], [22.5, 8]]}}


async def test_status_and_both_nodes_alive_ready_and_healthy_through_nginx(
        shared_topology: Topology) -> None:
    status = run_script("status", "--run-dir", str(shared_topology.run_dir))
    assert status.returncode == 0, status.stdout + status.stderr
    async with httpx.AsyncClient() as http:
        answered = set()
        for _request in range(4):  # round robin over two nodes
            health = await http.get(f"{shared_topology.url}/healthz")
            assert health.status_code == 200 and health.json()["status"] == "ok"
            answered.add(health.json()["node"])
        assert answered == set(NODES)
        for node in NODES:
            direct = await http.get(f"{shared_topology.node_url(node)}/healthz")
            assert direct.json()["node"] == node
            for path, status in (("/livez", "alive"), ("/readyz", "ready")):
                answer = await http.get(f"{shared_topology.node_url(node)}{path}")
                assert answer.status_code == 200, answer.text
                assert answer.json()["status"] == status and answer.json()["node"] == node
        # The browser client and the lobby come through nginx too.
        page = await http.get(f"{shared_topology.url}/")
        assert page.status_code == 200 and "<html" in page.text.lower()
        # Each node's metrics, on a listener of its own for the scraper; not on the game's
        # port, never through nginx.
        for node in NODES:
            metrics = await http.get(shared_topology.metrics_url(node))
            assert metrics.status_code == 200 and "\nreferee_rooms " in metrics.text
            game_port = await http.get(f"{shared_topology.node_url(node)}/metrics")
            assert game_port.status_code == 404
        for path in ("/metrics", "/metrics/", "/metrics?x=1", "//metrics", "/%6Detrics"):
            assert (await http.get(f"{shared_topology.url}{path}")).status_code == 403, path


async def test_players_on_different_nodes_and_spectators_on_both_through_nginx(
        shared_topology: Topology, shared_store: RedisRoomStore) -> None:
    topology = shared_topology
    room = await create_room(shared_store, aro_window_s=4.0, visibility="public")
    a = await connect_to(topology, room, "A", "node-1")  # first in: node-1 owns the room
    b = await connect_to(topology, room, "B", "node-2")  # relayed through the owner
    watch_1 = await connect_to(topology, room, None, "node-1")
    watch_2 = await connect_to(topology, room, None, "node-2")
    viewers = (a, b, watch_1, watch_2)
    for viewer in viewers:
        await viewer.until(Snapshot)
        await spectators_known(viewer, 2)
    async with httpx.AsyncClient() as http:
        rooms = {node: (await http.get(f"{topology.node_url(node)}/healthz")).json()["rooms"]
                 for node in NODES}
    assert rooms == {"node-1": 1, "node-2": 0}, "one owner; node-2 relays"
    for base in (topology.url, *(topology.node_url(node) for node in NODES)):
        assert await listed_spectators(base, room.room_id) == [2]

    accepted = [await a.command(ACTIVATE), await a.command(MOVE)]
    first = await opened(b)
    assert first["reactive"] == "B"
    accepted.append(await b.command(COUNTER_SHOT))  # B-t3 shoots back, through the relay
    accepted.append(await b.command(close_window(first)))  # B is done declaring
    await closed(a, first)
    accepted.append(await a.command(SHOOT_B))
    step_2 = await opened(b)  # the second skill's window: B has nothing to declare
    accepted.append(await b.command(close_window(step_2)))
    await closed(a, step_2)
    accepted += [await a.command(ACTIVATE), await a.command(MOVE_ON)]
    assert all(isinstance(answer, Accepted) for answer in accepted), accepted
    second = await opened(b)
    assert second["order"] == first["order"] + 1
    await closed(b, second)  # nobody declared
    timed_out = await a.until(Events, lambda m: any(
        e and e["type"] == "aro_window_closed" and e["order"] == second["order"]
        and e["reason"] == "deadline" for e in m.events))
    final = timed_out.first + len(timed_out.events) - 1
    for viewer in viewers:
        await until_closed(viewer, second)
        if viewer.version < final:
            await viewer.until(Events, lambda m: m.first + len(m.events) - 1 >= final)

    # Every viewer got every event once and in order (the client checks each frame's first
    # version against the one it holds), and the windows in the same order.
    seen_by_a = received_events(a)
    assert max(seen_by_a) == max(received_events(b)) == final
    assert received_events(watch_1) == received_events(watch_2), "one spectator view"
    assert max(received_events(watch_2)) == final
    for viewer in viewers:
        windows = [(1, 1), (1, 2), (2, 1)]
        assert history(viewer.of(Events)) == (windows, windows)
    await assert_stored_exactly_once_in_order(
        shared_store, room, seen_by_a, [answer.version for answer in accepted])

    await watch_2.close()  # a spectator leaves node-2: every viewer on both nodes is told
    for viewer in (a, b, watch_1):
        await spectators_known(viewer, 1)
    assert await listed_spectators(topology.url, room.room_id) == [1]


async def test_both_seats_of_a_room_created_through_nginx_are_on_the_node_that_owns_it(
        shared_topology: Topology, shared_store: RedisRoomStore) -> None:
    """nginx sends a room's sockets to one node by its id, and that node owns the room (not
    the node that served its creation): nothing is relayed."""
    topology = shared_topology
    relays_before = {node: await relays_opened(topology, node) for node in NODES}
    for attempt in range(20):  # until a room's node is not the one that created it
        if attempt % 2:
            # Every other room is created by the other node (a request more moves nginx's
            # round robin on): however the ring splits room ids between the two nodes, a
            # room soon lands on the node that did not create it.
            async with httpx.AsyncClient(base_url=topology.url) as http:
                await http.get("/healthz")
        creator, room = await created_through_nginx(topology)
        a = await routed(topology, room, "A")
        if node_of(a) != creator:
            break
        await a.close()
    else:
        raise AssertionError("every room was hashed to the node that created it")
    owner = node_of(a)
    b = await routed(topology, room, "B")
    watching = await routed(topology, room, None)
    assert node_of(b) == node_of(watching) == owner, "every socket of the room on one node"
    assert await lease_holder(shared_store, room.room_id) == owner
    assert {node: await relays_opened(topology, node) for node in NODES} == relays_before
    for viewer in (a, b, watching):
        await viewer.close()


async def relays_opened(topology: Topology, node: str) -> float:
    async with httpx.AsyncClient() as http:
        metrics = (await http.get(topology.metrics_url(node))).text
    line = next(line for line in metrics.splitlines()
                if line.startswith("referee_relays_opened_total "))
    return float(line.split()[1])


def refused(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) != 0


async def test_nginx_refuses_a_burst_of_creations_from_one_address_before_the_nodes(
        own_topology: Topology) -> None:
    """30 room creations at once from one client: nginx lets its burst of 10 (and what its
    1/s refills meanwhile) through to the nodes and answers the rest 429 itself (an HTML
    page: the nodes' own refusals are JSON). Lists (GETs) are not limited."""
    import asyncio

    async with httpx.AsyncClient(base_url=own_topology.url) as http:
        answers = await asyncio.gather(*(http.post("/api/rooms", json={"ruleset": "n5"})
                                         for _ in range(30)))
        by_nginx = [a for a in answers if a.status_code == 429
                    and a.headers.get("content-type", "").startswith("text/html")]
        assert len(by_nginx) >= 30 - 10 - 19, [a.status_code for a in answers]
        assert by_nginx, "nginx refused some itself"
        for _ in range(20):
            assert (await http.get("/api/rooms")).status_code == 200


def test_a_start_that_fails_leaves_nothing_running(tmp_path: Path) -> None:
    """node-2 cannot listen (its port is taken) once Redis and node-1 are up: start fails
    and stops what it had started."""
    script = load_script()
    chosen: list[int] = []
    for _ in range(3):
        chosen.append(script.free_port(chosen))
    redis_port, node_1, port = chosen
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        node_2 = taken.getsockname()[1]
        started = run_script("start", "--run-dir", str(tmp_path), "--port", str(port),
                             "--redis-port", str(redis_port), "--node-ports", f"{node_1},{node_2}")
    assert started.returncode == 1 and "node-2" in started.stderr, started.stderr
    assert (tmp_path / "node-1.log").exists(), "node-1 had been started"
    assert all(refused(p) for p in (redis_port, node_1, node_2, port)), "nothing listens"
    assert not (tmp_path / "topology.json").exists()
    assert "nothing was running" in run_script("stop", "--run-dir", str(tmp_path)).stdout


def test_a_free_port_is_never_one_already_chosen(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ports are picked before anything binds them: a pick that repeats an earlier one is
    drawn again (two parts were once handed the same port and the second failed to start)."""
    script = load_script()
    draws = iter([20_001, 20_001, 20_002])
    monkeypatch.setattr(script.random, "randrange", lambda low, high: next(draws))
    assert script.free_port([20_001]) == 20_002
