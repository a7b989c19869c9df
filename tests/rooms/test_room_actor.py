"""The room actor with a fake engine: answers, versions, views, ARO windows, resume."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from dataclasses import replace
from typing import Any

import pytest

from protocol.constants import CloseCode, ProtocolReason
from protocol.messages import (
    Accepted,
    Command,
    Events,
    Options,
    Presence,
    Rejected,
    Snapshot,
    Welcome,
)
from server.config import Settings
from server.fanout import Audience, LocalFanout
from server.rooms.engine_port import Verdict
from server.rooms.messages import IdleExpired, Join
from server.rooms.registry import RoomRegistry
from server.rooms.room import Room, RoomMoved, RoomStopped
from server.rooms.slow_commands import SlowCommands
from server.store import MemoryRoomStore, RoomSettings, StaleWriter
from tests.doubles.fake_engine import FakeEngine
from tests.doubles.members import RecordingMember
from tests.support.windows import closed, opened

SETTINGS = Settings(freeze_gc=False, static_dir=None)
GUARD_S = 20.0  # only against a hung test


class World:
    def __init__(self, engine: FakeEngine, registry: RoomRegistry, room: Room,
                 store: MemoryRoomStore):
        self.engine, self.registry, self.room, self.store = engine, registry, room, store

    async def join(self, audience: Audience, since: int | None = None) -> RecordingMember:
        member = RecordingMember(audience)
        seat = None if audience is Audience.SPECTATOR else audience.value
        await self.room.join(member, seat, since)
        return member

    async def command(self, member: RecordingMember, body: dict[str, object],
                      command_id: str, version: int | None = None) -> Accepted | Rejected:
        seat = None if member.audience is Audience.SPECTATOR else member.audience.value
        version = self.room.seen[member.audience] if version is None else version
        assert self.room.submit(member, seat, Command(command_id, version, body))
        return await member.answer(command_id)


async def make_world(aro_window_s: float = 60.0, engine: FakeEngine | None = None,
                     **overrides: object) -> World:
    settings = replace(SETTINGS, **overrides)  # type: ignore[arg-type]
    engine = FakeEngine() if engine is None else engine
    store = MemoryRoomStore()
    registry = RoomRegistry(store, LocalFanout(), engine, settings)
    created = await registry.create(RoomSettings("n5", aro_window_s, "public", fixed_seed=7))
    room = await registry.open(created.meta.room_id)
    assert room is not None
    return World(engine, registry, room, store)


@pytest.fixture
async def world() -> AsyncIterator[World]:
    world = await make_world()
    yield world
    await world.registry.shutdown()


async def test_every_command_is_answered_once_and_a_repeated_id_gets_the_same_answer(
    world: World,
) -> None:
    a = await world.join(Audience.A)
    first = await world.command(a, {"type": "act", "value": 2}, "x1")
    assert first == Accepted("x1", 1)
    again = await world.command(a, {"type": "act", "value": 2}, "x1", version=0)
    assert again == first
    assert world.room.version == 1, "the repeated command was not applied twice"
    assert a.answers() == [first, first]
    assert world.engine.calls.count("A:act") == 1


class ReachingEngine(FakeEngine):
    """An engine whose accepted verdicts carry the state they reached (as the rules core's
    do), and which counts its folds."""

    folds: int = 0

    def decide(self, state: Any, actor: str | None, command: dict[str, Any],
               at_ms: int | None = None) -> Verdict:
        verdict = super().decide(state, actor, command, at_ms)
        if not verdict.events:
            return verdict
        return replace(verdict, state=super().apply_all(state, verdict.events))

    def apply_all(self, state: Any, events: Sequence[dict[str, Any]]) -> Any:
        self.folds += 1
        return super().apply_all(state, events)


async def test_a_commit_takes_the_state_the_verdict_reached_without_folding_again() -> None:
    engine = ReachingEngine()
    world = await make_world(engine=engine)
    try:
        a = await world.join(Audience.A)
        before, folds = world.room.state, engine.folds
        assert await world.command(a, {"type": "act", "value": 2}, "x1") == Accepted("x1", 1)
        assert engine.folds == folds, "the room folded the events again"
        assert world.room.state == FakeEngine.apply_all(
            engine, before, [{"e": "acted", "side": "A", "value": 2}])
        assert world.room.state != before
    finally:
        await world.registry.shutdown()


async def test_an_accepted_command_costs_its_commander_one_frame_its_events_naming_it(
    world: World,
) -> None:
    a = await world.join(Audience.A)
    b = await world.join(Audience.B)
    spectator = await world.join(Audience.SPECTATOR)
    viewers = (a, b, spectator)
    before = {viewer: len(viewer.frames) for viewer in viewers}
    assert await world.command(a, {"type": "act", "value": 2}, "x1") == Accepted("x1", 1)
    event = {"e": "acted", "side": "A", "value": 2}
    # One publish reached everyone at once: the commander's frame is its answer, the
    # others' frames do not name it.
    assert a.frames[before[a]:] == [Events(1, [event], None, "x1")]
    assert b.frames[before[b]:] == [Events(1, [event], None)]
    assert spectator.frames[before[spectator]:] == [Events(1, [event], None)]

    # A repeated id is answered on its own, with the version the acceptance named.
    before[a] = len(a.frames)
    assert await world.command(a, {"type": "act", "value": 2}, "x1", version=0) == Accepted(
        "x1", 1)
    assert a.frames[before[a]:] == [Accepted("x1", 1)]

    # A rejection is its own frame, as before, and nobody gets events.
    before = {viewer: len(viewer.frames) for viewer in viewers}
    rejected = await world.command(b, {"type": "act", "value": 1}, "x2")
    assert isinstance(rejected, Rejected) and rejected.code == "not_your_turn"
    assert b.frames[before[b]:] == [rejected]
    assert len(a.frames) == before[a] and len(spectator.frames) == before[spectator]


async def test_a_command_accepted_without_events_gets_a_standalone_accepted(
    world: World,
) -> None:
    a = await world.join(Audience.A)
    b = await world.join(Audience.B)
    before_b = len(b.frames)
    assert await world.command(a, {"type": "wait"}, "w1") == Accepted("w1", 0)
    assert a.frames[-1] == Accepted("w1", 0)
    assert not a.of(Events)
    assert len(b.frames) == before_b


async def test_a_replaced_connection_gets_its_command_answered_on_its_own(
    world: World,
) -> None:
    """The seat connected again before the room took the old connection's command: the
    answer goes to the connection that sent it, the events (without ``accepted``) to the
    seat's new connection."""
    old = await world.join(Audience.A)
    new = RecordingMember(Audience.A)
    joined: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    world.room.inbox.post(Join(new, "A", None, joined))
    assert world.room.submit(old, "A", Command("r1", 0, {"type": "act", "value": 3}))
    await joined
    assert await old.answer("r1") == Accepted("r1", 1)
    assert old.closed is not None and old.closed[0] == CloseCode.REPLACED
    assert await new.until(Events, lambda m: m.first == 1) == Events(
        1, [{"e": "acted", "side": "A", "value": 3}], None)


