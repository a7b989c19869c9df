"""A room's caster-link records (``server.store.caster_links``), against the in-memory store
and the real redis-server alike: made links are recorded in order, withdrawn once (a second
withdrawal keeps the first one's time), a nonce never recorded can be withdrawn too, both
kinds are bounded, a room that does not exist has none, and the current link (a tournament
dashboard's) is the oldest in use or one recorded, once for calls at once. Against Redis:
the records survive a new client (a restart), leave the room's expiry alone and go with the
room."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from server.store import RoomMeta, RoomSettings
from server.store.caster_links import MAX_MADE, MAX_RECORDS, CasterLink
from server.store.interface import RoomStore
from server.store.redis_store import RedisRoomStore, room_keys, state_key
from testkit.redis_process import RedisProcess

pytestmark = pytest.mark.redis


async def new_room(store: RoomStore, retention_ms: int = 0) -> str:
    settings = RoomSettings("n5", 1.5, "private", 0.0, 42)
    meta = RoomMeta(f"c{uuid.uuid4().hex[:10]}", settings, "a" * 64, "b" * 64, 1_000,
                    organizer_hash="c" * 64)
    await store.create_room(meta, b"snap-0", None, retention_ms=retention_ms)
    return meta.room_id


async def test_links_are_recorded_in_order_and_withdrawn_once(store: RoomStore) -> None:
    room_id = await new_room(store)
    assert await store.caster_links(room_id) == ()
    assert await store.record_caster_link(room_id, "one", 1_000) == "recorded"
    assert await store.record_caster_link(room_id, "two", 2_000) == "recorded"

    assert await store.withdraw_caster_link(room_id, "one", 5_000) == (
        "withdrawn", CasterLink("one", 1_000, 5_000))
    assert await store.withdraw_caster_link(room_id, "one", 9_000) == (
        "already_withdrawn", CasterLink("one", 1_000, 5_000))
    links = await store.caster_links(room_id)
    assert links == (CasterLink("one", 1_000, 5_000), CasterLink("two", 2_000, 0))
    assert links is not None and [link.withdrawn for link in links] == [True, False]

    # A link that was never recorded here (a tournament dashboard's): recorded withdrawn.
    assert await store.withdraw_caster_link(room_id, "elsewhere", 6_000) == (
        "withdrawn", CasterLink("elsewhere", 0, 6_000))
    assert (await store.caster_links(room_id) or ())[-1] == CasterLink("elsewhere", 0, 6_000)


async def test_a_room_that_does_not_exist_has_no_links_and_gets_none(
        store: RoomStore) -> None:
    assert await store.caster_links("no-such-room") is None
    assert await store.record_caster_link("no-such-room", "n", 1) is None
    assert await store.withdraw_caster_link("no-such-room", "n", 1) is None
    assert await store.load_room("no-such-room") is None, "nothing brought it into being"


async def test_the_records_are_bounded_yet_every_made_link_can_be_withdrawn(
        store: RoomStore) -> None:
    room_id = await new_room(store)
    for n in range(MAX_MADE):
        assert await store.record_caster_link(room_id, f"m{n}", n + 1) == "recorded"
    assert await store.record_caster_link(room_id, "one-more", 1) == "full"
    for n in range(MAX_RECORDS - MAX_MADE):
        assert (await store.withdraw_caster_link(room_id, f"u{n}", 7) or ("?",))[0] == "withdrawn"
    assert await store.withdraw_caster_link(room_id, "u-more", 7) == (
        "full", CasterLink("u-more", 0, 0))
    assert await store.withdraw_caster_link(room_id, "m3", 8) == (
        "withdrawn", CasterLink("m3", 4, 8)), "a made link, however full the room"
    links = await store.caster_links(room_id)
    assert links is not None and len(links) == MAX_RECORDS
    assert "one-more" not in {link.nonce for link in links}


async def test_redis_keeps_the_records_for_a_new_client_and_leaves_the_expiry_alone(
        redis_server: RedisProcess) -> None:
    first = RedisRoomStore.from_url(redis_server.url)
    try:
        room_id = await new_room(first, retention_ms=3_600_000)
        expiry = await first.client.pexpiretime(state_key(room_id))
        assert expiry > 0
        assert await first.record_caster_link(room_id, "kept", 1_764_150_000_123) == "recorded"
        assert await first.withdraw_caster_link(room_id, "kept", 1_764_150_060_456) is not None
        assert await first.client.pexpiretime(state_key(room_id)) == expiry, \
            "a caster link is not a write of the game: the room's retention is unchanged"
    finally:
        await first.close()
    again = RedisRoomStore.from_url(redis_server.url)  # as a restarted node reads it
    try:
        assert await again.caster_links(room_id) == (
            CasterLink("kept", 1_764_150_000_123, 1_764_150_060_456),)
        assert (await again.load_room(room_id)) is not None, "the room's own reads unaffected"
        for key in room_keys(room_id):
            await again.client.pexpireat(key, 1)  # the room's retention ran out
        assert await again.caster_links(room_id) is None
        assert not await again.client.exists(state_key(room_id)), "nothing left behind"
    finally:
        await again.close()


async def test_the_current_link_is_the_oldest_in_use_or_one_recorded_for_calls_at_once(
        store: RoomStore) -> None:
    """``current_caster_link``, called at once with different nonces: one is recorded and every
    call answers it; with links withdrawn, the oldest in use; "full" when none is in use
    among ``MAX_MADE`` records."""
    room_id = await new_room(store)
    # Connections open first, so the calls' reads reach Redis before any of their writes
    # (a read-then-record step would record ten links here).
    await asyncio.gather(*(store.caster_links(room_id) for _ in range(10)))
    answers = await asyncio.gather(*(store.current_caster_link(room_id, f"n{n}", 1_000 + n)
                                     for n in range(10)))
    assert len(set(answers)) == 1, answers
    (link,) = set(answers)
    assert link != "full" and link is not None
    assert await store.caster_links(room_id) == (link,)
    assert await store.record_caster_link(room_id, "second", 5_000) == "recorded"
    await store.withdraw_caster_link(room_id, link.nonce, 6_000)
    current = await store.current_caster_link(room_id, "unused", 7_000)
    assert current is not None and current != "full" and current.nonce == "second"
    await store.withdraw_caster_link(room_id, "second", 8_000)
    made = await store.current_caster_link(room_id, "third", 9_000)
    assert made is not None and made != "full"
    assert (made.nonce, made.created_ms, made.withdrawn) == ("third", 9_000, False)
    assert len(await store.caster_links(room_id) or ()) == 3

    full = await new_room(store)
    for n in range(MAX_MADE):
        assert await store.record_caster_link(full, f"m{n}", n + 1) == "recorded"
        await store.withdraw_caster_link(full, f"m{n}", n + 2)
    assert await store.current_caster_link(full, "over", 1) == "full"
    assert len(await store.caster_links(full) or ()) == MAX_MADE
    assert await store.current_caster_link("no-such-room", "n", 1) is None
