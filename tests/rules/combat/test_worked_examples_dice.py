"""Worked examples W1-W4 and W7 from DIGEST section 16, run through the dice core."""

from __future__ import annotations

import pytest

from server.rules.combat.ammunition import Ammunition
from server.rules.combat.dice import Dice, inject, roll_d20
from server.rules.combat.face_to_face import face_to_face
from server.rules.combat.rolls import (
    CritConvention,
    Mod,
    needs_no_roll,
    success_value,
    total_mod,
)
from server.rules.combat.saves import SaveConvention, judge_save, save_target, saves_required
from server.rules.combat.wounds import Condition, WoundOutcome, apply_failed_saves

BOTH = [CritConvention.N4, CritConvention.N5]


@pytest.mark.parametrize("convention", BOTH)
def test_w1_face_to_face_with_range_cover_and_a_critical(convention: CritConvention) -> None:
    """W1: SV 13 B3 rolls 5, 13, 17 vs SV 12 B1 rolls 11 -> active scores 1 Critical."""
    active_sv = success_value(13, [Mod("range", 3), Mod("partial_cover", -3)])
    reactive_sv = success_value(12, [Mod("range", 0)])
    assert (active_sv, reactive_sv) == (13, 12)
    dice = inject(Dice(), [5, 13, 17, 11])
    active_faces, dice = roll_d20(dice, 3)
    reactive_faces, dice = roll_d20(dice, 1)
    result = face_to_face(active_sv, active_faces, reactive_sv, reactive_faces, convention)
    assert [d.critical for d in result.first.dice] == [False, True, False]
    assert result.first.cancelled == (True, False, False)  # the 5 loses to the 11
    assert result.second.cancelled == (True,)  # the 11 loses to the Critical
    assert (result.first.criticals, result.first.successes) == (1, 0)
    assert not result.second.scored
    assert saves_required(Ammunition.N, result.first.successes, result.first.criticals) == 2


def test_w1_saves_n5_target_in_cover_rolls_12_and_4() -> None:
    """W1 [N5]: SV = ARM 1 + PS 7 + 3 = 11; 12 fails, 4 saves -> 1 wound."""
    target = save_target(1, 7, Ammunition.N, partial_cover=True, convention=SaveConvention.N5)
    assert target == 11
    rolls = [judge_save(face, target, SaveConvention.N5) for face in (12, 4)]
    assert [r.failed for r in rolls] == [True, False]


def test_w1_saves_n4_target_in_cover_rolls_12_and_4() -> None:
    """W1 [N4]: Attack Damage = 13 - 1 - 3 = 9; 12 saves, 4 fails -> 1 wound."""
    target = save_target(1, 7, Ammunition.N, partial_cover=True, convention=SaveConvention.N4)
    assert target == 9
    rolls = [judge_save(face, target, SaveConvention.N4) for face in (12, 4)]
    assert [r.failed for r in rolls] == [False, True]


def test_w2_mod_cap_and_sv_below_one_means_no_roll() -> None:
    """W2: BS 11 with -6 -6 -3 -6 = -21 -> -12 -> SV -1: automatic failure, no dice."""
    mods = [Mod("range", -6), Mod("mimetism", -6), Mod("partial_cover", -3),
            Mod("poor_visibility", -6)]
    assert total_mod(mods) == -12
    sv = success_value(11, mods)
    assert sv == -1
    assert needs_no_roll(sv)
    assert total_mod([*mods, Mod("targeted", 3)]) == -12  # raw -18, still capped


def test_w3_sv_22_n5_critical_on_a_2() -> None:
    """W3 [N5]: SV 22 rolls 2, 14 vs SV 16 rolls 15 -> 2 is a Critical, 14 lost to 15."""
    sv = success_value(16, [Mod("range", 3), Mod("targeted", 3)])
    assert sv == 22
    result = face_to_face(sv, [2, 14], 16, [15], CritConvention.N5)
    assert [d.critical for d in result.first.dice] == [True, False]
    assert (result.first.criticals, result.first.successes) == (1, 0)
    assert result.first.cancelled == (False, True)
    assert not result.second.scored
    assert saves_required(Ammunition.N, 0, 1) == 2


def test_w3_sv_22_n4_shifted_values_give_one_normal_hit() -> None:
    """W3 [N4/C1]: +2 per die -> 4 and 16, no crit; 15 cancels the 4, 16 beats the 15."""
    result = face_to_face(22, [2, 14], 16, [15], CritConvention.N4)
    assert [d.value for d in result.first.dice] == [4, 16]
    assert not any(d.critical for d in result.first.dice)
    assert (result.first.criticals, result.first.successes) == (0, 1)
    assert result.first.cancelled == (True, False)
    assert result.second.cancelled == (True,)
    assert saves_required(Ammunition.N, 1, 0) == 1