async def test_command_against_an_old_or_future_version_is_rejected(world: World) -> None:
    a = await world.join(Audience.A)
    await world.command(a, {"type": "act", "value": 1}, "x1")
    stale = await world.command(a, {"type": "act", "value": 1}, "x2", version=0)
    future = await world.command(a, {"type": "act", "value": 1}, "x3", version=5)
    assert isinstance(stale, Rejected) and stale.code == ProtocolReason.STALE_VERSION
    assert isinstance(future, Rejected) and future.code == ProtocolReason.FUTURE_VERSION
    assert world.room.version == 1


async def test_spectator_commands_are_rejected_read_only(world: World) -> None:
    spectator = await world.join(Audience.SPECTATOR)
    answer = await world.command(spectator, {"type": "act", "value": 1}, "s1")
    assert isinstance(answer, Rejected) and answer.code == ProtocolReason.SPECTATOR_READ_ONLY
    assert world.room.version == 0


async def test_malformed_body_and_rule_rejections_carry_their_codes(world: World) -> None:
    a = await world.join(Audience.A)
    b = await world.join(Audience.B)
    malformed = await world.command(a, {"no": "type"}, "m1")
    out_of_turn = await world.command(b, {"type": "act", "value": 1}, "m2")
    assert isinstance(malformed, Rejected) and malformed.code == "bad_command"
    assert isinstance(out_of_turn, Rejected) and out_of_turn.code == "not_your_turn"


