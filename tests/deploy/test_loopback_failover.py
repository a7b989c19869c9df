"""Failures under the loopback topology (deploy/bin/loopback: redis-server, two nodes,
nginx), the players of one room on different nodes and spectators on both, every client
going through nginx, reconnecting through nginx and resuming from its version:

- ``kill -9`` of the node owning the room during an open ARO window: the surviving node
  takes the room over, the window closes at its original deadline, the game goes on;
- SIGTERM of the owning node mid-game, with a command in flight: it releases its leases at
  once, its clients are sent away with GOING_AWAY and resume on the other node;
- a Redis restart (append-only file on): commands meanwhile are ``storage_unavailable``,
  the game goes on afterwards.

- ``kill -9`` of the node a room's sockets are routed to (nginx hashes the room id): they
  move to the other node, which takes the room over and serves it.

Each checks that the room's Redis stream holds every accepted command's events exactly once
and in order, as every seat saw them."""

from __future__ import annotations

import contextlib

import httpx
import pytest
from websockets.exceptions import ConnectionClosed

from protocol.constants import PROTOCOL_VERSION, CloseCode, ProtocolReason
from protocol.messages import (
    Accepted,
    Command,
    Error,
    Events,
    Hello,
    Rejected,
    Snapshot,
)
from server.rooms.room import now_ms
from server.store.redis_store import RedisRoomStore
from testkit.wsclient import Client
from tests.cluster.game import (
    ACTIVATE,
    MOVE,
    SHOOT_B,
    Room,
    assert_stored_exactly_once_in_order,
    command_once_storage_is_back,
    create_room,
    received_events,
)
from tests.deploy.clients import (
    NODES,
    connect_to,
    lease_holder,
    listed_spectators,
    node_of,
    readiness_turns,
    reconnect,
    routed,
    spectators_known,
)
from tests.deploy.loopback import Topology, load_script, stop
from tests.support.windows import closed, open_now, opened

pytestmark = [pytest.mark.redis, pytest.mark.slow, pytest.mark.deploy]



async def spread(topology: Topology, room: Room) -> tuple[Client, Client, Client, Client]:
    """A and a spectator on node-1 (A first: node-1 owns the room), B and a spectator on
    node-2 (relayed), each past its first snapshot."""
    a = await connect_to(topology, room, "A", "node-1")
    watch_1 = await connect_to(topology, room, None, "node-1")
    b = await connect_to(topology, room, "B", "node-2")
    watch_2 = await connect_to(topology, room, None, "node-2")
    for viewer in (a, watch_1, b, watch_2):
        await viewer.until(Snapshot)
    return a, watch_1, b, watch_2


async def rooms_on(topology: Topology, node: str) -> int:
    async with httpx.AsyncClient() as http:
        health = (await http.get(f"{topology.node_url(node)}/healthz")).json()
    assert health["node"] == node
    return int(health["rooms"])


async def caught_up(viewers: tuple[Client, ...], version: int) -> None:
    for viewer in viewers:
        if viewer.version < version:
            await viewer.until(Events, lambda m: m.first + len(m.events) - 1 >= version)


async def test_kill_9_of_the_owner_during_an_aro_window(
        own_topology: Topology, own_store: RedisRoomStore) -> None:
    topology = own_topology
    room = await create_room(own_store, aro_window_s=6.0, visibility="public")
    a, watch_1, b, watch_2 = await spread(topology, room)
    before_ms = now_ms()  # (the window opens after this)
    accepted = [await a.command(ACTIVATE), await a.command(MOVE)]
    assert all(isinstance(answer, Accepted) for answer in accepted)
    window = await opened(b)
    await opened(watch_2)

    topology.kill("node-1")
    # nginx drops the dead node's websockets; node-2 sees the lease expire, takes the room
    # over and sends its own viewers to reconnect.
    await a.close_code()
    await watch_1.close_code()
    assert await b.close_code() == CloseCode.ROOM_UNAVAILABLE
    assert await watch_2.close_code() == CloseCode.ROOM_UNAVAILABLE
    a2 = await reconnect(topology, room, "A", a.version, "node-2")
    watch_12 = await reconnect(topology, room, None, watch_1.version, "node-2")
    b2 = await reconnect(topology, room, "B", b.version, "node-2")
    watch_22 = await reconnect(topology, room, None, watch_2.version, "node-2")
    again = (a2, watch_12, b2, watch_22)
    assert await rooms_on(topology, "node-2") == 1

    reopened = await opened(b2)  # with the catch-up (no events were missed)
    # The original absolute deadline, with the time nobody ran the room added (from node-1's
    # last stamp, no earlier than the window opened, to node-2's load of the room).
    assert 0 < reopened["deadline_ms"] - window["deadline_ms"] <= now_ms() - before_ms
    closing = await closed(b2, window)  # nobody declared: node-2's clock closed it
    assert [e and e["type"] for e in closing.events] == ["aro_window_closed"]
    await a2.until(Events, lambda m: any(e and e["type"] == "aro_window_closed"
                                         for e in m.events))
    third = await a2.command(SHOOT_B)
    assert isinstance(third, Accepted), "the game goes on on node-2"
    await caught_up(again, third.version)
    assert not any(viewer.of(Snapshot) for viewer in again), "resumed from their versions"

    seen_by_a = received_events(a, a2)
    assert max(seen_by_a) == third.version == max(received_events(b, b2))
    assert received_events(watch_1, watch_12) == received_events(watch_2, watch_22)
    await assert_stored_exactly_once_in_order(
        own_store, room, seen_by_a, [*(answer.version for answer in accepted), third.version])


