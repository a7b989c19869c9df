"""An ARO window whose close at its deadline the store failed runs again once the store is
back (``server/rooms/aro_window.py``), in a whole room on a store that fails on demand: a
reactive player's declaration refused ``storage_unavailable`` meanwhile, sent again under
its id, is taken; every seat is told the window's new deadline, which is stored. An outage
that ends before the deadline is added to it instead. Time is a
fake clock; the window's timer is driven by posting what it posts (``WindowExpired``), so
no test waits for a timer."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from protocol.constants import ProtocolReason
from protocol.messages import Accepted, Command, Events, Rejected, command_answer
from server.config import Settings
from server.fanout import Audience, LocalFanout
from server.rooms.aro_window import ARO_WINDOW
from server.rooms.messages import WindowExpired
from server.rooms.registry import RoomRegistry
from server.rooms.room import Room
from server.store import MemoryRoomStore, RoomSettings, StorageUnavailable
from tests.doubles.fake_clock import FakeClock
from tests.doubles.fake_engine import FakeEngine
from tests.doubles.members import RecordingMember

SETTINGS = Settings(freeze_gc=False, static_dir=None, grace_s=600.0)
WINDOW_S = 60.0
KEY = "1:1"  # order 1's window, step 1 (the fake game's)


class FailingStore(MemoryRoomStore):
    """A store whose writes fail while ``down`` (Redis failing over: nothing written)."""

    down = False

    async def append(self, room_id: str, **fields: Any) -> int:
        if self.down:
            raise StorageUnavailable("append: no reply from Redis")
        return await super().append(room_id, **fields)

    async def set_deadlines(self, room_id: str, **fields: Any) -> None:
        if self.down:
            raise StorageUnavailable("set_deadlines: no reply from Redis")
        await super().set_deadlines(room_id, **fields)


class Table:
    def __init__(self, store: FailingStore | None = None) -> None:
        self.store = FailingStore() if store is None else store
        self.clock = FakeClock()
        self.registry = RoomRegistry(self.store, LocalFanout(), FakeEngine(), SETTINGS)
        self.registry.clock = self.clock
        self.a = RecordingMember(Audience.A)
        self.b = RecordingMember(Audience.B)

    async def open(self) -> Room:
        created = await self.registry.create(RoomSettings("n5", WINDOW_S, "private"))
        room = await self.registry.open(created.meta.room_id)
        assert isinstance(room, Room)
        await room.join(self.a, "A", None)
        await room.join(self.b, "B", None)
        return room

    async def send(self, room: Room, member: RecordingMember, command_id: str,
                   body: dict[str, object]) -> Accepted | Rejected | None:
        """Send a command at the seat's version; its answer (an ``events`` frame naming
        it read as the ``accepted`` it carries)."""
        version = room.seen[member.audience]
        assert room.submit(member, member.audience.value, Command(command_id, version, body))
        frame = await member.until(object, lambda m: _answers(m, command_id))  # type: ignore[type-abstract]
        return command_answer(frame)  # type: ignore[arg-type]

    @asynccontextmanager
    async def loaded_again(self, room_id: str) -> AsyncIterator[Room]:
        """The room loaded by another node on the same store and clock (a restart, a
        takeover)."""
        node = RoomRegistry(self.store, LocalFanout(), FakeEngine(), SETTINGS)
        node.clock = self.clock
        try:
            room = await node.open(room_id)
            assert isinstance(room, Room)
            yield room
        finally:
            await node.shutdown()

    async def stored_window_deadline(self, room: Room) -> int:
        stored = await self.store.load_room(room.room_id)
        assert stored is not None
        return next(d.at_ms for d in stored.deadlines if d.kind == ARO_WINDOW)


def _answers(message: object, command_id: str) -> bool:
    answer = command_answer(message)  # type: ignore[arg-type]
    return answer is not None and answer.id == command_id


DECLARE = {"type": "declare_aro", "trooper": "B-t1"}


def unavailable(answer: object) -> bool:
    return isinstance(answer, Rejected) and answer.code == ProtocolReason.STORAGE_UNAVAILABLE


async def test_a_declaration_refused_while_the_deadline_passed_is_taken_in_the_window_run_again(
        ) -> None:
    table = Table()
    room = await table.open()
    assert isinstance(await table.send(room, table.a, "shot", {"type": "shoot"}), Accepted)

    table.clock.advance(50)  # 10 s left: Redis fails over as B declares
    table.store.down = True
    assert unavailable(await table.send(room, table.b, "d1", DECLARE))
    table.clock.advance(15)  # the deadline passes: the room's own close fails too
    room.inbox.post(WindowExpired(KEY))  # what the window's timer posts
    assert unavailable(await table.send(room, table.b, "d1", DECLARE)), "still down"
    assert room.state.window == (1, 1)

    table.clock.advance(3)  # the store is back; B's client sends its declaration again
    table.store.down = False
    assert isinstance(await table.send(room, table.b, "d1", DECLARE), Accepted)
    assert room.state.aros == ("B-t1",) and room.state.closed_by_timeout == ()
    again_ms = table.clock() + 60_000  # a full window from when the store was back
    assert await table.stored_window_deadline(room) == again_ms
    told = await table.a.until(Events, lambda f: not f.events and f.window is not None)
    assert told.window is not None and told.window["deadline_ms"] == again_ms
    assert told.window["remaining_ms"] == 60_000

    table.clock.advance(60)  # it runs once more, then closes as any window does
    room.inbox.post(WindowExpired(KEY))
    closed = await table.a.until(Events, lambda f: any(
        e.get("e") == "window_closed" for e in f.events))
    assert {"e": "window_closed", "order": 1, "timeout": True} in closed.events
    await table.registry.shutdown()


async def test_a_window_runs_again_whether_or_not_its_reactive_player_tried_to_answer() -> None:
    table = Table()
    room = await table.open()
    await table.send(room, table.a, "shot", {"type": "shoot"})
    table.clock.advance(60)
    table.store.down = True
    room.inbox.post(WindowExpired(KEY))
    # (A's command is refused as the window's close is: "try again")
    assert unavailable(await table.send(room, table.a, "a1", {"type": "act", "value": 1}))
    table.store.down = False
    refused = await table.send(room, table.a, "a1", {"type": "act", "value": 1})
    assert isinstance(refused, Rejected) and refused.code == "wrong_phase", "the window is open"
    told = await table.b.until(Events, lambda f: not f.events and f.window is not None)
    assert told.window is not None and told.window["deadline_ms"] == table.clock() + 60_000
    assert isinstance(await table.send(room, table.b, "d1", DECLARE), Accepted)
    await table.registry.shutdown()


async def test_a_window_whose_close_was_stored_closes_and_a_late_answer_is_late() -> None:
    table = Table()
    room = await table.open()
    await table.send(room, table.a, "shot", {"type": "shoot"})
    table.clock.advance(50)
    table.store.down = True
    assert unavailable(await table.send(room, table.b, "d1", DECLARE))
    table.store.down = False  # back before the deadline: the close at it is stored
    table.clock.advance(10)
    late = await table.send(room, table.b, "d1", DECLARE)
    assert isinstance(late, Rejected), "sent again after the deadline: too late"
    assert room.state.closed_by_timeout == (1,)
    await table.registry.shutdown()


def has_window(deadline_ms: int) -> Any:
    """A frame (welcome's snapshot, or events) that carries the window with that deadline."""
    def carries(frame: object) -> bool:
        window = getattr(frame, "window", None)
        return isinstance(window, dict) and window["deadline_ms"] == deadline_ms
    return carries


async def test_a_window_loaded_past_its_deadline_runs_again_and_takes_an_answer() -> None:
    """Its node died with the window open, and nobody served the room at its deadline:
    B's answers meanwhile failed with the node, as they would in a storage outage."""
    table = Table()
    room = await table.open()
    await table.send(room, table.a, "shot", {"type": "shoot"})
    await table.registry.shutdown()  # the node dies: the window stays as stored
    table.clock.advance(WINDOW_S + 10)  # its deadline passes while no node serves it

    async with table.loaded_again(room.room_id) as again:
        a, b = RecordingMember(Audience.A), RecordingMember(Audience.B)
        await again.join(a, "A", None)
        await again.join(b, "B", None)
        again_ms = table.clock() + 60_000  # a full window from the load
        await a.until(object, has_window(again_ms))  # type: ignore[type-abstract]
        assert await table.stored_window_deadline(again) == again_ms
        assert again.state.window == (1, 1) and again.state.closed_by_timeout == ()
        assert isinstance(await table.send(again, b, "d1", DECLARE), Accepted)
        assert again.state.aros == ("B-t1",)


async def test_a_window_loaded_before_its_deadline_keeps_it() -> None:
    table = Table()
    room = await table.open()
    await table.send(room, table.a, "shot", {"type": "shoot"})
    deadline_ms = await table.stored_window_deadline(room)
    await table.registry.shutdown()
    table.clock.advance(WINDOW_S - 10)

    async with table.loaded_again(room.room_id) as again:
        b = RecordingMember(Audience.B)
        await again.join(b, "B", None)
        await b.until(object, has_window(deadline_ms))  # type: ignore[type-abstract]
        table.clock.advance(10)
        again.inbox.post(WindowExpired(KEY))  # what its timer posts at the deadline
        closed = await b.until(Events, lambda f: any(
            e.get("e") == "window_closed" for e in f.events))
        assert {"e": "window_closed", "order": 1, "timeout": True} in closed.events


async def test_an_outage_that_ends_before_the_deadline_is_added_to_the_window() -> None:
    table = Table()
    room = await table.open()
    await table.send(room, table.a, "shot", {"type": "shoot"})
    deadline = await table.stored_window_deadline(room)
    table.clock.advance(40)  # 20 s left: Redis fails over as B declares
    table.store.down = True
    assert unavailable(await table.send(room, table.b, "d1", DECLARE))
    table.clock.advance(8)  # back 12 s before the deadline; B's client sends it again
    table.store.down = False
    assert isinstance(await table.send(room, table.b, "d1", DECLARE), Accepted)
    # The 8 s the store took are added to the window, stored, and told to everyone.
    assert await table.stored_window_deadline(room) == deadline + 8_000
    told = await table.a.until(Events, has_window(deadline + 8_000))
    assert told.window is not None and told.window["remaining_ms"] == 20_000
    # (B read it before its answer)
    assert any(has_window(deadline + 8_000)(frame) for frame in table.b.frames)
    table.clock.advance(12)  # the old deadline: the window is still open
    room.inbox.post(WindowExpired(KEY))  # (its timer, had it been set for the old one)
    passed = await table.send(room, table.b, "p1", {"type": "pass_aro", "trooper": "B-t2"})
    assert isinstance(passed, Accepted), "in time: the window ran 8 s longer"
    assert room.state.closed_by_timeout == ()
    await table.registry.shutdown()
