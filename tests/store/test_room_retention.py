"""Room retention (issue 18): a room with a retention is deleted that long after its last
write -- every key of it at the same instant --, a room with none is kept for ever, and a
deleted room is gone for every method (nothing brings it back; the public list drops it).

Against Redis the expiry is read back (``PEXPIRETIME``, bounded by Redis's own clock read
just before and after the write), never waited for; a room is made to expire by setting its
keys' expiry in the past, which is what Redis does when the time comes. The in-memory store
runs on a clock the tests move."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest

from server.store import Deadline, Listing, MemoryRoomStore, RoomMeta, RoomSettings, StaleWriter
from server.store.interface import Answer, RoomStore
from server.store.redis_store import (
    PUBLIC_KEY,
    RedisRoomStore,
    answers_key,
    events_key,
    room_keys,
    state_key,
)
from testkit.redis_process import RedisProcess

pytestmark = pytest.mark.redis

DAY_MS = 24 * 3600 * 1000


@dataclass
class Clock:
    now_ms: int = 1_700_000_000_000

    def __call__(self) -> int:
        return self.now_ms


@dataclass
class Stored:
    """A store, and how a test makes one of its rooms reach the end of its retention."""

    store: RoomStore
    clock: Clock | None = None  # the in-memory store's

    async def expire(self, room_id: str) -> None:
        if self.clock is not None:
            self.clock.now_ms += 400 * DAY_MS  # past any retention these tests give
            return
        assert isinstance(self.store, RedisRoomStore)
        for key in room_keys(room_id):
            await self.store.client.pexpireat(key, 1)  # in the past: deleted now


@pytest.fixture(params=["memory", "redis"])
async def stored(request: pytest.FixtureRequest) -> AsyncIterator[Stored]:
    if request.param == "memory":
        clock = Clock()
        yield Stored(MemoryRoomStore(clock=clock), clock)
        return
    server: RedisProcess = request.getfixturevalue("redis_server")
    redis_store = RedisRoomStore.from_url(server.url)
    try:
        yield Stored(redis_store)
    finally:
        await redis_store.close()


def meta(visibility: str = "public") -> RoomMeta:
    settings = RoomSettings("n5", 1.5, visibility, 0.0, 42)  # type: ignore[arg-type]
    return RoomMeta(f"t{uuid.uuid4().hex[:10]}", settings, "a" * 64, "b" * 64, 1_000)


def listing(room_id: str, updated_ms: int) -> Listing:
    return Listing(room_id, "n5", "army_selection", 1, 1, None, 0, 0, updated_ms)


async def new_room(store: RoomStore, retention_ms: int, visibility: str = "public",
                   updated_ms: int = 10**15) -> tuple[str, int]:
    room = meta(visibility)
    first = listing(room.room_id, updated_ms) if visibility == "public" else None
    await store.create_room(room, b"snap-0", first, retention_ms=retention_ms)
    fence = await store.claim_room(room.room_id, "node")
    assert fence is not None
    return room.room_id, fence


async def append(store: RoomStore, room_id: str, fence: int, version: int,
                 retention_ms: int | None, answer: Answer | None = None, *,
                 public: bool = True) -> int:
    """One event; a public room stays listed."""
    return await store.append(room_id, fence=fence, expected_version=version,
                              events=[b"e"], snapshot=None, deadlines=(),
                              listing=listing(room_id, 10**15) if public else None,
                              answer=answer, retention_ms=retention_ms)


async def listed(store: RoomStore) -> set[str]:
    return {item.room_id for item in await store.public_rooms(10_000)}


async def test_a_room_past_its_retention_is_gone_for_every_method(stored: Stored) -> None:
    store = stored.store
    room_id, fence = await new_room(store, DAY_MS)
    await append(store, room_id, fence, 0, DAY_MS, Answer("A", "c1", b"frame"))
    assert room_id in await listed(store)

    await stored.expire(room_id)

    assert await store.load_room(room_id) is None
    assert await store.events_since(room_id, 0) is None
    assert room_id not in await listed(store)
    with pytest.raises(StaleWriter):
        await append(store, room_id, fence, 1, DAY_MS)
    with pytest.raises(StaleWriter):
        await store.set_deadlines(room_id, fence=fence, deadlines=(Deadline("k", "A", 0),))
    await store.set_listing(room_id, listing(room_id, 10**16))  # must not bring it back
    assert room_id not in await listed(store)
    assert await store.claim_room(room_id, "node") is None
    assert await store.load_room(room_id) is None


async def test_a_room_kept_for_ever_never_expires_and_may_be_given_a_retention_later(
        stored: Stored) -> None:
    store = stored.store
    room_id, fence = await new_room(store, DAY_MS)
    await append(store, room_id, fence, 0, 0)  # its game began: kept for ever
    if stored.clock is not None:
        stored.clock.now_ms += 10_000 * DAY_MS
    else:
        assert isinstance(store, RedisRoomStore)
        assert [await store.client.pttl(key) for key in room_keys(room_id)[:2]] == [-1, -1]
    assert await store.load_room(room_id) is not None
    await append(store, room_id, fence, 1, 30 * DAY_MS)  # the game is over
    await stored.expire(room_id)
    assert await store.load_room(room_id) is None


async def test_the_public_list_fills_its_page_past_rooms_that_are_gone(stored: Stored) -> None:
    store = stored.store
    base = 2 * 10**15 + uuid.uuid4().int % 10**9  # newer than any other test's rooms
    rooms = [(await new_room(store, DAY_MS, updated_ms=base + n))[0] for n in range(6)]
    gone, live = rooms[2:], rooms[:2]  # the four newest go
    for room_id in gone:
        await stored.expire(room_id)
    if stored.clock is not None:  # (its clock expired them all: make the live two anew)
        live = [(await new_room(store, DAY_MS, updated_ms=base + n))[0] for n in range(2)]
    newest = await store.public_rooms(2)
    assert [item.room_id for item in newest] == live[::-1]
    if isinstance(store, RedisRoomStore):
        scores = [await store.client.zscore(PUBLIC_KEY, room_id) for room_id in gone]
        assert scores == [None] * len(gone), "taken off the lobby index"
    for room_id in live:  # newer than other tests' rooms: off their lists
        await stored.expire(room_id)
    assert not set(live) & await listed(store)


async def test_memory_a_write_starts_the_retention_again() -> None:
    clock = Clock()
    store = MemoryRoomStore(clock=clock)
    room_id, fence = await new_room(store, 1_000)
    clock.now_ms += 999
    await append(store, room_id, fence, 0, None)  # the room's own retention, from now
    clock.now_ms += 999
    await store.set_deadlines(room_id, fence=fence, deadlines=())  # a seat came or went
    clock.now_ms += 999
    assert await store.load_room(room_id) is not None
    clock.now_ms += 1
    assert await store.load_room(room_id) is None
    assert room_id not in await listed(store)


# --- Redis: the expiry as Redis keeps it ----------------------------------------------------


async def redis_ms(store: RedisRoomStore) -> int:
    seconds, micros = await store.client.time()
    return int(seconds) * 1000 + int(micros) // 1000


async def expiries(store: RedisRoomStore, room_id: str) -> list[int]:
    """PEXPIRETIME of each of the room's keys (-1: none; -2: no such key)."""
    return [await store.client.pexpiretime(key) for key in room_keys(room_id)]