@pytest.mark.parametrize(("convention", "crit_face"), [(CritConvention.N5, 1),
                                                       (CritConvention.N4, 19)])
def test_w3_critical_versus_critical_cancels_everything(
    convention: CritConvention, crit_face: int
) -> None:
    """W3 variant: SV 21 rolls 19, 7, 1 vs SV 12 rolls 12. N5: the 1 crits; N4: 19+1=20
    crits. Both sides have Criticals -> no effect."""
    result = face_to_face(21, [19, 7, 1], 12, [12], convention)
    assert [d.face for d in result.first.dice if d.critical] == [crit_face]
    assert result.second.dice[0].critical
    assert not result.first.scored
    assert not result.second.scored
    assert result.first.cancelled == (True, True, True)
    assert result.second.cancelled == (True,)


@pytest.mark.parametrize("convention", BOTH)
def test_w4_dodge_with_lof_beats_both_hits(convention: CritConvention) -> None:
    """W4: SV 13 B3 rolls 3, 9, 14 vs Dodge PH 11 rolls 10 -> both hits cancelled, dodge
    succeeds."""
    result = face_to_face(13, [3, 9, 14], success_value(11, []), [10], convention)
    assert result.first.cancelled == (True, True, False)
    assert (result.first.successes, result.first.criticals) == (0, 0)
    assert (result.second.successes, result.second.criticals) == (1, 0)


@pytest.mark.parametrize("convention", BOTH)
def test_w4_dodge_without_lof_fails_and_both_hits_land(convention: CritConvention) -> None:
    """W4: ZoC-only Dodge SV 11 - 3 = 8; the 10 fails, hits 3 and 9 land."""
    dodge_sv = success_value(11, [Mod("zoc_no_lof_dodge", -3)])
    assert dodge_sv == 8
    result = face_to_face(13, [3, 9, 14], dodge_sv, [10], convention)
    assert (result.first.successes, result.first.criticals) == (2, 0)
    assert result.first.cancelled == (False, False, False)
    assert not result.second.scored


def test_w7_da_twice_on_vita_1_unconscious_then_dead() -> None:
    """W7 [N5]: VITA 1, ARM 2, DA PS 6 hit twice -> 4 saves at SV 8; two failures: the first
    makes it Unconscious (wounds = VITA), the second Dead (wounds > VITA)."""
    saves = saves_required(Ammunition.DA, hits=2, criticals=0)
    assert saves == 4
    target = save_target(2, 6, Ammunition.DA, partial_cover=False, convention=SaveConvention.N5)
    assert target == 8
    rolls = [judge_save(face, target, SaveConvention.N5) for face in (3, 15, 8, 19)]
    assert [r.failed for r in rolls] == [False, True, False, True]
    first = apply_failed_saves(0, 1, 1, Ammunition.DA, Condition.NORMAL, structure=False)
    assert first == WoundOutcome(1, Condition.UNCONSCIOUS)
    second = apply_failed_saves(first.wounds, 1, 1, Ammunition.DA, first.condition, structure=False)
    assert second == WoundOutcome(2, Condition.DEAD)
    assert apply_failed_saves(0, 2, 1, Ammunition.DA, Condition.NORMAL, structure=False).condition is Condition.DEAD


def test_w7_shock_on_vita_1_first_failed_save_is_dead() -> None:
    """W7: Shock ammo against VITA 1: the first failed save sends it straight to Dead."""
    outcome = apply_failed_saves(0, 1, 1, Ammunition.SHOCK, Condition.NORMAL, structure=False)
    assert outcome == WoundOutcome(1, Condition.DEAD)


def test_w7_n4_equivalent_fails_on_the_same_number_of_faces() -> None:
    """W7: N4 DAM 14 - ARM 2 = 12 -> fail on <= 12 (12/20); N5 fail on > 8 (12/20)."""
    n4 = save_target(2, 6, Ammunition.DA, partial_cover=False, convention=SaveConvention.N4)
    assert n4 == 12
    fails_n4 = [f for f in range(1, 21) if judge_save(f, n4, SaveConvention.N4).failed]
    fails_n5 = [f for f in range(1, 21) if judge_save(f, 8, SaveConvention.N5).failed]
    assert fails_n4 == list(range(1, 13))
    assert fails_n5 == list(range(9, 21))
