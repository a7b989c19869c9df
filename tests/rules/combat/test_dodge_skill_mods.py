"""DIGEST 7.4 (Face to Face Rolls) and DIGEST 6.3 (Dodge) with the Dodge MODs written on a
profile (``combat/dodge_skill_mods.py``; infinitythewiki "Template: Modifiers-explained",
N5.2): "Dodge (+3)" adds to the user's Dodge; "Dodge (-3)" takes 3 from each enemy attack
Face to Face with its Dodge, and only then.
"""

from __future__ import annotations

import pytest

from server.rules.armies.item_catalogue import DataItem, TrooperFlags, apply_item
from server.rules.armies.not_refereed import ItemKind
from server.rules.armies.skills import CcAttack, Dodge
from server.rules.combat.outcome import RollRecord
from server.rules.combat.resolution import resolve_order
from server.rules.combat.rolls import Mod
from server.rules.ids import Side

from .fighting_builders import with_skills
from .resolution_builders import KNIFE, RIFLE, resolving, shoot, trooper

A, B = Side.A, Side.B


def _shot_and_dodge(dodge_mod: int, *, dodge: bool = True) -> tuple[RollRecord, RollRecord | None]:
    shooter = trooper("s", A, (10, 10), 0.0)
    target = with_skills(trooper("t", B, (16, 10), 180.0), dodge_mod=dodge_mod)
    aros = {target.id: Dodge()} if dodge else {}
    state = resolving(shooter, [shoot(RIFLE, (target, 1))], [target], aros=aros,
                      faces=[5, 5, 1, 1, 1])
    outcome, _ = resolve_order(state)
    attack = next(r for r in outcome.rolls if r.trooper == shooter.id)
    reaction = next((r for r in outcome.rolls if r.trooper == target.id and r.skill == "dodge"), None)
    return attack, reaction


def test_a_positive_dodge_mod_goes_on_the_users_dodge() -> None:
    attack, dodge = _shot_and_dodge(3)
    assert dodge is not None and Mod("dodge", 3) in dodge.mods and dodge.success_value == 11 + 3
    assert all(m.source != "enemy_dodge" for m in attack.mods)


def test_a_negative_dodge_mod_goes_on_the_enemy_attack_face_to_face_with_the_dodge() -> None:
    attack, dodge = _shot_and_dodge(-3)
    assert dodge is not None and dodge.success_value == 11
    assert Mod("enemy_dodge", -3) in attack.mods and attack.success_value == 12 + 3 - 3


def test_a_negative_dodge_mod_does_nothing_when_the_trooper_does_not_dodge() -> None:
    attack, dodge = _shot_and_dodge(-3, dodge=False)
    assert dodge is None and attack.mods == (Mod("range", 3),)


def test_a_negative_dodge_mod_also_hits_a_cc_attack_against_the_dodge() -> None:
    attacker = trooper("a", A, (10, 10), 0.0)
    defender = with_skills(trooper("d", B, (10.984, 10), 180.0), dodge_mod=-3)
    state = resolving(attacker, [CcAttack(weapon=KNIFE.id, target=defender.id)], [defender],
                      aros={defender.id: Dodge()}, faces=[5, 5, 1, 1])
    outcome, _ = resolve_order(state)
    blow = next(r for r in outcome.rolls if r.trooper == attacker.id)
    assert blow.mods == (Mod("enemy_dodge", -3),)


@pytest.mark.parametrize(("item", "fields", "refereed"), [
    (DataItem(ItemKind.SKILL, "Dodge (+3)"), {"dodge_mod": 3}, True),
    (DataItem(ItemKind.SKILL, "Dodge", ("-3",)), {"dodge_mod": -3}, True),
    (DataItem(ItemKind.SKILL, "Dodge (+2\")"), {}, False),
])
def test_the_catalogue_reads_a_dodge_mod(item: DataItem, fields: dict[str, int], refereed: bool) -> None:
    flags = TrooperFlags()
    note = apply_item(item, flags)
    assert (note is None) is refereed and flags.fields == fields
