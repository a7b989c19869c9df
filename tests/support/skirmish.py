"""Build a game already in its first Orders Phase, with troopers exactly where a test
wants them. The setup is made of real events (applied by the real engine), so everything
after it behaves as in a played game; only deployment-zone rules are bypassed."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from server.rules import engine
from server.rules.armies.army_catalogue import sample_army
from server.rules.events import (
    ArmyChosen,
    DeploymentStepEnded,
    InitiativeRolled,
    InitiativeSettled,
    TrooperDeployed,
    TrooperKeptAirborne,
)
from server.rules.ids import Side, TrooperId
from server.rules.orders.sequence import automatic_events
from server.rules.state import GameState

ARMIES = {
    "n5": {Side.A: "helion-vanguard", Side.B: "vesper-raiders"},
    "codeone": {Side.A: "helion-c1-patrol", Side.B: "vesper-c1-cell"},
}

Placement = tuple[float, float, float] | tuple[float, float, float, str]
"""(x, y, facing), (x, y, facing, "hidden"), or (0, 0, 0, "airborne"): kept off the table in
Airborne Deployment (Combat Jump)."""


def tid(side: Side, entry: str) -> TrooperId:
    """Game id of a list entry in a skirmish: ``A-t3`` for entry t3 of side A."""
    return TrooperId(f"{side.value}-{entry}")


def skirmish(
    placements: Mapping[str, Placement],
    ruleset: str = "codeone",
    first: Side = Side.A,
    seed: int = 1,
    dice: Sequence[int] = (),
    armies: Mapping[Side, str] | None = None,
    deployment_step: int | None = None,
) -> GameState:
    """``placements`` maps "A-t1"-style ids to where each trooper stands; the others stay
    off the table. ``armies``: a shipped list's id per side, instead of the ruleset's
    default (``ARMIES``). Returns the state at the start of ``first``'s Orders Phase (after
    the automatic Tactical Phase), or, with ``deployment_step``, still in deployment at that
    step (the steps before it ended), for a test that deploys the rest itself."""
    state = engine.new_game(engine.GameSetup(ruleset=ruleset, seed=seed))
    for side in (Side.A, Side.B):
        army = sample_army((armies or {}).get(side, ARMIES[ruleset][side]))
        ids = tuple((entry.id, tid(side, entry.id)) for entry in army.entries)
        state = engine.apply(state, ArmyChosen(side, army, ids))
    state = engine.apply(state, InitiativeRolled(((20, 1),), (1, 1), first, state.dice))
    zones = {first: "south", first.other: "north"}
    state = engine.apply(state, InitiativeSettled(first, first, zones))
    for trooper_id, placement in placements.items():
        x, y, facing = placement[0], placement[1], placement[2]
        if len(placement) == 4 and placement[3] == "airborne":
            state = engine.apply(state, TrooperKeptAirborne(TrooperId(trooper_id)))
            continue
        hidden = len(placement) == 4 and placement[3] == "hidden"
        marker = state.trooper(TrooperId(trooper_id)).profile.camouflage > 0 and not hidden
        state = engine.apply(state, TrooperDeployed(TrooperId(trooper_id), (x, y), facing, hidden, marker))
    for step in range(1, deployment_step or 5):
        side = first if step % 2 else first.other
        state = engine.apply(state, DeploymentStepEnded(side, step))
    if deployment_step is None:
        state, _ = automatic_events(state, engine.apply)
    if dice:
        from dataclasses import replace

        from server.rules.combat.dice import inject

        state = replace(state, dice=inject(state.dice, dice))
    return state
