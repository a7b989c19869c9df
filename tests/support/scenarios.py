"""Scenario files: whole activations written as data, run through the real engine.

A scenario (``tests/rules/scenarios/*.json``, format in that folder's README.md) is a setup —
ruleset, armies, terrain, where each trooper stands, troopers' starting state, dice faces to
inject — and a list of steps. Each step sends one command as one player (or the room clock)
and says what must follow: the events produced, in order, each matched on the fields the
scenario names (``events``), or the rejection code (``rejected``). A step may also inject
more dice before its command and check fields of the state after it (``state``).

``run_scenario`` raises ``ScenarioFailed`` (an ``AssertionError``) naming the file, the step
and the path of the first field that differs. After the last step it also checks that every
injected face was rolled and that replaying the recorded events on the initial state
rebuilds the final state.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from server.rules import commands as c
from server.rules import engine
from server.rules.armies.army_catalogue import load_weapons, sample_army
from server.rules.armies.army_list import ArmyList, load_army_list
from server.rules.combat.dice import inject
from server.rules.decision import Accepted, Rejected
from server.rules.events import (
    ArmyChosen,
    DeploymentStepEnded,
    Event,
    InitiativeRolled,
    InitiativeSettled,
    TrooperDeployed,
)
from server.rules.ids import Side, TrooperId
from server.rules.orders.sequence import automatic_events
from server.rules.plain import FormatError, from_plain, to_plain
from server.rules.state import GameState, TrooperState
from server.rules.table.special_terrain import SpecialTerrainArea
from server.rules.table.terrain import Table, TerrainPiece

SCENARIO_DIR = Path(__file__).resolve().parent.parent / "rules" / "scenarios"
DEFAULT_ARMIES = {
    "n5": {"A": "helion-vanguard", "B": "vesper-raiders"},
    "codeone": {"A": "helion-c1-patrol", "B": "vesper-c1-cell"},
}
TOLERANCE = 1e-6
"""Numbers in expectations match within this (positions and facings are floats)."""

SCENARIO_KEYS = {"title", "rules", "setup", "steps", "dice_left"}
SETUP_KEYS = {"ruleset", "seed", "first", "armies", "terrain", "special_terrain", "placements", "troopers", "dice"}
STEP_KEYS = {"as", "command", "events", "rejected", "state", "dice", "note"}


class ScenarioFailed(AssertionError):
    """A scenario's expectation was not met (or the file is malformed)."""


@dataclass(frozen=True, slots=True)
class Scenario:
    name: str
    title: str
    rules: tuple[str, ...]
    setup: Mapping[str, Any]
    steps: tuple[Mapping[str, Any], ...]
    dice_left: int


def scenario_files() -> list[Path]:
    return sorted(SCENARIO_DIR.glob("*.json"))


def load_scenario(path: Path) -> Scenario:
    data = json.loads(path.read_text(encoding="utf-8"))
    name = path.stem
    _only_keys(name, "the scenario", data, SCENARIO_KEYS)
    for key in ("title", "setup", "steps"):
        if key not in data:
            raise ScenarioFailed(f"{name}: missing '{key}'")
    _only_keys(name, "setup", data["setup"], SETUP_KEYS)
    steps = tuple(data["steps"])
    for index, step in enumerate(steps, 1):
        _only_keys(name, f"step {index}", step, STEP_KEYS)
        if "command" in step and ("events" in step) == ("rejected" in step):
            raise ScenarioFailed(f"{name}: step {index} needs exactly one of 'events' or 'rejected'")
        if "command" in step and "as" not in step:
            raise ScenarioFailed(f"{name}: step {index} says who sends the command ('as')")
    return Scenario(
        name=name,
        title=data["title"],
        rules=tuple(data.get("rules", ())),
        setup=data["setup"],
        steps=steps,
        dice_left=int(data.get("dice_left", 0)),
    )


def _only_keys(name: str, where: str, data: Any, allowed: set[str]) -> None:
    if not isinstance(data, dict):
        raise ScenarioFailed(f"{name}: {where} must be an object")
    unknown = set(data) - allowed
    if unknown:
        raise ScenarioFailed(f"{name}: unknown key(s) {sorted(unknown)} in {where}")


