"""Thousands of slots moved by ``redis-cli`` (``--cluster reshard``, then ``--cluster
rebalance``) on the session's real Redis Cluster (three masters, three replicas) while
games are played through two real ``python -m server`` nodes (docs/deploy.md, "Moving
slots").

Rooms on every master: four in the slots the reshard moves from the two source masters to
the third (a source's lowest slots: ``redis-cli`` takes those first), which the rebalance
then moves on again (off the master that has too many, its lowest first); three in slots
that stay; and two more in moving slots that are opened only once ``redis-cli`` says it
began to move their slot (the node claims and loads them while their keys move). The
moving rooms' slots hold ``BALLAST`` keys more, as a slot in a busy cluster holds several
rooms' keys: ``redis-cli`` moves them in many ``MIGRATE`` batches, and the room's own keys
are split between two masters for a while.

Each room plays the scripted game (``tests/cluster/scripted_rooms.py``): seat A on one node
(the owner), seat B on the other (relayed over the sharded room bus), one command after
another, as fast as the nodes answer but paced on the move's progress so that the game
lasts it, from before the first move until some commands after the last. The seats do what
a player's client does: "try again" is sent again under the same id, a connection the node
closes (4011) is opened again from the version held.

What players rely on, checked: every command sent gets exactly one answer on its
connection (``accepted``, or ``storage_unavailable`` "try again": the script's commands are
all legal); an id sent again gets the answer it was first accepted with; every accepted
command is in the room's stored record at the version it was accepted at, its events what
each seat received; no room is lost or frozen (each plays on after the moves, bounded by
tries, not by time); neither node logs an error or a traceback. This found the lease
renewal round failing on a slot moved back (tests/cluster/test_renewal_redirection_chain.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from redis.crc import key_slot

from server.lobby.tokens import new_room_id
from server.store.cluster_store import ClusterRoomStore
from testkit.cluster_rebalance import lowest_slots, rebalance, reshard, slot_count, wait_settled
from testkit.fuzz.oracle import LOG_PROBLEM
from testkit.redis_cluster import NodeView, RedisClusterProcesses
from testkit.server_process import ServerProcess, two_nodes
from tests.cluster.scripted_rooms import Moves, ScriptedRoom, Seat, create_scripted_room, script
from tests.cluster.test_redis_cluster_games import ON_THE_CLUSTER

pytestmark = [pytest.mark.redis, pytest.mark.slow]

NODES = {**ON_THE_CLUSTER, "REFEREE_RATE_PER_S": "100000", "REFEREE_RATE_BURST": "100000"}
"""The seats send again at each step of the move while told "try again": the rate limit
(tested elsewhere) would close them."""

MOVED_SLOTS = 2000
"""Slots the reshard moves (half from each source master); the rebalance moves as many."""
BALLAST = 400
"""Keys put in each moving room's slot beside the room's own (under its hash tag; no code
reads them): in a busy cluster a slot holds the keys of several rooms, so ``redis-cli``
moves it in many ``MIGRATE`` batches (10 keys each) and the room's own keys are split
between the two masters for a while, as they would be."""
MARGIN = 100
"""Slots kept between a room meant to move (or to stay) and the edge of the slots that
move: ``redis-cli`` rounds each source's share."""
MOVING_PER_SOURCE = 2
BEFORE_MOVES = 10
"""Commands a room may play before the first slot moves."""
STEPS_PER_COMMAND = 25
"""A room plays a command more each time ``redis-cli`` made this many steps (a slot or a key
moved: ``testkit.cluster_rebalance.Progress``); the two moves, about ``2 * MOVED_SLOTS +
6 * BALLAST`` steps, leave the scripted game's 360 commands enough to play them through."""
AFTER_MOVES = 4
"""Commands each room plays once the moves are over (it is not frozen)."""


def room_id_in(slots: set[int]) -> str:
    while True:
        room_id = new_room_id()
        if slot_of(room_id) in slots:
            return room_id


def slot_of(room_id: str) -> int:
    return key_slot(f"{{room:{room_id}}}".encode())


def master_of_room(cluster: RedisClusterProcesses, room_id: str) -> str:
    return cluster.master_of_key(f"{{room:{room_id}}}").node_id


def highest_slots(master: NodeView, count: int) -> set[int]:
    return set(lowest_slots(master, slot_count(master))[-count:])


