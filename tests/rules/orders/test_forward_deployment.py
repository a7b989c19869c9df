"""DIGEST 11.1: special deployments override "totally inside its own zone".
Forward Deployment (N5 Deployment Skill; infinitythewiki "Forward Deployment"): the
trooper may deploy up to the inches its profile gives (+4" or +8") beyond the limit of its
Deployment Zone, with no roll; never in the enemy zone nor in contact with an enemy.
docs/rules-decisions/README.md "Forward Deployment".

The N5 table is 48 by 48 inches: A deploys first in the south zone (y 0-12).
"""

from __future__ import annotations

from dataclasses import replace

from server.rules import commands as c
from server.rules import engine
from server.rules.armies.item_catalogue import DataItem, TrooperFlags, apply_item
from server.rules.armies.not_refereed import ItemKind
from server.rules.decision import Rejected
from server.rules.events import TrooperDeployed
from server.rules.ids import Side, TrooperId
from server.rules.options import seat_options
from server.rules.state import GameState
from tests.support.games import new_game_in_deployment, play

RADIUS = 12.5 / 25.4
"""An S2 base (25 mm) radius, inches."""


def _game(reach: int) -> tuple[GameState, TrooperId]:
    state = new_game_in_deployment(ruleset="n5")
    found = next(t for t in state.troopers_of(Side.A) if t.profile.name == "Bulwark Heavy Trooper")
    entry = replace(found.entry, profile=replace(found.entry.profile, forward_deployment=reach))
    return state.with_trooper(replace(found, entry=entry)), found.id


def _deploy(trooper: str, y: float) -> c.Deploy:
    return c.Deploy(TrooperId(trooper), (4.0, y), 90.0)


def test_forward_deployment_4_deploys_up_to_4_inches_beyond_the_zone() -> None:
    state, trooper = _game(4)
    decision = engine.decide(state, Side.A, _deploy(trooper, 16.0 - RADIUS + 0.2))
    assert isinstance(decision, Rejected) and decision.code == "outside_deployment_zone"
    assert "4 inches beyond it" in decision.message
    state, events = play(state, Side.A, _deploy(trooper, 16.0 - RADIUS))
    assert [type(e) for e in events] == [TrooperDeployed]  # no roll
    assert state.trooper(trooper).position == (4.0, 16.0 - RADIUS)


def test_forward_deployment_8_reaches_twice_as_far() -> None:
    state, trooper = _game(8)
    refused = engine.decide(state, Side.A, _deploy(trooper, 20.0 - RADIUS + 0.2))
    assert isinstance(refused, Rejected) and refused.code == "outside_deployment_zone"
    state, _ = play(state, Side.A, _deploy(trooper, 20.0 - RADIUS))


def test_without_forward_deployment_the_zone_is_the_limit() -> None:
    state, trooper = _game(0)
    refused = engine.decide(state, Side.A, _deploy(trooper, 13.0))
    assert isinstance(refused, Rejected) and refused.code == "outside_deployment_zone"
    assert "beyond" not in refused.message


def test_forward_deployment_options_name_the_reach() -> None:
    state, trooper = _game(4)
    beyond = seat_options(state, Side.A)["deploy_beyond_zone"]
    assert beyond == {trooper: {"forward_deployment": 4, "infiltration": None}}


def test_catalogue_reads_the_reach_from_the_level() -> None:
    for name, levels, reach in (('Forward Deployment (+4")', (), 4), ("Forward Deployment", ('+8"',), 8)):
        flags = TrooperFlags()
        assert apply_item(DataItem(ItemKind.SKILL, name, levels), flags) is None
        assert flags.fields == {"forward_deployment": reach}
    unknown = apply_item(DataItem(ItemKind.SKILL, 'Forward Deployment (+2")'), TrooperFlags())
    assert unknown is not None and unknown.name == "Forward Deployment"


def test_a_profile_reach_other_than_4_or_8_is_refused() -> None:
    from server.rules.armies.profiles import profile_problems
    state, trooper = _game(0)
    profile = state.trooper(trooper).profile
    assert profile_problems(replace(profile, forward_deployment=8)) == ()
    assert any("Forward Deployment 5" in p for p in profile_problems(replace(profile, forward_deployment=5)))
