"""A room whose keys are not all on the master that serves its slot: what a slot move cut short
by a master's failover leaves until ``redis-cli --cluster fix`` brings the keys together
(``server.store.redis_scripts``, docs/deploy.md "A master lost during a slot move").

Here on one Redis: the keys the importing master would hold are taken away with ``DUMP`` and
``DEL`` and given back with ``RESTORE``, as ``MIGRATE`` moves them. While a key is away, no
script writes or reads the room: an append, a load, a claim, a lease and a presence write are
all "try again" (``StorageUnavailable``), never "no such room", and no key of the room is
created meanwhile. Once it is back, the room goes on where it was, nothing lost. A room that
is really gone is still told gone, and one that never wrote a key is whole.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from server.cluster.lease import RedisLeases, lease_key
from server.rooms.ownership import Claimed
from server.store import Answer, RoomMeta, RoomSettings, StaleWriter
from server.store.interface import StorageUnavailable
from server.store.redis_store import (
    RedisRoomStore,
    answers_key,
    events_key,
    room_keys,
    state_key,
)

pytestmark = pytest.mark.redis


def meta() -> RoomMeta:
    settings = RoomSettings("n5", 1.5, "private", 0.0, 42)
    return RoomMeta(f"split{uuid.uuid4().hex[:10]}", settings, "a" * 64, "b" * 64, 1_000)


async def played_room(store: RedisRoomStore) -> tuple[str, int, int]:
    """A room with two accepted commands, one answered to each seat: (room, fence, version)."""
    room = meta()
    await store.create_room(room, b"snap-0", None)
    fence = await store.claim_room(room.room_id, "node")
    assert fence is not None
    version = 0
    for seat in ("A", "B"):
        version = await append(store, room.room_id, fence, version, seat)
    return room.room_id, fence, version


async def append(store: RedisRoomStore, room_id: str, fence: int, version: int,
                 seat: str | None) -> int:
    answer = None if seat is None else Answer(seat, f"{seat}-{version}", b"frame")
    return await store.append(room_id, fence=fence, expected_version=version,
                              events=[b"e1", b"e2"], snapshot=None, deadlines=(),
                              listing=None, answer=answer)


class Away:
    """Keys taken off this Redis as ``MIGRATE`` takes them (``DUMP``, ``DEL``), and given back
    (``RESTORE``), as ``redis-cli --cluster fix`` moves them back to the slot's owner."""

    def __init__(self, store: RedisRoomStore, keys: list[str]) -> None:
        self.store = store
        self.keys = keys
        self.dumped: dict[str, bytes] = {}

    async def take(self) -> None:
        for key in self.keys:
            dumped = await self.store.client.dump(key)
            assert dumped is not None, key
            self.dumped[key] = dumped
            await self.store.client.delete(key)

    async def give_back(self) -> None:
        for key, dumped in self.dumped.items():
            await self.store.client.restore(key, 0, dumped)


async def room_key_snapshot(store: RedisRoomStore, room_id: str) -> dict[str, Any]:
    """What Redis holds of the room: which keys exist, and its state hash."""
    client = store.client
    return {"exists": [await client.exists(key) for key in room_keys(room_id)],
            "lease": await client.exists(lease_key(room_id)),
            "state": await client.hgetall(state_key(room_id))}


async def refused_without_a_write(store: RedisRoomStore, room_id: str,
                                  call: Callable[[], Awaitable[object]]) -> None:
    before = await room_key_snapshot(store, room_id)
    with pytest.raises(StorageUnavailable, match="split between two masters"):
        await call()
    assert await room_key_snapshot(store, room_id) == before


@pytest.mark.parametrize("away", ["events", "answers A", "answers B", "events and answers A"])
async def test_a_room_missing_a_key_of_its_game_is_neither_written_nor_read(
        redis_store: RedisRoomStore, away: str) -> None:
    store = redis_store
    room_id, fence, version = await played_room(store)
    whole = await store.load_room(room_id)
    keys = {"events": [events_key(room_id)], "answers A": [answers_key(room_id, "A")],
            "answers B": [answers_key(room_id, "B")],
            "events and answers A": [events_key(room_id), answers_key(room_id, "A")]}[away]
    moved = Away(store, keys)
    await moved.take()
    leases = RedisLeases(store.client, "node-2", 10_000)

    for call in (lambda: append(store, room_id, fence, version, "A"),
                 lambda: append(store, room_id, fence, version, None),
                 lambda: store.load_room(room_id),
                 lambda: store.load_rooms([room_id]),
                 lambda: leases.acquire(room_id)):
        await refused_without_a_write(store, room_id, call)

    await moved.give_back()
    assert await store.load_room(room_id) == whole
    assert await append(store, room_id, fence, version, "A") == version + 2


async def test_a_room_missing_its_state_is_told_try_again_not_gone(
        redis_store: RedisRoomStore) -> None:
    store = redis_store
    room_id, fence, version = await played_room(store)
    whole = await store.load_room(room_id)
    moved = Away(store, [state_key(room_id)])
    await moved.take()
    leases = RedisLeases(store.client, "node-2", 10_000)

    for call in (lambda: append(store, room_id, fence, version, "A"),
                 lambda: store.load_room(room_id),
                 lambda: store.claim_room(room_id, "node-2"),
                 lambda: leases.acquire(room_id),
                 lambda: store.set_deadlines(room_id, fence=fence, deadlines=())):
        await refused_without_a_write(store, room_id, call)

    await moved.give_back()
    assert await store.load_room(room_id) == whole
    assert await append(store, room_id, fence, version, "B") == version + 2


async def test_a_room_that_is_gone_is_still_told_gone(redis_store: RedisRoomStore) -> None:
    store = redis_store
    room_id, fence, version = await played_room(store)
    await store.client.delete(*room_keys(room_id), lease_key(room_id))
    assert await store.load_room(room_id) is None
    assert await store.claim_room(room_id, "node") is None
    assert await RedisLeases(store.client, "node", 10_000).acquire(room_id) is None
    with pytest.raises(StaleWriter):
        await append(store, room_id, fence, version, "A")


async def test_a_room_that_wrote_no_event_nor_answer_is_whole(
        redis_store: RedisRoomStore) -> None:
    """Version 0, no answers: its state is its only key, and nothing else is expected."""
    store = redis_store
    room = meta()
    await store.create_room(room, b"snap-0", None)
    assert await RedisLeases(store.client, "node", 10_000).acquire(room.room_id) == Claimed(1)
    loaded = await store.load_room(room.room_id)
    assert loaded is not None and loaded.version == 0
    assert await append(store, room.room_id, 1, 0, None) == 2  # no answer: no list expected
    assert (await store.load_room(room.room_id)) is not None


async def test_a_seat_is_marked_answered_at_its_first_answer_also_in_a_room_stored_before(
        redis_store: RedisRoomStore) -> None:
    """A room stored before the marks (its answers lists without ``answered_<seat>``) loads,
    and is marked at each seat's next answer; from then on a lost list is noticed."""
    store = redis_store
    room_id, fence, version = await played_room(store)
    assert await store.client.hmget(state_key(room_id), "answered_A", "answered_B") == [
        b"1", b"1"]
    await store.client.hdel(state_key(room_id), "answered_A", "answered_B")
    assert await store.load_room(room_id) is not None
    version = await append(store, room_id, fence, version, "A")
    assert await store.client.hmget(state_key(room_id), "answered_A", "answered_B") == [
        b"1", None]
    await Away(store, [answers_key(room_id, "A")]).take()
    with pytest.raises(StorageUnavailable):
        await store.load_room(room_id)
