"""Thousands of slots moved by ``redis-cli`` while games are played through two real
``python -m server`` nodes (docs/deploy.md, "Moving slots"), as an operator moves them:

- ``--cluster reshard``, then ``--cluster rebalance``, on the session's real Redis Cluster
  (three masters, three replicas). Rooms on every master: four in the slots the reshard
  moves from the two source masters to the third (a source's lowest slots: ``redis-cli``
  takes those first), which the rebalance then moves on again (off the master that has too
  many, its lowest first); three in slots that stay; and two more in moving slots that are
  opened only once ``redis-cli`` says it began to move their slot (the node claims and
  loads them while their keys move);
- the same, with node one (the owner of every other room: seat A's node; the relay of the
  others' seat B) killed (``kill -9``) as soon as ``redis-cli`` says it began to move the
  slot of one of its rooms, and started again under the same node id (a warm restart)
  while the reshard goes on. Its seats connect again at once, as a client whose socket
  dropped does (a connection refused while it is down is tried again once it is up);
- a new, empty master added under the games (``--cluster add-node``, then a replica of it:
  the nodes wait for a replica to confirm each write) and given its share by ``--cluster
  rebalance --cluster-use-empty-masters``, on a cluster of the test's own (the session's
  must keep its three masters). Rooms: two in the slots each master gives it, one in slots
  that stay;
- a master emptied under the games (``--cluster rebalance --cluster-weight <id>=0``: its
  slots to the two others) and then removed with its replica (``--cluster del-node``, their
  processes stopped), as an operator shrinks a cluster, on a cluster of the test's own.
  Rooms: three in its slots, one on each other master.

The moving rooms' slots hold ``BALLAST`` keys more, as a slot in a busy cluster holds
several rooms' keys: ``redis-cli`` moves them in many ``MIGRATE`` batches, and the room's
own keys are split between two masters for a while.

Each room plays the scripted game (``tests/cluster/scripted_rooms.py``): seat A on one node
(the owner), seat B on the other (relayed over the sharded room bus), one command after
another, as fast as the nodes answer but paced on the move's progress so that the game
lasts it, from before the first move until some commands after the last. The seats do what
a player's client does: "try again" is sent again under the same id, a connection the node
closes (4011) is opened again from the version held.

What players rely on, checked: every command sent gets exactly one answer on its
connection (``accepted``, or ``storage_unavailable`` "try again": the script's commands are
all legal); an id sent again gets the answer it was first accepted with; every accepted
command (those accepted before a kill included) is in the room's stored record at the
version it was accepted at, its events what each seat received; no room is lost or frozen
(each plays on after the moves, bounded by tries, not by time); neither node logs an error
or a traceback. This found the lease renewal round failing on a slot moved back, and, for
good, on slots moved to a new master (tests/cluster/test_renewal_redirection_chain.py);
relays left on an owner restarted under the same id (tests/cluster/test_node_restart.py);
and the sharded bus subscribing a channel twice after a warm restart's subscribes met a
connection being opened (tests/cluster/test_sharded_bus.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from redis.crc import key_slot

from server.lobby.tokens import new_room_id
from server.store.cluster_store import ClusterRoomStore
from testkit.cluster_rebalance import (
    empty,
    lowest_slots,
    rebalance,
    reshard,
    slot_count,
    wait_settled,
)
from testkit.cluster_store import store_on
from testkit.fuzz.oracle import LOG_PROBLEM
from testkit.redis_cluster import SLOTS, NodeView, RedisClusterProcesses
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
"""Rooms opened before the moves in the slots each source master gives."""
BEFORE_MOVES = 10
"""Commands a room may play before the first slot moves."""
STEPS_PER_COMMAND = 25
"""A room plays a command more each time ``redis-cli`` made this many steps (a slot or a key
moved: ``testkit.cluster_rebalance.Progress``); the reshard and the rebalance, about ``2 *
MOVED_SLOTS + 6 * BALLAST`` steps (the rebalance onto a new master: a step per slot, 4096),
leave the scripted game's 360 commands enough to play them through."""
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


@dataclass
class RoomPlan:
    """The rooms a test plays, by what the moves do to their slots."""

    moving: list[str] = field(default_factory=list)  # opened before the moves
    opening: list[str] = field(default_factory=list)  # opened once their slot began to move
    staying: list[str] = field(default_factory=list)

    def ids(self) -> list[str]:
        return [*self.moving, *self.staying, *self.opening]


@dataclass
class Stand:
    """The two nodes, the rooms' games played through them, and the moves' progress."""

    nodes: tuple[ServerProcess, ServerProcess]
    moves: Moves
    games: list[ScriptedRoom] = field(default_factory=list)
    running: asyncio.Event = field(default_factory=asyncio.Event)
    """Clear while a node is being restarted: a seat refused by it waits for this."""
    dropped: set[str] = field(default_factory=set)  # the nodes (base URLs) killed
    accepted_before_kill: int = 0


