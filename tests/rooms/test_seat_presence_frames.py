"""A seat's presence frame goes to the room's other viewers, not to the seat's own connection:
its welcome (and its catch-up snapshot) already says the seat is connected. A restart's
returning seats each read a frame they knew (``bench.run``'s frames per reconnected socket)."""

from __future__ import annotations

from protocol.messages import Presence, Welcome
from server.config import Settings
from server.fanout import Audience, LocalFanout
from server.rooms.registry import RoomRegistry
from server.rooms.room import Room
from server.store import MemoryRoomStore, RoomSettings
from tests.doubles.fake_engine import FakeEngine
from tests.doubles.members import RecordingMember


async def join(room: Room, audience: Audience) -> RecordingMember:
    member = RecordingMember(audience)
    await room.join(member, None if audience is Audience.SPECTATOR else audience.value, None)
    return member


async def test_a_seat_joining_tells_the_others_and_not_itself() -> None:
    node = RoomRegistry(MemoryRoomStore(), LocalFanout(), FakeEngine(),
                        Settings(freeze_gc=False, static_dir=None))
    created = await node.create(RoomSettings("n5", 60.0, "private", fixed_seed=1))
    room = await node.open(created.meta.room_id)
    assert isinstance(room, Room)
    a = await join(room, Audience.A)
    watcher = await join(room, Audience.SPECTATOR)
    b = await join(room, Audience.B)

    for other in (a, watcher):
        told = await other.until(Presence, lambda p: p.seat == "B")
        assert told.status == "connected"
    assert b.of(Welcome)[0].seats == {"A": "connected", "B": "connected"}
    assert b.of(Presence) == []
    assert [p.seat for p in a.of(Presence)] == ["B"]  # (and not its own, on its join)
    await node.shutdown()
