"""The RoomStore contract, run against the in-memory store and the Redis store alike.

Every test names the behaviour of ``server.store.interface.RoomStore`` it checks.
"""

from __future__ import annotations

import asyncio
import uuid

import pytest

from server.store import Deadline, Listing, RoomMeta, RoomSettings, StaleWriter
from server.store.interface import RoomStore

pytestmark = pytest.mark.redis


def meta(visibility: str = "public") -> RoomMeta:
    settings = RoomSettings("n5", 1.5, visibility, 0.0, 42)  # type: ignore[arg-type]
    return RoomMeta(f"r{uuid.uuid4().hex[:10]}", settings, "a" * 64, "b" * 64, 1_000)


def listing(room_id: str, updated_ms: int) -> Listing:
    return Listing(room_id, "n5", "orders", 1, 1, "A", 0, 2, updated_ms)


def event(n: int) -> bytes:
    return f"event-{n}".encode()


async def add(store: RoomStore, room: RoomMeta, fence: int, version: int, count: int,
              deadlines: tuple[Deadline, ...] = (), snapshot: bool = True) -> int:
    return await store.append(
        room.room_id, fence=fence, expected_version=version,
        events=[event(n) for n in range(version + 1, version + count + 1)],
        snapshot=f"snap-{version + count}".encode() if snapshot else None,
        deadlines=deadlines, listing=None)


async def test_created_room_loads_at_version_zero_with_its_meta_and_snapshot(
        store: RoomStore) -> None:
    room = meta()
    await store.create_room(room, b"snap-0", None)
    stored = await store.load_room(room.room_id)
    assert stored is not None
    assert (stored.meta, stored.version, stored.snapshot, stored.deadlines) == (
        room, 0, b"snap-0", ())
    assert (stored.snapshot_version, stored.events) == (0, ())
    assert await store.load_room("no-such-room") is None


async def test_creating_an_existing_room_is_refused(store: RoomStore) -> None:
    room = meta()
    await store.create_room(room, b"snap-0", None)
    with pytest.raises(ValueError):
        await store.create_room(room, b"other", None)


async def test_claims_return_growing_fencing_tokens_and_none_for_unknown_rooms(
        store: RoomStore) -> None:
    room = meta()
    await store.create_room(room, b"s", None)
    first = await store.claim_room(room.room_id, "node-1")
    second = await store.claim_room(room.room_id, "node-2")
    assert first is not None and second is not None and second > first
    assert await store.claim_room("no-such-room", "node-1") is None


async def test_append_stores_events_in_order_exactly_once_with_snapshot_and_deadlines(
        store: RoomStore) -> None:
    room = meta()
    await store.create_room(room, b"snap-0", None)
    fence = await store.claim_room(room.room_id, "node")
    assert fence is not None
    assert await add(store, room, fence, 0, 2) == 2
    window = (Deadline("aro_window", "3:1", 123_456_789),)
    assert await add(store, room, fence, 2, 1, window) == 3
    assert await store.events_since(room.room_id, 0) == [event(1), event(2), event(3)]
    assert await store.events_since(room.room_id, 2) == [event(3)]
    assert await store.events_since(room.room_id, 3) == []
    stored = await store.load_room(room.room_id)
    assert stored is not None
    assert (stored.version, stored.snapshot, stored.deadlines) == (3, b"snap-3", window)
    assert (stored.snapshot_version, stored.events) == (3, ())


async def test_append_with_a_stale_version_is_refused_and_changes_nothing(
        store: RoomStore) -> None:
    room = meta()
    await store.create_room(room, b"snap-0", None)
    fence = await store.claim_room(room.room_id, "node")
    assert fence is not None
    await add(store, room, fence, 0, 1)
    with pytest.raises(StaleWriter):
        await add(store, room, fence, 0, 1)  # written against version 0; the room is at 1
    assert await store.events_since(room.room_id, 0) == [event(1)]
    stored = await store.load_room(room.room_id)
    assert stored is not None and stored.version == 1 and stored.snapshot == b"snap-1"


async def test_append_with_a_superseded_fence_is_refused_after_another_claim(
        store: RoomStore) -> None:
    """Fencing: once node-2 claimed the room, node-1's writes are refused."""
    room = meta()
    await store.create_room(room, b"snap-0", None)
    old = await store.claim_room(room.room_id, "node-1")
    new = await store.claim_room(room.room_id, "node-2")
    assert old is not None and new is not None
    with pytest.raises(StaleWriter):
        await add(store, room, old, 0, 1)
    assert await add(store, room, new, 0, 1) == 1
    assert await store.events_since(room.room_id, 0) == [event(1)]


