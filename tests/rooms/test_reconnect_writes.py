"""What a seat reconnecting to a restarted node costs the store, counted by Redis itself
(``MONITOR``: the commands it receives): a room reloaded after a restart holds "connected" for each seat
connected then, so a seat coming back within its grace period changes nothing the store
holds but what the other seat's absence makes true; both back together change nothing."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import redis.asyncio as aioredis

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


CONNECTION = frozenset({"hello", "ping", "client", "script", "echo"})
"""What a new connection sends (HELLO, PING, CLIENT), a script's first SCRIPT LOAD, and the
end marker: no seat's."""


class Received:
    """The commands Redis receives from its clients -- not those its scripts run, which
    ``INFO commandstats`` counts too -- as ``MONITOR`` shows them, until ``count``."""

    def __init__(self, url: str) -> None:
        self._client = aioredis.from_url(url)
        self._names: list[str] = []
        self._end = f"end-{uuid.uuid4().hex}"
        self._ended = asyncio.Event()
        self._monitor = self._client.monitor()
        self._reader: asyncio.Task[None] | None = None

    async def start(self) -> None:
        await self._monitor.__aenter__()  # (MONITOR answered: every later command is shown)
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for command in self._monitor.listen():
            if command["client_type"] == "lua":
                continue
            if self._end in command["command"]:
                self._ended.set()
                return
            self._names.append(command["command"].split(" ", 1)[0].lower())

    async def count(self) -> int:
        """How many commands came, but ``CONNECTION``'s."""
        await self._client.echo(self._end)  # (after every reply the test waited for)
        async with asyncio.timeout(20):  # a guard against a hung test, not a timing check
            await self._ended.wait()
        await self._monitor.__aexit__(None, None, None)
        await self._client.aclose()
        return sum(name not in CONNECTION for name in self._names)


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


async def test_a_rooms_seats_reconnecting_in_turn_send_redis_three_commands(redis_url: str) -> None:
    node, rooms = await restarted(redis_url)
    store = node.store
    assert isinstance(store, RedisRoomStore)
    received = Received(redis_url)
    await received.start()
    for room in rooms:
        await seat(room, "A")
        await seat(room, "B")
    await node.shutdown()  # (each room handles its inbox first: every write is made)
    # A's join lists the room (one script: the room's hash and the lobby index) and stores
    # B's grace deadline (begun at the load); B's stores that B is back. The listing B's join
    # would write says what A's wrote: not written again. (Before: 3 each, a listing -- a
    # script and a ZADD -- and a presence per seat.)
    assert await received.count() / (2 * len(rooms)) == 1.5
    for room in rooms:
        assert await presence_stored(store, room.room_id) == {"A": 0, "B": 0}
    listed = {item.room_id: item for item in await store.public_rooms(100)}
    assert all(listed[room.room_id].seats_taken == 2 for room in rooms)
    await store.close()


async def test_a_rooms_seats_reconnecting_together_send_redis_one_command(redis_url: str) -> None:
    node, rooms = await restarted(redis_url)
    store = node.store
    assert isinstance(store, RedisRoomStore)
    received = Received(redis_url)
    await received.start()
    await asyncio.gather(*(seat(room, side) for room in rooms for side in ("A", "B")))
    await node.shutdown()
    # Both joins in the inbox together: one listing (A's, one script), and the presence
    # they leave is what the store holds since the kill (both connected): no write.
    # (Before: 3 each.)
    assert await received.count() / (2 * len(rooms)) == 0.5
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
