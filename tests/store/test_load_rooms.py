"""``RoomStore.load_rooms``: many rooms read back in one call, each as ``load_room`` reads it
(the registry's batched loads after a restart, server/rooms/room_loads.py); on Redis one
pipeline, i.e. one round trip for the whole batch."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from server.store.interface import RoomStore
from server.store.redis_store import RedisRoomStore
from tests.store.round_trips import count_round_trips
from tests.store.test_room_store_contract import add, meta

pytestmark = pytest.mark.redis


async def test_load_rooms_reads_each_room_as_load_room_and_none_for_an_unknown_one(
        store: RoomStore) -> None:
    rooms = [meta("private") for _ in range(3)]
    for n, room in enumerate(rooms):
        await store.create_room(room, b"snap-0", None)
        fence = await store.claim_room(room.room_id, "node")
        assert fence is not None
        await add(store, room, fence, 0, n + 1, snapshot=n != 2)  # events after a snapshot
    ids = [rooms[0].room_id, "no-such-room", rooms[1].room_id, rooms[2].room_id]
    loaded = await store.load_rooms(ids)
    assert loaded == [await store.load_room(room_id) for room_id in ids]
    assert loaded[1] is None and loaded[3] is not None and len(loaded[3].events) == 3
    assert await store.load_rooms([]) == []


async def test_redis_load_rooms_is_one_pipeline_and_no_other_command(
        redis_store: RedisRoomStore, monkeypatch: pytest.MonkeyPatch) -> None:
    rooms = [meta("private") for _ in range(5)]
    for room in rooms:
        await redis_store.create_room(room, b"snap-0", None)
    await redis_store.load_room(rooms[0].room_id)  # (the script is loaded once, before)
    calls = count_round_trips(redis_store, monkeypatch)
    loaded = await redis_store.load_rooms([room.room_id for room in rooms])
    assert [stored.meta for stored in loaded if stored is not None] == rooms
    assert calls == ["pipeline"]


async def test_redis_load_rooms_after_a_script_flush_loads_the_script_again(
        redis_store: RedisRoomStore) -> None:
    room = meta("private")
    await redis_store.create_room(room, b"snap-0", None)
    await redis_store.load_rooms([room.room_id])
    await redis_store.client.script_flush()  # as a Redis restart leaves it
    [stored] = await redis_store.load_rooms([room.room_id])
    assert stored is not None and stored.meta == room


async def test_many_first_calls_of_a_script_at_once_load_it_once(
        redis_store: RedisRoomStore, monkeypatch: pytest.MonkeyPatch) -> None:
    # After a restart every room's claim starts at once, before the script is known.
    rooms = [meta("private") for _ in range(20)]
    for room in rooms:
        await redis_store.create_room(room, b"snap-0", None)
    await redis_store.client.script_flush()
    redis_store._scripts.forget()  # as a new process starts
    client = redis_store.client
    loads: list[str] = []
    script_load = client.script_load

    async def counted_load(script: str) -> Any:
        loads.append(script)
        return await script_load(script)

    monkeypatch.setattr(client, "script_load", counted_load)
    fences = await asyncio.gather(*(redis_store.claim_room(room.room_id, "node")
                                    for room in rooms))
    assert all(fence is not None for fence in fences)
    assert len(loads) == 1