@asynccontextmanager
async def ballast_in(store: ClusterRoomStore, room_ids: list[str]) -> AsyncIterator[None]:
    """``BALLAST`` keys in each room's slot, deleted on the way out."""
    keys = {room_id: [f"{{room:{room_id}}}:ballast:{n}" for n in range(BALLAST)]
            for room_id in room_ids}
    for each in keys.values():
        await store.cluster_client.mset(dict.fromkeys(each, b"x" * 64))
    try:
        yield
    finally:
        for each in keys.values():
            await store.cluster_client.delete(*each)


def log_problems(node: ServerProcess) -> list[str]:
    """The node's log lines that are an ERROR/CRITICAL record or a traceback."""
    return [line for line in node.output.decode(errors="replace").splitlines()
            if LOG_PROBLEM.match(line)]


async def test_games_play_on_while_redis_cli_moves_thousands_of_slots(
        redis_cluster: RedisClusterProcesses, cluster_store: ClusterRoomStore) -> None:
    cluster = redis_cluster
    await wait_settled(cluster)
    # The target serves the highest slots: the rebalance then moves on the very slots the
    # reshard gave it (its lowest), rooms included.
    *sources, target = sorted(cluster.masters(), key=lambda master: master.slots[-1][-1])
    total = sum(slot_count(source) for source in sources)
    moving, opening, staying = [], [], []
    for source in sources:
        share = set(lowest_slots(source, MOVED_SLOTS * slot_count(source) // total - MARGIN))
        moving += [room_id_in(share) for _ in range(MOVING_PER_SOURCE)]
        opening.append(room_id_in(share))
    for master in (*sources, target):
        staying.append(room_id_in(highest_slots(master, 1000)))
    commands = script()
    rooms = []
    for room_id in moving + staying + opening:
        token_a, token_b = await create_scripted_room(cluster_store, room_id)
        rooms.append((room_id, token_a, token_b))
    before = {room_id: master_of_room(cluster, room_id) for room_id, *_ in rooms}
    moves = Moves(first=BEFORE_MOVES, steps_per_command=STEPS_PER_COMMAND)
    async with ballast_in(cluster_store, moving + opening), two_nodes(
            cluster.url, ServerProcess, prefix="rb-", env=NODES) as nodes:
        games = []
        for n, (room_id, token_a, token_b) in enumerate(rooms):
            owner, relay = nodes[n % 2], nodes[(n + 1) % 2]
            games.append(ScriptedRoom(room_id, {
                "A": Seat(owner.base, room_id, token_a, again=moves.next_step),
                "B": Seat(relay.base, room_id, token_b, again=moves.next_step),
            }, commands, opens_when_moving=slot_of(room_id) if room_id in opening else None))
        early = [game for game in games if game.opens_when_moving is None]
        for game in early:
            await game.join()
        played = [asyncio.create_task(game.play(moves, AFTER_MOVES)) for game in games]
        try:
            for game in early:
                await game.playing.wait()
            for task in played:  # (a room that failed before the moves: its error now)
                if task.done():
                    task.result()
            moves.started = True
            await reshard(cluster, sources, target, MOVED_SLOTS, progress=moves.advance)
            after_reshard = {room_id: master_of_room(cluster, room_id) for room_id in before}
            await rebalance(cluster, progress=moves.advance)
            moves.finish()
            await asyncio.gather(*played)
        finally:
            for task in played:
                task.cancel()
        after_rebalance = {room_id: master_of_room(cluster, room_id) for room_id in before}

        for game in games:
            await game.assert_ids_answered_as_first()
            for seat in game.seats.values():
                seat.assert_answered_once()
            await game.assert_stored_as_answered(cluster_store)
            await game.close()

    # The rooms meant to move did (twice), the others stayed.
    for room_id in moving + opening:
        assert after_reshard[room_id] == target.node_id != before[room_id]
        assert after_rebalance[room_id] != target.node_id
    for room_id in staying:
        assert after_reshard[room_id] == after_rebalance[room_id] == before[room_id]
    for node in nodes:
        assert log_problems(node) == [], node.env["REFEREE_NODE_ID"]
    tries_again = sum(seat.tries_again for game in games for seat in game.seats.values())
    reconnects = sum(len(seat.connections) - 1 for game in games for seat in game.seats.values())
    refused = sum(seat.refused_hellos for game in games for seat in game.seats.values())
    print(f"steps: {moves.steps}; commands answered during the moves: "
          f"{[game.during_moves for game in games]}; 'try again' answers: {tries_again}; "
          f"reconnections: {reconnects}; hellos refused: {refused}")
    assert sum(game.during_moves for game in games) > 0
