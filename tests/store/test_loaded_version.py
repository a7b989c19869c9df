"""``RoomStore.loaded_version``: a room's version as a load would return it, without the
room (the tournament dashboard's folds continuing their kept states clip to it). On a Redis
Cluster that waits for replicas it is confirmed on a replica as a load is: one small script
read, the confirming write and ``WAIT``, never the room's ``LOAD``."""

from __future__ import annotations

import pytest

from server.store.cluster_appends import NotReplicated
from server.store.cluster_store import ClusterRoomStore
from server.store.interface import RoomStore
from testkit.redis_cluster import RedisClusterProcesses
from tests.store.test_cluster_confirmed_loads import (
    commands_run,
    loaded_once_confirmed,
    once_confirmed,
)
from tests.store.test_redis_cluster_store import meta as cluster_meta
from tests.store.test_redis_cluster_store import rooms_on_every_master
from tests.store.test_room_store_contract import add, meta


@pytest.mark.redis
async def test_the_loaded_version_is_the_loads_and_none_for_a_missing_room(
        store: RoomStore) -> None:
    room = meta()
    await store.create_room(room, b"snap-0", None)
    assert await store.loaded_version(room.room_id) == 0
    fence = await store.claim_room(room.room_id, "node")
    assert fence is not None
    await add(store, room, fence, 0, 3)
    stored = await store.load_room(room.room_id)
    assert stored is not None
    assert await store.loaded_version(room.room_id) == stored.version == 3
    assert await store.loaded_version("no-such-room") is None


@pytest.mark.redis
@pytest.mark.slow
async def test_on_a_cluster_the_loaded_version_is_confirmed_on_a_replica(
        redis_cluster: RedisClusterProcesses, confirmed_store: ClusterRoomStore) -> None:
    rooms = rooms_on_every_master(redis_cluster, "loaded-version", 1)
    room_id = next(iter(rooms))
    master = rooms[room_id]
    await confirmed_store.create_room(cluster_meta(room_id), b"s0", None)
    fence = await confirmed_store.claim_room(room_id, "node-x")
    assert fence is not None
    await loaded_once_confirmed(confirmed_store, room_id)  # (the LOAD script is loaded)
    replica = redis_cluster.replica_of(master.node_id)
    redis_cluster.pause(replica.port)
    try:
        with pytest.raises(NotReplicated):  # landed on the master, no replica has it
            await confirmed_store.append(room_id, fence=fence, expected_version=0,
                                         events=[b"e1"], snapshot=None, deadlines=(),
                                         listing=None)
        with pytest.raises(NotReplicated):  # nor is its version returned
            await confirmed_store.loaded_version(room_id)
    finally:
        redis_cluster.resume(replica.port)
    assert await once_confirmed(lambda: confirmed_store.loaded_version(room_id),
                                "the version") == 1

    def counts() -> tuple[int, ...]:
        return tuple(commands_run(redis_cluster, master, command)
                     for command in ("evalsha", "set", "wait", "xrange"))

    before = counts()
    assert await confirmed_store.loaded_version(room_id) == 1
    evalsha, confirm, wait, xrange = (b - a for a, b in zip(before, counts(), strict=True))
    assert (evalsha, confirm, wait, xrange) == (1, 1, 1, 0), "no room's LOAD, one confirm"