# --- setup -----------------------------------------------------------------------------------


def build_state(setup: Mapping[str, Any]) -> GameState:
    """The state at the start of the first player's Orders Phase, as the setup describes.

    Made of real events applied by the real engine (armies chosen, initiative settled,
    troopers deployed, deployment ended), then the automatic Tactical Phase. Deployment-zone
    rules are bypassed so troopers stand exactly where the scenario wants; ``terrain``
    replaces the table's pieces, ``special_terrain`` its Special Terrain areas, and
    ``troopers`` overrides fields of trooper states (for
    example ``{"condition": "unconscious", "wounds": 1}``) before the Order Count.
    """
    ruleset = setup.get("ruleset", "codeone")
    state = engine.new_game(engine.GameSetup(ruleset=ruleset, seed=int(setup.get("seed", 1))))
    if "terrain" in setup:
        pieces = tuple(from_plain(TerrainPiece, piece, "terrain") for piece in setup["terrain"])
        state = replace(state, table=Table(state.table.width, state.table.depth, pieces))
    if "special_terrain" in setup:  # Special Terrain areas, in the state's plain form
        areas = tuple(from_plain(SpecialTerrainArea, area, "special_terrain")
                      for area in setup["special_terrain"])
        state = replace(state, table=replace(state.table, special_terrain=areas))
    armies = {**DEFAULT_ARMIES[ruleset], **setup.get("armies", {})}
    for side in (Side.A, Side.B):
        army = _army(armies[side.value])
        ids = tuple((entry.id, TrooperId(f"{side.value}-{entry.id}")) for entry in army.entries)
        state = engine.apply(state, ArmyChosen(side, army, ids))
    first = Side(setup.get("first", "A"))
    state = engine.apply(state, InitiativeRolled(((20, 1),), (1, 1), first, state.dice))
    state = engine.apply(state, InitiativeSettled(first, first, {first: "south", first.other: "north"}))
    for trooper_id, placement in setup.get("placements", {}).items():
        x, y, facing = (float(v) for v in placement[:3])
        hidden = len(placement) == 4 and placement[3] == "hidden"
        trooper = state.trooper(TrooperId(trooper_id))
        marker = trooper.profile.camouflage > 0 and not hidden
        state = engine.apply(state, TrooperDeployed(trooper.id, (x, y), facing, hidden, marker))
    for step in range(1, 5):
        state = engine.apply(state, DeploymentStepEnded(first if step % 2 else first.other, step))
    for trooper_id, fields in setup.get("troopers", {}).items():
        state = state.with_trooper(_overridden(state.trooper(TrooperId(trooper_id)), fields))
    state, _ = automatic_events(state, engine.apply)
    if setup.get("dice"):
        state = replace(state, dice=inject(state.dice, setup["dice"]))
    return state


def _army(spec: str | Mapping[str, Any]) -> ArmyList:
    """A sample army by id, or an army list written inline (validated like a data file)."""
    if isinstance(spec, str):
        return sample_army(spec)
    return load_army_list(spec, load_weapons())


def _overridden(trooper: TrooperState, fields: Mapping[str, Any]) -> TrooperState:
    plain = to_plain(trooper)
    assert isinstance(plain, dict)
    unknown = set(fields) - set(plain)
    if unknown:
        raise ScenarioFailed(f"unknown trooper field(s) {sorted(unknown)}")
    return from_plain(TrooperState, {**plain, **fields}, str(trooper.id))


# --- running ---------------------------------------------------------------------------------


