"""How long Redis keeps a room, by where its game stands (issue 18, room retention), with the
real rules core and a real Redis: a room whose armies are not both chosen expires
``room_unstarted_ttl_s`` after its last write, a game being played never expires, a game
that is over expires ``room_finished_ttl_s`` after its end. Read from Redis
(``PEXPIRETIME`` of every key of the room, bounded by Redis's clock before and after the
write), never waited for."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from protocol.messages import Accepted, Command
from server.config import Settings
from server.fanout import Audience, LocalFanout
from server.rooms.registry import RoomRegistry
from server.rooms.room import Room
from server.rooms.rules_engine import RulesCoreEngine
from server.store import RoomSettings
from server.store.redis_store import PUBLIC_KEY, RedisRoomStore, room_keys
from tests.doubles.members import RecordingMember

pytestmark = pytest.mark.redis

UNSTARTED_MS, FINISHED_MS = 3_600_000, 7 * 24 * 3_600_000
SETTINGS = Settings(freeze_gc=False, static_dir=None, room_unstarted_ttl_s=3600.0,
                    room_finished_ttl_s=7 * 24 * 3600.0)
ARMIES = {"A": "helion-c1-patrol", "B": "vesper-c1-cell"}


class Expiry:
    """The room's keys' expiry as Redis keeps it, and Redis's clock around a write."""

    def __init__(self, store: RedisRoomStore, room_id: str) -> None:
        self.store, self.room_id = store, room_id
        self.before = self.after = 0

    async def now_ms(self) -> int:
        seconds, micros = await self.store.client.time()
        return int(seconds) * 1000 + int(micros) // 1000

    async def keys(self) -> list[int]:
        """PEXPIRETIME of each key of the room (-1: none; -2: no such key yet)."""
        return [await self.store.client.pexpiretime(key) for key in room_keys(self.room_id)]

    async def assert_expires(self, after_ms: int) -> None:
        """Every existing key expires ``after_ms`` after the write between before and after."""
        at = {when for when in await self.keys() if when != -2}
        assert len(at) == 1, f"every key at one instant: {at}"
        assert self.before + after_ms <= at.pop() <= self.after + after_ms


async def command(room: Room, seat: RecordingMember, command_id: str,
                  body: dict[str, Any], expiry: Expiry) -> None:
    expiry.before = await expiry.now_ms()
    assert room.submit(seat, seat.audience.value,
                       Command(command_id, room.seen[seat.audience], body))
    assert isinstance(await seat.answer(command_id), Accepted)
    expiry.after = await expiry.now_ms()


async def test_an_unstarted_room_expires_a_played_one_never_a_finished_one_later(
        redis_store: RedisRoomStore) -> None:
    store = redis_store
    registry = RoomRegistry(store, LocalFanout(), RulesCoreEngine(), SETTINGS)
    before = await store.client.time()
    created = await registry.create(RoomSettings("codeone", 60.0, "public"))
    room = await registry.open(created.meta.room_id)
    assert isinstance(room, Room)
    expiry = Expiry(store, room.room_id)
    expiry.before = int(before[0]) * 1000 + int(before[1]) // 1000
    expiry.after = await expiry.now_ms()
    await expiry.assert_expires(UNSTARTED_MS)  # made by the lobby, nobody joined yet

    seats = {side: RecordingMember(Audience(side)) for side in ARMIES}
    for side, member in seats.items():
        await room.join(member, side, None)
    entropy = {side: hashlib.sha256(side.encode()).hexdigest() for side in ARMIES}
    await command(room, seats["A"], "army-a", {
        "type": "choose_army", "army": ARMIES["A"], "entropy": entropy["A"]}, expiry)
    await expiry.assert_expires(UNSTARTED_MS)  # one army chosen: not begun, renewed
    assert (await expiry.keys())[1] > 0, "the events too"

    await command(room, seats["B"], "army-b", {
        "type": "choose_army", "army": ARMIES["B"], "entropy": entropy["B"]}, expiry)
    assert await expiry.keys() == [-1, -1, -1, -1], "the game began: kept for ever"

    await command(room, seats["B"], "give-up", {"type": "concede"}, expiry)
    await expiry.assert_expires(FINISHED_MS)
    assert await store.client.zscore(PUBLIC_KEY, room.room_id) is not None, "still listed"
    await registry.shutdown()
