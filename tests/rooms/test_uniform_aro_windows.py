"""Uniform ARO windows (``server/rooms/window_hold.py``, docs/fair-play.md): with
``aro_min_open_s`` on, when A sees an ARO window close depends only on what both players
can see -- not on whether B's hidden trooper could react, nor on what it did.

The real rules core, N5: B's Ghost (Hidden Deployment) is hidden either in the Line of Fire
of A's moving trooper (eligible: B passes or declares with it a second later, then closes)
or far out of sight (not eligible: B's app closes at once). The room's clock is a fake one
the test moves; a held close's wake-up is the room's own message (``HeldCloseDue``) posted
as its timer posts it, and a command of A refused for its version is the barrier that
shows the room has handled it: no waiting on the wall clock.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import pytest

from protocol.messages import Accepted, Command, Events, Options, Rejected
from server.config import Settings
from server.fanout import Audience, LocalFanout
from server.rooms.messages import HeldCloseDue
from server.rooms.registry import RoomRegistry
from server.rooms.room import Room
from server.rooms.rules_engine import RulesCoreEngine
from server.rooms.window_hold import HELD_CLOSE
from server.store import MemoryRoomStore, RoomSettings
from tests.doubles.fake_clock import FakeClock
from tests.doubles.members import RecordingMember
from tests.support.skirmish import Placement, skirmish
from tests.support.windows import closes

SETTINGS = Settings(freeze_gc=False, static_dir=None)
WINDOW_S = 60.0
MIN_OPEN_S = 3.0
GHOST = "B-t2"
OPEN: dict[str, Placement] = {
    "A-t3": (24.0, 6.0, 90.0), "A-t1": (10.0, 4.0, 90.0),
    "B-t3": (6.0, 40.0, 90.0), "B-t4": (40.0, 40.0, 90.0),  # facing away from A
}
IN_SIGHT: Placement = (30.0, 20.0, 270.0, "hidden")
OUT_OF_SIGHT: Placement = (46.0, 46.0, 90.0, "hidden")  # far away, facing away
STEP_S = 0.5


@dataclass
class Game:
    registry: RoomRegistry
    room: Room
    clock: FakeClock
    a: RecordingMember
    b: RecordingMember
    store: MemoryRoomStore
    opened_at: int = 0
    """How many events frames A had when the window opened (the earlier ones are not its
    close)."""
    window: dict[str, Any] | None = None
    closed_ms: int | None = None
    """The room's clock when A had the frame closing the window (checked after every
    command answered)."""

    def watch(self) -> None:
        window = self.window
        if window is None or self.closed_ms is not None:
            return
        if any(closes(window)(frame) for frame in self.a.of(Events)[self.opened_at:]):
            self.closed_ms = self.clock.ms

    async def command(self, member: RecordingMember, body: dict[str, Any],
                      command_id: str) -> Accepted | Rejected:
        seat = member.audience.value
        assert self.room.submit(member, seat, Command(command_id, self.room.seen[member.audience],
                                                      body))
        answer = await member.answer(command_id)
        self.watch()
        return answer

    async def barrier(self, tag: str) -> None:
        """A command of A refused for its version: answered once the room handled what was
        posted before it."""
        assert self.room.submit(self.a, "A", Command(tag, 10**6, {"type": "end_turn"}))
        answer = await self.a.answer(tag)
        assert isinstance(answer, Rejected) and answer.code == "future_version"
        self.watch()


@asynccontextmanager
async def game(ghost: Placement | None, min_open_s: float,
               store: MemoryRoomStore | None = None) -> AsyncIterator[Game]:
    placements = dict(OPEN) if ghost is None else {**OPEN, GHOST: ghost}
    store = MemoryRoomStore() if store is None else store
    registry = RoomRegistry(store, LocalFanout(), RulesCoreEngine(), SETTINGS)
    clock = FakeClock()
    registry.clock = clock
    created = await registry.create(
        RoomSettings("n5", WINDOW_S, "public", fixed_seed=3, aro_min_open_s=min_open_s),
        skirmish(placements, ruleset="n5", seed=3))
    room = await registry.open(created.meta.room_id)
    assert room is not None
    a, b = RecordingMember(Audience.A), RecordingMember(Audience.B)
    await room.join(a, "A", None)
    await room.join(b, "B", None)
    try:
        yield Game(registry, room, clock, a, b, store)
    finally:
        await registry.shutdown()


@asynccontextmanager
async def loaded_again(store: MemoryRoomStore, room_id: str, at_ms: int) -> AsyncIterator[Game]:
    """The room loaded by another node from ``store`` (a restart, a takeover), its clock at
    ``at_ms``; nobody joined yet."""
    registry = RoomRegistry(store, LocalFanout(), RulesCoreEngine(), SETTINGS)
    clock = FakeClock()
    registry.clock = clock
    clock.ms = at_ms
    try:
        room = await registry.open(room_id)
        assert room is not None
        yield Game(registry, room, clock, RecordingMember(Audience.A),
                   RecordingMember(Audience.B), store)
    finally:
        await registry.shutdown()


async def open_window(g: Game) -> dict[str, Any]:
    """A moves its trooper: B's ARO window opens; its fields as A sees them (A's frames
    read so far end with the one that opened it)."""
    assert isinstance(await g.command(
        g.a, {"type": "activate", "trooper": "A-t3", "order": "regular"}, "a1"), Accepted)
    assert isinstance(await g.command(g.a, {"type": "declare_skill", "skill": {
        "type": "move", "route": [[24.0, 6.0], [24.0, 9.0]]}}, "a2"), Accepted)
    g.opened_at = len(g.a.of(Events))
    window = g.a.of(Events)[-1].window
    assert window is not None and window["reactive"] == "B"
    g.window = window
    # The window opened on the room's clock, which has not moved.
    assert window["deadline_ms"] == g.clock.ms + WINDOW_S * 1000
    return window


async def b_options(g: Game) -> dict[str, Any]:
    g.room.request_options(g.b)
    options: dict[str, Any] = (await g.b.until(Options)).options
    return options


def close_body(window: dict[str, Any]) -> dict[str, Any]:
    return {"type": "close_aro_window", "order": window["order"], "step": window["step"]}


Answer = Callable[[Game, dict[str, Any]], Any]


async def b_has_nothing_to_declare(g: Game, window: dict[str, Any]) -> None:
    """What B's app does (aro-panel.js): no trooper may answer, so it closes at once."""
    assert (await b_options(g))["aros"] == {}, "the Ghost is out of sight"
    assert isinstance(await g.command(g.b, close_body(window), "b-close"), Accepted)


