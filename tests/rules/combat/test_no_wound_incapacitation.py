"""DIGEST 7.7 (wounds and Null states) with No Wound Incapacitation (``combat/incapacitation.py``; infinitythewiki "No Wound
Incapacitation", N5): at as many wounds as its VITA the trooper is not Unconscious but acts as
Normal (no Null, no Prone, it still makes its Guts Roll); one more wound makes it Dead
directly; Shock ammunition cancels it (Dead). The wiki page has no worked example: these
tests follow its bullet points one by one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from server.rules.armies.item_catalogue import DataItem, TrooperFlags, apply_item
from server.rules.armies.not_refereed import ItemKind
from server.rules.armies.weapons import Weapon
from server.rules.combat.ammunition import Ammunition
from server.rules.combat.outcome import IncapacitationIgnored, Outcome, WentProne, Wounded
from server.rules.combat.resolution import resolve_order
from server.rules.combat.wounds import Condition, apply_failed_saves
from server.rules.ids import Side, TrooperId
from server.rules.state import GameState
from server.rules.views import view_state
from tests.support.games import fold_effects

from .fighting_builders import with_skills
from .resolution_builders import RIFLE, SHOCK_RIFLE, resolving, shoot, trooper

A, B = Side.A, Side.B


def _shot(weapon: Weapon = RIFLE, *, wounds: int = 0, vita: int = 1,
          faces: Sequence[int] = (4, 20, 5), **skills: Any) -> tuple[GameState, Outcome, TrooperId]:
    """A rifle shot (1 die, face 4 hits) at a VITA ``vita`` trooper with ARM 1 (save 8: 20
    fails), then its Guts Roll (face 5 passes WIP 13)."""
    shooter = trooper("s", A, (10, 10), 0.0)
    target = with_skills(trooper("t", B, (16, 10), 180.0, vita=vita), **{"nwi": True, **skills})
    target = replace(target, wounds=wounds)
    state = resolving(shooter, [shoot(weapon, (target, 1))], [target], faces=list(faces))
    outcome, _ = resolve_order(state)
    return state, outcome, target.id


def test_nwi_at_the_unconscious_threshold_the_trooper_stays_normal_and_standing() -> None:
    state, outcome, target = _shot()
    assert Wounded(target, 1, Condition.NORMAL) in outcome.effects
    assert IncapacitationIgnored(target, "nwi") in outcome.effects
    assert not any(isinstance(e, WentProne) for e in outcome.effects)  # not Unconscious: no Prone
    after = fold_effects(state, outcome.effects).trooper(target)
    assert after.wounds == 1 and after.condition is Condition.NORMAL
    assert after.can_act and not after.is_null and not after.prone and after.dogged_in is None


def test_nwi_trooper_still_makes_its_guts_roll_as_a_normal_trooper() -> None:
    _, outcome, target = _shot()
    assert [r.skill for r in outcome.rolls if r.trooper == target] == ["guts"]


def test_nwi_one_more_wound_makes_it_dead_directly() -> None:
    _, outcome, target = _shot(wounds=1)
    assert Wounded(target, 2, Condition.DEAD) in outcome.effects
    assert not any(isinstance(e, IncapacitationIgnored) for e in outcome.effects)


def test_nwi_shock_ammunition_cancels_it_the_trooper_goes_dead() -> None:
    """VITA 2, one wound already: the Shock wound that reaches the threshold kills it."""
    _, outcome, target = _shot(SHOCK_RIFLE, wounds=1, vita=2)
    assert Wounded(target, 2, Condition.DEAD) in outcome.effects
    assert not any(isinstance(e, IncapacitationIgnored) for e in outcome.effects)


def test_nwi_a_shock_wound_below_the_threshold_is_an_ordinary_wound() -> None:
    _, outcome, target = _shot(SHOCK_RIFLE, vita=2)
    assert Wounded(target, 1, Condition.NORMAL) in outcome.effects


def test_nwi_shock_immunity_keeps_nwi_against_shock() -> None:
    """Shock treated as Normal ammunition (Immunity (Shock)) no longer cancels NWI."""
    _, outcome, target = _shot(SHOCK_RIFLE, wounds=1, vita=2, immunities=("Shock",))
    assert Wounded(target, 2, Condition.NORMAL) in outcome.effects
    assert IncapacitationIgnored(target, "nwi") in outcome.effects


def test_without_nwi_the_same_shot_makes_the_trooper_unconscious() -> None:
    """The control: the same dice against the same trooper without the skill."""
    _, outcome, target = _shot(nwi=False)
    assert Wounded(target, 1, Condition.UNCONSCIOUS) in outcome.effects
    assert not any(isinstance(e, IncapacitationIgnored) for e in outcome.effects)


def test_nwi_is_open_information_the_opponent_sees_the_wounds_and_normal_condition() -> None:
    state, outcome, target = _shot()
    after = fold_effects(state, outcome.effects)
    seen = next(t for t in view_state(after, A)["troopers"] if t["id"] == target)
    assert seen["wounds"] == 1 and seen["condition"] == "normal"
    assert seen["profile"]["nwi"] is True


@pytest.mark.parametrize(("name", "field"), [("No Wound Incapacitation", "nwi"), ("NWI", "nwi")])
def test_the_catalogue_maps_the_skill_to_its_profile_field(name: str, field: str) -> None:
    flags = TrooperFlags()
    assert apply_item(DataItem(ItemKind.SKILL, name), flags) is None
    assert flags.fields == {field: True}


@settings(max_examples=300, deadline=None)
@given(vita=st.integers(1, 4), before=st.integers(0, 5), failed=st.integers(0, 4),
       ammo=st.sampled_from([Ammunition.N, Ammunition.DA, Ammunition.SHOCK, Ammunition.T2]),
       structure=st.booleans())
def test_nwi_the_wound_track_never_leaves_the_trooper_unconscious(
        vita: int, before: int, failed: int, ammo: Ammunition, structure: bool) -> None:
    """DIGEST 7.7 with NWI, for any wounds so far and any failed saves: never Unconscious;
    Dead exactly past VITA, or at it through Shock on VITA (Shock kills VITA 1 at once)."""
    assume(before <= vita)  # a trooper still standing (NWI keeps it Normal at VITA)
    outcome = apply_failed_saves(before, failed, vita, ammo, Condition.NORMAL,
                                 structure=structure, ignores_unconscious=True)
    assert outcome.condition is not Condition.UNCONSCIOUS
    shock = ammo is Ammunition.SHOCK and not structure
    dead = outcome.wounds > vita or (
        outcome.wounds > before and (outcome.wounds == vita or vita == 1) and shock)
    assert (outcome.condition is Condition.DEAD) is dead
