"""``RoomStore.load_meta``: a room's meta alone, on every store -- the meta it was created
with, unchanged by its appends (a room's meta is written once); None for a room that does
not exist. On a Redis Cluster that waits for replicas it is one ``HGET`` on the room's
master, not a confirmed load (no script, no confirming write, no ``WAIT``): the room's
creation was confirmed before its id was handed out, and its meta never changes."""

from __future__ import annotations

import pytest

from server.store.cluster_store import ClusterRoomStore
from server.store.interface import RoomStore
from server.store.memory import MemoryRoomStore
from testkit.redis_cluster import RedisClusterProcesses
from tests.store.test_cluster_confirmed_loads import commands_run
from tests.store.test_redis_cluster_store import meta as cluster_meta
from tests.store.test_redis_cluster_store import rooms_on_every_master
from tests.store.test_room_store_contract import add, meta


@pytest.mark.redis
async def test_a_rooms_meta_reads_as_created_and_a_missing_room_as_none(
        store: RoomStore) -> None:
    room = meta()
    await store.create_room(room, b"snap-0", None)
    assert await store.load_meta(room.room_id) == room
    fence = await store.claim_room(room.room_id, "node")
    assert fence is not None
    await add(store, room, fence, 0, 3)
    assert await store.load_meta(room.room_id) == room  # (appends never touch it)
    stored = await store.load_room(room.room_id)
    assert stored is not None and stored.meta == room
    assert await store.load_meta("no-such-room") is None


async def test_a_room_gone_with_its_retention_has_no_meta() -> None:
    now = [1_000]
    store = MemoryRoomStore(clock=lambda: now[0])
    room = meta()
    await store.create_room(room, b"snap-0", None, retention_ms=500)
    assert await store.load_meta(room.room_id) == room
    now[0] += 500
    assert await store.load_meta(room.room_id) is None


@pytest.mark.redis
@pytest.mark.slow
async def test_a_meta_read_on_a_cluster_is_one_hget_not_a_confirmed_load(
        redis_cluster: RedisClusterProcesses, confirmed_store: ClusterRoomStore,
) -> None:
    rooms = rooms_on_every_master(redis_cluster, "meta-read", 1)
    room_id = next(iter(rooms))
    master = rooms[room_id]
    room = cluster_meta(room_id)
    await confirmed_store.create_room(room, b"s0", None)

    def counts() -> tuple[int, ...]:
        return tuple(commands_run(redis_cluster, master, command)
                     for command in ("hget", "evalsha", "set", "wait"))

    before = counts()
    # Served with the master's replica stopped: nothing waits for it.
    replica = redis_cluster.replica_of(master.node_id)
    redis_cluster.pause(replica.port)
    try:
        assert await confirmed_store.load_meta(room_id) == room
    finally:
        redis_cluster.resume(replica.port)
    hget, evalsha, confirm, wait = (b - a for a, b in zip(before, counts(), strict=True))
    assert (hget, evalsha, confirm, wait) == (1, 0, 0, 0)


@pytest.mark.redis
async def test_the_metas_of_several_rooms_read_in_one_call_in_order(store: RoomStore) -> None:
    first, second = meta(), meta()
    await store.create_room(first, b"snap-0", None)
    await store.create_room(second, b"snap-0", None)
    assert await store.load_metas([second.room_id, "no-such-room", first.room_id]) == [
        second, None, first]
    assert await store.load_metas([]) == []


@pytest.mark.redis
@pytest.mark.slow
async def test_metas_on_every_master_read_in_one_call_without_confirming(
        redis_cluster: RedisClusterProcesses, confirmed_store: ClusterRoomStore,
) -> None:
    rooms = rooms_on_every_master(redis_cluster, "metas-read", 2)
    metas = {room_id: cluster_meta(room_id) for room_id in rooms}
    for room in metas.values():
        await confirmed_store.create_room(room, b"s0", None)
    masters = {master.node_id: master for master in rooms.values()}

    def confirms() -> int:
        return sum(commands_run(redis_cluster, master, command)
                   for master in masters.values() for command in ("evalsha", "wait"))

    before = confirms()
    ids = [*rooms, "no-such-room"]
    assert await confirmed_store.load_metas(ids) == [*metas.values(), None]
    assert confirms() == before
