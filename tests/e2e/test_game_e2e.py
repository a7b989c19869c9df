"""A real game over real websockets: the real rules core behind uvicorn, two seats and a
spectator (issue 4: activation broadcast, timed ARO window, simultaneous results, resume,
open information only)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest

from protocol.messages import (
    Accepted,
    Events,
    Presence,
    Snapshot,
)
from server.app import create_app
from server.store import RoomSettings
from testkit.serving import running_server
from testkit.wsclient import Client
from tests.helpers import settings
from tests.support.skirmish import skirmish
from tests.support.windows import closed, opened

A1, B_SHOOTER = "A-t5", "B-t3"
A_CAMO, B_CAMO = "A-t2", "B-t2"  # Pathfinder Scout (CAMO 3), Ghost Infiltrator (CAMO 6)
PLACEMENTS = {
    A1: (22.5, 4.0, 90.0),
    B_SHOOTER: (22.5, 28.0, 270.0),  # sees A1's column
    "B-t4": (1.5, 30.0, 90.0),
    "A-t1": (3.5, 1.5, 90.0),
    "B-t1": (3.5, 30.5, 90.0),
}
WITH_MARKERS = {**PLACEMENTS, A_CAMO: (40.0, 2.0, 90.0), B_CAMO: (40.0, 30.0, 270.0)}
MOVE = {"type": "declare_skill", "skill": {"type": "move", "route": [[22.5, 4], [22.5, 6]]}}
SHOOT_B = {"type": "declare_skill", "skill": {
    "type": "bs_attack", "weapon": "line_rifle", "targets": [{"trooper": B_SHOOTER, "burst": 3}]}}
COUNTER_SHOT = {"type": "declare_aro", "trooper": B_SHOOTER, "skill": {
    "type": "bs_attack", "weapon": "punch_carbine", "targets": [{"trooper": A1, "burst": 1}]}}
ACTIVATE = {"type": "activate", "trooper": A1, "order": "regular"}


@dataclass
class Game:
    base: str
    room: str
    token_a: str
    token_b: str

    async def seat(self, side: str, since: int | None = None) -> Client:
        token = self.token_a if side == "A" else self.token_b
        return await Client.connect(self.base, self.room, token, since)

    async def spectator(self) -> Client:
        return await Client.connect(self.base, self.room)


async def start_game(
    aro_window_s: float = 60.0, placements: Any = PLACEMENTS, **overrides: Any
) -> AsyncIterator[Game]:
    app_settings = settings(**overrides)
    app = create_app(app_settings)
    async with running_server(app_settings, app=app) as base:
        created = await app.state.registry.create(
            RoomSettings("codeone", aro_window_s, "public", fixed_seed=1), skirmish(placements))
        yield Game(base, created.meta.room_id, created.token_a, created.token_b)


@pytest.fixture
async def game() -> AsyncIterator[Game]:
    async for game in start_game():
        yield game


def close_window(window: dict[str, Any]) -> dict[str, Any]:
    """The reactive player's "nothing more to declare" for ``window``."""
    return {"type": "close_aro_window", "order": window["order"], "step": window["step"]}


def types_of(events: Events) -> list[str]:
    return [e["type"] if e is not None else "placeholder" for e in events.events]


async def test_full_order_with_counter_shooting_aro_reaches_everyone_at_once(game: Game) -> None:
    a, b, spectator = await game.seat("A"), await game.seat("B"), await game.spectator()
    for client in (a, b, spectator):
        await client.until(Snapshot)

    assert isinstance(await a.command(ACTIVATE), Accepted)
    # Activation broadcast: the opponent and the spectator see the order being spent.
    for viewer in (b, spectator):
        assert "order_spent" in types_of(await viewer.until(Events))

    assert isinstance(await a.command(MOVE), Accepted)
    for viewer in (b, spectator):
        declared = await viewer.until(Events)
        skill = next(e for e in declared.events if e and e["type"] == "skill_declared")
        assert skill["skill"]["route"] == [[22.5, 4], [22.5, 6]]
        # The same frame opens the ARO window.
        window = declared.window
        assert window is not None and window["reactive"] == "B" and window["deadline_ms"] > 0

    # The counter-shooting ARO; the window stays open until B says it is done.
    assert isinstance(await b.command(COUNTER_SHOT), Accepted)
    assert isinstance(await b.command(close_window(window)), Accepted)
    for viewer in (a, spectator):
        await closed(viewer, window)

    assert isinstance(await a.command(SHOOT_B), Accepted)
    # The second skill opens the second ARO window: B has nothing more to declare.
    second = await opened(b)
    result = await b.command(close_window(second))
    assert isinstance(result, Accepted)
    frame = await spectator.until(Events, lambda m: "order_resolved" in types_of(m))
    results = {"spectator": next(e for e in frame.events if e["type"] == "order_resolved")}
    await a.until(Events, lambda m: "order_resolved" in types_of(m))
    for name, seat in (("A", a), ("B", b)):  # B's answer came in the frame with the result
        results[name] = next(e for m in seat.of(Events) for e in m.events
                             if e["type"] == "order_resolved")
    assert results["A"] == results["B"] == results["spectator"], "one simultaneous result"
    rolls = results["A"]["outcome"]["rolls"]
    assert {roll["trooper"] for roll in rolls} == {A1, B_SHOOTER}
    assert all(die["face"] >= 1 for roll in rolls for die in roll["dice"])
    # No private event in this game: every audience's numbering is the same.
    assert a.version == b.version == spectator.version == result.version


