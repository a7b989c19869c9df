"""Failures of the Redis client that mean "Redis cannot be reached now" but are not redis-py's
connection errors are still ``StorageUnavailable`` ("try again";
``server/store/redis_errors.py``), and the same kinds of error from elsewhere are not:

- a command written on a connection whose socket was closed under redis-py (a Redis
  Cluster master killed as the connection was being set up) fails with the transport's own
  error, which redis-py 8.1 lets through: under uvloop (the server's loop) a
  ``RuntimeError`` for a closed handle, and an ``AttributeError`` when the connection's
  writer is gone. Taken for a bug, it once left an ARO window whose deadline it met open
  for good. Real redis-server, real uvloop, the store's own client;
- the cluster client that can reach no node to read its slot map raises a
  ``RedisClusterException`` from the connection error. Real redis-py, a port nobody serves.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest
import uvloop
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.connection import Connection
from redis.exceptions import RedisClusterException

from server.store.interface import Deadline, StorageUnavailable
from server.store.redis_errors import storage_call, transport_failure
from server.store.redis_store import RedisRoomStore
from testkit.redis_process import RedisProcess, free_port
from tests.store.test_room_store_contract import meta

pytestmark = pytest.mark.redis


def on_uvloop(redis_url: str, use: Callable[[RedisRoomStore], Awaitable[None]]) -> None:
    async def run() -> None:
        store = RedisRoomStore.from_url(redis_url)
        try:
            await use(store)
        finally:
            await store.close()

    uvloop.run(run())


def close_its_connections(store: RedisRoomStore) -> int:
    """Close the transport of every connection the store's client opened, leaving redis-py
    unaware (as a peer's reset found only at the next write)."""
    pool = store.client.connection_pool
    connections = [*pool._available_connections, *pool._in_use_connections]
    for connection in connections:
        connection._writer.transport.close()  # type: ignore[union-attr]
    return len(connections)


def test_a_write_on_a_connection_closed_under_it_is_storage_unavailable(
        redis_server: RedisProcess) -> None:
    outcome: list[BaseException] = []

    async def use(store: RedisRoomStore) -> None:
        room = meta("private")
        await store.create_room(room, b"snap-0", None)
        fence = await store.claim_room(room.room_id, "node")
        assert fence is not None
        await store.set_deadlines(room.room_id, fence=fence, deadlines=())
        assert close_its_connections(store) >= 1
        try:
            await store.set_deadlines(room.room_id, fence=fence,
                                      deadlines=(Deadline("seat_grace", "A", 1),))
        except BaseException as error:
            outcome.append(error)
        else:
            pytest.fail("a closed connection's write succeeded")
        # The next call opens a new connection: the store is not broken by it.
        await store.set_deadlines(room.room_id, fence=fence,
                                  deadlines=(Deadline("seat_grace", "A", 2),))
        stored = await store.load_room(room.room_id)
        assert stored is not None and stored.deadlines == (Deadline("seat_grace", "A", 2),)

    on_uvloop(redis_server.url, use)
    (error,) = outcome
    assert isinstance(error, StorageUnavailable), repr(error)
    assert isinstance(error.__cause__, RuntimeError), "uvloop's own error, as it words it"
    assert transport_failure(error.__cause__)


async def test_a_write_on_a_connection_whose_writer_is_gone_is_storage_unavailable() -> None:
    connection = Connection(socket_timeout=5.0)
    # (its writer None, as a disconnect by another task leaves it under a command being sent)
    with pytest.raises(StorageUnavailable) as raised:
        async with storage_call("set_deadlines"):
            await connection._send_packed_command([b"PING\r\n"])
    assert isinstance(raised.value.__cause__, AttributeError)


@pytest.mark.parametrize("kind", [RuntimeError, AttributeError, TypeError])
def test_the_same_errors_raised_elsewhere_are_not_taken_for_an_unreachable_redis(
        kind: type[Exception]) -> None:
    bug = kind("a bug of the caller's")
    with pytest.raises(kind, match="a bug"), storage_call("append"):
        raise bug
    assert not transport_failure(bug)


async def test_a_cluster_whose_nodes_cannot_be_reached_is_storage_unavailable() -> None:
    client = RedisCluster(host="127.0.0.1", port=free_port())
    try:
        with pytest.raises(StorageUnavailable) as raised:
            async with storage_call("load"):
                await client.get("{room:r}:state")
    finally:
        await client.aclose()
    assert isinstance(raised.value.__cause__, RedisClusterException), "redis-py's own"


async def test_a_cluster_clients_own_refusal_is_not_taken_for_an_unreachable_redis() -> None:
    client = RedisCluster(host="127.0.0.1", port=free_port())
    try:
        # (a script on keys of two slots: refused before anything is sent)
        with pytest.raises(RedisClusterException, match="same key slot"):
            async with storage_call("append"):
                await client._determine_slot("EVALSHA", "0" * 40, 2, "{a}1", "{b}2")
    finally:
        await client.aclose()
