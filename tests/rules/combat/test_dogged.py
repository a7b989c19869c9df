"""DIGEST 7.7 (wounds and Null states) and seed 002 (the States Phase) with Dogged (``combat/incapacitation.py``, ``orders/states_phase.py``; infinitythewiki "Dogged",
N5): at as many wounds as its VITA the trooper acts as Normal for the rest of that Player
Turn; in that turn's States Phase it enters the Dead State; one more wound before that kills
it at once; Shock cancels it. The wiki page has no worked example: the tests follow its
bullet points.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from server.rules import commands as c
from server.rules import engine
from server.rules.armies.item_catalogue import DataItem, TrooperFlags, apply_item
from server.rules.armies.not_refereed import ItemKind
from server.rules.combat.incapacitation import dogged_to_kill
from server.rules.combat.outcome import IncapacitationIgnored, WentProne, Wounded
from server.rules.combat.resolution import resolve_order
from server.rules.combat.wounds import Condition
from server.rules.events import StatesPhaseChecked
from server.rules.ids import SPECTATOR, Side, TrooperId
from server.rules.state import GameState
from server.rules.views import view_event, view_state
from tests.support.games import fold_effects, play
from tests.support.scenarios import build_state

from .fighting_builders import with_skills
from .resolution_builders import RIFLE, SHOCK_RIFLE, resolving, shoot, trooper

A, B = Side.A, Side.B
WARDEN, ENFORCER = "A-t1", "B-t3"


def test_dogged_at_the_threshold_the_trooper_fights_on_marked_for_this_turn() -> None:
    shooter = trooper("s", A, (10, 10), 0.0)
    target = with_skills(trooper("t", B, (16, 10), 180.0), dogged=True)
    state = resolving(shooter, [shoot(RIFLE, (target, 1))], [target], faces=[4, 20, 5])
    outcome, _ = resolve_order(state)
    assert Wounded(target.id, 1, Condition.NORMAL) in outcome.effects
    assert IncapacitationIgnored(target.id, "dogged") in outcome.effects
    assert not any(isinstance(e, WentProne) for e in outcome.effects)
    after = fold_effects(state, outcome.effects).trooper(target.id)
    assert after.can_act and after.dogged_in == (1, 1)


def test_dogged_one_more_wound_in_the_same_turn_kills_it() -> None:
    shooter = trooper("s", A, (10, 10), 0.0)
    target = replace(with_skills(trooper("t", B, (16, 10), 180.0), dogged=True),
                     wounds=1, dogged_in=(1, 1))
    state = resolving(shooter, [shoot(RIFLE, (target, 1))], [target], faces=[4, 20])
    outcome, _ = resolve_order(state)
    assert Wounded(target.id, 2, Condition.DEAD) in outcome.effects


def test_dogged_shock_cancels_it() -> None:
    shooter = trooper("s", A, (10, 10), 0.0)
    target = with_skills(trooper("t", B, (16, 10), 180.0, vita=2), dogged=True)
    target = replace(target, wounds=1)
    state = resolving(shooter, [shoot(SHOCK_RIFLE, (target, 1))], [target], faces=[4, 20])
    outcome, _ = resolve_order(state)
    assert Wounded(target.id, 2, Condition.DEAD) in outcome.effects
    assert not any(isinstance(e, IncapacitationIgnored) for e in outcome.effects)


def test_nwi_wins_over_dogged_when_a_trooper_has_both() -> None:
    shooter = trooper("s", A, (10, 10), 0.0)
    target = with_skills(trooper("t", B, (16, 10), 180.0), dogged=True, nwi=True)
    state = resolving(shooter, [shoot(RIFLE, (target, 1))], [target], faces=[4, 20, 5])
    outcome, _ = resolve_order(state)
    assert IncapacitationIgnored(target.id, "nwi") in outcome.effects
    assert fold_effects(state, outcome.effects).trooper(target.id).dogged_in is None


def _dogged_game() -> GameState:
    placements = {WARDEN: [20, 20, 90], ENFORCER: [20, 30, 270], "B-t1": [1, 47, 90]}
    return build_state({"ruleset": "n5", "terrain": [], "placements": placements,
                        "troopers": {ENFORCER: {"wounds": 1, "dogged_in": [1, 1]}}})


def test_dogged_the_states_phase_of_that_turn_kills_it_in_an_open_event() -> None:
    state = _dogged_game()
    assert dogged_to_kill(state.troopers.values()) == (TrooperId(ENFORCER),)
    state, events = play(state, A, c.EndTurn())
    (checked,) = [e for e in events if isinstance(e, StatesPhaseChecked)]
    assert checked == StatesPhaseChecked(1, 1, dogged_dead=(TrooperId(ENFORCER),))
    dead = state.trooper(TrooperId(ENFORCER))
    assert dead.condition is Condition.DEAD and dead.dogged_in is None
    for viewer in (A, B, SPECTATOR):
        plain = view_event(checked, viewer, state)
        assert plain["dogged_dead"] == [ENFORCER], viewer


def test_dogged_states_phase_replaying_the_events_rebuilds_the_state() -> None:
    state = _dogged_game()
    after, events = play(state, A, c.EndTurn())
    assert engine.apply_all(state, events) == after


@pytest.mark.parametrize(("name", "field"), [("Dogged", "dogged")])
def test_the_catalogue_maps_the_skill_to_its_profile_field(name: str, field: str) -> None:
    flags = TrooperFlags()
    assert apply_item(DataItem(ItemKind.SKILL, name), flags) is None
    assert flags.fields == {field: True}


def test_dogged_is_open_information_every_viewer_sees_its_turn() -> None:
    state = _dogged_game()
    for viewer in (A, B, SPECTATOR):
        seen = next(t for t in view_state(state, viewer)["troopers"] if t["id"] == ENFORCER)
        assert seen["dogged_in"] == [1, 1] and seen["condition"] == "normal", viewer
