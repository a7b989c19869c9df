"""A room's appends and loads while its slot is being moved to another master
(``MIGRATING``/``IMPORTING``, ``testkit.slot_move``): with every key of the room already on
the new master the old one answers ``ASK``, and the store sends the call again there, after
``ASKING``, confirmed by the new master's own ``WAIT`` (``server.store.cluster_appends``);
with the room's keys split between the two, Redis answers ``TRYAGAIN`` and the store "try
again". The session's cluster (three masters, three replicas)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from redis.crc import key_slot

from server.lobby.tokens import new_room_id
from server.store.cluster_appends import NotReplicated
from server.store.cluster_store import ClusterRoomStore
from server.store.interface import Answer, StorageUnavailable
from server.store.redis_store import answers_key, events_key, room_keys, state_key
from testkit.redis_cluster import NodeView, RedisClusterProcesses
from testkit.slot_move import SlotMove
from tests.store.test_cluster_confirmed_loads import commands_run, loaded_once_confirmed
from tests.store.test_redis_cluster_store import meta

pytestmark = [pytest.mark.redis, pytest.mark.slow]





async def played_room(store: ClusterRoomStore, *, both_seats: bool = True) -> tuple[str, int]:
    """A claimed room at version 2 (or 1): every key of it exists (state, events, both seats'
    answers) unless not ``both_seats`` (no answer of seat B yet: no ``answers:B`` list).
    The room's id and fence."""
    room_id = f"asked-{new_room_id()[:10]}"
    await store.create_room(meta(room_id), b"s0", None)
    fence = await store.claim_room(room_id, "node-x")
    assert fence is not None
    seats = ("A", "B") if both_seats else ("A",)
    for version, seat in enumerate(seats):
        assert await store.append(room_id, fence=fence, expected_version=version,
                                  events=[f"e{version + 1}".encode()], snapshot=None,
                                  deadlines=(), listing=None,
                                  answer=Answer(seat, f"c{version + 1}", b"ok")) == version + 1
    return room_id, fence


@contextmanager
def moving(cluster: RedisClusterProcesses, room_id: str) -> Iterator[tuple[SlotMove, NodeView]]:
    """The room's slot marked moving to another master (``begin``); the move is completed
    on the way out, whatever happened (no half-moved slot left to the session's tests)."""
    slot = key_slot(f"{{room:{room_id}}}".encode())
    source = cluster.master_of_slot(slot)
    target = next(master for master in cluster.masters() if master.node_id != source.node_id)
    move = cluster.move_slot(slot, target)
    move.begin()
    try:
        yield move, target
    finally:
        move.migrate_all()
        move.finish()


def stored_on(cluster: RedisClusterProcesses, master: NodeView, room_id: str) -> list[str]:
    """The room's events as ``master`` itself holds them (``ASKING`` first: while it imports
    the slot it serves only a command asked there)."""
    with cluster.client(master.port) as client:
        client.execute_command("ASKING")
        return [fields["e"] for _id, fields in client.xrange(events_key(room_id))]


async def test_an_append_asked_to_the_new_master_is_stored_there_and_waited_for_there(
        redis_cluster: RedisClusterProcesses, confirmed_store: ClusterRoomStore) -> None:
    room_id, fence = await played_room(confirmed_store)
    with moving(redis_cluster, room_id) as (move, target):
        move.migrate(room_keys(room_id))  # every key of the room moved, the slot not yet
        assert not [key for key in move.keys_left() if key.startswith(f"{{room:{room_id}}}")]
        waits = commands_run(redis_cluster, target, "wait")
        assert await confirmed_store.append(room_id, fence=fence, expected_version=2,
                                          events=[b"e3"], snapshot=None, deadlines=(),
                                          listing=None) == 3
        assert stored_on(redis_cluster, target, room_id) == ["e1", "e2", "e3"]
        # Confirmed by the new master's WAIT (its replica has the write), not the old one's.
        assert commands_run(redis_cluster, target, "wait") == waits + 1
        replica = redis_cluster.replica_of(target.node_id)
        redis_cluster.pause(replica.port)
        try:
            with pytest.raises(NotReplicated):  # on the new master, its replica stopped
                await confirmed_store.append(room_id, fence=fence, expected_version=3,
                                           events=[b"e4"], snapshot=None, deadlines=(),
                                           listing=None)
            with pytest.raises(NotReplicated):  # a load asked there is confirmed there too
                await confirmed_store.load_room(room_id)
        finally:
            redis_cluster.resume(replica.port)
        # The fence and version checks ran on the new master: a stale writer is refused.
        with pytest.raises(Exception, match="STALE fence"):
            await confirmed_store.append(room_id, fence=fence - 1, expected_version=4,
                                       events=[b"x"], snapshot=None, deadlines=(),
                                       listing=None)
        assert await loaded_once_confirmed(confirmed_store, room_id) == 4
    assert stored_on(redis_cluster, target, room_id) == ["e1", "e2", "e3", "e4"]
    with redis_cluster.client(replica.port) as client:  # what the new master's WAIT confirmed
        client.execute_command("READONLY")
        assert client.hget(state_key(room_id), "version") == "4"


