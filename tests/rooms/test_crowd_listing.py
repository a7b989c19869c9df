"""A crowd of spectators joining at once is listed once they are all in, not with one
store write per join; one spectator joining alone is listed before its welcome."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from server.app import create_app
from server.fanout import Audience
from server.rooms.room import Room
from server.store import MemoryRoomStore, RoomSettings
from tests.helpers import settings


class Viewer:
    audience = Audience.SPECTATOR

    def __init__(self) -> None:
        self.frames: list[bytes] = []

    def deliver(self, frame: bytes) -> None:
        self.frames.append(frame)

    def close(self, code: int, reason: str) -> None:
        pass


async def listed_spectators(store: MemoryRoomStore, room_id: str) -> int:
    return next(r.spectators for r in await store.public_rooms(10) if r.room_id == room_id)


@pytest.fixture
async def room_and_store() -> AsyncIterator[tuple[Room, MemoryRoomStore, list[int]]]:
    store = MemoryRoomStore()
    app = create_app(settings(), store=store)
    created = await app.state.registry.create(RoomSettings("codeone", 60.0, "public"))
    room = await app.state.registry.open(created.meta.room_id)
    assert isinstance(room, Room)
    writes: list[int] = []
    original = store.set_listing

    async def counting(room_id: str, listing: object) -> None:
        writes.append(getattr(listing, "spectators", -1))
        await original(room_id, listing)  # type: ignore[arg-type]

    store.set_listing = counting  # type: ignore[method-assign]
    yield room, store, writes
    await app.state.registry.shutdown()


async def test_a_crowd_joining_at_once_is_listed_with_fewer_writes_than_joins(
        room_and_store: tuple[Room, MemoryRoomStore, list[int]]) -> None:
    room, store, writes = room_and_store
    crowd = [Viewer() for _ in range(50)]
    await asyncio.gather(*(room.join(viewer, None, None) for viewer in crowd))
    assert all(viewer.frames for viewer in crowd), "every one welcomed"
    await asyncio.wait_for(until_listed(store, room.room_id, 50), 10)
    assert 1 <= len(writes) < 50
    assert writes[-1] == 50


async def test_a_spectator_alone_is_listed_before_its_welcome(
        room_and_store: tuple[Room, MemoryRoomStore, list[int]]) -> None:
    room, store, writes = room_and_store
    await room.join(Viewer(), None, None)
    assert await listed_spectators(store, room.room_id) == 1
    await room.join(Viewer(), None, None)
    assert await listed_spectators(store, room.room_id) == 2
    assert writes == [1, 2]


async def until_listed(store: MemoryRoomStore, room_id: str, count: int) -> None:
    while await listed_spectators(store, room_id) != count:
        await asyncio.sleep(0)  # the room's task writes it once its inbox is empty


async def test_spectators_joining_one_by_one_in_a_crowd_are_listed_once_a_second(
        room_and_store: tuple[Room, MemoryRoomStore, list[int]]) -> None:
    # 10,000 spectators in 30 s arrive one by one, each to an empty inbox: the first few
    # are listed before their welcome, the rest together (``ListingPace``), not a store
    # round trip per join held in the room's task (docs/performance.md, "Broadcast").
    room, store, writes = room_and_store
    room._listing.pace._monotonic = lambda: 0.0  # all within one second
    for _ in range(20):
        await room.join(Viewer(), None, None)
    assert writes == [1, 2, 3, 4]
    await asyncio.wait_for(until_listed(store, room.room_id, 20), 10)
    assert writes == [1, 2, 3, 4, 20]