async def test_set_deadlines_replaces_them_without_an_event_and_is_fenced(
        store: RoomStore) -> None:
    """A seat's presence changing writes the room's deadlines alone (no version), under the
    same fence as ``append``: after another claim the old owner's write is refused."""
    room = meta()
    await store.create_room(room, b"snap-0", None)
    fence = await store.claim_room(room.room_id, "node-1")
    assert fence is not None
    away = (Deadline("seat_grace", "B", 123_456),)
    await store.set_deadlines(room.room_id, fence=fence, deadlines=away)
    loaded = await store.load_room(room.room_id)
    assert loaded is not None and loaded.deadlines == away and loaded.version == 0
    newer = await store.claim_room(room.room_id, "node-2")
    assert newer is not None
    with pytest.raises(StaleWriter):
        await store.set_deadlines(room.room_id, fence=fence, deadlines=())
    loaded = await store.load_room(room.room_id)
    assert loaded is not None and loaded.deadlines == away


async def test_concurrent_appends_at_one_version_accept_exactly_one(store: RoomStore) -> None:
    room = meta()
    await store.create_room(room, b"snap-0", None)
    fence = await store.claim_room(room.room_id, "node")
    assert fence is not None
    results = await asyncio.gather(*(add(store, room, fence, 0, 1) for _ in range(5)),
                                   return_exceptions=True)
    assert [r for r in results if not isinstance(r, BaseException)] == [1]
    assert all(isinstance(r, StaleWriter) for r in results if isinstance(r, BaseException))
    assert await store.events_since(room.room_id, 0) == [event(1)]


async def test_events_since_a_version_the_room_never_reached_are_reported_missing(
        store: RoomStore) -> None:
    room = meta()
    await store.create_room(room, b"snap-0", None)
    fence = await store.claim_room(room.room_id, "node")
    assert fence is not None
    await add(store, room, fence, 0, 8)
    assert await store.events_since(room.room_id, 3) == [event(n) for n in range(4, 9)]
    assert await store.events_since(room.room_id, 8) == []
    assert await store.events_since(room.room_id, 9) is None  # ahead of the room
    assert await store.events_since("no-such-room", 0) is None
    assert await store.events_since(room.room_id, -1) is None


async def test_public_list_holds_public_rooms_newest_first_and_drops_removed_ones(
        store: RoomStore) -> None:
    rooms = [meta() for _ in range(3)]
    for n, room in enumerate(rooms):
        await store.create_room(room, b"s", listing(room.room_id, 10**15 + n))
    private = meta("private")
    await store.create_room(private, b"s", None)
    await store.set_listing(rooms[0].room_id, None)
    newest = await store.public_rooms(2)
    assert [item.room_id for item in newest] == [rooms[2].room_id, rooms[1].room_id]
    assert newest[0] == listing(rooms[2].room_id, 10**15 + 2)
    everyone = {item.room_id for item in await store.public_rooms(1000)}
    assert rooms[0].room_id not in everyone and private.room_id not in everyone


async def test_append_replaces_the_listing(store: RoomStore) -> None:
    room = meta()
    await store.create_room(room, b"s", listing(room.room_id, 1))
    fence = await store.claim_room(room.room_id, "node")
    assert fence is not None
    updated = listing(room.room_id, 10**16)
    await store.append(room.room_id, fence=fence, expected_version=0, events=[event(1)],
                       snapshot=b"s1", deadlines=(), listing=updated)
    assert (await store.public_rooms(1))[0] == updated
    await store.append(room.room_id, fence=fence, expected_version=1, events=[event(2)],
                       snapshot=b"s2", deadlines=(), listing=None)
    assert room.room_id not in {item.room_id for item in await store.public_rooms(1000)}


async def test_append_without_a_snapshot_keeps_the_old_one_and_load_returns_the_events_after_it(
        store: RoomStore) -> None:
    room = meta()
    await store.create_room(room, b"snap-0", None)
    fence = await store.claim_room(room.room_id, "node")
    assert fence is not None
    await add(store, room, fence, 0, 2)  # snapshot at version 2
    await add(store, room, fence, 2, 3, snapshot=False)
    await add(store, room, fence, 5, 1, snapshot=False)
    stored = await store.load_room(room.room_id)
    assert stored is not None
    assert (stored.version, stored.snapshot, stored.snapshot_version) == (6, b"snap-2", 2)
    assert stored.events == tuple(event(n) for n in range(3, 7))