async def test_an_append_whose_room_is_split_between_two_masters_is_told_to_try_again(
        redis_cluster: RedisClusterProcesses, confirmed_store: ClusterRoomStore) -> None:
    room_id, fence = await played_room(confirmed_store)
    with moving(redis_cluster, room_id) as (move, target):
        move.migrate([state_key(room_id), answers_key(room_id, "A")])
        with pytest.raises(StorageUnavailable, match="TRYAGAIN") as refused:
            await confirmed_store.append(room_id, fence=fence, expected_version=2,
                                       events=[b"e3"], snapshot=None, deadlines=(),
                                       listing=None)
        assert not isinstance(refused.value, NotReplicated)
        with pytest.raises(StorageUnavailable, match="TRYAGAIN"):
            await confirmed_store.load_room(room_id)
    await confirmed_store.appends.router.refresh()  # (else its first append meets MOVED)
    assert await confirmed_store.append(room_id, fence=fence, expected_version=2,
                                      events=[b"e3"], snapshot=None, deadlines=(),
                                      listing=None) == 3
    assert stored_on(redis_cluster, target, room_id) == ["e1", "e2", "e3"]


async def test_a_room_with_a_key_not_yet_written_is_told_to_try_again_until_the_move_is_done(
        redis_cluster: RedisClusterProcesses, confirmed_store: ClusterRoomStore) -> None:
    """No answer of seat B yet: no ``answers:B`` anywhere. The old master answers ``ASK``
    (it has none of the room's keys), the new one ``TRYAGAIN`` (a script's keys must all
    exist there while it imports the slot); so is a new room's creation in that slot."""
    room_id, fence = await played_room(confirmed_store, both_seats=False)
    slot = key_slot(f"{{room:{room_id}}}".encode())
    newcomer = next(room for room in (f"asked-new-{n}" for n in range(1_000_000))
                    if key_slot(f"{{room:{room}}}".encode()) == slot)
    with moving(redis_cluster, room_id) as (move, _target):
        move.migrate([state_key(room_id), events_key(room_id), answers_key(room_id, "A")])
        with pytest.raises(StorageUnavailable, match=r"asked.*TRYAGAIN"):
            await confirmed_store.append(room_id, fence=fence, expected_version=1,
                                       events=[b"e2"], snapshot=None, deadlines=(),
                                       listing=None)
        # A room created in the slot: none of its keys exists yet, on either master.
        with pytest.raises(StorageUnavailable, match=r"asked.*TRYAGAIN"):
            await confirmed_store.create_room(meta(newcomer), b"s0", None)
    await confirmed_store.appends.router.refresh()
    assert await confirmed_store.append(room_id, fence=fence, expected_version=1,
                                      events=[b"e2"], snapshot=None, deadlines=(),
                                      listing=None) == 2


async def test_a_batch_of_loads_led_by_a_room_being_moved_serves_the_others_of_its_master(
        redis_cluster: RedisClusterProcesses, confirmed_store: ClusterRoomStore) -> None:
    """The slot marked moving, no key moved yet: both rooms are read on the old master, and
    the confirming write falls on the first room's hash tag, a key the old master does not
    hold in a slot it is migrating: ``ASK``, so neither read is confirmed by that batch.
    The store reads them again, and the confirming write goes to the other room's slot."""
    moving_room, _fence = await played_room(confirmed_store)
    slot = key_slot(f"{{room:{moving_room}}}".encode())
    source = redis_cluster.master_of_slot(slot)
    staying = next(room for room in (f"asked-stay-{n}-{new_room_id()[:6]}" for n in range(10**6))
                   if (other := key_slot(f"{{room:{room}}}".encode())) != slot
                   and any(start <= other <= end for start, end in source.slots))
    await confirmed_store.create_room(meta(staying), b"s0", None)
    with moving(redis_cluster, moving_room):
        loaded = await confirmed_store.load_rooms([moving_room, staying])
        assert [stored is not None and stored.version for stored in loaded] == [2, 0]
