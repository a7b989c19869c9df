"""DIGEST 11.1: special deployments override "totally inside its own zone".
Infiltration (N5 Deployment Skill; infinitythewiki "Infiltration", "Deployment Phase":
special skills place troopers outside their Deployment Zone; "Minelayer": a failed
Infiltration Roll costs the Marker and Hidden Deployment states; "Forward Deployment":
nobody deploys in contact with an enemy). docs/rules-decisions/README.md "Infiltration".

The N5 table is 48 by 48 inches: A deploys first in the south zone (y 0-12), B's zone is
the north (y 36-48); the middle line is y 24.
"""

from __future__ import annotations

from dataclasses import replace

from server.rules import commands as c
from server.rules import engine
from server.rules.armies.item_catalogue import DataItem, TrooperFlags, apply_item
from server.rules.armies.not_refereed import ItemKind
from server.rules.decision import Rejected
from server.rules.events import InfiltrationRolled, TrooperDeployed
from server.rules.ids import SPECTATOR, Side, TrooperId
from server.rules.options import seat_options
from server.rules.plain import Plain
from server.rules.state import GameState
from server.rules.table.geometry import Body
from server.rules.views import view_event
from tests.support.games import deploy_all, new_game_in_deployment, play

RADIUS = 12.5 / 25.4
"""An S2 base (25 mm) radius, inches: the options' fallback is the zone's first free spot."""


def _named(state: GameState, side: Side, name: str) -> TrooperId:
    return next(t.id for t in state.troopers_of(side) if t.profile.name == name)


def _with_skill(state: GameState, trooper: TrooperId, **fields: object) -> GameState:
    found = state.trooper(trooper)
    entry = replace(found.entry, profile=replace(found.entry.profile, **fields))
    return state.with_trooper(replace(found, entry=entry))


def _game(dice: tuple[int, ...] = (), name: str = "Bulwark Heavy Trooper",
          **fields: object) -> tuple[GameState, TrooperId]:
    """A's first deployment step (N5), ``name`` given ``fields`` (Infiltration by default),
    the next dice ``dice``."""
    state = new_game_in_deployment(ruleset="n5")
    trooper = _named(state, Side.A, name)
    state = _with_skill(state, trooper, **(fields or {"infiltration": True}))
    return replace(state, dice=replace(state.dice, injected=dice)), trooper


def _deploy(trooper: str, at: tuple[float, float], fallback: tuple[float, float] | None = None,
            hidden: bool = False) -> dict[str, Plain]:
    body: dict[str, Plain] = {"type": "deploy", "trooper": trooper, "position": list(at),
                              "facing": 90.0, "hidden": hidden}
    if fallback is not None:
        body["fallback"] = list(fallback)
        body["fallback_facing"] = 90.0
    return body


def _rejected(state: GameState, body: dict[str, Plain], side: Side = Side.A) -> Rejected:
    decision = engine.decide(state, side, c.parse_command(body))
    assert isinstance(decision, Rejected), decision
    return decision


def test_infiltration_deploys_in_its_own_half_outside_the_zone_without_a_roll() -> None:
    state, trooper = _game()
    state, events = play(state, Side.A, _deploy(trooper, (4.0, 20.0)))
    assert [type(e) for e in events] == [TrooperDeployed]
    assert state.trooper(trooper).position == (4.0, 20.0)
    lancer = _named(state, Side.A, "Lancer Line Trooper")
    refused = _rejected(state, _deploy(lancer, (8.0, 20.0)))
    assert refused.code == "outside_deployment_zone"


def test_infiltration_into_the_enemy_half_passes_its_ph_minus_3_roll() -> None:
    # Bulwark PH 13: Success Value 10; a 7 passes.
    state, trooper = _game(dice=(7,))
    state, events = play(state, Side.A, _deploy(trooper, (4.0, 30.0), fallback=(4.0, 6.0)))
    rolled, deployed = events
    assert isinstance(rolled, InfiltrationRolled) and rolled.passed
    assert rolled.roll.success_value == 10 and rolled.roll.attribute == "PH"
    assert [(m.source, m.value) for m in rolled.roll.mods] == [("infiltration", -3)]
    assert isinstance(deployed, TrooperDeployed) and deployed.position == (4.0, 30.0)
    assert state.trooper(trooper).position == (4.0, 30.0) and not state.dice.injected


def test_infiltration_failed_roll_deploys_as_a_model_in_its_own_zone() -> None:
    state, trooper = _game(dice=(15,))
    state, events = play(state, Side.A, _deploy(trooper, (4.0, 30.0), fallback=(4.0, 6.0)))
    rolled, deployed = events
    assert isinstance(rolled, InfiltrationRolled) and not rolled.passed
    assert isinstance(deployed, TrooperDeployed) and deployed.position == (4.0, 6.0)
    assert not deployed.hidden and not deployed.marker


