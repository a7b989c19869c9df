"""A live room's slot moved to another master of a real local Redis Cluster (``redis_cluster``,
tests/conftest.py; the move is ``testkit.slot_move``, redis-cli's resharding steps), with
two ``python -m server`` nodes on it: seat A and a spectator on the owner, seat B and a
spectator on the other node (relayed: B's commands and the owner's events cross the sharded
room bus, ``SSUBSCRIBE``/``SPUBLISH`` on the room's slot).

- moved between two commands: the next command meets ``MOVED`` and is answered
  ``storage_unavailable`` until the node reads the slot map again, then the same id is
  accepted; the relayed viewers are sent to reconnect (Redis unsubscribed the node from the
  room's channels on the old master) and resume where they were;
- moved with a command sent while the slot is half-moved (``MIGRATING``/``IMPORTING``, the
  room's state and lease on the new master, its event log still on the old one), by the
  owner's seat or by the relayed seat: that command is answered ``storage_unavailable``
  (the append script meets ``ASK`` on the old master, Redis 7.0, and ``TRYAGAIN`` on the
  new one: its keys are split), and accepted under the same id once the move is done;
- with a command sent once every key of the room has moved but before the slot is assigned
  to the new master: accepted at once (the owner sends the append that met ``ASK`` to the
  new master after ``ASKING`` and confirms it there), stored there, its events at both
  seats and both spectators. Meanwhile both nodes' lease renewal rounds go through (they follow ``ASK`` and
  leave a ``TRYAGAIN``'d renewal undecided) and both nodes stay ready.

Either way every accepted command is stored exactly once and in order on the new master,
the game goes on through the relay, every id sent again gets its first answer, and the
room's lease stays with its owner under the same fence (no second owner, no new claim).

- on the room bus alone: a slot moved off a master resets the channels of that slot only;
  the channels of the master's other slots stay subscribed on the same connection;
- a player opening a room whose slot is half-moved (the node must claim the room and read it:
  scripts on the room's keys, which Redis answers ``TRYAGAIN`` until the move is done) is
  refused ``storage_unavailable`` and gets in once the move is done.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable

import httpx
import pytest
from redis.crc import key_slot

from protocol.constants import PROTOCOL_VERSION, CloseCode, ProtocolReason
from protocol.messages import Accepted, Error, Events, Hello, Rejected, Snapshot
from server.cluster.lease import lease_key
from server.lobby.tokens import new_room_id
from server.store.cluster_store import ClusterRoomStore
from server.store.redis_store import events_key, state_key
from testkit.redis_cluster import NodeView, RedisClusterProcesses
from testkit.server_process import ServerProcess, two_nodes
from testkit.slot_move import SlotMove
from testkit.wsclient import Client
from tests.cluster.game import (
    ACTIVATE,
    COUNTER_SHOT,
    MOVE,
    Room,
    assert_stored_exactly_once_in_order,
    close_window,
    command_once_storage_is_back,
    received_events,
    room_on,
)
from tests.cluster.test_room_bus import WAIT_S, Heard
from tests.cluster.test_sharded_bus import Resets, channel_on, started
from tests.support.windows import closed, opened

pytestmark = [pytest.mark.redis, pytest.mark.slow]

METRICS_TOKEN = "resharding-test"
ON_THE_CLUSTER = {"REFEREE_REDIS_CLUSTER": "1", "REFEREE_REDIS_WAIT_MS": "2000",
                  "REFEREE_LEASE_S": "20", "REFEREE_LEASE_RENEW_S": "0.5",
                  "REFEREE_METRICS_TOKEN": METRICS_TOKEN}
ROUNDS_GUARD_S = 15.0  # a broken renewal thread, not a speed expectation
POLL_S = 0.05

Nodes = tuple[ServerProcess, ServerProcess]
NextCommand = Callable[[], Awaitable[Accepted | Rejected]]
DuringMove = Callable[[SlotMove, Room, Nodes, NextCommand], Awaitable[None]]


async def lease_rounds(node: ServerProcess) -> dict[str, float]:
    """The node's lease renewal rounds so far, by outcome (ok, failed, stalled)."""
    async with httpx.AsyncClient(base_url=node.base, headers={
            "Authorization": f"Bearer {METRICS_TOKEN}"}) as http:
        text = (await http.get("/metrics")).text
    return {outcome: float(count) for outcome, count in re.findall(
        r'^referee_lease_rounds_total\{outcome="(\w+)"\} (\S+)$', text, re.MULTILINE)}


