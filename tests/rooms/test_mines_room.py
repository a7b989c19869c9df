"""Mines through a room (server/rules/combat/mines.py, the wiki's N5 "Mines"): the real
rules core in a room whose game has B's Mine on the table. A's runner moves into its
Trigger Area through ``submit``; the Mine goes off in the frame every audience gets, and
the spectator's snapshot showed it only as a Camouflage Marker (seed 004: what a Mine is
stays private until it goes off)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import pytest

from protocol.messages import Accepted, Command, Events, Snapshot
from server.config import Settings
from server.fanout import Audience, LocalFanout
from server.rooms.registry import RoomRegistry
from server.rooms.room import Room
from server.rooms.rules_engine import RulesCoreEngine
from server.store import MemoryRoomStore, RoomSettings
from tests.doubles.members import RecordingMember
from tests.rules.combat.test_mines import MINE, mined

SETTINGS = Settings(freeze_gc=False, static_dir=None)


@pytest.fixture
async def room() -> AsyncIterator[Room]:
    registry = RoomRegistry(MemoryRoomStore(), LocalFanout(), RulesCoreEngine(), replace(SETTINGS))
    created = await registry.create(RoomSettings("n5", 60.0, "public", fixed_seed=7), mined([15]))
    room = await registry.open(created.meta.room_id)
    assert room is not None
    yield room
    await registry.shutdown()


async def _join(room: Room, audience: Audience) -> RecordingMember:
    member = RecordingMember(audience)
    await room.join(member, None if audience is Audience.SPECTATOR else audience.value, None)
    return member


async def _command(room: Room, member: RecordingMember, body: dict[str, Any], cid: str) -> Any:
    assert room.submit(member, member.audience.value, Command(cid, room.seen[member.audience], body))
    return await member.answer(cid)


def _types(frame: Events) -> list[str]:
    return [str(e["type"]) for e in frame.events if e is not None]


async def test_seed_000_a_mine_goes_off_through_the_room_and_a_spectator_saw_a_marker(
        room: Room) -> None:
    spectator = await _join(room, Audience.SPECTATOR)
    snapshot = await spectator.until(Snapshot)
    (marker,) = [t for t in snapshot.state["troopers"] if t["id"] == MINE]
    assert marker["marker"] is True and "profile" not in marker
    assert snapshot.state["deployables"] == []
    a = await _join(room, Audience.A)
    b = await _join(room, Audience.B)
    assert isinstance(await _command(room, a, {"type": "activate", "trooper": "A-t7",
                                               "order": "regular"}, "a1"), Accepted)
    moved = await _command(room, a, {"type": "declare_skill", "skill": {
        "type": "move", "route": [[10, 10], [10, 14]]}}, "a2")
    assert isinstance(moved, Accepted)
    await spectator.until(Events, lambda f: "mine_triggered" in _types(f))
    await b.until(Events, lambda f: "mine_triggered" in _types(f))
    for member in (a, b, spectator):  # A's came with the answer to its command
        (event,) = [e for f in member.of(Events) for e in f.events
                    if e and e["type"] == "mine_triggered"]
        assert (event["mine"], event["target"]) == (MINE, "A-t7")
    assert room.state.order is not None and room.state.order.mines[0].mine == MINE
