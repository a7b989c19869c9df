"""The ARO window's deadline on its own (``server.rooms.aro_window.WindowDeadline``), on a
fake room clock: when a window closes unanswered, what the store keeps of it, and the
room's own close at the deadline (a window closes on the reactive player's word or at its
deadline: docs/server.md, "The ARO window and hidden information")."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import pytest

from protocol.messages import Command
from server.rooms.aro_window import ARO_WINDOW, WindowDeadline
from server.rooms.engine_port import AroWindow, Verdict
from server.rooms.messages import HeldCloseDue, WindowExpired
from server.store import Deadline, RoomSettings, StorageUnavailable
from tests.doubles.fake_clock import FakeClock
from tests.doubles.fake_engine import FakeEngine, FakeState

GUARD_S = 10.0  # against a hung test only
WINDOW_S = 60.0
OPEN = FakeState(window=(1, 1))
"""A state with order 1's window open (step 1, reactive B)."""
FIRST = AroWindow(1, 1, "B")
SECOND = AroWindow(2, 1, "B")
CLOSED = Verdict(({"e": "window_closed", "order": 1, "timeout": True},))


class HidingEngine(FakeEngine):
    """The fake game, where the reactive side could hold a trooper it may react with
    unseen (``may_react_unseen``)."""

    def may_react_unseen(self, state: FakeState, side: str) -> bool:
        return True


class Room:
    """What a window's deadline needs of its room: its clock, its inbox, its decision and
    commit (which follows the rules core's window, as ``Room._commit`` does)."""

    def __init__(self, *, min_open_s: float = 0.0, stored: Sequence[Deadline] = (),
                 abandoned: Sequence[str] = (), engine: FakeEngine | None = None,
                 verdict: Verdict = CLOSED, closes: bool = True) -> None:
        self.clock = FakeClock()
        self.posted: list[WindowExpired | HeldCloseDue] = []
        self.arrived = asyncio.Event()
        self.decided: list[tuple[str | None, Any]] = []
        self.committed: list[Verdict] = []
        self.dropped = 0
        self.ran_again: list[int] = []  # the deadlines stored for a window running again
        self.store_down = False  # the room's store fails its writes
        self.verdict = verdict
        self.closes = closes  # the commit closes the window (the rules core did)
        settings = RoomSettings("n5", WINDOW_S, "private", aro_min_open_s=min_open_s)
        self.window = WindowDeadline(
            "room-1", settings, engine or FakeEngine(), self.clock, self.post, stored,
            lambda side: side in abandoned, self.decide, self.commit, self.drop,
            self.run_again)

    def post(self, message: WindowExpired | HeldCloseDue) -> None:
        self.posted.append(message)
        self.arrived.set()

    def decide(self, actor: str | None, command: object) -> Verdict:
        self.decided.append((actor, command))
        return self.verdict

    async def commit(self, verdict: Verdict) -> None:
        if self.store_down:
            raise StorageUnavailable("append: no reply from Redis")
        self.committed.append(verdict)
        if self.closes:
            self.window.sync(None, 0, FakeState())

    async def run_again(self, window: AroWindow, deadline_ms: int) -> None:
        """As ``Room._window_runs_again``: store the new deadline, then re-arm."""
        if self.store_down:
            raise StorageUnavailable("set_deadlines: no reply from Redis")
        self.ran_again.append(deadline_ms)
        self.window.ran_again(window, deadline_ms)

    def drop(self) -> None:
        self.dropped += 1
        self.window.close()

    def open(self, window: AroWindow = FIRST) -> int:
        """``window`` opens after a commit, as ``Room._commit`` opens it; its deadline."""
        deadline_ms = self.window.deadline_for(window)
        self.window.sync(window, deadline_ms, OPEN)
        return deadline_ms


def close_command(window: AroWindow = FIRST) -> Command:
    return Command("c1", 3, {"type": "close_aro_window", "order": window.order,
                             "step": window.step})