async def renewal_unharmed(node: ServerProcess) -> None:
    """Two more lease renewal rounds of ``node`` ran from now on, none failed, and the node
    is ready (``/readyz`` reports a failing renewal)."""
    before = await lease_rounds(node)
    async with asyncio.timeout(ROUNDS_GUARD_S):
        while True:
            now = await lease_rounds(node)
            if now["ok"] + now["failed"] >= before["ok"] + before["failed"] + 2:
                break
            await asyncio.sleep(POLL_S)  # a poll interval, not a wait for an event
    assert now["failed"] == before["failed"], f"renewal rounds failed on {node.base}"
    async with httpx.AsyncClient(base_url=node.base) as http:
        ready = await http.get("/readyz")
    assert ready.status_code == 200, ready.text


async def resumed(client: Client, base: str, room: Room, token: str | None) -> Client:
    """``client`` (relayed) is sent to reconnect; reconnected where it was."""
    assert await client.close_code() == CloseCode.ROOM_UNAVAILABLE
    return await Client.connect(base, room.room_id, token, since=client.version)


async def watched_on_two_nodes(store: ClusterRoomStore, cluster: RedisClusterProcesses,
                               master: NodeView, one: ServerProcess, two: ServerProcess
                               ) -> tuple[Room, Client, Client, Client, Client]:
    """A new public room on ``master``: seat A and a spectator on node ``one`` (which owns the
    room), seat B and a spectator on node ``two`` (which relays it), each holding its
    snapshot: (room, a, spectator on one, b, spectator on two)."""
    room = await room_on(store, cluster, master, visibility="public")
    a = await Client.connect(one.base, room.room_id, room.token_a)
    watch_one = await Client.connect(one.base, room.room_id)
    b = await Client.connect(two.base, room.room_id, room.token_b)
    watch_two = await Client.connect(two.base, room.room_id)
    for viewer in (a, watch_one, b, watch_two):
        await viewer.until(Snapshot)
    return room, a, watch_one, b, watch_two


async def play_across_a_move(cluster: RedisClusterProcesses, store: ClusterRoomStore,
                             during_move: DuringMove, relayed: bool = False) -> None:
    """A game whose room moves to another master: after seat A's first command (the next
    command is A's move), or with ``relayed`` after A's move (the next command is relayed
    seat B's counter-shot). ``during_move`` makes the move, and may send that next command
    between its steps."""
    async with two_nodes(cluster.url, ServerProcess, prefix="rs-", env=ON_THE_CLUSTER) as (
            one, two):
        source, target = cluster.masters()[:2]
        room, a, watch_one, b, watch_two = await watched_on_two_nodes(store, cluster, source,
                                                                      one, two)
        slot = key_slot(f"{{room:{room.room_id}}}".encode())
        activate = await a.command(ACTIVATE, id="activate")
        assert isinstance(activate, Accepted), activate
        if relayed:
            move = await a.command(MOVE, id="move")
            assert isinstance(move, Accepted), move
            window = await opened(b)
        owner = one.env["REFEREE_NODE_ID"]
        fence = await store.cluster_client.hget(state_key(room.room_id), "fence")
        assert await store.cluster_client.get(lease_key(room.room_id)) == owner.encode()

        async def next_command() -> Accepted | Rejected:
            if relayed:
                return await b.command(COUNTER_SHOT, id="counter")
            return await a.command(MOVE, id="move")

        await during_move(cluster.move_slot(slot, target), room, (one, two), next_command)

        assert cluster.master_of_slot(slot).node_id == target.node_id
        with cluster.client(source.port) as old:
            assert old.execute_command("CLUSTER", "COUNTKEYSINSLOT", slot) == 0
        if not relayed:
            # The node reads the slot map again on MOVED: "try again" until then, same id.
            move = await command_once_storage_is_back(a, MOVE, "move")
        # Redis unsubscribed both nodes from the room's channels on the old master: the
        # relayed viewers are sent to reconnect, and resume at the version they had.
        b_again = await resumed(b, two.base, room, room.token_b)
        watch_two_again = await resumed(watch_two, two.base, room, None)
        if not relayed:
            window = await opened(b_again)  # the owner's events cross the bus on the new master
        # A relayed seat's command, through the bus on the new master.
        counter = await command_once_storage_is_back(b_again, COUNTER_SHOT, "counter")
        done = await b_again.command(close_window(window), id="done")
        assert isinstance(done, Accepted), done
        await closed(a, window)
        final = done.version
        for viewer in (a, watch_one, watch_two_again):
            if viewer.version < final:
                await viewer.until(Events, lambda m: m.first + len(m.events) - 1 >= final)
        assert max(received_events(b, b_again)) == final
        assert received_events(watch_one) == received_events(watch_two, watch_two_again)

        # Every id sent again gets its first answer, through the relay too.
        for client, body, first in ((a, ACTIVATE, activate), (a, MOVE, move),
                                    (b_again, COUNTER_SHOT, counter)):
            again = await client.command(body, id=first.id)
            assert isinstance(again, Accepted) and again.version == first.version, again
        await assert_stored_exactly_once_in_order(
            store, room, received_events(a),
            [activate.version, move.version, counter.version, done.version])
        # The lease moved with the room: same owner, same fence (nobody claimed it again).
        with cluster.client(target.port) as new:
            assert new.get(lease_key(room.room_id)) == owner
            assert new.hget(state_key(room.room_id), "fence") == fence.decode()
        for client in (a, watch_one, b_again, watch_two_again):
            await client.close()


