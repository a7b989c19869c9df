"""Answers stored with their events (issue 18, "every answer survives"), against the
in-memory store and the Redis store alike: an append may carry the answer to the command its
events accept; ``load_room`` brings back each seat's latest answers, oldest first, exactly
as stored; the store keeps ``answers_kept`` per seat; an append that is refused stores none.
On Redis, an acknowledged answer survives a ``kill -9`` of Redis."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from server.store import Answer, RoomMeta, RoomSettings, StaleWriter
from server.store.interface import RoomStore
from server.store.redis_store import RedisRoomStore
from testkit.redis_process import RedisProcess

pytestmark = pytest.mark.redis


def meta() -> RoomMeta:
    settings = RoomSettings("n5", 1.5, "private", 0.0, 42)
    return RoomMeta(f"q{uuid.uuid4().hex[:10]}", settings, "a" * 64, "b" * 64, 1_000)


def answer(seat: str, n: int) -> Answer:
    # Frames are opaque bytes to the store; these hold every byte value, NUL included.
    return Answer(seat, f"{seat}-cmd-{n}", bytes([n % 256]) + bytes(range(256)))


async def new_room(store: RoomStore) -> tuple[str, int]:
    room = meta()
    await store.create_room(room, b"snap-0", None)
    fence = await store.claim_room(room.room_id, "node")
    assert fence is not None
    return room.room_id, fence


async def command(store: RoomStore, room_id: str, fence: int, version: int,
                  given: Answer | None, kept: int = 256) -> int:
    """One accepted command: two events and, with ``given``, its answer."""
    return await store.append(room_id, fence=fence, expected_version=version,
                              events=[b"e1", b"e2"], snapshot=None, deadlines=(),
                              listing=None, answer=given, answers_kept=kept)


async def test_answers_come_back_with_the_room_per_seat_oldest_first(store: RoomStore) -> None:
    room_id, fence = await new_room(store)
    stored = [answer("A", 1), answer("B", 1), answer("A", 2), None, answer("B", 2)]
    version = 0
    for given in stored:
        version = await command(store, room_id, fence, version, given)
    loaded = await store.load_room(room_id)
    assert loaded is not None and loaded.version == 10
    by_seat = {seat: [a for a in loaded.answers if a.seat == seat] for seat in "AB"}
    assert by_seat == {"A": [answer("A", 1), answer("A", 2)],
                       "B": [answer("B", 1), answer("B", 2)]}
    assert len(loaded.answers) == 4


async def test_a_new_room_has_no_answers(store: RoomStore) -> None:
    room_id, _ = await new_room(store)
    loaded = await store.load_room(room_id)
    assert loaded is not None and loaded.answers == ()


async def test_each_seat_keeps_its_latest_answers_only(store: RoomStore) -> None:
    """The bound is per seat: one seat's many commands never push out the other's."""
    room_id, fence = await new_room(store)
    version = await command(store, room_id, fence, 0, answer("B", 1), kept=3)
    for n in range(1, 8):
        version = await command(store, room_id, fence, version, answer("A", n), kept=3)
    loaded = await store.load_room(room_id)
    assert loaded is not None
    assert [a for a in loaded.answers if a.seat == "A"] == [answer("A", n) for n in (5, 6, 7)]
    assert [a for a in loaded.answers if a.seat == "B"] == [answer("B", 1)]


async def test_a_refused_append_stores_no_answer(store: RoomStore) -> None:
    room_id, fence = await new_room(store)
    await command(store, room_id, fence, 0, answer("A", 1))
    with pytest.raises(StaleWriter):  # written against version 0: the room is at 2
        await command(store, room_id, fence, 0, answer("A", 2))
    newer = await store.claim_room(room_id, "node-2")
    with pytest.raises(StaleWriter):  # an older fence
        await command(store, room_id, fence, 2, answer("A", 3))
    assert newer is not None
    loaded = await store.load_room(room_id)
    assert loaded is not None and loaded.answers == (answer("A", 1),)
    assert loaded.version == 2


@pytest.mark.slow  # kill drill
async def test_an_acknowledged_answer_survives_a_kill_9_of_redis(tmp_path: Path) -> None:
    redis = RedisProcess(tmp_path / "redis")
    redis.start()
    try:
        store = RedisRoomStore.from_url(redis.url)
        room_id, fence = await new_room(store)
        await command(store, room_id, fence, 0, answer("B", 9))
        await store.close()
        redis.kill()
        redis.start()  # replays the append-only file
        store = RedisRoomStore.from_url(redis.url)
        loaded = await store.load_room(room_id)
        await store.close()
    finally:
        redis.stop()
    assert loaded is not None and loaded.answers == (answer("B", 9),)