async def test_aro_window_that_times_out_forfeits_the_undeclared_aro() -> None:
    async for game in start_game(aro_window_s=0.2):
        a, b = await game.seat("A"), await game.seat("B")
        await a.command(ACTIVATE)
        await a.command(MOVE)
        window = await opened(b)
        closing = await closed(b, window)  # B declared nothing: the server's clock closed it
        assert closing.window is None
        # The frame with the events that closed it says so.
        assert types_of(closing) == ["aro_window_closed"]
        assert closing.events[0] is not None and closing.events[0]["reason"] == "deadline"
        await closed(a, window)
        assert isinstance(await a.command(SHOOT_B), Accepted), "the order goes on without AROs"


async def test_reconnect_with_resume_receives_exactly_the_missed_events(game: Game) -> None:
    a, b = await game.seat("A"), await game.seat("B")
    await b.until(Snapshot)
    held = b.version
    await b.close()
    await a.until(Presence, lambda p: p.seat == "B" and p.status == "away")
    await a.command(ACTIVATE)
    await a.command(MOVE)
    back = await game.seat("B", since=held)
    missed = await back.until(Events)
    assert missed.first == held + 1
    assert back.version == a.version
    assert not back.of(Snapshot)
    assert missed.window is not None  # the running window comes with the missed events
    await a.until(Presence, lambda p: p.seat == "B" and p.status == "connected")


async def test_reconnect_across_stored_snapshots_still_receives_the_missed_events() -> None:
    # A snapshot at every version: the store keeps every event all the same.
    async for game in start_game(snapshot_every=1):
        a, b = await game.seat("A"), await game.seat("B")
        await b.until(Snapshot)
        held = b.version
        await b.close()
        await a.command(ACTIVATE)
        await a.command(MOVE)
        back = await game.seat("B", since=held)
        missed = await back.until(Events)
        assert missed.first == held + 1 and back.version == a.version
        assert missed.window is not None and missed.window["reactive"] == "B"
        assert not back.of(Snapshot)


def _walk(value: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    if isinstance(value, dict):
        found.append(value)
        for item in value.values():
            found.extend(_walk(item))
    elif isinstance(value, list):
        for item in value:
            found.extend(_walk(item))
    return found


def _leaks(frames: list[Any], marker_id: str, secret_name: str, lieutenant: str) -> list[str]:
    """What in these frames reveals the other seat's private information."""
    problems = []
    for frame in frames:
        for node in _walk(frame.__dict__ if hasattr(frame, "__dict__") else
                          {f: getattr(frame, f) for f in frame.__slots__}):
            names = {node.get("id"), node.get("trooper")}
            if marker_id in names and secret_name in repr(node):
                problems.append(f"{marker_id} identified as {secret_name}: {node}")
            if lieutenant in names and node.get("lieutenant") is True:
                problems.append(f"lieutenant {lieutenant} revealed: {node}")
    return problems


async def test_frames_to_opponent_and_spectators_never_carry_private_information() -> None:
    """Camouflage markers stay anonymous and Lieutenants secret in every frame of a
    scripted order (rules: Camouflage markers and the Lieutenant are private information).
    With a marker on the table the window does not close early (that could reveal which
    troopers may react): it runs to its (short) deadline."""
    async for game in start_game(aro_window_s=0.2, placements=WITH_MARKERS):
        await _scripted_order_checking_privacy(game)


async def _scripted_order_checking_privacy(game: Game) -> None:
    a, b, spectator = await game.seat("A"), await game.seat("B"), await game.spectator()
    await a.command(ACTIVATE)
    await a.command(MOVE)
    window = await opened(b)
    await b.command(COUNTER_SHOT)
    await closed(a, window)
    await a.command(SHOOT_B)
    await b.until(Events, lambda m: "order_resolved" in types_of(m))
    await spectator.until(Events, lambda m: "order_resolved" in types_of(m))
    # Sanity: the owners do see their own secrets, so the check below can fail.
    assert _walk(a.of(Snapshot)[0].state) and "Pathfinder Scout" in repr(a.of(Snapshot)[0].state)
    for viewer in (b, spectator):
        assert _leaks(viewer.frames, A_CAMO, "Pathfinder Scout", "A-t1") == []
    for viewer in (a, spectator):
        assert _leaks(viewer.frames, B_CAMO, "Ghost Infiltrator", "B-t1") == []