async def test_a_private_event_is_numbered_only_in_its_owners_sequence(world: World) -> None:
    """No placeholder: the opponent and spectators get no frame for it, their versions do
    not move, and the next open event is their version 1 (docs/fair-play.md)."""
    a = await world.join(Audience.A)
    b = await world.join(Audience.B)
    spectator = await world.join(Audience.SPECTATOR)
    assert isinstance(await world.command(a, {"type": "hide", "secret": "camo-is-a-sniper"}, "h1"),
                      Accepted)
    own = a.of(Events)[-1]
    assert own.first == 1 and own.events[0]["secret"] == "camo-is-a-sniper"
    assert own.accepted == "h1", "the commander's own view names its command"
    assert world.room.seen == {Audience.A: 1, Audience.B: 0, Audience.SPECTATOR: 0,
                               Audience.CASTER: 0}
    answer = await world.command(a, {"type": "act", "value": 2}, "p1")
    assert isinstance(answer, Accepted) and answer.version == 2
    for member in (b, spectator):
        frame = await member.until(Events)
        assert frame.first == 1 and [e["e"] for e in frame.events] == ["acted"]
        assert len(member.of(Events)) == 1, "nothing at all arrived for the private event"
    assert a.of(Events)[-1].first == 2
    assert world.room.seen == {Audience.A: 2, Audience.B: 1, Audience.SPECTATOR: 1,
                               Audience.CASTER: 1}


async def test_a_seat_resumes_in_its_own_numbering_past_the_others_private_events(
        world: World) -> None:
    a = await world.join(Audience.A)
    await world.command(a, {"type": "act", "value": 1}, "p1")
    await world.command(a, {"type": "hide", "secret": "s"}, "h1")
    await world.command(a, {"type": "act", "value": 2}, "p2")
    await world.command(a, {"type": "hide", "secret": "t"}, "h2")
    spectator = await world.join(Audience.SPECTATOR, since=1)
    missed = await spectator.until(Events)
    assert missed.first == 2 and [e["e"] for e in missed.events] == ["acted"]
    assert missed.events[0]["value"] == 2
    assert not spectator.of(Snapshot)


async def test_aro_window_times_out_through_the_inbox_and_closes_for_everyone() -> None:
    world = await make_world(aro_window_s=0.05)
    try:
        a = await world.join(Audience.A)
        spectator = await world.join(Audience.SPECTATOR)
        await world.command(a, {"type": "shoot"}, "s1")
        window = await opened(spectator)
        assert (window["order"], window["step"], window["reactive"]) == (1, 1, "B")
        closing = await closed(spectator, window)
        assert closing.window is None
        assert [e and e["e"] for e in closing.events] == ["window_closed"]
        assert "None:close_aro_window" in world.engine.calls, "the deadline was the system's"
        assert world.room.state.closed_by_timeout == (1,)
    finally:
        await world.registry.shutdown()


async def test_aro_window_closed_early_when_every_eligible_trooper_answered(world: World) -> None:
    a = await world.join(Audience.A)
    b = await world.join(Audience.B)
    await world.command(a, {"type": "shoot"}, "s1")
    window = await opened(b)
    await world.command(b, {"type": "declare_aro", "trooper": "B-t1"}, "r1")
    still = b.of(Events)[-1]
    assert still.window is not None and still.window["order"] == window["order"]
    await world.command(b, {"type": "pass_aro", "trooper": "B-t2"}, "r2")
    await closed(a, window)
    assert world.room.state.closed_by_timeout == ()
    assert world.room.state.aros == ("B-t1",)
    assert "None:close_aro_window" not in world.engine.calls