async def test_every_event_is_kept_across_snapshots_and_the_room_loads_from_the_latest(
        store: RoomStore) -> None:
    """A room loads from its snapshot and every event after it, however many; a new
    snapshot changes what loading replays, never which events are kept (a finished game's
    record is all of them: ``events_since(room, 0)``)."""
    room = meta()
    await store.create_room(room, b"snap-0", None)
    fence = await store.claim_room(room.room_id, "node")
    assert fence is not None
    for version in range(0, 12, 3):
        await add(store, room, fence, version, 3, snapshot=False)
    stored = await store.load_room(room.room_id)
    assert stored is not None
    assert (stored.version, stored.snapshot, stored.snapshot_version) == (12, b"snap-0", 0)
    assert stored.events == tuple(event(n) for n in range(1, 13))
    assert await store.events_since(room.room_id, 0) == [event(n) for n in range(1, 13)]
    await add(store, room, fence, 12, 1)  # snapshot at 13
    await add(store, room, fence, 13, 2, snapshot=False)
    stored = await store.load_room(room.room_id)
    assert stored is not None
    assert (stored.snapshot_version, stored.events) == (13, (event(14), event(15)))
    assert await store.events_since(room.room_id, 0) == [event(n) for n in range(1, 16)]
    assert await store.events_since(room.room_id, 7) == [event(n) for n in range(8, 16)]


async def test_army_lists_stored_apart_are_loaded_with_every_later_snapshot_until_replaced(
        store: RoomStore) -> None:
    """``append``'s ``armies``: stored with a snapshot, returned by every load after it
    until another snapshot brings new ones; a room that never stored any loads None."""
    room = meta()
    await store.create_room(room, b"snap-0", None)
    fence = await store.claim_room(room.room_id, "node")
    assert fence is not None
    stored = await store.load_room(room.room_id)
    assert stored is not None and stored.armies is None
    await store.append(room.room_id, fence=fence, expected_version=0, events=[event(1)],
                       snapshot=b"snap-1", armies=b"armies-1", deadlines=(), listing=None)
    await add(store, room, fence, 1, 2)  # a snapshot with the same army lists
    await add(store, room, fence, 3, 1, snapshot=False)
    stored = await store.load_room(room.room_id)
    assert stored is not None
    assert (stored.snapshot, stored.armies, stored.events) == (b"snap-3", b"armies-1",
                                                               (event(4),))
    await store.append(room.room_id, fence=fence, expected_version=4, events=[event(5)],
                       snapshot=b"snap-5", armies=b"armies-5", deadlines=(), listing=None)
    [loaded] = await store.load_rooms([room.room_id])
    assert loaded is not None and (loaded.snapshot, loaded.armies) == (b"snap-5", b"armies-5")


async def test_army_lists_without_a_snapshot_are_refused_and_change_nothing(
        store: RoomStore) -> None:
    room = meta()
    await store.create_room(room, b"snap-0", None)
    fence = await store.claim_room(room.room_id, "node")
    assert fence is not None
    with pytest.raises(ValueError):
        await store.append(room.room_id, fence=fence, expected_version=0, events=[event(1)],
                           snapshot=None, armies=b"armies-1", deadlines=(), listing=None)
    stored = await store.load_room(room.room_id)
    assert stored is not None and (stored.version, stored.armies) == (0, None)


async def test_hundreds_of_rooms_writing_at_once_all_succeed(store: RoomStore) -> None:
    """More concurrent calls than the store has connections wait for one, never fail."""
    rooms = [meta("private") for _ in range(300)]
    await asyncio.gather(*(store.create_room(room, b"snap-0", None) for room in rooms))
    fences = await asyncio.gather(*(store.claim_room(room.room_id, "node") for room in rooms))
    versions = await asyncio.gather(*(
        add(store, room, fence, 0, 2, snapshot=False)
        for room, fence in zip(rooms, fences, strict=True) if fence is not None))
    assert versions == [2] * len(rooms)
    loaded = await asyncio.gather(*(store.load_room(room.room_id) for room in rooms))
    assert all(s is not None and s.events == (event(1), event(2)) for s in loaded)