async def test_a_new_window_runs_its_full_length_on_the_room_clock_and_keeps_its_deadline() -> None:
    room = Room()
    opened_at = room.clock()
    deadline_ms = room.open()
    assert deadline_ms == opened_at + 60_000
    assert room.window.deadlines(FIRST, deadline_ms) == (Deadline(ARO_WINDOW, "1:1", deadline_ms),)

    room.clock.advance(10)
    assert room.window.deadline_for(FIRST) == deadline_ms, "the same window keeps its deadline"
    assert room.window.deadline_for(SECOND) == room.clock() + 60_000, "a new one gets its own"
    fields = room.window.fields()
    assert fields is not None
    assert (fields["deadline_ms"], fields["remaining_ms"]) == (deadline_ms, 50_000)
    room.window.close()
    assert room.window.fields() is None and room.window.deadlines(None, 0) == ()


async def test_a_window_is_overdue_from_its_deadline_on_not_a_millisecond_before() -> None:
    room = Room()
    room.open()
    room.clock.advance(WINDOW_S - 0.001)
    assert not room.window.overdue()
    room.clock.advance(0.001)
    assert room.window.overdue()


async def test_a_command_after_the_deadline_finds_the_window_closed_by_the_system_first() -> None:
    room = Room()
    room.open()
    room.clock.advance(WINDOW_S)
    await room.window.due_first()
    assert room.decided == [(None, {"type": "close_aro_window", "order": 1, "step": 1})]
    assert room.committed == [CLOSED] and room.window.window is None


async def test_a_window_whose_reactive_seat_is_abandoned_closes_now_and_is_never_held() -> None:
    room = Room(abandoned=("B",), min_open_s=3.0, engine=HidingEngine())
    assert room.open() == room.clock()
    assert room.window.overdue()
    assert not room.window.holds_close(close_command()), "an abandoned seat's window is not held"


async def test_an_older_windows_timer_or_a_window_closed_early_changes_nothing() -> None:
    room = Room()
    room.open(FIRST)
    room.window.sync(SECOND, room.window.deadline_for(SECOND), OPEN)
    await room.window.expired(FIRST.key)
    room.window.close()
    await room.window.expired(SECOND.key)
    assert room.decided == [] and room.committed == [] and room.dropped == 0


async def test_a_refused_close_or_a_window_still_open_after_it_is_dropped() -> None:
    refused = Room(verdict=Verdict(None, "stale_window", "no such window"))
    refused.open()
    await refused.window.expired(FIRST.key)
    assert refused.committed == [] and refused.dropped == 1 and refused.window.window is None

    stuck = Room(closes=False)
    stuck.open()
    await stuck.window.expired(FIRST.key)
    assert stuck.committed == [CLOSED] and stuck.dropped == 1 and stuck.window.window is None


async def test_a_room_loaded_again_keeps_the_stored_deadline_and_a_past_one_expires_at_once() -> None:
    clock_now = FakeClock()()
    kept = Room(stored=(Deadline(ARO_WINDOW, "1:1", clock_now + 5_000),))
    kept.window.restore(OPEN)
    assert kept.window.deadline_ms == clock_now + 5_000

    never_stored = Room()
    never_stored.window.restore(OPEN)
    assert never_stored.window.deadline_ms == never_stored.clock() + 60_000

    past = Room(stored=(Deadline(ARO_WINDOW, "1:1", clock_now - 1),))
    past.window.restore(OPEN)
    await asyncio.wait_for(past.arrived.wait(), GUARD_S)
    assert past.posted == [WindowExpired("1:1")]


async def test_a_held_windows_close_waits_for_its_minimum_time_from_the_opening() -> None:
    room = Room(min_open_s=3.0, engine=HidingEngine())
    room.open()
    assert room.window.holds_close(close_command())
    assert not room.window.holds_close(Command("c2", 3, {"type": "declare_aro"})), "only a close"
    room.clock.advance(3)
    assert not room.window.holds_close(close_command()), "its moment has come"


