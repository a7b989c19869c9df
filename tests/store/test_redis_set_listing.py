"""A listing written on its own (a seat's join, a crowd's count) on a single Redis: the room's
hash and the lobby index in one command; nothing for a room that is gone."""

from __future__ import annotations

import uuid

import pytest

from server.store import Listing, RoomMeta, RoomSettings
from server.store.redis_store import PUBLIC_KEY, RedisRoomStore, state_key
from tests.store.round_trips import count_round_trips

pytestmark = pytest.mark.redis


def listing(room_id: str, updated_ms: int, spectators: int = 0) -> Listing:
    return Listing(room_id, "n5", "orders", 1, 1, "A", spectators, 2, updated_ms)


async def public_room(store: RedisRoomStore) -> str:
    settings = RoomSettings("n5", 1.5, "public", fixed_seed=42)
    room = RoomMeta(f"l{uuid.uuid4().hex[:10]}", settings, "a" * 64, "b" * 64, 1_000)
    await store.create_room(room, b"snap-0", listing(room.room_id, 1))
    return room.room_id


async def listed(store: RedisRoomStore, room_id: str) -> list[Listing]:
    return [item for item in await store.public_rooms(1000) if item.room_id == room_id]


async def test_a_listing_and_its_index_entry_are_one_command(
        redis_store: RedisRoomStore, monkeypatch: pytest.MonkeyPatch) -> None:
    room_id = await public_room(redis_store)
    await redis_store.set_listing(room_id, listing(room_id, 2))  # (its script loaded now)
    sent = count_round_trips(redis_store, monkeypatch)
    await redis_store.set_listing(room_id, listing(room_id, 3, spectators=7))
    assert sent == ["EVALSHA"]
    assert await redis_store.client.zscore(PUBLIC_KEY, room_id) == 3
    assert await listed(redis_store, room_id) == [listing(room_id, 3, spectators=7)]

    sent.clear()  # (the test's own reads)
    await redis_store.set_listing(room_id, None)
    assert sent == ["EVALSHA"]
    assert await redis_store.client.zscore(PUBLIC_KEY, room_id) is None
    assert await redis_store.client.hget(state_key(room_id), "listing") is None
    assert await listed(redis_store, room_id) == []


async def test_a_gone_rooms_listing_is_neither_kept_nor_indexed(
        redis_store: RedisRoomStore) -> None:
    room_id = await public_room(redis_store)
    await redis_store.client.delete(state_key(room_id))  # (its retention ran out)
    await redis_store.set_listing(room_id, listing(room_id, 5))
    assert await redis_store.client.exists(state_key(room_id)) == 0
    assert await redis_store.client.zscore(PUBLIC_KEY, room_id) is None
