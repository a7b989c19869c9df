"""The room times a Guts window as it times an ARO window (combat/guts_window.py): the real
rules core, a room at the end of an Order whose target fails its Guts Roll. The deadline is
the room's own message (``WindowExpired``) posted to its inbox, as its timer posts it: no
waiting on the wall clock."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from protocol.messages import Accepted, Command, Events, Options, Rejected
from server.config import Settings
from server.fanout import Audience, LocalFanout
from server.rooms.messages import WindowExpired
from server.rooms.registry import RoomRegistry
from server.rooms.room import Room, now_ms
from server.rooms.rules_engine import RulesCoreEngine
from server.rules import commands as c
from server.rules import engine
from server.rules.ids import Side
from server.store import MemoryRoomStore, RoomSettings
from tests.doubles.members import RecordingMember
from tests.support.scenarios import SCENARIO_DIR, build_state

SETTINGS = Settings(freeze_gc=False, static_dir=None)
WINDOW_S = 60.0
GUTS_ROLL = SCENARIO_DIR / "guts_roll.json"


def _at_the_last_aro_window() -> Any:
    """The guts_roll scenario played up to its last ARO window (B's, step 2): closing it
    resolves the Order, and B-t3 fails its Guts Roll with a movement to choose."""
    scenario = json.loads(Path(GUTS_ROLL).read_text())
    state = build_state(scenario["setup"])
    for step in scenario["steps"][:5]:
        decision = engine.decide(state, Side(step["as"]), c.parse_command(step["command"]))
        assert isinstance(decision, engine.Accepted), step
        state = decision.state
    return state


class Table:
    def __init__(self, registry: RoomRegistry, room: Room) -> None:
        self.registry, self.room = registry, room

    async def join(self, audience: Audience) -> RecordingMember:
        member = RecordingMember(audience)
        seat = None if audience is Audience.SPECTATOR else audience.value
        await self.room.join(member, seat, None)
        return member

    async def command(self, member: RecordingMember, body: dict[str, Any],
                      command_id: str) -> Accepted | Rejected:
        seat = None if member.audience is Audience.SPECTATOR else member.audience.value
        assert self.room.submit(member, seat, Command(command_id, self.room.seen[member.audience],
                                                      body))
        return await member.answer(command_id)


@pytest.fixture
async def table() -> AsyncIterator[Table]:
    registry = RoomRegistry(MemoryRoomStore(), LocalFanout(), RulesCoreEngine(),
                            replace(SETTINGS))
    created = await registry.create(RoomSettings("n5", WINDOW_S, "public", fixed_seed=7),
                                    _at_the_last_aro_window())
    room = await registry.open(created.meta.room_id)
    assert room is not None
    yield Table(registry, room)
    await registry.shutdown()


def _types(frame: Events) -> list[str]:
    return [str(e["type"]) for e in frame.events if e is not None]


async def _open_guts_window(table: Table) -> tuple[RecordingMember, RecordingMember, Events]:
    a = await table.join(Audience.A)
    b = await table.join(Audience.B)
    before = now_ms()
    answer = await table.command(b, {"type": "close_aro_window", "order": 1, "step": 2}, "c1")
    assert isinstance(answer, Accepted)
    frame = await a.until(Events, lambda f: "guts_window_opened" in _types(f))
    window = frame.window
    assert window is not None
    assert (window["order"], window["step"], window["reactive"], window["guts"]) == (1, 0, "B", "B-t3")
    # The ARO window's length, from the room's clock when it opened.
    assert before + WINDOW_S * 1000 <= window["deadline_ms"] <= now_ms() + WINDOW_S * 1000
    return a, b, frame


async def test_the_guts_window_opens_for_the_owner_and_its_deadline_takes_the_default(
    table: Table,
) -> None:
    a, b, _ = await _open_guts_window(table)
    table.room.request_options(b)
    options = await b.until(Options)
    offer = options.options["guts_move"]
    assert offer["trooper"] == "B-t3" and offer["default"][0] == [24.5, 30]
    table.room.inbox.post(WindowExpired("1:guts:B-t3"))  # what the room's timer posts
    frame = await a.until(Events, lambda f: "guts_reacted" in _types(f))
    reacted = next(e for e in frame.events if e and e["type"] == "guts_reacted")
    assert reacted["choice"] == "deadline"
    assert reacted["effect"]["route"] == offer["default"]  # type: ignore[index]
    assert "order_concluded" in _types(frame) and frame.window is None
    assert table.room.state.order is None
    moved = table.room.state.trooper("B-t3").position
    assert list(moved) == offer["default"][1]


async def test_the_owners_choice_closes_the_window_and_the_opponent_may_not_answer(
    table: Table,
) -> None:
    a, b, _ = await _open_guts_window(table)
    route = [[24.5, 30], [26.4, 29.6]]
    refused = await table.command(a, {"type": "choose_guts_move", "order": 1,
                                      "trooper": "B-t3", "route": route}, "a1")
    assert isinstance(refused, Rejected) and refused.code == "not_your_trooper"
    too_far = await table.command(b, {"type": "choose_guts_move", "order": 1,
                                      "trooper": "B-t3", "route": [[24.5, 30], [24.5, 32.5]]}, "b1")
    assert isinstance(too_far, Rejected) and too_far.code == "route_too_long" and too_far.message
    answer = await table.command(b, {"type": "choose_guts_move", "order": 1,
                                     "trooper": "B-t3", "route": route}, "b2")
    assert isinstance(answer, Accepted)
    frame = await a.until(Events, lambda f: "guts_reacted" in _types(f))
    assert frame.window is None and table.room._aro.window is None  # the timer is cancelled
    assert list(table.room.state.trooper("B-t3").position) == route[1]
    # A late deadline for the closed window changes nothing.
    version = table.room.version
    table.room.inbox.post(WindowExpired("1:guts:B-t3"))
    assert isinstance(await table.command(b, {"type": "choose_guts_failure", "trooper": "B-t3",
                                              "fail": True}, "b3"), Accepted)
    assert table.room.version == version + 1
