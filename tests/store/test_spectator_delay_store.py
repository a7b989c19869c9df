"""What a delayed feed reads from storage, against the in-memory store and the Redis store
alike (``RoomStore.timeline``): the room's first state, kept however many snapshots
followed, each event's commit time and the ARO window deadline after its commit, and the
organizer token's hash in the meta. And ``load_feed`` from it: the released point is the
last commit at least the delay old, its state the first state with the events up to it."""

from __future__ import annotations

import uuid

import pytest

from protocol.codec import pack_plain
from server.fanout import Audience
from server.rooms.numbering import NONE_SEEN, pack_room_snapshot
from server.rooms.spectator_delay import load_feed
from server.store import RoomMeta, RoomSettings
from server.store.interface import RoomStore
from server.store.redis_store import RedisRoomStore, events_key
from testkit.redis_process import RedisProcess
from tests.doubles.fake_engine import FakeEngine

pytestmark = pytest.mark.redis

ENGINE = FakeEngine()


def meta() -> RoomMeta:
    settings = RoomSettings("n5", 30.0, "private", 30.0, 1)
    return RoomMeta(f"d{uuid.uuid4().hex[:10]}", settings, "a" * 64, "b" * 64, 1_000, "",
                    "c" * 64)


def acted(value: int) -> bytes:
    return pack_plain({"e": "acted", "side": "A", "value": value})


async def test_the_timeline_keeps_the_first_state_and_each_events_commit_time(
        store: RoomStore) -> None:
    room = meta()
    first = pack_room_snapshot(ENGINE.state_to_plain(ENGINE.new_game("n5", 1)), NONE_SEEN)
    await store.create_room(room, first, None)
    assert await store.claim_room(room.room_id, "me") == 1
    await store.append(room.room_id, fence=1, expected_version=0,
                       events=[acted(1), acted(2)], snapshot=b"later", deadlines=(),
                       listing=None, committed_ms=5_000, window_ms=0)
    await store.append(room.room_id, fence=1, expected_version=2, events=[acted(3)],
                       snapshot=None, deadlines=(), listing=None, committed_ms=9_000,
                       window_ms=39_000)
    timeline = await store.timeline(room.room_id)
    assert timeline is not None
    assert timeline.first_snapshot == first, "the state at version 0, not the later snapshot"
    assert timeline.events == (acted(1), acted(2), acted(3))
    assert timeline.committed_ms == (5_000, 5_000, 9_000)
    assert timeline.window_ms == (0, 0, 39_000)
    stored = await store.load_room(room.room_id)
    assert stored is not None and stored.meta.organizer_hash == "c" * 64
    assert await store.timeline("no-such-room") is None

    feed = await load_feed(ENGINE, store, room.room_id, Audience.SPECTATOR, 30_000, 38_999,
                           live_state=ENGINE.apply_all(ENGINE.new_game("n5", 1), []),
                           live_version=3, live_seen=3)
    assert (feed.version, feed.seen, feed.state.score, feed.due_ms()) == (2, 2, 3, 39_000)
    released = feed.release(39_000)
    assert released is not None and released[0] == 3 and feed.state.score == 6


async def test_events_stored_before_commit_times_read_as_long_past(
        redis_server: RedisProcess) -> None:
    """A room stored before: no first state, no commit times. Its delay starts at its load
    (what was stored is released; what follows is delayed)."""
    client = RedisRoomStore.from_url(redis_server.url)
    try:
        room = meta()
        await client.create_room(room, b"snap-0", None)
        await client.client.hdel(f"{{room:{room.room_id}}}:state", "first_snapshot")
        await client.client.xadd(events_key(room.room_id), {"e": acted(1)}, id="1-0")
        await client.client.hset(f"{{room:{room.room_id}}}:state", "version", 1)
        timeline = await client.timeline(room.room_id)
        assert timeline is not None
        assert (timeline.first_snapshot, timeline.committed_ms, timeline.window_ms) == (
            None, (0,), (0,))
        live = ENGINE.apply_all(ENGINE.new_game("n5", 1), [{"e": "acted", "side": "A",
                                                              "value": 1}])
        feed = await load_feed(ENGINE, client, room.room_id, Audience.SPECTATOR, 30_000, 1,
                               live_state=live, live_version=1, live_seen=1)
        assert (feed.version, feed.seen, feed.state.score, feed.due_ms()) == (1, 1, 1, None)
    finally:
        await client.close()
