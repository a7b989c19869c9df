"""A room's registered armies (a tournament table's: the army list id each seat must choose)
are part of its settings: stored with the room in memory and in Redis (msgpack meta), read
back as written; rooms stored before them, and lobby rooms, read back with none."""

from __future__ import annotations

import uuid

import pytest
import redis.asyncio as aioredis

from protocol.codec import pack_plain
from server.store import RoomMeta, RoomSettings
from server.store.interface import RoomStore
from server.store.redis_store import RedisRoomStore, state_key
from testkit.redis_process import RedisProcess

pytestmark = pytest.mark.redis


def meta(armies: dict[str, str], aro_min_open_s: float = 0.0) -> RoomMeta:
    settings = RoomSettings("n5", 30.0, "private", armies=armies, aro_min_open_s=aro_min_open_s)
    return RoomMeta(f"r{uuid.uuid4().hex[:10]}", settings, "a" * 64, "b" * 64, 1_000)


@pytest.mark.parametrize("armies", [
    {"A": "vesper-raiders", "B": "helion-vanguard"}, {"B": "vesper-raiders"}, {}])
async def test_the_registered_armies_are_read_back_as_they_were_stored(
        store: RoomStore, armies: dict[str, str]) -> None:
    room = meta(armies)
    await store.create_room(room, b"snap-0", None)
    stored = await store.load_room(room.room_id)
    assert stored is not None and stored.meta == room
    assert dict(stored.meta.settings.armies) == armies


async def test_uniform_aro_windows_are_read_back_as_they_were_stored(store: RoomStore) -> None:
    room = meta({}, aro_min_open_s=3.0)
    await store.create_room(room, b"snap-0", None)
    stored = await store.load_room(room.room_id)
    assert stored is not None and stored.meta.settings.aro_min_open_s == 3.0


async def test_a_room_stored_before_registered_armies_holds_no_seat_to_one(
        redis_server: RedisProcess) -> None:
    store = RedisRoomStore.from_url(redis_server.url)
    raw = aioredis.Redis.from_url(redis_server.url)
    try:
        room = meta({})
        await store.create_room(room, b"snap-0", None)
        # The meta exactly as the store wrote it before settings had armies.
        await raw.hset(state_key(room.room_id), "meta", pack_plain({
            "room_id": room.room_id, "token_hash_a": "a" * 64, "token_hash_b": "b" * 64,
            "created_ms": 1_000, "dice_commitment": "",
            "settings": {"ruleset": "n5", "aro_window_s": 30.0, "visibility": "private",
                         "fixed_seed": None, "spectator_delay_s": 0.0, "table": "",
                         "clock_s": 0}}))
        stored = await store.load_room(room.room_id)
        assert stored is not None and dict(stored.meta.settings.armies) == {}
        assert stored.meta.settings.aro_min_open_s == 0.0, "uniform ARO windows: off"
    finally:
        await raw.aclose()
        await store.close()