async def test_window_changes_travel_in_the_events_frames_only(world: World) -> None:
    """No frame of its own for a window opening or closing: the events frame that opened it
    carries it, each frame while it runs carries it again, and the one that closed it says
    none is open."""
    a = await world.join(Audience.A)
    b = await world.join(Audience.B)
    spectator = await world.join(Audience.SPECTATOR)
    before = len(spectator.frames)
    await world.command(a, {"type": "shoot"}, "s1")
    await world.command(b, {"type": "pass_aro", "trooper": "B-t1"}, "r1")
    await world.command(b, {"type": "pass_aro", "trooper": "B-t2"}, "r2")
    frames = spectator.frames[before:]
    assert all(isinstance(m, Events) for m in frames), "three commands, three frames"
    assert [(m.first, len(m.events)) for m in frames] == [(1, 2), (3, 1), (4, 2)]  # type: ignore[union-attr]
    opening, running, closing = frames  # type: ignore[misc]
    assert opening.window is not None
    assert (opening.window["order"], opening.window["step"], opening.window["reactive"]) == (1, 1, "B")
    assert 0 < opening.window["remaining_ms"] <= 60_000
    assert running.window is not None
    assert running.window["deadline_ms"] == opening.window["deadline_ms"], "the same window"
    assert closing.window is None


async def test_resume_with_nothing_missed_gets_an_empty_events_frame_with_the_window(
    world: World,
) -> None:
    a = await world.join(Audience.A)
    await world.command(a, {"type": "act", "value": 1}, "a1")
    quiet = await world.join(Audience.B, since=1)
    assert quiet.of(Events) == [Events(2, [], None)] and not quiet.of(Snapshot)
    await world.command(a, {"type": "shoot"}, "s1")
    back = await world.join(Audience.B, since=3)
    [caught_up] = back.of(Events)
    assert (caught_up.first, caught_up.events) == (4, [])
    assert caught_up.window is not None and caught_up.window["order"] == 1
    assert not back.of(Snapshot)


