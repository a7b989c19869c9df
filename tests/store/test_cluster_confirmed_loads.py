"""A room's load on a Redis Cluster is confirmed on a replica before it is returned
(``ClusterRoomStore.load_room``/``load_rooms``, ``ClusterAppendBatches.confirmed_calls``): an
append refused ``NotReplicated`` may have landed on the master, and what a load reads from
there must not be served until a replica has it. The room's master's replica is stopped
(``SIGSTOP``) so that it cannot acknowledge; the session's cluster (three masters, three
replicas)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

import pytest
from redis.crc import key_slot

from server.store.cluster_appends import NotReplicated, confirm_key
from server.store.cluster_store import ClusterRoomStore
from server.store.interface import SomeRoomsUnavailable, StoredRoom
from server.store.redis_store import state_key
from testkit.redis_cluster import NodeView, RedisClusterProcesses
from tests.store.test_redis_cluster_store import meta, rooms_on_every_master

pytestmark = [pytest.mark.redis, pytest.mark.slow]

T = TypeVar("T")

TRIES = 10
"""Loads tried at most once the replica is resumed (each waits up to ``CLUSTER_WAIT_MS`` for its
acknowledgement): a bound, not a timing."""




def commands_run(cluster: RedisClusterProcesses, master: NodeView, command: str) -> int:
    """How many times ``master`` has run ``command`` (``INFO commandstats``)."""
    with cluster.client(master.port) as client:
        stats = client.info("commandstats")
    return int(stats.get(f"cmdstat_{command}", {}).get("calls", 0))


async def once_confirmed(read: Callable[[], Awaitable[T]], what: str) -> T:
    """What ``read`` returns the first time a replica confirms it (every refusal before it
    ``NotReplicated``), at most ``TRIES`` reads."""
    for _ in range(TRIES):
        try:
            return await read()
        except NotReplicated:
            continue
    raise AssertionError(f"{what} never confirmed")


async def loaded_once_confirmed(store: ClusterRoomStore, room_id: str) -> int:
    """The room's version, from the first load confirmed on a replica."""
    stored = await once_confirmed(lambda: store.load_room(room_id), f"the load of {room_id}")
    assert stored is not None
    return stored.version


async def test_a_load_waits_for_a_replica_to_hold_what_it_read(
        redis_cluster: RedisClusterProcesses, confirmed_store: ClusterRoomStore) -> None:
    rooms = rooms_on_every_master(redis_cluster, "confirmed-load", 1)
    victim = redis_cluster.masters()[0]
    room_id = next(room for room, master in rooms.items() if master == victim)
    others = [room for room in rooms if room != room_id]
    for room in rooms:
        await confirmed_store.create_room(meta(room), b"s0", None)
    fence = await confirmed_store.claim_room(room_id, "node-x")
    assert fence is not None
    assert await confirmed_store.append(room_id, fence=fence, expected_version=0, events=[b"e1"],
                                      snapshot=None, deadlines=(), listing=None) == 1
    replica = redis_cluster.replica_of(victim.node_id)
    redis_cluster.pause(replica.port)
    try:
        with pytest.raises(NotReplicated):  # landed on the master, no replica has it
            await confirmed_store.append(room_id, fence=fence, expected_version=1,
                                       events=[b"e2"], snapshot=None, deadlines=(),
                                       listing=None)
        # The master has version 2; no load returns it while no replica has it.
        with pytest.raises(NotReplicated):
            await confirmed_store.load_room(room_id)
        # In a batch, it alone fails: the rooms of the other masters (their replicas run)
        # are read and confirmed.
        with pytest.raises(SomeRoomsUnavailable) as partly:
            await confirmed_store.load_rooms([*others, room_id])
        *loaded, failed = partly.value.outcomes
        assert isinstance(failed, NotReplicated)
        assert [isinstance(stored, StoredRoom) and stored.version == 0
                for stored in loaded] == [True, True]
        assert [stored is not None and stored.version == 0
                for stored in await confirmed_store.load_rooms(others)] == [True, True]
    finally:
        redis_cluster.resume(replica.port)
    assert await loaded_once_confirmed(confirmed_store, room_id) == 2
    [stored] = await confirmed_store.load_rooms([room_id])
    assert stored is not None and stored.events == (b"e1", b"e2")
    # What it confirmed is on the replica itself.
    with redis_cluster.client(replica.port) as client:
        client.execute_command("READONLY")
        assert client.hget(state_key(room_id), "version") == "2"


async def test_a_batch_of_loads_costs_one_write_and_one_wait_per_master(
        redis_cluster: RedisClusterProcesses, confirmed_store: ClusterRoomStore) -> None:
    rooms = rooms_on_every_master(redis_cluster, "batched-load", 4)
    for room in rooms:
        await confirmed_store.create_room(meta(room), b"s0", None)
    masters = redis_cluster.masters()
    await confirmed_store.load_room(next(iter(rooms)))  # (the script loaded on one master)

    def counts() -> list[tuple[int, int, int]]:
        return [(commands_run(redis_cluster, master, "wait"),
                 commands_run(redis_cluster, master, "set"),
                 commands_run(redis_cluster, master, "evalsha")) for master in masters]

    before = counts()
    loaded = await confirmed_store.load_rooms(list(rooms))
    after = counts()
    assert all(stored is not None and stored.meta.room_id == room
               for room, stored in zip(rooms, loaded, strict=True))
    # Per master: its four loads, one confirming write, one WAIT.
    assert [(w1 - w0, s1 - s0, e1 - e0) for (w0, s0, e0), (w1, s1, e1)
            in zip(before, after, strict=True)] == [(1, 1, 4)] * len(masters)


async def test_without_waits_a_load_reads_as_on_one_redis(
        redis_cluster: RedisClusterProcesses) -> None:
    """``wait_replicas=0``: nothing to confirm; a load reads what the master has."""
    room_id = next(iter(rooms_on_every_master(redis_cluster, "unconfirmed-load", 1)))
    master = redis_cluster.master_of_key(f"{{room:{room_id}}}")
    store = ClusterRoomStore.from_url(redis_cluster.url, wait_replicas=0)
    replica = redis_cluster.replica_of(master.node_id)
    try:
        await store.create_room(meta(room_id), b"s0", None)
        redis_cluster.pause(replica.port)
        try:
            stored = await store.load_room(room_id)
        finally:
            redis_cluster.resume(replica.port)
        assert stored is not None and stored.version == 0
    finally:
        await store.close()


def test_the_confirming_write_shares_the_rooms_slot() -> None:
    assert key_slot(confirm_key(state_key("r-1")).encode()) == key_slot(
        state_key("r-1").encode())
    assert confirm_key(state_key("r-1")) == "{room:r-1}:confirm"