async def test_sigterm_of_the_owner_mid_game_sends_everyone_to_the_other_node(
        own_topology: Topology, own_store: RedisRoomStore) -> None:
    topology = own_topology
    room = await create_room(own_store, aro_window_s=600.0, visibility="public")
    a, watch_1, b, watch_2 = await spread(topology, room)
    first = await a.command(ACTIVATE)
    assert isinstance(first, Accepted)
    await caught_up((b, watch_1, watch_2), first.version)

    # A command is on its way when node-1 is told to stop: it is either stored and
    # answered before the close, or neither.
    await a.send(Command("racing", a.version, MOVE))
    topology.sigterm("node-1")
    racing: Accepted | Rejected | None = None
    with contextlib.suppress(ConnectionClosed):
        racing = await a.answer("racing")
    assert await a.close_code() == CloseCode.GOING_AWAY
    assert await watch_1.close_code() == CloseCode.GOING_AWAY
    # node-1 released its lease at once: node-2 takes the room over (or its relay heard the
    # owner go away) and sends its viewers to reconnect.
    assert await b.close_code() in (CloseCode.GOING_AWAY, CloseCode.ROOM_UNAVAILABLE)
    assert await watch_2.close_code() in (CloseCode.GOING_AWAY, CloseCode.ROOM_UNAVAILABLE)

    a2 = await reconnect(topology, room, "A", a.version, "node-2")
    watch_12 = await reconnect(topology, room, None, watch_1.version, "node-2")
    b2 = await reconnect(topology, room, "B", b.version, "node-2")
    watch_22 = await reconnect(topology, room, None, watch_2.version, "node-2")
    again = (a2, watch_12, b2, watch_22)
    assert not any(viewer.of(Snapshot) for viewer in again), "resumed from their versions"
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
    for viewer in again:
        await open_now(viewer)  # the game goes on on node-2
    await caught_up(again, accepted[-1])

    seen_by_a = received_events(a, a2)
    assert max(seen_by_a) == accepted[-1] == max(received_events(b, b2))
    assert received_events(watch_1, watch_12) == received_events(watch_2, watch_22)
    await assert_stored_exactly_once_in_order(own_store, room, seen_by_a, accepted)
    async with httpx.AsyncClient() as http:
        health = await http.get(f"{topology.url}/healthz")
    assert health.json()["node"] == "node-2", "nginx skips the stopped node"

    # ``stop`` ends what is left, including what a part forked that outlived it: nginx's
    # worker keeps running after a kill -9 of its master.
    topology.kill("nginx")
    assert load_script().group_members(topology.pid("nginx"), 0), "the worker outlived it"
    stop(topology)  # asserts that nothing of it is left