async def test_a_guts_window_or_a_room_that_holds_nothing_never_holds_a_close() -> None:
    guts = replace(FIRST, step=0, guts="B-t1")
    holding = Room(min_open_s=3.0, engine=HidingEngine())
    holding.window.sync(guts, holding.window.deadline_for(guts), OPEN)
    assert not holding.window.holds_close(close_command(guts))

    uniform_off = Room(engine=HidingEngine())
    uniform_off.open()
    assert not uniform_off.window.holds_close(close_command())


async def test_a_held_close_is_stored_while_it_waits_and_takes_effect_as_the_players() -> None:
    room = Room(min_open_s=3.0, engine=HidingEngine())
    deadline_ms = room.open()
    assert room.window.deadlines(FIRST, deadline_ms) == (Deadline(ARO_WINDOW, "1:1", deadline_ms),)
    room.window.hold.wait()  # (the room stored it first: ``StoredDeadlines.hold_close``)
    assert room.window.deadlines(FIRST, deadline_ms)[1].at_ms == deadline_ms - 57_000
    await room.window.held_close_due(FIRST.key)
    assert room.decided == [], "its moment has not come"
    room.clock.advance(3)
    await room.window.due_first()
    assert room.decided == [("B", {"type": "close_aro_window", "order": 1, "step": 1})]
    assert room.committed == [CLOSED]



async def test_a_close_at_the_deadline_the_store_failed_runs_the_window_again_once_it_is_back(
        ) -> None:
    room = Room()
    deadline_ms = room.open()
    room.clock.advance(60)
    room.store_down = True  # Redis fails over: the room's own close is not stored
    with pytest.raises(StorageUnavailable):
        await room.window.expired(FIRST.key)
    assert room.committed == [] and room.window.is_open(FIRST.key)
    room.clock.advance(5)
    with pytest.raises(StorageUnavailable):
        await room.window.due_first()  # (a command meanwhile: still down, "try again")
    assert room.ran_again == []

    room.clock.advance(3)
    room.store_down = False
    await room.window.due_first()  # the next command, or the close's retry: it runs again
    assert room.committed == [], "not closed"
    assert room.ran_again == [room.clock() + 60_000] and room.window.deadline_ms > deadline_ms
    assert not room.window.overdue()
    assert room.window.fields() is not None
    room.clock.advance(59.999)
    room.posted.clear()
    room.arrived.clear()
    # The failed close's retry, posted before it ran again (or its timer a moment early):
    # nothing closes, and the timer is set anew for the millisecond left.
    await room.window.expired(FIRST.key)
    assert room.committed == [] and room.window.is_open(FIRST.key)
    await asyncio.wait_for(room.arrived.wait(), GUARD_S)
    assert room.posted == [WindowExpired("1:1")]
    room.clock.advance(0.001)
    await room.window.due_first()
    assert room.committed == [CLOSED], "it runs once more, then closes at its new deadline"
    assert room.ran_again == [room.clock()]


async def test_only_the_rooms_own_close_makes_a_window_run_again_and_not_for_an_abandoned_seat(
        ) -> None:
    room = Room()
    room.open()
    room.clock.advance(60)
    await room.window.due_first()  # the store never failed: it closes
    assert room.committed == [CLOSED] and room.ran_again == []

    abandoned: list[str] = []
    gone = Room()
    gone.window = WindowDeadline(
        "room-1", RoomSettings("n5", WINDOW_S, "private"), FakeEngine(), gone.clock, gone.post,
        (), lambda side: side in abandoned, gone.decide, gone.commit, gone.drop, gone.run_again)
    gone.open()
    gone.clock.advance(60)
    gone.store_down = True
    with pytest.raises(StorageUnavailable):
        await gone.window.expired(FIRST.key)
    gone.store_down = False
    abandoned.append("B")  # nobody will answer: it closes instead
    await gone.window.expired(FIRST.key)
    assert gone.committed == [CLOSED] and gone.ran_again == []
