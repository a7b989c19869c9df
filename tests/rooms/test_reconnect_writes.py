"""What a seat reconnecting to a restarted node costs the store, counted by Redis itself
(``INFO commandstats``): a room reloaded after a restart holds "connected" for each seat
connected then, so a seat coming back within its grace period changes nothing the store
holds but what the other seat's absence makes true; both back together change nothing."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from server.config import Settings
from server.fanout import Audience, LocalFanout
from server.rooms.registry import RoomRegistry
from server.rooms.room import Room
from server.rooms.seats import SEAT_GRACE
from server.store import RoomSettings
from server.store.redis_store import RedisRoomStore
from testkit.redis_process import RedisProcess
from tests.doubles.fake_engine import FakeEngine
from tests.doubles.members import RecordingMember

pytestmark = pytest.mark.redis

SETTINGS = Settings(freeze_gc=False, static_dir=None, grace_s=600.0)
ROOMS = 3


@pytest.fixture
async def redis_url(tmp_path: Path) -> AsyncIterator[str]:
    """A redis-server of the test's own: its command counts are this test's alone."""
    server = RedisProcess(tmp_path / "redis")
    server.start()
    try:
        yield server.url
    finally:
        server.stop()


SENT = ("evalsha", "eval", "zadd", "zrem")
"""The commands the store sends for a room's writes: its scripts (counted once each; the
commands a script runs are counted under their own names, and are not sent) and the lobby
index's updates. A new connection's HELLO and PING, and a script's first SCRIPT LOAD, are
not a seat's."""


async def commands(store: RedisRoomStore) -> int:
    """How many of ``SENT`` Redis has run so far."""
    stats: dict[str, Any] = await store.client.info("commandstats")
    return sum(int(stats.get(f"cmdstat_{name}", {}).get("calls", 0)) for name in SENT)


async def open_room(node: RoomRegistry, room_id: str) -> Room:
    room = await node.open(room_id)
    assert isinstance(room, Room)
    return room


async def seat(room: Room, side: str) -> RecordingMember:
    member = RecordingMember(Audience(side))
    await room.join(member, side, None)
    return member


async def restarted(url: str) -> tuple[RoomRegistry, list[Room]]:
    """``ROOMS`` public rooms whose two seats were connected when their node stopped,
    loaded by a node started after it on the same Redis, nobody connected yet."""
    store = RedisRoomStore.from_url(url)
    before = RoomRegistry(store, LocalFanout(), FakeEngine(), SETTINGS)
    room_ids = []
    for _ in range(ROOMS):
        created = await before.create(RoomSettings("n5", 60.0, "public", fixed_seed=1))
        room = await open_room(before, created.meta.room_id)
        await seat(room, "A")
        await seat(room, "B")
        room_ids.append(room.room_id)
    await before.shutdown()  # (its sockets close with it: no seat leaves, as at a kill)
    await store.close()
    after = RoomRegistry(RedisRoomStore.from_url(url), LocalFanout(), FakeEngine(), SETTINGS)
    return after, [await open_room(after, room_id) for room_id in room_ids]


async def presence_stored(store: RedisRoomStore, room_id: str) -> dict[str, int]:
    stored = await store.load_room(room_id)
    assert stored is not None
    return {d.key: d.at_ms for d in stored.deadlines if d.kind == SEAT_GRACE}


async def test_seats_reconnecting_in_turn_cost_two_commands_each(redis_url: str) -> None:
    node, rooms = await restarted(redis_url)
    store = node.store
    assert isinstance(store, RedisRoomStore)
    before = await commands(store)
    for room in rooms:
        await seat(room, "A")
        await seat(room, "B")
    await node.shutdown()  # (each room handles its inbox first: every write is made)
    # A's join lists the room (a script and a ZADD) and stores B's grace deadline (begun at
    # the load); B's stores that B is back. The listing B's join would write says what
    # A's wrote: not written again. (Before: 3 each, a listing and a presence per seat.)
    assert (await commands(store) - before) / (2 * len(rooms)) == 2
    for room in rooms:
        assert await presence_stored(store, room.room_id) == {"A": 0, "B": 0}
    listed = {item.room_id: item for item in await store.public_rooms(100)}
    assert all(listed[room.room_id].seats_taken == 2 for room in rooms)
    await store.close()


async def test_seats_reconnecting_together_cost_one_command_each(redis_url: str) -> None:
    node, rooms = await restarted(redis_url)
    store = node.store
    assert isinstance(store, RedisRoomStore)
    before = await commands(store)
    await asyncio.gather(*(seat(room, side) for room in rooms for side in ("A", "B")))
    await node.shutdown()
    # Both joins in the inbox together: one listing (A's), and the presence they leave is
    # what the store holds since the kill (both connected): no write. (Before: 3 each.)
    assert (await commands(store) - before) / (2 * len(rooms)) == 1
    for room in rooms:
        assert await presence_stored(store, room.room_id) == {"A": 0, "B": 0}
    await store.close()


async def test_a_seat_not_back_has_the_grace_deadline_its_reload_began_stored(
        redis_url: str) -> None:
    node, rooms = await restarted(redis_url)
    store = node.store
    assert isinstance(store, RedisRoomStore)
    room = rooms[0]
    await seat(room, "A")
    grace_b = room._presence.seats["B"].grace_deadline_ms
    await node.shutdown()
    assert grace_b is not None
    assert await presence_stored(store, room.room_id) == {"A": 0, "B": grace_b}
    await store.close()
