"""The Redis store's group-committed appends, as Redis sees them: the lobby index is touched
only when a listing needs it, a script cache emptied under a batch is reloaded, each append
of a batch gets its own outcome, and an append Redis does not answer in time is "try
again" on a connection that is then replaced."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest
import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError

from server.store import Answer, Listing, RoomMeta, RoomSettings, StaleWriter, StorageUnavailable
from server.store.redis_store import PUBLIC_KEY, RedisRoomStore
from testkit.redis_process import RedisProcess

pytestmark = pytest.mark.redis


def meta(visibility: str) -> RoomMeta:
    settings = RoomSettings("n5", 1.5, visibility, fixed_seed=42)  # type: ignore[arg-type]
    return RoomMeta(f"b{uuid.uuid4().hex[:10]}", settings, "a" * 64, "b" * 64, 1_000)


def listing(room_id: str, updated_ms: int) -> Listing:
    return Listing(room_id, "n5", "orders", 1, 1, "A", 0, 2, updated_ms)


async def new_room(store: RedisRoomStore, visibility: str, updated_ms: int = 1) -> tuple[str, int]:
    room = meta(visibility)
    first = listing(room.room_id, updated_ms) if visibility == "public" else None
    await store.create_room(room, b"snap-0", first)
    fence = await store.claim_room(room.room_id, "node")
    assert fence is not None
    return room.room_id, fence


async def append(store: RedisRoomStore, room_id: str, fence: int, version: int,
                 listing: Listing | None) -> int:
    return await store.append(room_id, fence=fence, expected_version=version,
                              events=[f"e{version + 1}".encode()], snapshot=None,
                              deadlines=(), listing=listing)


async def index_calls(store: RedisRoomStore) -> dict[str, int]:
    """How many ZADD and ZREM Redis has run so far."""
    stats: dict[str, Any] = await store.client.info("commandstats")
    return {name: int(stats.get(f"cmdstat_{name}", {}).get("calls", 0))
            for name in ("zadd", "zrem")}


async def listed(store: RedisRoomStore, *room_ids: str) -> list[Listing]:
    """The lobby list's lines of ``room_ids`` (other tests' rooms share this Redis), in its
    order."""
    return [item for item in await store.public_rooms(1000) if item.room_id in room_ids]


async def test_a_private_rooms_appends_never_touch_the_lobby_index(
        redis_store: RedisRoomStore) -> None:
    room_id, fence = await new_room(redis_store, "private")
    index_before = await redis_store.client.zrange(PUBLIC_KEY, 0, -1, withscores=True)
    calls_before = await index_calls(redis_store)
    for version in range(5):
        assert await append(redis_store, room_id, fence, version, None) == version + 1
    assert await index_calls(redis_store) == calls_before
    assert await redis_store.client.zrange(PUBLIC_KEY, 0, -1, withscores=True) == index_before


async def calls(store: RedisRoomStore, *names: str) -> dict[str, int]:
    """How many times Redis has run each of ``names`` so far (scripts' calls included)."""
    stats: dict[str, Any] = await store.client.info("commandstats")
    return {name: int(stats.get(f"cmdstat_{name}", {}).get("calls", 0)) for name in names}


async def test_an_append_deletes_no_listing_a_room_never_had_and_trims_answers_only_when_over(
        redis_store: RedisRoomStore) -> None:
    room_id, fence = await new_room(redis_store, "private")
    before = await calls(redis_store, "hdel", "ltrim")
    for version in range(5):
        answer = Answer("A", f"c{version}", f"frame{version}".encode())
        assert await redis_store.append(
            room_id, fence=fence, expected_version=version, events=[b"e"], snapshot=None,
            deadlines=(), listing=None, answer=answer, answers_kept=3) == version + 1
    after = await calls(redis_store, "hdel", "ltrim")
    assert after["hdel"] == before["hdel"], "no listing to delete: no HDEL"
    assert after["ltrim"] - before["ltrim"] == 2, "the 4th and 5th answers went over 3"
    stored = await redis_store.load_room(room_id)
    assert stored is not None
    assert [a.command_id for a in stored.answers] == ["c2", "c3", "c4"]


async def test_public_rooms_are_ordered_by_their_latest_append_and_leave_when_unlisted(
        redis_store: RedisRoomStore) -> None:
    (first, fence_1), (second, fence_2) = (await new_room(redis_store, "public", 10),
                                           await new_room(redis_store, "public", 11))
    assert await listed(redis_store, first, second) == [listing(second, 11), listing(first, 10)]
    await append(redis_store, first, fence_1, 0, listing(first, 12))
    assert await listed(redis_store, first, second) == [listing(first, 12), listing(second, 11)]
    await append(redis_store, second, fence_2, 0, listing(second, 13))
    assert await listed(redis_store, first, second) == [listing(second, 13), listing(first, 12)]

    await append(redis_store, second, fence_2, 1, None)  # the listing is removed
    assert await redis_store.client.zscore(PUBLIC_KEY, second) is None
    assert await listed(redis_store, first, second) == [listing(first, 12)]
    calls = await index_calls(redis_store)
    await append(redis_store, second, fence_2, 2, None)  # nothing left to remove
    assert await index_calls(redis_store) == calls
    await redis_store.set_listing(first, None)


async def test_appends_batched_together_each_get_their_own_outcome(
        redis_store: RedisRoomStore) -> None:
    rooms = [await new_room(redis_store, visibility) for visibility in ("private", "public")]
    (private, fence_p), (public, fence_q) = rooms
    outcomes = await asyncio.gather(
        append(redis_store, private, fence_p, 0, None),
        append(redis_store, private, fence_p, 0, None),  # the same version twice: stale
        append(redis_store, public, fence_q, 0, listing(public, 5)),
        append(redis_store, public, fence_q + 1, 1, listing(public, 6)),  # wrong fence
        return_exceptions=True)
    assert outcomes[0] == 1 and outcomes[2] == 1
    assert isinstance(outcomes[1], StaleWriter) and isinstance(outcomes[3], StaleWriter)
    stored = await redis_store.load_room(private)
    assert stored is not None and stored.events == (b"e1",)


async def test_a_script_cache_emptied_under_a_batch_is_reloaded_and_every_append_lands(
        redis_store: RedisRoomStore) -> None:
    rooms = [await new_room(redis_store, "private") for _ in range(3)]
    assert await append(redis_store, *rooms[0], 0, None) == 1  # the script is loaded
    await redis_store.client.script_flush()  # as a Redis restart leaves it
    versions = await asyncio.gather(
        append(redis_store, rooms[0][0], rooms[0][1], 1, None),
        *(append(redis_store, room_id, fence, 0, None) for room_id, fence in rooms[1:]))
    assert versions == [2, 1, 1]


async def test_a_failed_unlisting_fails_only_the_append_that_unlisted(
        redis_store: RedisRoomStore, monkeypatch: pytest.MonkeyPatch) -> None:
    (public, fence_q), (private, fence_p) = (await new_room(redis_store, "public"),
                                             await new_room(redis_store, "private"))

    async def connection_lost(*_args: object) -> None:
        raise RedisConnectionError("connection lost")

    monkeypatch.setattr(redis_store.client, "zrem", connection_lost)
    unlisting, other = await asyncio.gather(
        append(redis_store, public, fence_q, 0, None),
        append(redis_store, private, fence_p, 0, None), return_exceptions=True)
    assert isinstance(unlisting, StorageUnavailable) and other == 1


async def test_an_append_redis_does_not_answer_in_time_is_unavailable_and_the_next_one_lands(
        redis_server: RedisProcess) -> None:
    store = RedisRoomStore.from_url(f"{redis_server.url}?socket_timeout=0.3")
    admin = aioredis.Redis.from_url(redis_server.url)
    try:
        room_id, fence = await new_room(store, "private")
        assert await append(store, room_id, fence, 0, None) == 1
        before = await appends_connection(store, admin)
        await admin.client_pause(60_000, all=False)  # writes wait; CLIENT commands do not
        try:
            with pytest.raises(StorageUnavailable, match="try again"):
                await append(store, room_id, fence, 1, None)
        finally:
            await admin.client_unpause()
        stored = await store.load_room(room_id)
        assert stored is not None and stored.version == 1, "its connection was dropped unread"
        assert await append(store, room_id, fence, 1, None) == 2
        after = await appends_connection(store, admin)
        assert after != before
        assert before not in {c["id"] for c in await admin.client_list()}
    finally:
        await admin.aclose()
        await store.close()


async def appends_connection(store: RedisRoomStore, admin: aioredis.Redis) -> str:
    """The id of the store's connection that ran an append last (its pool's connections,
    used one at a time, run a PING first)."""
    await store.client.ping()
    [appends] = [c["id"] for c in await admin.client_list() if c["cmd"] == "evalsha"]
    return str(appends)
