"""Claims and presence writes made in one event-loop turn go to Redis as one pipeline
(``server.store.script_batches``), and each caller still gets its own room's outcome: its
fence, its ``StaleWriter``, or ``StorageUnavailable`` when Redis cannot be reached."""

from __future__ import annotations

import asyncio

import pytest

from server.cluster.lease import RedisLeases
from server.rooms.ownership import Claimed, HeldBy
from server.store.interface import Deadline, StaleWriter, StorageUnavailable
from server.store.redis_store import RedisRoomStore
from tests.store.round_trips import count_round_trips
from tests.store.test_room_store_contract import meta

pytestmark = pytest.mark.redis


async def test_claims_of_one_turn_are_one_pipeline_each_with_its_own_fence(
        redis_store: RedisRoomStore, monkeypatch: pytest.MonkeyPatch) -> None:
    rooms = [meta("private") for _ in range(30)]
    for room in rooms:
        await redis_store.create_room(room, b"snap-0", None)
    first = await redis_store.claim_room(rooms[0].room_id, "node")  # (loads the script)
    calls = count_round_trips(redis_store, monkeypatch)
    fences = await asyncio.gather(
        *(redis_store.claim_room(room.room_id, "node") for room in rooms),
        redis_store.claim_room("no-such-room", "node"))
    assert calls == ["pipeline"]
    assert fences == [first + 1, *([1] * 29), None]  # each room's own next fence


async def test_presence_writes_of_one_turn_are_one_pipeline_and_a_stale_one_fails_alone(
        redis_store: RedisRoomStore, monkeypatch: pytest.MonkeyPatch) -> None:
    rooms = [meta("private") for _ in range(4)]
    fences = []
    for room in rooms:
        await redis_store.create_room(room, b"snap-0", None)
        fence = await redis_store.claim_room(room.room_id, "node")
        assert fence is not None
        fences.append(fence)
    await redis_store.set_deadlines(rooms[0].room_id, fence=fences[0], deadlines=())
    calls = count_round_trips(redis_store, monkeypatch)
    outcomes = await asyncio.gather(
        *(redis_store.set_deadlines(room.room_id, fence=fence if n != 2 else fence - 1,
                                    deadlines=(Deadline("seat_grace", "A", n),))
          for n, (room, fence) in enumerate(zip(rooms, fences, strict=True))),
        return_exceptions=True)
    assert calls == ["pipeline"]
    assert outcomes[0] is None and outcomes[1] is None and outcomes[3] is None
    assert isinstance(outcomes[2], StaleWriter)
    for n, room in enumerate(rooms):
        stored = await redis_store.load_room(room.room_id)
        assert stored is not None
        assert stored.deadlines == (() if n == 2 else (Deadline("seat_grace", "A", n),))


async def test_a_batch_after_a_script_flush_loads_the_script_again(
        redis_store: RedisRoomStore) -> None:
    rooms = [meta("private") for _ in range(3)]
    for room in rooms:
        await redis_store.create_room(room, b"snap-0", None)
    await redis_store.claim_room(rooms[0].room_id, "node")
    await redis_store.client.script_flush()  # as a Redis restart leaves it
    fences = await asyncio.gather(*(redis_store.claim_room(room.room_id, "node")
                                    for room in rooms))
    assert fences == [2, 1, 1]  # each claimed once: the calls refused NOSCRIPT did nothing


async def test_lease_claims_of_one_turn_are_one_pipeline(
        redis_store: RedisRoomStore, monkeypatch: pytest.MonkeyPatch) -> None:
    rooms = [meta("private") for _ in range(10)]
    for room in rooms:
        await redis_store.create_room(room, b"snap-0", None)
    mine = RedisLeases(redis_store.client, "node-a", 10_000)
    other = RedisLeases(redis_store.client, "node-b", 10_000)
    assert await other.acquire(rooms[0].room_id) == Claimed(1)  # (and loads the script)
    calls = count_round_trips(redis_store, monkeypatch)
    claims = await asyncio.gather(*(mine.acquire(room.room_id) for room in rooms),
                                  mine.acquire("no-such-room"))
    assert calls == ["SCRIPT LOAD", "pipeline"]  # (this node's first use of the script)
    assert claims == [HeldBy("node-b"), *([Claimed(1)] * 9), None]


async def test_a_batch_that_cannot_reach_redis_fails_every_call_with_storage_unavailable(
        redis_store: RedisRoomStore) -> None:
    rooms = [meta("private") for _ in range(3)]
    for room in rooms:
        await redis_store.create_room(room, b"snap-0", None)
    await redis_store.claim_room(rooms[0].room_id, "node")
    unreachable = RedisRoomStore.from_url("redis://127.0.0.1:1/0")  # nothing listens there
    try:
        outcomes = await asyncio.gather(
            *(unreachable.claim_room(room.room_id, "node") for room in rooms),
            return_exceptions=True)
    finally:
        await unreachable.close()
    assert all(isinstance(outcome, StorageUnavailable) for outcome in outcomes)
