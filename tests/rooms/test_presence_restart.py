"""Seat presence outlives the process (issue 5: "open deadlines (ARO windows, reconnection
grace) stored with the room"): a room loaded again from the store — after a restart, a
takeover or leaving memory — keeps an away seat's original grace deadline (moved on by the
time no server ran the room), keeps an abandoned seat abandoned, and starts the grace period of a seat that was connected; while its
viewers come back, its spectator count is held, then sent once."""

from __future__ import annotations

from dataclasses import replace

from protocol.messages import Presence, Spectators, Welcome
from server.config import Settings
from server.fanout import Audience, LocalFanout
from server.rooms.ownership import Claim, Claimed, SoleOwner
from server.rooms.registry import RoomRegistry
from server.rooms.room import Room, now_ms
from server.rooms.seats import SEAT_GRACE
from server.store import MemoryRoomStore, RoomSettings
from tests.doubles.fake_clock import FakeClock
from tests.doubles.fake_engine import FakeEngine
from tests.doubles.members import RecordingMember

SETTINGS = Settings(freeze_gc=False, static_dir=None, grace_s=600.0)


def registry(store: MemoryRoomStore, **overrides: object) -> RoomRegistry:
    """A node on ``store``: a second one on the same store is the server after a restart."""
    settings = replace(SETTINGS, **overrides)  # type: ignore[arg-type]
    return RoomRegistry(store, LocalFanout(), FakeEngine(), settings)


async def open_room(node: RoomRegistry, room_id: str) -> Room:
    room = await node.open(room_id)
    assert isinstance(room, Room)
    return room


async def join(room: Room, audience: Audience) -> RecordingMember:
    member = RecordingMember(audience)
    await room.join(member, None if audience is Audience.SPECTATOR else audience.value, None)
    return member


async def b_away(node: RoomRegistry) -> tuple[Room, Presence]:
    """A new room on ``node`` whose seats both joined, then B left: the room, and the
    ``presence`` frame A got of B away (with its grace deadline)."""
    created = await node.create(RoomSettings("n5", 60.0, "private", fixed_seed=1))
    room = await open_room(node, created.meta.room_id)
    a, b = await join(room, Audience.A), await join(room, Audience.B)
    room.leave(b)
    away = await a.until(Presence, lambda p: p.seat == "B" and p.status == "away")
    assert away.grace_deadline_ms is not None
    return room, away


async def test_an_away_seat_keeps_its_grace_deadline_and_a_connected_one_starts_its_own() -> None:
    store = MemoryRoomStore()
    before = registry(store)
    room, away = await b_away(before)
    stored = await store.load_room(room.room_id)
    assert stored is not None
    assert {d.key: d.at_ms for d in stored.deadlines if d.kind == SEAT_GRACE} == {
        "A": 0, "B": away.grace_deadline_ms}

    # The process dies (its sockets with it); another one loads the room from the store.
    loaded_at = now_ms()
    after = registry(store)
    again = await open_room(after, room.room_id)
    watcher = await join(again, Audience.SPECTATOR)
    welcome = watcher.of(Welcome)[0]
    assert welcome.seats == {"A": "away", "B": "away"}
    assert again._presence.seats["B"].grace_deadline_ms == away.grace_deadline_ms, "the original deadline"
    grace_a = again._presence.seats["A"].grace_deadline_ms
    assert grace_a is not None and grace_a >= loaded_at + 600_000, "A's grace starts at the load"
    a_back = await join(again, Audience.A)
    assert a_back.of(Welcome)[0].seats == {"A": "connected", "B": "away"}
    await before.shutdown()
    await after.shutdown()


async def test_an_abandoned_seat_stays_abandoned_and_a_past_grace_deadline_expires_at_once() -> None:
    store = MemoryRoomStore()
    before = registry(store, grace_s=0.01)
    created = await before.create(RoomSettings("n5", 60.0, "private", fixed_seed=1))
    room = await open_room(before, created.meta.room_id)
    a, b = await join(room, Audience.A), await join(room, Audience.B)
    room.leave(b)
    await a.until(Presence, lambda p: p.seat == "B" and p.status == "abandoned")
    room.leave(a)  # A's grace (0.01 s) ends while nobody runs the room: see the reload
    await before.shutdown()

    after = registry(store)
    again = await open_room(after, room.room_id)
    watcher = await join(again, Audience.SPECTATOR)
    assert watcher.of(Welcome)[0].seats["B"] == "abandoned"
    await watcher.until(Presence, lambda p: p.seat == "A" and p.status == "abandoned")
    await after.shutdown()


async def test_a_room_loaded_back_tells_its_returning_viewers_the_count_once_not_per_return(
        ) -> None:
    store = MemoryRoomStore()
    before = registry(store)
    created = await before.create(RoomSettings("n5", 60.0, "private", fixed_seed=1))
    room = await open_room(before, created.meta.room_id)
    a = await join(room, Audience.A)
    await join(room, Audience.SPECTATOR)
    assert (await a.until(Spectators)).count == 1  # a room just made: told at once

    # The process dies; another one loads the room, and its viewers come back one by one.
    after = registry(store, spectator_count_hold_s=1.0)  # (held 10 s by default)
    again = await open_room(after, room.room_id)
    a_back = await join(again, Audience.A)
    first_back = await join(again, Audience.SPECTATOR)
    second_back = await join(again, Audience.SPECTATOR)
    assert [m.of(Welcome)[0].spectators for m in (a_back, first_back, second_back)] == [0, 1, 2]
    assert (await a_back.until(Spectators)).count == 2  # once the hold is over
    assert [s.count for s in a_back.of(Spectators)] == [2]  # not 1, then 2
    assert [s.count for s in (await first_back.until(Spectators),)] == [2]
    await before.shutdown()
    await after.shutdown()


class UnattendedSince(SoleOwner):
    """Every claim says that no server ran the room since ``since_ms`` (its server died
    then: ``server.cluster.lease``)."""

    def __init__(self, store: MemoryRoomStore, since_ms: int) -> None:
        super().__init__(store, "after")
        self.since_ms = since_ms

    async def claim(self, room_id: str) -> Claim | None:
        claim = await super().claim(room_id)
        return Claimed(claim.fence, self.since_ms) if isinstance(claim, Claimed) else claim


async def test_an_away_seats_grace_moves_on_by_the_time_no_server_ran_the_room() -> None:
    store = MemoryRoomStore()
    before = registry(store)
    room, away = await b_away(before)

    # Its server dies; nobody runs the room for 45 s, then another server loads it.
    clock = FakeClock()
    died_at = clock.ms
    clock.advance(45)
    after = RoomRegistry(store, LocalFanout(), FakeEngine(), SETTINGS,
                         UnattendedSince(store, died_at))
    after.clock = clock
    again = await open_room(after, room.room_id)
    watcher = await join(again, Audience.SPECTATOR)  # (the room has run its first messages)
    assert watcher.of(Welcome)[0].seats == {"A": "away", "B": "away"}
    moved = away.grace_deadline_ms + 45_000
    assert again._presence.seats["B"].grace_deadline_ms == moved
    # And the store has it: a room loaded after this one finds the moved deadline.
    stored = await store.load_room(room.room_id)
    assert stored is not None
    assert {d.key: d.at_ms for d in stored.deadlines if d.kind == SEAT_GRACE}["B"] == moved
    await before.shutdown()
    await after.shutdown()
