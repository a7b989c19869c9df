"""A snapshot's view of the state is made once per state and audience: spectators joining
at one version share it (a crowd of thousands would otherwise make it for each), and a
new version, or another audience, makes a new one (server/rooms/room.py ``_state_view``)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from protocol.messages import Events, Snapshot
from server.rooms.rules_engine import RulesCoreEngine
from tests.e2e.test_game_e2e import A1, Game, start_game


@pytest.fixture
async def game() -> AsyncIterator[Game]:
    async for game in start_game():
        yield game


async def test_one_view_per_state_and_audience(game: Game,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[str] = []
    original = RulesCoreEngine.view_state

    def counting(self: RulesCoreEngine, state: Any, viewer: str) -> Any:
        made.append(viewer)
        return original(self, state, viewer)

    monkeypatch.setattr(RulesCoreEngine, "view_state", counting)
    first = await game.spectator()
    first_snapshot = await first.until(Snapshot)
    second = await game.spectator()
    second_snapshot = await second.until(Snapshot)
    assert made == ["spectator"], "the second spectator's snapshot reused the first's view"
    assert second_snapshot.state == first_snapshot.state
    a = await game.seat("A")
    await a.until(Snapshot)
    assert made == ["spectator", "A"], "another audience: its own view"
    await a.command({"type": "activate", "trooper": A1, "order": "regular"})
    await first.until(Events, lambda e: e.first + len(e.events) - 1 > first_snapshot.version)
    third = await game.spectator()
    third_snapshot = await third.until(Snapshot)
    assert made == ["spectator", "A", "spectator"], "a new state: a new view"
    assert third_snapshot.version > first_snapshot.version
    assert third_snapshot.state != first_snapshot.state
