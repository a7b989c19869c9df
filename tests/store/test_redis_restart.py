"""Redis as the system of record: a restart of Redis (append-only file on) loses no accepted
append, and while Redis is down the store answers "storage unavailable, try again" (also to
the appends that were in flight when it died)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
import redis.asyncio as aioredis

from server.store import RoomMeta, RoomSettings
from server.store.redis_errors import StorageUnavailable
from server.store.redis_store import RedisRoomStore
from testkit.redis_process import RedisProcess, free_port

pytestmark = pytest.mark.redis


def meta() -> RoomMeta:
    return RoomMeta("restart-room", RoomSettings("n5", 2.0, "private", fixed_seed=1), "a", "b", 1)


@pytest.mark.slow  # kill drill
async def test_kill_9_of_redis_loses_no_accepted_append_and_down_means_try_again(
        tmp_path: Path) -> None:
    server = RedisProcess(tmp_path / "redis")
    server.start()
    store = RedisRoomStore.from_url(server.url)
    try:
        await store.create_room(meta(), b"snap-0", None)
        fence = await store.claim_room("restart-room", "node")
        assert fence is not None
        accepted = []
        for version in range(10):
            new = await store.append("restart-room", fence=fence, expected_version=version,
                                     events=[f"e{version + 1}".encode()],
                                     snapshot=f"s{version + 1}".encode(), deadlines=(),
                                     listing=None)
            accepted.append(new)
        server.kill()
        with pytest.raises(StorageUnavailable, match="try again"):
            await store.append("restart-room", fence=fence, expected_version=10,
                               events=[b"e11"], snapshot=b"s11", deadlines=(), listing=None)
        with pytest.raises(StorageUnavailable):
            await store.load_room("restart-room")
        server.start()  # same port, same directory: replays the append-only file
        stored = await store.load_room("restart-room")
        assert stored is not None and stored.version == 10 and stored.snapshot == b"s10"
        assert accepted == list(range(1, 11))
        assert await store.events_since("restart-room", 0) == [
            f"e{n}".encode() for n in range(1, 11)]
        # The script cache died with Redis; the store reloads it and writes on.
        assert await store.append("restart-room", fence=fence, expected_version=10,
                                  events=[b"e11"], snapshot=b"s11", deadlines=(),
                                  listing=None) == 11
    finally:
        await store.close()
        server.stop()


async def test_unreachable_redis_is_storage_unavailable_not_a_crash() -> None:
    store = RedisRoomStore.from_url(f"redis://127.0.0.1:{free_port()}/0")
    try:
        with pytest.raises(StorageUnavailable, match="try again"):
            await store.claim_room("any", "node")
    finally:
        await store.close()


@pytest.mark.slow  # kill drill
async def test_appends_in_flight_when_redis_dies_are_storage_unavailable_then_land_after(
        tmp_path: Path) -> None:
    server = RedisProcess(tmp_path / "redis")
    server.start()
    store = RedisRoomStore.from_url(server.url)
    admin = aioredis.Redis.from_url(server.url)
    try:
        rooms = []
        for n in range(2):
            room = RoomMeta(f"in-flight-{n}", RoomSettings("n5", 2.0, "private", fixed_seed=1), "a", "b", 1)
            await store.create_room(room, b"snap-0", None)
            fence = await store.claim_room(room.room_id, "node")
            assert fence is not None
            assert await append(store, room.room_id, fence, 0) == 1  # connected, script loaded
            rooms.append((room.room_id, fence))
        await admin.client_pause(60_000, all=False)  # writes wait: the appends stay in flight
        first = asyncio.ensure_future(append(store, *rooms[0], 1))
        await until_an_append_waits(admin)
        second = asyncio.ensure_future(append(store, *rooms[1], 1))  # pipelined behind it
        await until_an_append_waits(admin, behind_it=True)
        await admin.aclose()
        server.kill()
        for in_flight in (first, second):
            with pytest.raises(StorageUnavailable, match="try again"):
                await in_flight
        server.start()
        assert [await append(store, room_id, fence, 1) for room_id, fence in rooms] == [2, 2]
        admin = aioredis.Redis.from_url(server.url)
        errors = await admin.info("errorstats")
        await admin.aclose()
        assert "errorstat_NOSCRIPT" not in errors, "the new connection loaded the script first"
    finally:
        await store.close()
        server.stop()


async def append(store: RedisRoomStore, room_id: str, fence: int, version: int) -> int:
    return await store.append(room_id, fence=fence, expected_version=version,
                              events=[f"e{version + 1}".encode()], snapshot=None, deadlines=(),
                              listing=None)


async def until_an_append_waits(admin: aioredis.Redis, behind_it: bool = False) -> None:
    """Until Redis holds an append script (paused), and with ``behind_it`` the next command
    on its connection, unread (each look is a round trip)."""
    def waiting(client: dict[str, Any]) -> bool:
        return (client["cmd"] == "evalsha" and "b" in client["flags"]
                and (not behind_it or client["qbuf"] != "0"))

    while not any(waiting(client) for client in await admin.client_list()):
        pass


@pytest.mark.slow  # a redis-server of its own, restarted
async def test_after_an_external_restart_the_pools_stale_connections_are_replaced(
        tmp_path: Path) -> None:
    """The review: ~20 s after Redis was back (and /readyz 200), a spectator resuming from
    version 0 was closed 4011 ("Connection closed by server"): the pool's connections from
    before the restart were dead, and each failed its next command once. Now an idle one is
    PINGed first and a broken one replaced, so every read after the restart succeeds."""
    server = RedisProcess(tmp_path / "redis")
    server.start()
    store = RedisRoomStore.from_url(server.url)
    try:
        await store.create_room(meta(), b"snap-0", None)
        fence = await store.claim_room("restart-room", "node")
        assert fence is not None
        await store.append("restart-room", fence=fence, expected_version=0, events=[b"e1"],
                           snapshot=None, deadlines=(), listing=None)
        # Eight pooled connections, each used and idle now.
        reads = await asyncio.gather(*(store.events_since("restart-room", 0)
                                       for _ in range(8)))
        assert reads == [[b"e1"]] * 8
        server.stop()  # an operator restarts Redis (graceful: it saves nothing; AOF stays)
        server.start()
        after = await asyncio.gather(*(store.events_since("restart-room", 0)
                                       for _ in range(8)), return_exceptions=True)
        assert after == [[b"e1"]] * 8, after
        assert await store.append("restart-room", fence=fence, expected_version=1,
                                  events=[b"e2"], snapshot=None, deadlines=(),
                                  listing=None) == 2
    finally:
        await store.close()
        server.stop()