async def test_a_window_closed_without_an_event_is_announced_by_an_empty_events_frame(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """If the rules core refuses the room's own close at the deadline, the room still stops
    waiting for the window, and says so: an events frame with no event and no window."""
    world = await make_world(aro_window_s=0.05)
    decide = world.engine.decide

    def refusing_close(state: object, actor: str | None, command: dict[str, object]) -> object:
        if command["type"] == "close_aro_window":
            return replace(decide(state, actor, command), events=None, code="stale_window")  # type: ignore[arg-type]
        return decide(state, actor, command)  # type: ignore[arg-type]

    monkeypatch.setattr(world.engine, "decide", refusing_close)
    try:
        a = await world.join(Audience.A)
        spectator = await world.join(Audience.SPECTATOR)
        await world.command(a, {"type": "shoot"}, "s1")
        window = await opened(spectator)
        dropped = await closed(spectator, window)
        assert dropped == Events(world.room.version + 1, [], None)
        assert world.room.version == 2 and world.room._aro.window is None
    finally:
        await world.registry.shutdown()


async def test_a_window_restored_at_load_reaches_resuming_and_new_viewers() -> None:
    store = MemoryRoomStore()
    first = RoomRegistry(store, LocalFanout(), FakeEngine(), SETTINGS)
    created = await first.create(RoomSettings("n5", 60.0, "public", fixed_seed=7))
    room = await first.open(created.meta.room_id)
    assert room is not None
    a = RecordingMember(Audience.A)
    await room.join(a, "A", None)
    assert room.submit(a, "A", Command("s1", 0, {"type": "shoot"}))
    window = await opened(a)
    await first.shutdown()

    second = RoomRegistry(store, LocalFanout(), FakeEngine(), SETTINGS)
    try:
        again = await second.open(created.meta.room_id)
        assert again is not None
        resuming, fresh = RecordingMember(Audience.A), RecordingMember(Audience.SPECTATOR)
        await again.join(resuming, "A", 2)
        await again.join(fresh, None, None)
        [caught_up] = resuming.of(Events)
        assert caught_up.events == [] and caught_up.window == {
            **window, "remaining_ms": caught_up.window["remaining_ms"]}  # type: ignore[index]
        snapshot = fresh.of(Snapshot)[-1]
        assert snapshot.window is not None
        assert snapshot.window["deadline_ms"] == window["deadline_ms"], "the stored deadline"
    finally:
        await second.shutdown()


async def test_resume_sends_exactly_the_missed_events(world: World) -> None:
    a = await world.join(Audience.A)
    for n in range(3):
        await world.command(a, {"type": "act", "value": n}, f"a{n}")
    b = await world.join(Audience.B, since=1)
    welcome = await b.until(Welcome)
    missed = await b.until(Events)
    assert welcome.version == 3
    assert missed.first == 2 and [e["value"] for e in missed.events] == [1, 2]
    assert not b.of(Snapshot)


async def test_resume_from_a_version_the_room_never_reached_gets_a_snapshot() -> None:
    world = await make_world(snapshot_every=1)
    try:
        a = await world.join(Audience.A)
        for n in range(4):
            await world.command(a, {"type": "act", "value": 1}, f"a{n}")
        b = await world.join(Audience.B, since=9)
        snapshot = await b.until(Snapshot)
        assert snapshot.version == 4 and snapshot.state["score"] == 4
        assert not b.of(Events)
        c = await world.join(Audience.SPECTATOR, since=0)  # long ago: every event is kept
        missed = await c.until(Events)
        assert missed.first == 1 and len(missed.events) == 4
        assert not c.of(Snapshot)
    finally:
        await world.registry.shutdown()


async def test_engine_failure_answers_internal_error_and_the_room_keeps_running(
    world: World,
) -> None:
    world.engine.fail_on = "hide"
    a = await world.join(Audience.A)
    failed = await world.command(a, {"type": "hide", "secret": "x"}, "f1")
    assert isinstance(failed, Rejected) and failed.code == ProtocolReason.INTERNAL_ERROR
    ok = await world.command(a, {"type": "act", "value": 1}, "f2")
    assert ok == Accepted("f2", 1)


async def test_seat_disconnect_is_shown_to_the_opponent_and_a_new_connection_replaces_it(
    world: World,
) -> None:
    a = await world.join(Audience.A)
    b = await world.join(Audience.B)
    world.room.leave(b)
    away = await a.until(Presence, lambda p: p.seat == "B" and p.status == "away")
    assert away.grace_deadline_ms is not None
    b2 = await world.join(Audience.B)
    await a.until(Presence, lambda p: p.seat == "B" and p.status == "connected")
    b3 = await world.join(Audience.B)
    assert b2.closed is not None and b2.closed[0] == CloseCode.REPLACED
    assert b3.closed is None


async def test_a_seat_joining_tells_the_others_and_not_itself(world: World) -> None:
    """Its welcome (and its catch-up snapshot) already says the seat is connected: a restart's
    returning seats each read a frame they knew (``bench.run``'s frames per socket)."""
    a = await world.join(Audience.A)
    watcher = await world.join(Audience.SPECTATOR)
    b = await world.join(Audience.B)

    for other in (a, watcher):
        told = await other.until(Presence, lambda p: p.seat == "B")
        assert told.status == "connected"
    assert b.of(Welcome)[0].seats == {"A": "connected", "B": "connected"}
    assert b.of(Presence) == []
    assert [p.seat for p in a.of(Presence)] == ["B"]  # (and not its own, on its join)


async def test_grace_expiry_marks_the_seat_abandoned() -> None:
    world = await make_world(grace_s=0.01)
    try:
        a = await world.join(Audience.A)
        b = await world.join(Audience.B)
        world.room.leave(b)
        await a.until(Presence, lambda p: p.seat == "B" and p.status == "abandoned")
    finally:
        await world.registry.shutdown()


async def test_a_room_that_lost_its_fence_stops_and_closes_its_sockets(world: World) -> None:
    a = await world.join(Audience.A)
    await world.store.claim_room(world.room.room_id, "another-node")
    assert world.room.submit(a, "A", Command("c1", 0, {"type": "act", "value": 1}))
    code, _ = await a.wait_closed()
    assert code == CloseCode.ROOM_UNAVAILABLE
    assert world.room.version == 0
    with pytest.raises(StaleWriter):
        await world.store.append(world.room.room_id, fence=1, expected_version=0, events=[],
                                 snapshot=b"", deadlines=[], listing=None)


async def test_a_viewer_joining_a_room_that_moved_is_sent_on_to_open_it_again(world: World) -> None:
    """A room stopped because another node took it (its fence lost) answers a join with
    ``RoomMoved``: the transport opens the room again (the new owner, through a relay)
    instead of closing the socket; a room stopped by a shutdown answers ``RoomStopped``."""
    a = await world.join(Audience.A)
    await world.store.claim_room(world.room.room_id, "another-node")
    assert world.room.submit(a, "A", Command("c1", 0, {"type": "act", "value": 1}))
    await a.wait_closed()
    with pytest.raises(RoomMoved):
        await world.join(Audience.B)

    other = await make_world()
    await other.registry.shutdown()
    with pytest.raises(RoomStopped) as stopped:
        await other.join(Audience.B)
    assert not isinstance(stopped.value, RoomMoved)


async def test_inbox_refuses_commands_beyond_its_capacity() -> None:
    world = await make_world(inbox_size=2)
    try:
        member = RecordingMember(Audience.A)
        # The room task has not run yet in this tick, so nothing is consumed in between.
        accepted = [world.room.submit(member, "A", Command(f"c{n}", 0, {"type": "act", "value": 1}))
                    for n in range(3)]
        assert accepted == [True, True, False]
    finally:
        await world.registry.shutdown()


async def test_a_room_nobody_is_connected_to_leaves_memory_and_loads_again() -> None:
    """Idle rooms stop (``idle_room_s``); their state is in the store, so the next viewer
    gets the same game at the same version."""
    world = await make_world(idle_room_s=0.01)
    try:
        a = await world.join(Audience.A)
        assert (await world.command(a, {"type": "act", "value": 1}, "c1")) == Accepted("c1", 1)
        task = world.registry._tasks[world.room.room_id]
        world.room.leave(a)
        await asyncio.wait_for(task, GUARD_S)  # the room task ends by itself
        assert world.room.stopped and world.registry.live_rooms() == 0
        again = await world.registry.open(world.room.room_id)
        assert isinstance(again, Room) and again is not world.room and again.version == 1
    finally:
        await world.registry.shutdown()


def observed_idle_checks(room: Room, monkeypatch: pytest.MonkeyPatch) -> asyncio.Event:
    """Set each time ``room`` checks whether an idle countdown's expiry stops it."""
    checked = asyncio.Event()
    check = room._presence.idle_now

    def observed_check(message: IdleExpired, *, busy: bool, serving: bool) -> bool:
        checked.set()
        return check(message, busy=busy, serving=serving)

    monkeypatch.setattr(room._presence, "idle_now", observed_check)
    return checked


async def test_an_idle_countdown_never_stops_a_room_with_a_viewer_or_an_open_window(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The countdown's expiry is checked when handled: a viewer connected, or an ARO window
    whose deadline this room must serve, keeps the room (the countdown starts again)."""
    world = await make_world(idle_room_s=600.0)
    room = world.room
    checked = observed_idle_checks(room, monkeypatch)
    try:
        a = await world.join(Audience.A)
        room.inbox.post(IdleExpired(room._presence.idle_epoch))  # as if the countdown ran out now
        assert isinstance(await world.command(a, {"type": "shoot"}, "c1"), Accepted)
        assert checked.is_set() and not room.stopped, "a viewer is connected"

        checked.clear()
        room.leave(a)
        # Handled in order: the leave starts a new countdown (the next epoch), which expires.
        room.inbox.post(IdleExpired(room._presence.idle_epoch + 1))
        await asyncio.wait_for(checked.wait(), GUARD_S)
        assert not room.stopped, "the open ARO window keeps the room"
        spectator = await world.join(Audience.SPECTATOR)
        assert spectator.of(Snapshot)[-1].window is not None, "and it is still open"
    finally:
        await world.registry.shutdown()


async def test_an_idle_countdown_that_expires_while_a_message_waits_starts_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A countdown expiring while another message waits in the inbox (a listing's or a
    deadline's turn, which is no join or leave) does not stop the room then, but starts
    again: before, nothing started it again, and the room stayed in memory for good."""
    world = await make_world(idle_room_s=600.0)
    room = world.room
    checked = observed_idle_checks(room, monkeypatch)
    try:
        a = await world.join(Audience.A)
        before = room._presence.idle_epoch
        room.leave(a)
        # Handled in order: the leave starts a countdown (the next epoch), which expires
        # while a release of the delayed feeds waits behind it.
        room.inbox.post(IdleExpired(before + 1))
        room.release_due()
        await asyncio.wait_for(checked.wait(), GUARD_S)
        assert not room.stopped, "a message was waiting"
        assert room._presence.idle_epoch == before + 2, "the countdown started again"
    finally:
        await world.registry.shutdown()


async def test_options_are_computed_once_per_version_and_seat(world: World) -> None:
    """Clients ask at every version: a flood of requests costs one computation per version
    (issue "Hardened": options amplify CPU)."""
    a = await world.join(Audience.A)
    b = await world.join(Audience.B)
    for _ in range(5):
        world.room.request_options(a)
    world.room.request_options(b)
    assert world.engine.calls.count("A:options") == 1
    assert world.engine.calls.count("B:options") == 1
    first = [m for m in a.frames if isinstance(m, Options)]
    assert len(first) == 5 and all(m == first[0] for m in first)
    await world.command(a, {"type": "act", "value": 1}, "p1")
    world.room.request_options(a)
    assert world.engine.calls.count("A:options") == 2, "a new version computes them again"
    latest = [m for m in a.frames if isinstance(m, Options)][-1]
    assert latest.version == first[0].version + 1

async def test_a_slow_command_is_logged_with_where_its_time_went(
    world: World, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
) -> None:
    """The room hands each command's time to the node's slow-command log: over its
    threshold (0: every command) a line with the room and where the time went; under it
    (infinity), nothing."""
    a = await world.join(Audience.A)
    monkeypatch.setattr("server.rooms.room.SLOW_COMMANDS", SlowCommands(float("inf")))
    with caplog.at_level("WARNING", logger="server.rooms.room"):
        assert await world.command(a, {"type": "act", "value": 2}, "x1") == Accepted("x1", 1)
    assert not [r for r in caplog.records if "a command took" in r.getMessage()]
    monkeypatch.setattr("server.rooms.room.SLOW_COMMANDS", SlowCommands(0.0))
    with caplog.at_level("WARNING", logger="server.rooms.room"):
        assert await world.command(a, {"type": "act", "value": 3}, "x2") == Accepted("x2", 2)
    slow = [r.getMessage() for r in caplog.records if "a command took" in r.getMessage()]
    assert len(slow) == 1
    assert slow[0].startswith(f"room {world.room.room_id}: a command took ")
    assert "waiting in its inbox" in slow[0] and "the last store append" in slow[0]
    assert "the loop's CPU meanwhile" in slow[0]
