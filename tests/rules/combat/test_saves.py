"""Saving Rolls (DIGEST 7.6) under both conventions, and ammunition save counts."""

from __future__ import annotations

import pytest

from server.rules.combat.ammunition import (
    Ammunition,
    SaveAttribute,
    halves_armour,
    save_attribute,
    saves_per_hit,
)
from server.rules.combat.saves import (
    SaveConvention,
    SaveRoll,
    damage_from_ps,
    judge_save,
    save_target,
    saves_required,
)

N4 = SaveConvention.N4
N5 = SaveConvention.N5


def test_n5_save_sv_is_armour_plus_ps_plus_3_in_cover() -> None:
    """7.6 [N5]: SV = ARM + PS (+3 Partial Cover); pass on d20 <= SV."""
    assert save_target(1, 7, Ammunition.N, partial_cover=True, convention=N5) == 11
    assert save_target(1, 7, Ammunition.N, partial_cover=False, convention=N5) == 8
    assert judge_save(11, 11, N5) == SaveRoll(face=11, target=11, failed=False)
    assert judge_save(12, 11, N5).failed


def test_n5_bts_example_from_the_hacking_rules() -> None:
    """7.6 [S35]: PS 7 + BTS 6 = 13; a 14 fails."""
    target = save_target(6, 7, Ammunition.N, partial_cover=False, convention=N5)
    assert target == 13
    assert judge_save(14, target, N5).failed
    assert not judge_save(13, target, N5).failed


def test_n4_attack_damage_is_dam_minus_armour_minus_3_in_cover() -> None:
    """7.6 [N4/C1]: Attack Damage = DAM - ARM - 3 (cover); fail on d20 <= it; DAM = 20 - PS."""
    assert damage_from_ps(7) == 13
    assert save_target(1, 7, Ammunition.N, partial_cover=True, convention=N4) == 9
    assert judge_save(9, 9, N4).failed
    assert not judge_save(10, 9, N4).failed


@pytest.mark.parametrize("ammo", list(Ammunition))
@pytest.mark.parametrize("armour", [0, 1, 3, 5, 8])
@pytest.mark.parametrize("ps", [3, 6, 7, 9])
@pytest.mark.parametrize("cover", [False, True])
def test_n4_and_n5_fail_on_the_same_number_of_faces(
    ammo: Ammunition, armour: int, ps: int, cover: bool
) -> None:
    """7.6: with DAM = 20 - PS the two conventions give identical failure odds."""
    n5 = save_target(armour, ps, ammo, cover, N5)
    n4 = save_target(armour, ps, ammo, cover, N4)
    fails_n5 = sum(judge_save(f, n5, N5).failed for f in range(1, 21))
    fails_n4 = sum(judge_save(f, n4, N4).failed for f in range(1, 21))
    assert fails_n5 == fails_n4


@pytest.mark.parametrize(("armour", "halved"), [(1, 1), (2, 1), (3, 2), (5, 3), (0, 0)])
def test_ap_halves_armour_rounding_up(armour: int, halved: int) -> None:
    """7.1 rounding up / 7.6: AP halves ARM."""
    assert halves_armour(Ammunition.AP)
    assert save_target(armour, 7, Ammunition.AP, False, N5) == halved + 7
    assert save_target(armour, 7, Ammunition.AP, False, N4) == 13 - halved


def test_em_is_saved_against_halved_bts_and_others_against_full_arm() -> None:
    """7.6: E/M is saved against BTS, halved; N, DA, EXP, Shock and T2 do not halve the attribute."""
    assert save_attribute(Ammunition.EM) is SaveAttribute.BTS
    assert save_attribute(Ammunition.DA) is SaveAttribute.ARM
    assert save_target(6, 7, Ammunition.EM, False, N5) == 3 + 7
    for ammo in (Ammunition.N, Ammunition.DA, Ammunition.EXP, Ammunition.SHOCK, Ammunition.T2):
        assert not halves_armour(ammo)


@pytest.mark.parametrize(
    ("ammo", "per_hit"),
    [(Ammunition.N, 1), (Ammunition.AP, 1), (Ammunition.DA, 2), (Ammunition.EXP, 3),
     (Ammunition.SHOCK, 1), (Ammunition.T2, 1), (Ammunition.EM, 2)],
)
def test_saves_per_hit_by_ammunition(ammo: Ammunition, per_hit: int) -> None:
    """7.6: N 1, AP 1, DA 2, EXP 3, Shock 1, T2 1, E/M 2."""
    assert saves_per_hit(ammo) == per_hit


def test_each_critical_adds_one_extra_save() -> None:
    """7.2 [N4/C1/N5]: a Critical is a hit plus one additional Saving Roll."""
    assert saves_required(Ammunition.N, hits=0, criticals=1) == 2
    assert saves_required(Ammunition.N, hits=2, criticals=0) == 2
    assert saves_required(Ammunition.DA, hits=1, criticals=1) == 2 + 3
    assert saves_required(Ammunition.EXP, hits=0, criticals=2) == 8
    assert saves_required(Ammunition.N, hits=0, criticals=0) == 0


def test_saves_required_rejects_negative_counts() -> None:
    with pytest.raises(ValueError, match="negative"):
        saves_required(Ammunition.N, hits=-1, criticals=0)