async def test_a_redis_restart_rejects_commands_meanwhile_and_loses_nothing(
        own_topology: Topology) -> None:
    topology = own_topology
    store = RedisRoomStore.from_url(topology.redis_url)
    try:
        room = await create_room(store, aro_window_s=600.0, visibility="public")
    finally:
        await store.close()
    a, watch_1, b, watch_2 = await spread(topology, room)
    first = await a.command(ACTIVATE)
    assert isinstance(first, Accepted)
    await caught_up((b, watch_1, watch_2), first.version)

    topology.kill("redis")
    refused = [await a.command(MOVE) for _ in range(3)]
    for answer in refused:
        assert isinstance(answer, Rejected), answer
        assert answer.code == ProtocolReason.STORAGE_UNAVAILABLE, answer
        assert "try again" in answer.message
    assert a.version == first.version, "nothing was acknowledged or broadcast"
    # node-2's relay lost its bus (Redis pub/sub): its viewers are sent to reconnect, and
    # cannot join again while Redis is down.
    assert await b.close_code() == CloseCode.ROOM_UNAVAILABLE
    assert await watch_2.close_code() == CloseCode.ROOM_UNAVAILABLE
    b_again = await connect_to(topology, room, "B", "node-2", since=b.version, hello=False)
    await b_again.send(Hello(PROTOCOL_VERSION, room.room_id, room.token_b, b.version))
    assert await b_again.close_code() == CloseCode.ROOM_UNAVAILABLE
    assert [e.code for e in b_again.of(Error)] == [ProtocolReason.STORAGE_UNAVAILABLE]
    # Both nodes tell a load balancer not to send players (and still answer /livez).
    for node in ("node-1", "node-2"):
        unready = await readiness_turns(topology, node, 503)
        # The write probe or the lease renewal, whichever found the outage first.
        assert unready["problems"] and all(
            problem.startswith(("storage cannot write", "lease renewal failing"))
            for problem in unready["problems"]), unready
        async with httpx.AsyncClient() as http:
            assert (await http.get(f"{topology.node_url(node)}/livez")).status_code == 200

    topology.restart("redis")  # same port and directory: replays the append-only file
    for node in ("node-1", "node-2"):  # ready again by themselves
        assert (await readiness_turns(topology, node, 200))["status"] == "ready"
    second = await command_once_storage_is_back(a, MOVE, "move-after-outage")
    assert second.version > first.version
    b2 = await connect_to(topology, room, "B", "node-2", since=b.version)
    watch_22 = await connect_to(topology, room, None, "node-2", since=watch_2.version)
    again = (a, watch_1, b2, watch_22)
    for viewer in again:
        await open_now(viewer)  # the game goes on
        # The spectator that node-2 sent away during the outage is no longer counted.
        await spectators_known(viewer, 2)
    await caught_up(again, second.version)
    assert await listed_spectators(topology.url, room.room_id) == [2]
    assert not b2.of(Snapshot) and not watch_22.of(Snapshot), "resumed from their versions"

    seen_by_a = received_events(a)
    assert max(seen_by_a) == second.version == max(received_events(b, b2))
    assert received_events(watch_1) == received_events(watch_2, watch_22)
    store = RedisRoomStore.from_url(topology.redis_url)
    try:
        await assert_stored_exactly_once_in_order(store, room, seen_by_a,
                                                  [first.version, second.version])
    finally:
        await store.close()


async def test_kill_9_of_a_rooms_node_moves_its_routed_sockets_to_the_other_node(
        own_topology: Topology, own_store: RedisRoomStore) -> None:
    topology = own_topology
    room = await create_room(own_store, aro_window_s=600.0, visibility="public")
    a, b = await routed(topology, room, "A"), await routed(topology, room, "B")
    owner = node_of(a)
    other = next(node for node in NODES if node != owner)
    assert node_of(b) == owner and await lease_holder(own_store, room.room_id) == owner
    first = await a.command(ACTIVATE)
    assert isinstance(first, Accepted)
    await caught_up((b,), first.version)

    topology.kill(owner)
    await a.close_code()
    await b.close_code()
    # nginx finds the room's node refusing and sends both to the next node of its ring,
    # which takes the room over once the dead owner's lease lapses.
    a2 = await routed(topology, room, "A", a.version)
    b2 = await routed(topology, room, "B", b.version)
    assert node_of(a2) == node_of(b2) == other
    assert await lease_holder(own_store, room.room_id) == other
    second = await a2.command(MOVE)
    assert isinstance(second, Accepted), "the other node serves the room"
    await caught_up((b2,), second.version)
    assert not a2.of(Snapshot) and not b2.of(Snapshot), "resumed from their versions"
    seen_by_a = received_events(a, a2)
    assert sorted(seen_by_a) == sorted(received_events(b, b2)), "every version once to each"
    await assert_stored_exactly_once_in_order(own_store, room, seen_by_a,
                                              [first.version, second.version])