def b_uses_the_ghost(how: dict[str, Any]) -> Answer:
    async def answer(g: Game, window: dict[str, Any]) -> None:
        assert GHOST in (await b_options(g))["aros"], "the Ghost is in Line of Fire"
        g.clock.advance(1.0)
        assert isinstance(await g.command(g.b, {**how, "trooper": GHOST}, "b-ghost"), Accepted)
        g.clock.advance(1.0)
        assert isinstance(await g.command(g.b, close_body(window), "b-close"), Accepted)
    return answer


PASS = {"type": "pass_aro"}
DODGE = {"type": "declare_aro", "skill": {"type": "dodge"}}


async def seconds_until_a_sees_it_close(g: Game, window: dict[str, Any]) -> float:
    """Move the room's clock on in steps (from where B's answer left it), waking the room
    as its timer would at each; the time after the window's opening at which A got the
    frame closing it (``Game.watch``)."""
    opened_ms = window["deadline_ms"] - WINDOW_S * 1000
    g.window = window
    g.watch()
    step = 0
    while g.closed_ms is None:
        assert g.clock.ms < window["deadline_ms"], "the window never closed"
        g.clock.ms = max(g.clock.ms, opened_ms + round(step * STEP_S * 1000))
        g.room.inbox.post(HeldCloseDue(f"{window['order']}:{window['step']}"))
        await g.barrier(f"probe{step}")
        step += 1
    return (g.closed_ms - opened_ms) / 1000


async def close_time(ghost: Placement, answer: Any, min_open_s: float) -> float:
    async with game(ghost, min_open_s) as g:
        window = await open_window(g)
        await answer(g, window)
        return await seconds_until_a_sees_it_close(g, window)


@pytest.mark.parametrize("how", [PASS, DODGE], ids=["passes", "declares"])
async def test_with_uniform_windows_a_sees_the_window_close_at_the_same_time_either_way(
    how: dict[str, Any],
) -> None:
    nothing = await close_time(OUT_OF_SIGHT, b_has_nothing_to_declare, MIN_OPEN_S)
    ghost = await close_time(IN_SIGHT, b_uses_the_ghost(how), MIN_OPEN_S)
    assert nothing == ghost == MIN_OPEN_S


async def test_without_uniform_windows_the_close_takes_effect_when_sent() -> None:
    nothing = await close_time(OUT_OF_SIGHT, b_has_nothing_to_declare, 0.0)
    ghost = await close_time(IN_SIGHT, b_uses_the_ghost(PASS), 0.0)
    assert (nothing, ghost) == (0.0, 2.0), "today's behaviour: the timing tells"


async def test_a_side_that_can_hide_nothing_is_not_held() -> None:
    """The Ghost deployed as a model on the table: by public facts B holds no trooper
    that could react unseen, so its close takes effect at once."""
    visible: Placement = (46.0, 46.0, 90.0)
    assert await close_time(visible, b_has_nothing_to_declare, MIN_OPEN_S) == 0.0


async def test_a_held_close_survives_the_room_loaded_again() -> None:
    store = MemoryRoomStore()
    async with game(OUT_OF_SIGHT, MIN_OPEN_S, store) as g:
        window = await open_window(g)
        await b_has_nothing_to_declare(g, window)
        room_id, opened_ms = g.room.room_id, window["deadline_ms"] - WINDOW_S * 1000
        stored = (await store.load_room(room_id)).deadlines  # type: ignore[union-attr]
        assert [(d.kind, d.at_ms) for d in stored if d.kind == HELD_CLOSE] == [
            (HELD_CLOSE, opened_ms + MIN_OPEN_S * 1000)]
    async with loaded_again(store, room_id, opened_ms + 1000) as again:
        room = again.room
        await room.join(again.a, "A", None)
        await room.join(again.b, "B", None)
        assert room.options_frame  # (the room runs)
        assert await seconds_until_a_sees_it_close(again, window) == MIN_OPEN_S
        assert room._aro.window is None


async def test_a_held_close_loaded_past_the_deadline_closes_the_window_at_once() -> None:
    """B had closed it (held): its close was due before the deadline, so the window does
    not run again as one nobody answered does (``aro_window.py``); it closes once loaded."""
    store = MemoryRoomStore()
    async with game(OUT_OF_SIGHT, MIN_OPEN_S, store) as g:
        window = await open_window(g)
        await b_has_nothing_to_declare(g, window)
        room_id = g.room.room_id
    # (nobody served the room meanwhile)
    async with loaded_again(store, room_id, window["deadline_ms"] + 5000) as again:
        await again.room.join(again.a, "A", None)
        await again.barrier("loaded")
        assert again.room._aro.window is None, "closed at once"
        assert not any(frame.window is not None for frame in again.a.of(Events)), \
            "never told a new deadline"