def test_infiltration_into_the_enemy_half_needs_a_legal_spot_in_its_own_zone() -> None:
    state, trooper = _game(dice=(7,))
    assert _rejected(state, _deploy(trooper, (4.0, 30.0))).code == "bad_position"
    assert _rejected(state, _deploy(trooper, (4.0, 30.0), fallback=(4.0, 20.0))).code == "bad_position"


def test_infiltration_a_base_across_the_middle_line_is_in_the_enemy_half() -> None:
    state, trooper = _game(dice=(7,))
    assert _rejected(state, _deploy(trooper, (4.0, 24.0))).code == "bad_position"  # asks the roll
    state, events = play(state, Side.A, _deploy(trooper, (4.0, 24.0), fallback=(4.0, 6.0)))
    assert isinstance(events[0], InfiltrationRolled)


def test_infiltration_never_in_the_enemy_deployment_zone() -> None:
    state, trooper = _game(dice=(7,))
    refused = _rejected(state, _deploy(trooper, (4.0, 36.2), fallback=(4.0, 6.0)))
    assert refused.code == "outside_deployment_zone" and "enemy Deployment Zone" in refused.message


def test_infiltration_options_give_the_final_success_value() -> None:
    state, trooper = _game()
    beyond = seat_options(state, Side.A)["deploy_beyond_zone"]
    assert beyond == {trooper: {"forward_deployment": 0,
                                "infiltration": {"success_value": 10, "fallback": [RADIUS, RADIUS]}}}
    fallback = beyond[trooper]["infiltration"]["fallback"]  # type: ignore[index,call-overload]
    state = replace(state, dice=replace(state.dice, injected=(20,)))
    state, _events = play(state, Side.A, c.Deploy(trooper, (4.0, 30.0), 90.0, fallback=tuple(fallback)))
    assert state.trooper(trooper).position == tuple(fallback)


def test_infiltration_of_a_camouflage_marker_shows_the_opponent_no_roll_record() -> None:
    # Pathfinder Scout: Camouflage, PH 11, Success Value 8; a 3 passes.
    state, trooper = _game(dice=(3,), name="Pathfinder Scout")
    after, events = play(state, Side.A, _deploy(trooper, (4.0, 30.0), fallback=(4.0, 6.0)))
    rolled, deployed = events
    assert isinstance(deployed, TrooperDeployed) and deployed.marker
    mine = view_event(rolled, Side.A, after)
    assert mine is not None and mine["roll"] is not None
    for viewer in (Side.B, SPECTATOR):
        seen = view_event(rolled, viewer, after)
        assert seen is not None and seen["roll"] is None and seen["passed"] is True


def test_infiltration_in_hidden_deployment_in_its_own_half_only() -> None:
    """Hidden Deployment in the enemy half is not built: its private die would shift every
    later die the opponent sees (docs/fair-play.md); in its own half no die is rolled."""
    state, trooper = _game(dice=(3,), infiltration=True, hidden_deployment=True)
    refused = _rejected(state, _deploy(trooper, (4.0, 30.0), fallback=(4.0, 6.0), hidden=True))
    assert refused.code == "skill_not_allowed"
    after, events = play(state, Side.A, _deploy(trooper, (4.0, 20.0), hidden=True))
    (deployed,) = events
    assert isinstance(deployed, TrooperDeployed) and deployed.hidden
    assert view_event(deployed, Side.B, after) is None and after.dice.injected == (3,)


def test_nobody_deploys_in_base_contact_with_an_enemy() -> None:
    state, trooper = _game(dice=(7,))
    state, _ = play(state, Side.A, _deploy(trooper, (4.0, 30.0), fallback=(4.0, 6.0)))
    waiting = [TrooperId(str(t)) for t in seat_options(state, Side.A)["deploy"]]  # type: ignore[union-attr]
    state = deploy_all(state, Side.A, waiting[:-1], 90.0)  # the last is the reserve
    state, _ = play(state, Side.A, c.EndDeploymentStep())
    b_infiltrator = next(t for t in state.troopers_of(Side.B) if not t.entry.is_peripheral).id
    state = _with_skill(state, b_infiltrator, infiltration=True)
    b_radius = Body((0.0, 0.0), 0.0, state.trooper(b_infiltrator).profile.silhouette).radius
    touching = (4.0, 30.0 + state.trooper(trooper).body().radius + b_radius)
    refused = _rejected(state, _deploy(b_infiltrator, touching), side=Side.B)
    assert refused.code == "bad_position" and "base contact with an enemy" in refused.message
    state, _ = play(state, Side.B, _deploy(b_infiltrator, (touching[0] + 3.0, touching[1])))


def test_catalogue_maps_infiltration() -> None:
    flags = TrooperFlags()
    assert apply_item(DataItem(ItemKind.SKILL, "Infiltration"), flags) is None
    assert flags.fields == {"infiltration": True}