async def play_through_moves(cluster: RedisClusterProcesses, store: ClusterRoomStore,
                             rooms: RoomPlan, move: Callable[[Stand], Awaitable[None]]) -> Stand:
    """Play the scripted game in every room through two nodes while ``move(stand)`` moves
    slots, from before it starts until each room played ``AFTER_MOVES`` commands after it
    is over; then check what players rely on (the module's docstring)."""
    commands = script()
    tokens = {room_id: await create_scripted_room(store, room_id) for room_id in rooms.ids()}
    moves = Moves(first=BEFORE_MOVES, steps_per_command=STEPS_PER_COMMAND)
    async with ballast_in(store, rooms.moving + rooms.opening), two_nodes(
            cluster.url, ServerProcess, prefix="rb-", env=NODES) as nodes:
        stand = Stand(nodes, moves)
        stand.running.set()
        for n, (room_id, (token_a, token_b)) in enumerate(tokens.items()):
            owner, relay = nodes[n % 2], nodes[(n + 1) % 2]
            stand.games.append(ScriptedRoom(room_id, {
                "A": Seat(owner.base, room_id, token_a, again=moves.next_step,
                          down=stand.running.wait),
                "B": Seat(relay.base, room_id, token_b, again=moves.next_step,
                          down=stand.running.wait),
            }, commands, opens_when_moving=slot_of(room_id) if room_id in rooms.opening else None))
        early = [game for game in stand.games if game.opens_when_moving is None]
        for game in early:
            await game.join()
        played = [asyncio.create_task(game.play(moves, AFTER_MOVES)) for game in stand.games]
        try:
            for game in early:
                await game.playing.wait()
            for task in played:  # (a room that failed before the moves: its error now)
                if task.done():
                    task.result()
            moves.started = True
            await move(stand)
            moves.finish()
            await asyncio.gather(*played)
        finally:
            for task in played:
                task.cancel()

        for game in stand.games:
            await game.assert_ids_answered_as_first()
            for seat in game.seats.values():
                seat.assert_answered_once(dropped=seat.base in stand.dropped)
            await game.assert_stored_as_answered(store)
            await game.close()

    for node in nodes:
        assert log_problems(node) == [], node.env["REFEREE_NODE_ID"]
    seats = [seat for game in stand.games for seat in game.seats.values()]
    print(f"steps: {moves.steps}; commands answered during the moves: "
          f"{[game.during_moves for game in stand.games]}; 'try again' answers: "
          f"{sum(seat.tries_again for seat in seats)}; reconnections: "
          f"{sum(len(seat.connections) - 1 for seat in seats)}; hellos refused: "
          f"{sum(seat.refused_hellos for seat in seats)}; connections refused: "
          f"{sum(seat.refused_connections for seat in seats)}")
    assert sum(game.during_moves for game in stand.games) > 0
    return stand


async def restart_once_moving(stand: Stand, node: ServerProcess, room_ids: list[str]) -> None:
    """``kill -9`` of ``node`` once ``redis-cli`` began to move the slot of one of
    ``room_ids`` that it owns (seat A's node), then its start under the same node id (a
    warm restart); the seats it dropped connect again as a client does, at once."""
    slots = {slot_of(game.room_id) for game in stand.games
             if game.room_id in room_ids and game.seats["A"].base == node.base}
    await stand.moves.until(lambda: bool(stand.moves.begun & slots))
    lost = [(seat, seat.client) for game in stand.games for seat in game.seats.values()
            if seat.base == node.base and seat.connections]
    stand.accepted_before_kill = sum(len(game.accepted) for game in stand.games)
    stand.running.clear()
    stand.dropped.add(node.base)
    await node.kill()
    await node.start()
    stand.running.set()
    await asyncio.gather(*(seat.reconnect_if_lost(client) for seat, client in lost))


def masters_of_rooms(cluster: RedisClusterProcesses, rooms: RoomPlan) -> dict[str, str]:
    return {room_id: master_of_room(cluster, room_id) for room_id in rooms.ids()}


