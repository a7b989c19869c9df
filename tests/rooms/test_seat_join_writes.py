"""The store writes a seat's join makes: the listing before its welcome unless it is listed
already, the presence after its answer -- with the next message when more wait, before the
room stops at the latest -- unless the store holds it already."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from protocol.constants import CloseCode
from protocol.messages import Presence
from server.config import Settings
from server.fanout import Audience, LocalFanout
from server.rooms.registry import RoomRegistry
from server.rooms.room import Room
from server.rooms.seats import SEAT_GRACE
from server.store import Deadline, Listing, MemoryRoomStore, RoomSettings
from tests.doubles.fake_engine import FakeEngine, FakeState
from tests.doubles.members import RecordingMember

SETTINGS = Settings(freeze_gc=False, static_dir=None, grace_s=600.0)


class CountingStore(MemoryRoomStore):
    """Counts the listing and presence writes; ``taken_at_welcome`` reads the lobby's line
    as a member receives its first frame."""

    def __init__(self) -> None:
        super().__init__()
        self.listings: list[Listing | None] = []
        self.presences: list[tuple[Deadline, ...]] = []

    async def set_listing(self, room_id: str, listing: Listing | None) -> None:
        self.listings.append(listing)
        await super().set_listing(room_id, listing)

    async def set_deadlines(self, room_id: str, *, fence: int,
                            deadlines: Sequence[Deadline]) -> None:
        self.presences.append(tuple(deadlines))
        await super().set_deadlines(room_id, fence=fence, deadlines=deadlines)

    def listed(self, room_id: str) -> Listing | None:
        return self._listings.get(room_id)


class Seat(RecordingMember):
    """A seat's connection that notes what the lobby lists when its welcome arrives."""

    def __init__(self, side: str, store: CountingStore, room_id: str) -> None:
        super().__init__(Audience(side))
        self._store, self._room_id = store, room_id
        self.taken_at_welcome: int | None = None

    def deliver(self, frame: bytes) -> None:
        if self.taken_at_welcome is None:
            listed = self._store.listed(self._room_id)
            self.taken_at_welcome = -1 if listed is None else listed.seats_taken
        super().deliver(frame)


class NotBegunEngine(FakeEngine):
    """A game whose armies are not both chosen: the store keeps its room for a while after
    each write, not for ever (``server.rooms.retention``)."""

    def public_summary(self, state: FakeState) -> Any:
        return {**super().public_summary(state), "phase": "army_selection"}


async def open_room(node: RoomRegistry, room_id: str) -> Room:
    room = await node.open(room_id)
    assert isinstance(room, Room)
    return room


async def public_room(store: CountingStore,
                      engine: FakeEngine | None = None) -> tuple[RoomRegistry, Room]:
    node = RoomRegistry(store, LocalFanout(), engine or FakeEngine(), SETTINGS)
    created = await node.create(RoomSettings("n5", 60.0, "public", fixed_seed=1))
    return node, await open_room(node, created.meta.room_id)


async def both_seats(room: Room) -> tuple[RecordingMember, RecordingMember]:
    a, b = RecordingMember(Audience.A), RecordingMember(Audience.B)
    await room.join(a, "A", None)
    await room.join(b, "B", None)
    return a, b


def presence(deadlines: tuple[Deadline, ...]) -> dict[str, int]:
    return {d.key: d.at_ms for d in deadlines if d.kind == SEAT_GRACE}


async def test_a_seat_is_listed_before_its_welcome_and_coming_back_lists_nothing_new() -> None:
    store = CountingStore()
    node, room = await public_room(store)
    a = Seat("A", store, room.room_id)
    await room.join(a, "A", None)
    assert a.taken_at_welcome == 1
    b = Seat("B", store, room.room_id)
    await room.join(b, "B", None)
    assert b.taken_at_welcome == 2
    writes = len(store.listings)
    room.leave(a)  # away: still taken
    await b.until(Presence, lambda p: p.seat == "A" and p.status == "away")
    a_again = Seat("A", store, room.room_id)
    await room.join(a_again, "A", None)
    assert a_again.taken_at_welcome == 2
    assert len(store.listings) == writes, "nothing the lobby lists changed"
    await node.shutdown()


async def test_both_seats_back_together_store_their_presence_once() -> None:
    store = CountingStore()
    node, room = await public_room(store)
    a, b = await both_seats(room)
    watcher = RecordingMember(Audience.SPECTATOR)
    await room.join(watcher, None, None)
    room.leave(a)
    room.leave(b)
    await watcher.until(Presence, lambda p: p.seat == "B" and p.status == "away")
    assert presence(store.presences[-1]).keys() == {"A", "B"}
    writes = len(store.presences)
    await asyncio.gather(room.join(RecordingMember(Audience.A), "A", None),
                         room.join(RecordingMember(Audience.B), "B", None))
    await node.shutdown()  # (the room handles its inbox first)
    assert [presence(d) for d in store.presences[writes:]] == [{"A": 0, "B": 0}]


async def test_a_joins_presence_left_for_later_is_stored_before_the_room_stops() -> None:
    store = CountingStore()
    node, room = await public_room(store)
    a, b = await both_seats(room)
    room.leave(a)
    await b.until(Presence, lambda p: p.seat == "A" and p.status == "away")
    assert presence(store.presences[-1])["A"] > 1  # away: its grace deadline

    async def stop() -> None:
        room.stop(CloseCode.GOING_AWAY, "server shutting down")

    # The join's presence would wait behind the Stop already in the inbox.
    await asyncio.gather(room.join(RecordingMember(Audience.A), "A", None), stop())
    await node.shutdown()
    assert presence(store.presences[-1]) == {"A": 0, "B": 0}


async def reloaded_with_both_back(engine: FakeEngine) -> list[tuple[Deadline, ...]]:
    """The presence writes of a room reloaded after a restart (both seats were connected)
    whose seats come back together."""
    store = CountingStore()
    before, room = await public_room(store, engine)
    await both_seats(room)
    await before.shutdown()
    after = RoomRegistry(store, LocalFanout(), engine, SETTINGS)
    again = await open_room(after, room.room_id)
    writes = len(store.presences)
    await asyncio.gather(again.join(RecordingMember(Audience.A), "A", None),
                         again.join(RecordingMember(Audience.B), "B", None))
    await after.shutdown()
    return store.presences[writes:]


async def test_a_restarted_room_kept_for_ever_stores_nothing_when_both_seats_come_back() -> None:
    assert await reloaded_with_both_back(FakeEngine()) == []


async def test_a_restarted_room_kept_for_a_while_renews_its_retention_when_seats_come_back(
) -> None:
    assert [presence(d) for d in await reloaded_with_both_back(NotBegunEngine())] == [
        {"A": 0, "B": 0}]
