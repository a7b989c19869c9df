"""A master killed (``kill -9``) in the middle of a slot move, under a live game on a real local
Redis Cluster of the test's own (three masters, one replica each) with two ``python -m server``
nodes: seat A on the room's owner, seat B relayed by the other.

The room's slot is being moved off its master (``testkit.slot_move``, redis-cli's steps) and
some of its keys already are on the importing master when the source master dies. Its
replica takes over the slot, but it never learnt the slot was ``MIGRATING``: it serves the
slot as if whole, so Redis no longer answers ``ASK``/``TRYAGAIN`` for the keys that left.
Those keys stay on the importing master (which goes on naming the dead one as the slot's
master, and says ``cluster_state:fail``) until the operator starts the dead node again and
runs ``redis-cli --cluster fix`` (docs/deploy.md, "A master lost during a slot move"), which
brings the slot's keys together on one master (the promoted one, or the importing one when it
holds more of them) and closes the slot. It refuses (``Target key exists``) if both hold a
key of the same name by then.

Two splits: the room's log left first (its event stream and seat A's answers), or its state
and lease. Either way, while the keys are apart:

- seat A's command is answered ``storage_unavailable`` (or, with the state gone, the owner
  lost the room's lease and closed A with 4011, and A opening the room again is refused
  ``storage_unavailable``), never accepted and never "no such room";
- the promoted master gets no key of the room that the importing master holds (the scripts
  refuse a room whose keys are not all there: ``server.store.redis_scripts``), so
  ``--cluster fix`` merges nothing and runs through;

and afterwards the game goes on: the command sent again under its id is accepted, B plays
through the relay, every id gets its first answer, and the stored log holds every accepted
command exactly once and in order, as seat A received it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
from redis.crc import key_slot
from websockets.exceptions import ConnectionClosed

from protocol.constants import PROTOCOL_VERSION, CloseCode, ProtocolReason
from protocol.messages import Accepted, Error, Hello, Rejected
from server.cluster.cluster_renewal import ClusterLeaseRenewal, connect_sync_cluster
from server.cluster.lease import alive_key, lease_key
from server.store.cluster_store import ClusterRoomStore
from server.store.interface import StorageUnavailable
from server.store.redis_store import answers_key, events_key, room_keys, state_key
from testkit.cluster_rebalance import fix
from testkit.redis_cluster import NodeView, RedisClusterProcesses
from testkit.server_process import ServerProcess, two_nodes
from testkit.wsclient import Client
from tests.cluster.game import (
    ACTIVATE,
    MOVE,
    RETRIES,
    Room,
    command_once_storage_is_back,
    play_on_after_failover,
    seats_on_two_nodes,
)
from tests.cluster.test_redis_cluster_games import ON_THE_CLUSTER

pytestmark = [pytest.mark.redis, pytest.mark.slow]

TRIES = 5
"""Commands seat A sends while the keys are apart: the first may still go to the dead master
(the node then reads the slot map again), the others reach the promoted one."""

MOVED_FIRST: dict[str, Callable[[str], list[str]]] = {
    "log": lambda room_id: [events_key(room_id), answers_key(room_id, "A")],
    "state": lambda room_id: [state_key(room_id), lease_key(room_id)],
}


def cut_short_move(cluster: RedisClusterProcesses, slot: int, source: NodeView,
                   target: NodeView, keys: list[str]) -> NodeView:
    """Begin moving ``slot`` from ``source`` to ``target``, move ``keys`` only, and kill the
    source master (``kill -9``); once a replica serves its slots: that replica."""
    move = cluster.move_slot(slot, target)
    assert move.source == source
    move.begin()
    move.migrate(keys)
    cluster.kill(source.port)
    return cluster.wait_taken_over(source)


def held_keys(cluster: RedisClusterProcesses, master: NodeView, room_id: str) -> set[str]:
    """The room's keys that ``master`` holds itself, whether it serves the slot,
    imports it or says ``cluster_state:fail`` (``CLUSTER GETKEYSINSLOT`` answers anyway)."""
    slot = key_slot(state_key(room_id).encode())
    with cluster.client(master.port) as client:
        keys = client.execute_command("CLUSTER", "GETKEYSINSLOT", slot, 1000)
    return {str(key) for key in keys} & {*room_keys(room_id), lease_key(room_id)}


async def refused_while_apart(seat_a: list[Client], base: str, room: Room) -> None:
    """Seat A's command while the room's keys are apart, ``TRIES`` times: each answered
    ``storage_unavailable``, never accepted; or A is closed (the owner lost the lease of a
    room whose state left: 4011), and opening the room again is refused
    ``storage_unavailable``, never told the room does not exist."""
    a = seat_a[-1]
    for _ in range(TRIES):
        try:
            answer = await a.command(MOVE, id="move")
        except ConnectionClosed:
            break
        assert isinstance(answer, Rejected), answer
        assert answer.code == ProtocolReason.STORAGE_UNAVAILABLE, answer
    else:
        return
    assert await a.close_code() == CloseCode.ROOM_UNAVAILABLE
    again = await Client.connect(base, room.room_id, hello=False)
    await again.send(Hello(PROTOCOL_VERSION, room.room_id, room.token_a, a.version))
    refused = await again.next()
    assert isinstance(refused, Error), refused
    assert refused.code == ProtocolReason.STORAGE_UNAVAILABLE, refused
    await again.close()


async def load_refused_as_split(store: ClusterRoomStore, room_id: str) -> None:
    """The room read while its keys are apart: "try again" each time, and once the store's
    slot map names the promoted master, because the keys are split."""
    for _ in range(TRIES):
        with pytest.raises(StorageUnavailable) as refused:
            await store.load_room(room_id)
        if "split between two masters" in str(refused.value):
            return
    raise AssertionError(f"never told the keys are split: {refused.value}")


async def seat_a_command(seat_a: list[Client], base: str, room: Room,
                         body: dict[str, object], command_id: str) -> Accepted:
    """``body`` sent by seat A under ``command_id`` until accepted. A connection closed
    meanwhile (a room whose lease its owner lost) is opened again where it stood; opening
    it may be refused "try again" too (the node reads the room again)."""
    for _ in range(RETRIES):
        try:
            return await command_once_storage_is_back(seat_a[-1], body, command_id)
        except ConnectionClosed:
            assert await seat_a[-1].close_code() == CloseCode.ROOM_UNAVAILABLE
        try:
            seat_a.append(await Client.connect(base, room.room_id, room.token_a,
                                               since=seat_a[-1].version))
        except ConnectionClosed as refused:
            assert refused.rcvd is not None, refused
            assert refused.rcvd.code == CloseCode.ROOM_UNAVAILABLE, refused
    raise AssertionError(f"{command_id} never accepted")


@pytest.mark.parametrize("moved_first", sorted(MOVED_FIRST))
async def test_a_master_killed_in_the_middle_of_a_slot_move_loses_no_accepted_command(
        own_cluster: RedisClusterProcesses, own_cluster_store: ClusterRoomStore,
        moved_first: str) -> None:
    cluster, store = own_cluster, own_cluster_store
    source, target = cluster.masters()[:2]
    async with two_nodes(cluster.url, ServerProcess, prefix="fm-",
                         env=ON_THE_CLUSTER) as (one, two):
        room, a, relayed = await seats_on_two_nodes(store, cluster, source, one.base,
                                                    two.base)
        activated = await a.command(ACTIVATE, id="activate")
        assert isinstance(activated, Accepted), activated

        before = held_keys(cluster, source, room.room_id)
        away = MOVED_FIRST[moved_first](room.room_id)
        promoted = await asyncio.to_thread(
            cut_short_move, cluster, key_slot(state_key(room.room_id).encode()), source,
            target, away)
        staying = before - set(away)
        assert held_keys(cluster, promoted, room.room_id) <= staying

        seat_a = [a]
        await refused_while_apart(seat_a, one.base, room)
        await load_refused_as_split(store, room.room_id)
        # Nothing of the room was written where it would exist twice.
        assert held_keys(cluster, promoted, room.room_id) <= staying
        assert set(away) - {lease_key(room.room_id)} <= held_keys(cluster, target,
                                                                  room.room_id)

        # The operator's repair: the dead node back (a replica of the promoted one now),
        # then redis-cli --cluster fix brings the slot's keys together and closes the slot.
        await asyncio.to_thread(cluster.start_again, source.port)
        repaired = await fix(cluster)
        assert "Target key exists" not in repaired, repaired
        # Every key of the room together on the slot's master: the promoted one, or the
        # importing one if fix chose it (it picks the master holding more of the slot's keys).
        serving = cluster.master_of_slot(key_slot(state_key(room.room_id).encode()))
        assert before - {lease_key(room.room_id)} <= held_keys(cluster, serving, room.room_id)

        moved = await seat_a_command(seat_a, one.base, room, MOVE, "move")
        assert moved.version > activated.version
        b = await play_on_after_failover(
            store, room, seat_a, two.base,
            [(seat_a[-1], ACTIVATE, "activate", activated), (seat_a[-1], MOVE, "move", moved)])
        for client in (*seat_a, relayed, b):
            await client.close()


def test_a_master_left_failing_by_a_cut_short_move_fails_only_what_lives_there(
        own_cluster: RedisClusterProcesses) -> None:
    """The importing master of a cut-short move says ``cluster_state:fail`` and answers
    ``CLUSTERDOWN`` to everything until the repair (docs/deploy.md). A node's lease renewal
    round goes through: the leases of its rooms there are left undecided (neither renewed
    nor lost), a relayed room's holder there is not reported, a node whose liveness key is
    there is not taken for dead, and its rooms on the other masters are renewed."""
    cluster = own_cluster
    source, target, other = cluster.masters()
    node_id = cluster.id_on(other, alive_key)
    there, elsewhere, relayed = (cluster.id_on(target, lease_key),
                                 cluster.id_on(other, lease_key),
                                 cluster.id_on(target, lease_key))
    watched_node = cluster.id_on(target, alive_key)
    for room_id, master in ((there, target), (elsewhere, other), (relayed, target)):
        with cluster.client(master.port) as client:
            client.hset(state_key(room_id), "fence", 1)
            client.set(lease_key(room_id), node_id if room_id != relayed else "node-y",
                       px=10_000)
    with cluster.client(target.port) as client:
        client.set(alive_key(watched_node), 1, px=10_000)
    renewal = ClusterLeaseRenewal(connect_sync_cluster(cluster.url, 5.0), node_id, 60_000)
    try:
        owned = [(there, 1), (elsewhere, 1)]
        before = renewal.tick(owned, [relayed], [watched_node])
        assert (before.lost, before.holders, before.dead_nodes) == (
            frozenset(), {relayed: "node-y"}, frozenset())

        moving = cluster.id_on(source, lambda name: f"{{moving:{name}}}")
        cut_short_move(cluster, key_slot(f"{{moving:{moving}}}".encode()), source, target, [])
        assert cluster.cluster_state(target.port) == "fail"
        # (the masters fail too while the dead one's slots have no master: until they learn
        # of the promotion)
        cluster.wait_until(lambda: cluster.cluster_state(other.port) == "ok", "the others ok")

        for _round in range(2):  # the first reads the slot map again (the dead master's)
            report = renewal.tick(owned, [relayed], [watched_node])
        assert (report.lost, report.holders, report.dead_nodes) == (
            frozenset(), {}, frozenset())
        with cluster.client(other.port) as client:
            assert client.pttl(lease_key(elsewhere)) > 10_000  # renewed for 60 s
    finally:
        renewal.close()
