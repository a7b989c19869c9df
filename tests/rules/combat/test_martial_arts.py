"""DIGEST 7.4 (Face to Face Rolls) and DIGEST 7.5 (Burst) with Martial Arts
(``combat/martial_arts.py``; infinitythewiki "Martial Arts", N5): each Level's Attack MOD on
the user's CC Attack, Opponent MOD on the enemy's roll Face to Face with it, and Burst MOD.
The page's Example 1 (a Level 3 against a Level 1) is ``test_wiki_example_1_...``.
"""

from __future__ import annotations

import pytest

from server.rules.armies.item_catalogue import DataItem, TrooperFlags, apply_item
from server.rules.armies.not_refereed import ItemKind
from server.rules.armies.skills import CcAttack, Dodge
from server.rules.combat.attacks import plan_declaration
from server.rules.combat.resolution import resolve_order
from server.rules.combat.rolls import Mod
from server.rules.ids import Side
from server.rules.state import GameState, TrooperState

from .fighting_builders import with_skills
from .resolution_builders import KNIFE, resolving, trooper

A, B = Side.A, Side.B


def _melee(attacker_ma: int, defender_ma: int, *, aro: str = "cc", attacker_cc: int = 23,
           defender_cc: int = 21, faces: tuple[int, ...] = (2, 2, 2, 2, 2, 2),
           ) -> tuple[GameState, TrooperState, TrooperState]:
    attacker = with_skills(trooper("a", A, (10, 10), 0.0, cc=attacker_cc), martial_arts=attacker_ma)
    defender = with_skills(trooper("d", B, (10.984, 10), 180.0, cc=defender_cc),
                           martial_arts=defender_ma)
    reaction = (CcAttack(weapon=KNIFE.id, target=attacker.id) if aro == "cc" else Dodge())
    state = resolving(attacker, [CcAttack(weapon=KNIFE.id, target=defender.id)], [defender],
                      aros={defender.id: reaction}, faces=list(faces))
    return state, attacker, defender


def test_wiki_example_1_martial_arts_l3_against_martial_arts_l1() -> None:
    """infinitythewiki "Martial Arts", Example 1: the L3 user (CC 23) rolls 23 + 3 - 3 = 23;
    the L1 user (CC 21) rolls 21 - 3 = 18."""
    state, attacker, defender = _melee(3, 1)
    outcome, _ = resolve_order(state)
    caliban = next(r for r in outcome.rolls if r.trooper == attacker.id)
    hsien = next(r for r in outcome.rolls if r.trooper == defender.id)
    assert caliban.success_value == 23 and hsien.success_value == 18
    assert caliban.mods == (Mod("martial_arts", 3), Mod("martial_arts_opponent", -3))
    assert hsien.mods == (Mod("martial_arts_opponent", -3),)
    assert caliban.opposed_by and hsien.opposed_by


@pytest.mark.parametrize(("level", "attack_mod", "burst"), [
    (1, 0, 1), (2, 3, 1), (3, 3, 1), (4, 3, 1), (5, 3, 2)])
def test_each_level_gives_its_attack_mod_and_burst(level: int, attack_mod: int, burst: int) -> None:
    state, attacker, _ = _melee(level, 0, attacker_cc=14)
    outcome, _ = resolve_order(state)
    attack = next(r for r in outcome.rolls if r.trooper == attacker.id)
    assert attack.success_value == 14 + attack_mod and attack.burst == burst
    assert len(attack.dice) == burst


def test_the_opponent_mod_also_hits_a_dodge_against_the_cc_attack() -> None:
    state, _, defender = _melee(1, 0, aro="dodge")
    outcome, _ = resolve_order(state)
    dodge = next(r for r in outcome.rolls if r.trooper == defender.id)
    assert dodge.skill == "dodge" and Mod("martial_arts_opponent", -3) in dodge.mods


def test_level_5_burst_mod_applies_to_a_cc_aro_too() -> None:
    state, _, defender = _melee(0, 5)
    outcome, _ = resolve_order(state)
    parry = next(r for r in outcome.rolls if r.trooper == defender.id)
    assert parry.burst == 2 and parry.success_value == 21 + 3


def test_without_martial_arts_no_mod_is_added() -> None:
    state, _, _ = _melee(0, 0)
    outcome, _ = resolve_order(state)
    assert all(r.mods == () for r in outcome.rolls)


def test_the_aro_preview_shows_the_opponent_mod_of_the_declared_cc_attack() -> None:
    """``options`` previews an ARO with the code Resolution runs: the reactor's Success Value
    already carries the active Martial Artist's Opponent MOD."""
    state, attacker, defender = _melee(2, 0)
    plan = plan_declaration(state, defender.id, CcAttack(weapon=KNIFE.id, target=attacker.id))
    (roll,) = plan.rolls
    assert roll.success_value == 21 - 3


@pytest.mark.parametrize(("item", "level"), [
    (DataItem(ItemKind.SKILL, "Martial Arts L2"), 2),
    (DataItem(ItemKind.SKILL, "martial arts", ("L5",)), 5),
])
def test_the_catalogue_reads_the_level(item: DataItem, level: int) -> None:
    flags = TrooperFlags()
    assert apply_item(item, flags) is None
    assert flags.fields == {"martial_arts": level}


def test_the_catalogue_names_an_unknown_level() -> None:
    note = apply_item(DataItem(ItemKind.SKILL, "Martial Arts"), TrooperFlags())
    assert note is not None and "Martial Arts L1 to L5" in note.text