def run_scenario(scenario: Scenario) -> GameState:
    """Run every step; return the final state. Raises ``ScenarioFailed`` on any mismatch."""
    initial = build_state(scenario.setup)
    state = initial
    log: list[Event] = []
    for index, step in enumerate(scenario.steps, 1):
        where = f"{scenario.name}, step {index}"
        if "dice" in step:
            state = replace(state, dice=inject(state.dice, step["dice"]))
        if "command" in step:
            state = _run_command(state, step, where, log)
        if "state" in step:
            _expect(f"{where}, state", step["state"], to_plain(state))
    left = len(state.dice.injected)
    if left != scenario.dice_left:
        raise ScenarioFailed(
            f"{scenario.name}: {left} injected dice were not rolled "
            f"(expected {scenario.dice_left}): {list(state.dice.injected)}"
        )
    # Dice-consuming events carry the generator after the roll, so faces injected by later
    # steps are in the log; only faces never rolled (``dice_left``) are not.
    replayed = engine.apply_all(initial, log)
    if scenario.dice_left:
        replayed = replace(replayed, dice=state.dice)
    if replayed != state:
        raise ScenarioFailed(f"{scenario.name}: replaying the events does not rebuild the state")
    return state


def _run_command(state: GameState, step: Mapping[str, Any], where: str, log: list[Event]) -> GameState:
    actor: Side | engine.System = engine.SYSTEM if step["as"] == "system" else Side(step["as"])
    try:
        command = c.parse_command(step["command"])
    except FormatError as error:
        raise ScenarioFailed(f"{where}: malformed command: {error}") from None
    decision = engine.decide(state, actor, command)
    if "rejected" in step:
        if not isinstance(decision, Rejected):
            produced = [to_plain(e)["type"] for e in decision.events]  # type: ignore[index]
            raise ScenarioFailed(f"{where}: expected rejection '{step['rejected']}', got events {produced}")
        if decision.code != step["rejected"]:
            raise ScenarioFailed(
                f"{where}: expected rejection '{step['rejected']}', got '{decision.code}': {decision.message}"
            )
        if not decision.message:
            raise ScenarioFailed(f"{where}: a rejection must carry a message for the player")
        return state
    if isinstance(decision, Rejected):
        raise ScenarioFailed(f"{where}: rejected: {decision.code}: {decision.message}")
    assert isinstance(decision, Accepted)
    produced = [to_plain(event) for event in decision.events]
    expected = step["events"]
    if len(produced) != len(expected):
        raise ScenarioFailed(
            f"{where}: expected {len(expected)} events {[e.get('type') for e in expected]}, "
            f"got {len(produced)} {[p['type'] for p in produced]}"  # type: ignore[index]
        )
    for number, (want, got) in enumerate(zip(expected, produced, strict=True), 1):
        _expect(f"{where}, event {number}", want, got)
    log.extend(decision.events)
    return engine.apply_all(state, decision.events)


def _expect(where: str, want: Any, got: Any, path: str = "") -> None:
    """``got`` matches ``want``: objects on the keys ``want`` names, lists element by
    element with the same length, numbers within ``TOLERANCE``, anything else equal."""
    here = path or "(top)"
    if isinstance(want, dict):
        if not isinstance(got, dict):
            raise ScenarioFailed(f"{where}: at {here} expected an object, got {got!r}")
        for key, value in want.items():
            if key not in got:
                raise ScenarioFailed(f"{where}: at {here} no field '{key}' in {sorted(got)}")
            _expect(where, value, got[key], f"{path}.{key}" if path else key)
        return
    if isinstance(want, list):
        if not isinstance(got, list) or len(got) != len(want):
            raise ScenarioFailed(f"{where}: at {here} expected {want!r}, got {got!r}")
        for i, (w, g) in enumerate(zip(want, got, strict=True)):
            _expect(where, w, g, f"{path}[{i}]")
        return
    if isinstance(want, bool) or want is None or isinstance(want, str):
        if got != want or type(got) is not type(want):
            raise ScenarioFailed(f"{where}: at {here} expected {want!r}, got {got!r}")
        return
    if isinstance(want, int | float):
        if isinstance(got, bool) or not isinstance(got, int | float) or not math.isclose(
            want, got, abs_tol=TOLERANCE
        ):
            raise ScenarioFailed(f"{where}: at {here} expected {want!r}, got {got!r}")
        return
    raise ScenarioFailed(f"{where}: at {here} cannot compare with {want!r}")


def expect(want: Any, got: Any) -> None:
    """Public form of the matcher, for the runner's own tests."""
    _expect("match", want, got)