async def whole_move(move: SlotMove, _room: Room, nodes: Nodes, _next: NextCommand) -> None:
    await asyncio.to_thread(move.run)
    # The renewal rounds (the owner's RENEW, the relay's read of the lease holder) meet
    # MOVED and follow it in the same round.
    for node in nodes:
        await renewal_unharmed(node)


async def half_move(move: SlotMove, room: Room, nodes: Nodes, next_command: NextCommand) -> None:
    await asyncio.to_thread(move.begin)
    try:
        # The room's state on the new master, its lease, event log and answers on the old:
        # the owner's RENEW (lease and state) meets TRYAGAIN.
        await asyncio.to_thread(move.migrate, [state_key(room.room_id)])
        for node in nodes:
            await renewal_unharmed(node)
        # Its lease too: the owner's RENEW and the relay's read of the lease holder meet ASK
        # (asked again on the new master).
        await asyncio.to_thread(move.migrate, [lease_key(room.room_id)])
        for node in nodes:
            await renewal_unharmed(node)
        # The append script (state, events, answers) meets ASK on the old master, then
        # TRYAGAIN on the new one (the room's keys are split): "try again".
        refused = await next_command()
        assert isinstance(refused, Rejected), refused
        assert refused.code == ProtocolReason.STORAGE_UNAVAILABLE, refused
    finally:  # (also when the test failed: no half-moved slot left to the session's tests)
        await asyncio.to_thread(move.migrate_all)
        await asyncio.to_thread(move.finish)


async def test_a_room_moved_to_another_master_between_commands(
        redis_cluster: RedisClusterProcesses, cluster_store: ClusterRoomStore) -> None:
    await play_across_a_move(redis_cluster, cluster_store, whole_move)


async def test_a_command_sent_while_the_room_is_half_moved_is_refused_then_accepted(
        redis_cluster: RedisClusterProcesses, cluster_store: ClusterRoomStore) -> None:
    await play_across_a_move(redis_cluster, cluster_store, half_move)


async def test_a_relayed_command_sent_while_the_room_is_half_moved_is_refused_then_accepted(
        redis_cluster: RedisClusterProcesses, cluster_store: ClusterRoomStore) -> None:
    await play_across_a_move(redis_cluster, cluster_store, half_move, relayed=True)


async def test_a_player_opening_a_room_whose_slot_is_half_moved_is_told_to_try_again(
        redis_cluster: RedisClusterProcesses, cluster_store: ClusterRoomStore) -> None:
    node = ServerProcess(redis_cluster.url, env={
        **ON_THE_CLUSTER, "REFEREE_NODE_ID": f"rs-open-{new_room_id()[:6]}"})
    await node.start()
    try:
        source, target = redis_cluster.masters()[:2]
        room = await room_on(cluster_store, redis_cluster, source, visibility="public")
        move = redis_cluster.move_slot(key_slot(f"{{room:{room.room_id}}}".encode()), target)
        await asyncio.to_thread(move.begin)
        try:
            await asyncio.to_thread(move.migrate, [state_key(room.room_id)])
            early = await Client.connect(node.base, room.room_id, hello=False)
            await early.send(Hello(PROTOCOL_VERSION, room.room_id, room.token_a, None))
            refused = await early.next()
            assert isinstance(refused, Error), refused
            assert refused.code == ProtocolReason.STORAGE_UNAVAILABLE, refused
            assert await early.close_code() == CloseCode.ROOM_UNAVAILABLE
        finally:
            await asyncio.to_thread(move.migrate_all)
            await asyncio.to_thread(move.finish)

        a = await Client.connect(node.base, room.room_id, room.token_a)
        await a.until(Snapshot)
        activate = await command_once_storage_is_back(a, ACTIVATE, "activate")
        await assert_stored_exactly_once_in_order(cluster_store, room, received_events(a),
                                                  [activate.version])
        await a.close()
    finally:
        await node.stop()
        print(node.output.decode(errors="replace"))


