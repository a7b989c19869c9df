"""DIGEST 7.6 (Saving Rolls and ammunition) with Immunity and Shock Immunity (``combat/immunity.py``; infinitythewiki "Immunity", N5):
Immunity (ammunition) makes the trooper save against that ammunition as against Normal
ammunition; Immunity (State) keeps it out of that State; Immunity (Total) does both for every
ammunition. Shock Immunity is Immunity (Shock). The page has no worked example: the tests
follow its categories one by one.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from server.rules.armies.item_catalogue import DataItem, TrooperFlags, apply_item
from server.rules.armies.not_refereed import ItemKind
from server.rules.armies.weapons import Weapon
from server.rules.combat.ammunition import Ammunition
from server.rules.combat.immunity import ammunition_against, immune_to_state
from server.rules.combat.outcome import IsolatedSet, StunnedSet, Wounded
from server.rules.combat.resolution import resolve_order
from server.rules.combat.wounds import Condition
from server.rules.ids import Side, WeaponId
from server.rules.state import GameState, TrooperState

from .fighting_builders import with_skills
from .resolution_builders import DA_RIFLE, RIFLE, RIFLE_BANDS, SHOCK_RIFLE, resolving, shoot, trooper

A, B = Side.A, Side.B
AP_RIFLE = Weapon(WeaponId("test_ap_rifle"), "AP Rifle (test)", RIFLE.kind, 3, 7, "AP", RIFLE_BANDS)
STUN_RIFLE = Weapon(WeaponId("test_stun_rifle"), "Stun Rifle (test)", RIFLE.kind, 3, 6, "Stun",
                    RIFLE_BANDS, save_attribute="BTS")
EM_RIFLE = Weapon(WeaponId("test_em_rifle"), "E/M Rifle (test)", RIFLE.kind, 3, 7, "E/M",
                  RIFLE_BANDS, save_attribute="BTS")


def _armed(state: GameState, *weapons: Weapon) -> GameState:
    armies = {side: replace(army, arsenal=(*army.arsenal, *weapons)) for side, army in state.armies.items()}
    return replace(state, armies=armies)


def _shot_at(target: TrooperState, weapon: Weapon, faces: list[int]) -> GameState:
    shooter = trooper("s", A, (10, 10), 0.0)
    state = resolving(shooter, [shoot(weapon, (target, 1))], [target], faces=faces)
    return _armed(state, AP_RIFLE, STUN_RIFLE, EM_RIFLE)


def _target(**skills: object) -> TrooperState:
    return with_skills(trooper("t", B, (16, 10), 180.0, arm=4, bts=3), **skills)


@pytest.mark.parametrize(("categories", "ammo", "seen"), [
    ((), Ammunition.SHOCK, Ammunition.SHOCK),
    (("Shock",), Ammunition.SHOCK, Ammunition.N),
    (("shock",), Ammunition.SHOCK, Ammunition.N),
    (("Shock",), Ammunition.AP, Ammunition.AP),
    (("total",), Ammunition.DA, Ammunition.N),
    (("total",), Ammunition.EM, Ammunition.N),
    (("stunned",), Ammunition.STUN, Ammunition.STUN),
])
def test_immunity_says_which_ammunition_is_treated_as_normal(
        categories: tuple[str, ...], ammo: Ammunition, seen: Ammunition) -> None:
    assert ammunition_against(_target(immunities=categories).profile, ammo) is seen


def test_immunity_to_a_state_and_total_keep_the_trooper_out_of_states() -> None:
    assert immune_to_state(_target(immunities=("isolated",)).profile, "isolated")
    assert not immune_to_state(_target(immunities=("isolated",)).profile, "stunned")
    assert immune_to_state(_target(immunities=("total",)).profile, "immobilized_b")
    with pytest.raises(ValueError):
        immune_to_state(_target().profile, "possessed")


def test_shock_immunity_a_vita_1_trooper_failing_a_shock_save_is_unconscious_not_dead() -> None:
    target = _target(immunities=("Shock",))
    outcome, _ = resolve_order(_shot_at(target, SHOCK_RIFLE, [4, 20]))
    (save,) = outcome.saves
    assert save.ammo == "N" and save.immune_to == "Shock"
    assert Wounded(target.id, 1, Condition.UNCONSCIOUS) in outcome.effects
    # The control: without the Immunity, Shock kills a VITA 1 trooper.
    outcome, _ = resolve_order(_shot_at(_target(), SHOCK_RIFLE, [4, 20]))
    assert Wounded(target.id, 1, Condition.DEAD) in outcome.effects
    assert outcome.saves[0].immune_to is None


def test_immunity_ap_keeps_the_whole_arm() -> None:
    """ARM 4 + PS 7 = 11 with the Immunity; AP would halve ARM to 2 (save 9)."""
    outcome, _ = resolve_order(_shot_at(_target(immunities=("AP",)), AP_RIFLE, [4, 10, 5]))
    assert outcome.saves[0].target == 11 and outcome.saves[0].failed == 0
    outcome, _ = resolve_order(_shot_at(_target(), AP_RIFLE, [4, 10, 5]))
    assert outcome.saves[0].target == 9 and outcome.saves[0].failed == 1


@pytest.mark.parametrize("categories", [("DA",), ("total",)])
def test_immunity_da_or_total_one_save_per_hit(categories: tuple[str, ...]) -> None:
    outcome, _ = resolve_order(_shot_at(_target(immunities=categories), DA_RIFLE, [4, 20, 5]))
    (save,) = outcome.saves
    assert len(save.rolls) == 1 and save.immune_to == "DA"
    outcome, _ = resolve_order(_shot_at(_target(), DA_RIFLE, [4, 20, 20, 5]))
    assert len(outcome.saves[0].rolls) == 2


def test_immunity_stunned_a_failed_save_against_stun_does_nothing() -> None:
    target = _target(immunities=("stunned",))
    outcome, _ = resolve_order(_shot_at(target, STUN_RIFLE, [4, 20]))
    assert outcome.saves[0].failed == 1
    assert not any(isinstance(e, StunnedSet | Wounded) for e in outcome.effects)


def test_immunity_stun_treats_stun_as_normal_ammunition_which_wounds() -> None:
    """Judgement call (docs/rules-decisions/skills.md "Immunity"): as Normal ammunition, Stun
    loses its Non-Lethal trait and a failed save is a wound."""
    target = _target(immunities=("Stun",))
    outcome, _ = resolve_order(_shot_at(target, STUN_RIFLE, [4, 20, 5]))
    assert Wounded(target.id, 1, Condition.UNCONSCIOUS) in outcome.effects
    assert not any(isinstance(e, StunnedSet) for e in outcome.effects)


def test_immunity_isolated_a_failed_save_against_em_does_not_isolate() -> None:
    target = _target(immunities=("isolated",))
    outcome, _ = resolve_order(_shot_at(target, EM_RIFLE, [4, 20, 20]))
    assert outcome.saves[0].failed == 2
    assert not any(isinstance(e, IsolatedSet) for e in outcome.effects)
    outcome, _ = resolve_order(_shot_at(_target(), EM_RIFLE, [4, 20, 20]))
    assert IsolatedSet(target.id, EM_RIFLE.id) in outcome.effects


def test_immunity_total_em_is_one_normal_save_against_the_whole_bts() -> None:
    """BTS 3 + PS 7 = 10, one save, no Isolated."""
    target = _target(immunities=("total",))
    outcome, _ = resolve_order(_shot_at(target, EM_RIFLE, [4, 20, 5]))
    (save,) = outcome.saves
    assert save.target == 10 and len(save.rolls) == 1 and save.immune_to == "E/M"
    assert not any(isinstance(e, IsolatedSet) for e in outcome.effects)


@pytest.mark.parametrize(("item", "categories"), [
    (DataItem(ItemKind.SKILL, "Immunity (Shock)"), ["Shock"]),
    (DataItem(ItemKind.SKILL, "Shock Immunity"), ["Shock"]),
    (DataItem(ItemKind.SKILL, "IMMUNITY", ("Total",)), ["total"]),
    (DataItem(ItemKind.SKILL, "Immunity", ("AP",)), ["AP"]),
    (DataItem(ItemKind.SKILL, "Immunity (E/M)"), ["E/M"]),
    (DataItem(ItemKind.SKILL, "Immunity (ISOLATED)"), ["isolated"]),
    (DataItem(ItemKind.SKILL, "Immunity (IMM-B)"), ["immobilized_b"]),
])
def test_the_catalogue_reads_immunity_categories(item: DataItem, categories: list[str]) -> None:
    flags = TrooperFlags()
    assert apply_item(item, flags) is None
    assert flags.fields == {"immunities": categories}


def test_the_catalogue_gathers_two_immunities_and_names_an_unknown_one() -> None:
    flags = TrooperFlags()
    apply_item(DataItem(ItemKind.SKILL, "Immunity (Shock)"), flags)
    apply_item(DataItem(ItemKind.SKILL, "Immunity (AP)"), flags)
    assert flags.fields == {"immunities": ["Shock", "AP"]}
    note = apply_item(DataItem(ItemKind.SKILL, "Immunity (XYZ)"), flags)
    assert note is not None and note.text.startswith("Immunity XYZ — played without it")


@pytest.mark.parametrize("written", ["Immunity (Possessed)", "Immunity (POS)"])
def test_immunity_possessed_is_named_with_why_it_does_nothing_here(written: str) -> None:
    """DIGEST 8 lists Possessed among the Null States; no program here causes it, so the
    catalogue says so in the players' words (docs/rules-decisions/skills.md "Immunity")."""
    flags = TrooperFlags()
    note = apply_item(DataItem(ItemKind.SKILL, written), flags)
    assert flags.fields == {}
    assert note is not None and note.text.endswith(
        "no effect here: no Hacking Program in these games can make a trooper Possessed, so "
        "there is nothing for it to protect against")