@pytest.mark.parametrize("kill_owner", [False, True], ids=["nodes-up", "owner-killed"])
async def test_games_play_on_while_redis_cli_moves_thousands_of_slots(
        redis_cluster: RedisClusterProcesses, cluster_store: ClusterRoomStore,
        kill_owner: bool) -> None:
    cluster = redis_cluster
    await wait_settled(cluster)
    # The target serves the highest slots: the rebalance then moves on the very slots the
    # reshard gave it (its lowest), rooms included.
    *sources, target = sorted(cluster.masters(), key=lambda master: master.slots[-1][-1])
    total = sum(slot_count(source) for source in sources)
    rooms = RoomPlan()
    for source in sources:
        share = set(lowest_slots(source, MOVED_SLOTS * slot_count(source) // total - MARGIN))
        rooms.moving += [room_id_in(share) for _ in range(MOVING_PER_SOURCE)]
        rooms.opening.append(room_id_in(share))
    for master in (*sources, target):
        rooms.staying.append(room_id_in(highest_slots(master, 1000)))
    before = masters_of_rooms(cluster, rooms)
    after_reshard: dict[str, str] = {}

    async def reshard_then_rebalance(stand: Stand) -> None:
        restart = asyncio.create_task(restart_once_moving(
            stand, stand.nodes[0], rooms.moving + rooms.opening)) if kill_owner else None
        try:
            await reshard(cluster, sources, target, MOVED_SLOTS, progress=stand.moves.advance)
            if restart is not None:
                assert stand.dropped or restart.done(), \
                    "the reshard ended before it moved a room of node one"
                await restart
        finally:
            if restart is not None:
                restart.cancel()
        after_reshard.update(masters_of_rooms(cluster, rooms))
        await rebalance(cluster, progress=stand.moves.advance)

    stand = await play_through_moves(cluster, cluster_store, rooms, reshard_then_rebalance)

    # The rooms meant to move did (twice), the others stayed.
    after_rebalance = masters_of_rooms(cluster, rooms)
    for room_id in rooms.moving + rooms.opening:
        assert after_reshard[room_id] == target.node_id != before[room_id]
        assert after_rebalance[room_id] != target.node_id
    for room_id in rooms.staying:
        assert after_reshard[room_id] == after_rebalance[room_id] == before[room_id]
    if kill_owner:  # (each of them stored at its version: play_through_moves checked)
        assert stand.accepted_before_kill > 0


@pytest.fixture
def cluster_of_its_own(tmp_path: Path) -> Iterator[RedisClusterProcesses]:
    """Three masters and three replicas for one test: a master added to the session's
    cluster would stay there for the tests after it (they expect three masters), and taking
    it out again costs a rebalance more than forming a cluster does."""
    with RedisClusterProcesses(tmp_path / "cluster") as cluster:
        yield cluster


async def test_games_play_on_while_redis_cli_rebalances_onto_a_new_master(
        cluster_of_its_own: RedisClusterProcesses) -> None:
    cluster = cluster_of_its_own
    masters = cluster.masters()
    fair_share = SLOTS // (len(masters) + 1)
    rooms = RoomPlan()
    for master in masters:  # (``redis-cli`` takes a master's lowest slots first)
        moving = set(lowest_slots(master, slot_count(master) - fair_share - MARGIN))
        rooms.moving += [room_id_in(moving) for _ in range(MOVING_PER_SOURCE)]
        rooms.staying.append(room_id_in(highest_slots(master, 1000)))
    before = masters_of_rooms(cluster, rooms)
    added: list[NodeView] = []

    async def add_a_master_then_rebalance(stand: Stand) -> None:
        # As an operator does, while the games go on: the new master and its replica (the
        # nodes wait for a replica to confirm each write), then its share of the slots.
        added.append(await asyncio.to_thread(cluster.add_master))
        await asyncio.to_thread(cluster.add_replica, added[0])
        await rebalance(cluster, progress=stand.moves.advance, use_empty_masters=True)

    async with store_on(cluster) as store:
        await play_through_moves(cluster, store, rooms, add_a_master_then_rebalance)

    after = masters_of_rooms(cluster, rooms)
    assert slot_count(next(m for m in cluster.masters() if m.node_id == added[0].node_id)) \
        == fair_share
    for room_id in rooms.moving:
        assert after[room_id] == added[0].node_id
    for room_id in rooms.staying:
        assert after[room_id] == before[room_id]


async def test_games_play_on_while_a_master_is_emptied_and_removed(
        cluster_of_its_own: RedisClusterProcesses) -> None:
    cluster = cluster_of_its_own
    leaving, *others = cluster.masters()
    removed = [leaving.node_id, cluster.replica_of(leaving.node_id).node_id]
    rooms = RoomPlan()
    its_slots = set(lowest_slots(leaving, slot_count(leaving)))
    rooms.moving += [room_id_in(its_slots) for _ in range(3)]
    for master in others:
        rooms.staying.append(room_id_in(highest_slots(master, 1000)))
    before = masters_of_rooms(cluster, rooms)

    async def empty_then_remove(stand: Stand) -> None:
        await empty(cluster, leaving, progress=stand.moves.advance)
        await asyncio.to_thread(cluster.remove, removed)

    async with store_on(cluster) as store:
        await play_through_moves(cluster, store, rooms, empty_then_remove)

    masters = cluster.masters()
    assert {master.node_id for master in masters} == {master.node_id for master in others}
    assert sum(slot_count(master) for master in masters) == SLOTS
    after = masters_of_rooms(cluster, rooms)
    for room_id in rooms.moving:
        assert before[room_id] == leaving.node_id != after[room_id]
    for room_id in rooms.staying:
        assert after[room_id] == before[room_id]
