"""DIGEST 7.8 (Guts Rolls: Courage passes) and DIGEST 11.4 (Retreat!: Courage exempt) with Courage (``combat/courage.py``; infinitythewiki "Courage", N5): its user may pass any Guts
Roll without rolling, and it never enters Retreat! (it acts normally to the end of the game).
The page has no worked example: the tests follow its bullet points.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from server.rules.armies.item_catalogue import DataItem, TrooperFlags, apply_item
from server.rules.armies.not_refereed import ItemKind
from server.rules.combat.resolution import resolve_order
from server.rules.decision import Accepted, Rejected
from server.rules.ids import Side, TrooperId
from server.rules.options import seat_options
from server.rules.state import GameState
from tests.rules.orders.test_retreat import SHOT, _b_in_retreat_with_the_boss_activated
from tests.support.games import decide

from .fighting_builders import with_skills
from .resolution_builders import RIFLE, resolving, shoot, trooper
from .test_immunity import STUN_RIFLE, _armed

A, B = Side.A, Side.B


def _guts_after_a_saved_hit(**skills: Any) -> GameState:
    """A hit (face 4) the target saves (face 1): it must make a Guts Roll; an injected 20
    would fail it."""
    shooter = trooper("s", A, (10, 10), 0.0)
    target = with_skills(trooper("t", B, (16, 10), 180.0, vita=2), **skills)
    return resolving(shooter, [shoot(RIFLE, (target, 1))], [target], faces=[4, 1, 20])


def test_courage_passes_the_guts_roll_without_a_die() -> None:
    state = _guts_after_a_saved_hit(courage=True)
    outcome, dice = resolve_order(state)
    (guts,) = [r for r in outcome.rolls if r.skill == "guts"]
    assert guts.courage and guts.dice == () and guts.successes == 1
    assert dice.injected == (20,)  # the die the Guts Roll would have used is left


def test_without_courage_the_same_guts_roll_is_rolled_and_fails() -> None:
    outcome, _ = resolve_order(_guts_after_a_saved_hit())
    (guts,) = [r for r in outcome.rolls if r.skill == "guts"]
    assert not guts.courage and guts.successes + guts.criticals == 0


def test_courage_the_owner_may_still_choose_to_fail() -> None:
    state = _guts_after_a_saved_hit(courage=True)
    target = TrooperId("B-t")
    state = state.with_trooper(replace(state.trooper(target), fails_guts=True))
    outcome, _ = resolve_order(state)
    (guts,) = [r for r in outcome.rolls if r.skill == "guts"]
    assert guts.chosen_failure and not guts.courage


def _courageous_boss_in_retreat() -> GameState:
    state = _b_in_retreat_with_the_boss_activated()
    boss = TrooperId("B-t1")
    return state.with_trooper(with_skills(state.trooper(boss), courage=True))


def test_courage_never_enters_retreat_its_attacks_are_accepted_and_offered() -> None:
    state = _courageous_boss_in_retreat()
    decision = decide(state, B, {"type": "declare_skill", "skill": SHOT})
    assert not (isinstance(decision, Rejected) and decision.code == "in_retreat"), decision
    assert isinstance(decision, Accepted)
    assert seat_options(state, B)["skills"]["bs_attack"] != {}


@pytest.mark.parametrize(("name", "field"), [("Courage", "courage")])
def test_the_catalogue_maps_the_skill_to_its_profile_field(name: str, field: str) -> None:
    flags = TrooperFlags()
    assert apply_item(DataItem(ItemKind.SKILL, name), flags) is None
    assert flags.fields == {field: True}


def test_courage_passes_even_after_a_failed_save_against_stun() -> None:
    """infinitythewiki "Stun Ammunition" (N5): the Guts Roll after a failed Stun save fails
    automatically, unless the trooper has Courage."""
    shooter = trooper("s", A, (10, 10), 0.0)
    target = with_skills(trooper("t", B, (16, 10), 180.0), courage=True)
    state = _armed(resolving(shooter, [shoot(STUN_RIFLE, (target, 1))], [target], faces=[4, 20]), STUN_RIFLE)
    outcome, _ = resolve_order(state)
    (guts,) = [r for r in outcome.rolls if r.skill == "guts"]
    assert guts.courage and not guts.stun_failure and guts.successes == 1