async def test_redis_every_key_expires_at_one_instant_after_the_last_write(
        redis_store: RedisRoomStore) -> None:
    store = redis_store
    assert room_keys("r1") == [state_key("r1"), events_key("r1"), answers_key("r1", "A"),
                               answers_key("r1", "B")], "as the scripts take them"
    before = await redis_ms(store)
    room_id, fence = await new_room(store, DAY_MS, visibility="private")
    after = await redis_ms(store)
    state, *others = await expiries(store, room_id)
    assert before + DAY_MS <= state <= after + DAY_MS
    assert others == [-2, -2, -2], "no events and no answers yet"

    version = await append(store, room_id, fence, 0, None, Answer("A", "a1", b"x"),
                           public=False)
    await append(store, room_id, fence, version, None, Answer("B", "b1", b"y"), public=False)
    await store.client.pexpire(state_key(room_id), 1_000)  # sooner, to see the next write move it
    before = await redis_ms(store)
    await store.set_deadlines(room_id, fence=fence, deadlines=())
    after = await redis_ms(store)
    at = await expiries(store, room_id)
    assert len(set(at)) == 1, f"every key at the same instant: {at}"
    assert before + DAY_MS <= at[0] <= after + DAY_MS


async def test_redis_a_room_whose_game_began_loses_its_expiry_and_gets_one_at_its_end(
        redis_store: RedisRoomStore) -> None:
    store = redis_store
    room_id, fence = await new_room(store, DAY_MS, visibility="private")
    version = await append(store, room_id, fence, 0, DAY_MS, Answer("A", "a1", b"x"),
                           public=False)
    version = await append(store, room_id, fence, version, 0, Answer("B", "b1", b"y"),
                           public=False)
    assert await expiries(store, room_id) == [-1, -1, -1, -1]
    version = await append(store, room_id, fence, version, None, public=False)
    assert await expiries(store, room_id) == [-1, -1, -1, -1], "None keeps the room's"
    before = await redis_ms(store)
    await append(store, room_id, fence, version, 30 * DAY_MS, public=False)
    after = await redis_ms(store)
    at = await expiries(store, room_id)
    assert len(set(at)) == 1 and before + 30 * DAY_MS <= at[0] <= after + 30 * DAY_MS
    assert await store.client.hget(state_key(room_id), "retention") == str(30 * DAY_MS).encode()


async def test_redis_a_room_without_retention_has_no_expiry(redis_store: RedisRoomStore) -> None:
    store = redis_store
    room_id, fence = await new_room(store, 0, visibility="private")
    await append(store, room_id, fence, 0, None, Answer("A", "a1", b"x"), public=False)
    await store.set_deadlines(room_id, fence=fence, deadlines=())
    assert await expiries(store, room_id) == [-1, -1, -1, -2]