async def test_a_slot_moved_off_a_master_resets_its_own_channels_only(
        redis_cluster: RedisClusterProcesses) -> None:
    source, target = redis_cluster.masters()[:2]
    moving = channel_on(redis_cluster, source)
    staying = channel_on(redis_cluster, source)
    while key_slot(staying.encode()) == key_slot(moving.encode()):
        staying = channel_on(redis_cluster, source)
    heard = {moving: Heard(), staying: Heard()}
    resets = Resets()
    async with started(redis_cluster.url, "b", resets) as relay, \
            started(redis_cluster.url, "a") as owner:
        for channel in (moving, staying):
            await relay.subscribe(channel, heard[channel])
        owner.publish(staying, b"before")
        assert await heard[staying].until(1) == [b"before"]
        await asyncio.to_thread(redis_cluster.move_slot(key_slot(moving.encode()), target).run)
        async with asyncio.timeout(WAIT_S):
            await resets.happened.wait()
            await relay.whole()
        assert resets.lost == [frozenset({moving})]  # not the channel of the other slot
        with redis_cluster.client(target.port) as new:
            assert new.execute_command("PUBSUB", "SHARDNUMSUB", moving)[1] == 1
        for channel in (moving, staying):
            owner.publish(channel, b"after")
        assert await heard[moving].until(1) == [b"after"]
        assert await heard[staying].until(2) == [b"before", b"after"]


def events_on(cluster: RedisClusterProcesses, master: NodeView, room_id: str) -> int:
    """How many events of the room ``master`` itself holds (``ASKING`` first: while it
    imports the room's slot it serves only a command asked there)."""
    with cluster.client(master.port) as client:
        client.execute_command("ASKING")
        return int(client.xlen(events_key(room_id)))


async def test_a_command_sent_once_the_rooms_keys_are_all_on_the_new_master_is_accepted_at_once(
        redis_cluster: RedisClusterProcesses, cluster_store: ClusterRoomStore) -> None:
    """The slot still migrating (not yet assigned to the new master), every key of the room
    already moved: the old master answers the append ``ASK``, the owner sends it again to
    the new master after ``ASKING`` and confirms it there. Both seats have played first, so
    that every key of the room exists (a seat never answered has no answers list, and the
    new master answers ``TRYAGAIN`` for a script with a key it does not hold)."""
    async with two_nodes(redis_cluster.url, ServerProcess, prefix="rs-", env=ON_THE_CLUSTER) as (
            one, two):
        source, target = redis_cluster.masters()[:2]
        room, a, watch_one, b, watch_two = await watched_on_two_nodes(
            cluster_store, redis_cluster, source, one, two)
        slot = key_slot(f"{{room:{room.room_id}}}".encode())
        activate = await a.command(ACTIVATE, id="activate")
        move = await a.command(MOVE, id="move")
        window = await opened(b)
        counter = await b.command(COUNTER_SHOT, id="counter")
        assert all(isinstance(reply, Accepted) for reply in (activate, move, counter))
        assert isinstance(counter, Accepted)
        slot_move = redis_cluster.move_slot(slot, target)
        await asyncio.to_thread(slot_move.begin)
        try:
            await asyncio.to_thread(slot_move.migrate_all)  # the slot not assigned yet
            # The relayed seat's command (the owner appends it): accepted at once.
            done = await b.command(close_window(window), id="done")
            assert isinstance(done, Accepted), done
            assert events_on(redis_cluster, target, room.room_id) == done.version
            # The owner's own seat too, on the window's closing event.
            await closed(a, window)
            final = done.version
            for viewer in (a, watch_one, b, watch_two):
                if viewer.version < final:
                    await viewer.until(Events, lambda m: m.first + len(m.events) - 1 >= final)
        finally:  # (also when the test failed: no half-moved slot left to the session's tests)
            await asyncio.to_thread(slot_move.migrate_all)
            await asyncio.to_thread(slot_move.finish)
        assert received_events(a) == received_events(b)
        assert received_events(watch_one) == received_events(watch_two)
        await assert_stored_exactly_once_in_order(
            cluster_store, room, received_events(a),
            [activate.version, move.version, counter.version, done.version])
        # The relayed viewers are sent to reconnect once the slot is assigned (Redis
        # unsubscribes the node on the old master); the id sent again gets its answer.
        b_again = await resumed(b, two.base, room, room.token_b)
        again = await b_again.command(close_window(window), id="done")
        assert isinstance(again, Accepted) and again.version == done.version, again
        for client in (a, watch_one, b_again, watch_two):
            await client.close()
