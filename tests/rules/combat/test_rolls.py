"""Success Value, MOD cap, Criticals and Normal Rolls (DIGEST 7.1-7.3)."""

from __future__ import annotations

import pytest

from server.rules.combat.rolls import (
    MOD_CAP,
    CritConvention,
    Die,
    Mod,
    judge,
    needs_no_roll,
    normal_roll,
    success_value,
    total_mod,
)

N4 = CritConvention.N4
N5 = CritConvention.N5
BOTH = [N4, N5]


def test_mod_cap_clamps_the_net_sum_to_minus_12() -> None:
    """7.1: -6 -6 -3 -6 = -21 -> -12."""
    mods = [Mod("range", -6), Mod("mimetism", -6), Mod("partial_cover", -3),
            Mod("poor_visibility", -6)]
    assert total_mod(mods) == -MOD_CAP == -12


def test_mod_cap_applies_to_the_net_sum_not_each_mod() -> None:
    """7.1 / W2: a +3 against -21 gives -18, still capped to -12; +3 -3 nets 0."""
    assert total_mod([Mod("a", -21), Mod("targeted", 3)]) == -12
    assert total_mod([Mod("range", 3), Mod("partial_cover", -3)]) == 0
    assert total_mod([Mod("a", 9), Mod("b", 6)]) == 12
    assert total_mod([]) == 0


def test_success_value_is_attribute_plus_capped_mod() -> None:
    """7.1: SV = the attribute plus the sum of MODs, capped."""
    assert success_value(13, [Mod("range", 3), Mod("partial_cover", -3)]) == 13
    assert success_value(11, [Mod("a", -20)]) == -1
    assert success_value(16, [Mod("range", 3), Mod("targeted", 3)]) == 22


@pytest.mark.parametrize(("sv", "expected"), [(-5, True), (0, True), (1, False), (25, False)])
def test_sv_below_one_needs_no_roll(sv: int, expected: bool) -> None:
    """7.1: SV < 1 is an automatic failure, no dice are rolled."""
    assert needs_no_roll(sv) is expected


@pytest.mark.parametrize("convention", BOTH)
@pytest.mark.parametrize("sv", [0, -1, -12])
def test_sv_below_one_never_succeeds_even_if_a_die_is_judged(
    sv: int, convention: CritConvention
) -> None:
    """7.1: below SV 1 no face succeeds, in either convention."""
    assert not any(judge(face, sv, convention).success for face in range(1, 21))


@pytest.mark.parametrize("convention", BOTH)
def test_success_when_face_at_most_sv_and_critical_when_equal(convention: CritConvention) -> None:
    """7.1/7.2: success on face <= SV; a face equal to the SV is a Critical."""
    assert judge(9, 12, convention) == Die(face=9, value=9, success=True, critical=False)
    assert judge(12, 12, convention) == Die(face=12, value=12, success=True, critical=True)
    assert judge(13, 12, convention) == Die(face=13, value=13, success=False, critical=False)


@pytest.mark.parametrize("convention", BOTH)
def test_sv_20_crits_only_on_a_natural_20(convention: CritConvention) -> None:
    """7.2: at SV 20 every face succeeds and only a 20 is a Critical."""
    crits = [face for face in range(1, 21) if judge(face, 20, convention).critical]
    assert crits == [20]
    assert all(judge(face, 20, convention).success for face in range(1, 21))


@pytest.mark.parametrize("sv", [1, 5, 13, 20])
def test_conventions_agree_for_sv_up_to_20(sv: int) -> None:
    """7.2: the editions differ only above SV 20."""
    assert all(judge(f, sv, N4) == judge(f, sv, N5) for f in range(1, 21))


def test_n5_sv_above_20_crits_on_20_and_on_1_to_excess() -> None:
    """7.2 [N5]: SV 23 -> Criticals on 20, 1, 2, 3; every face succeeds; values are faces."""
    dice = [judge(face, 23, N5) for face in range(1, 21)]
    assert [d.face for d in dice if d.critical] == [1, 2, 3, 20]
    assert all(d.success for d in dice)
    assert all(d.value == d.face for d in dice)


def test_n4_sv_above_20_shifts_every_die_and_crits_at_20_or_more() -> None:
    """7.2 [N4/C1]: SV 22 adds 2 to every die; modified 20+ (faces 18, 19, 20) crits."""
    dice = [judge(face, 22, N4) for face in range(1, 21)]
    assert [d.value for d in dice] == list(range(3, 23))
    assert [d.face for d in dice if d.critical] == [18, 19, 20]
    assert all(d.success for d in dice)


@pytest.mark.parametrize("sv", [21, 22, 25, 32])
def test_both_conventions_give_the_same_number_of_critical_faces_above_20(sv: int) -> None:
    """7.2: same probabilities, different faces."""
    n4 = sum(judge(f, sv, N4).critical for f in range(1, 21))
    n5 = sum(judge(f, sv, N5).critical for f in range(1, 21))
    assert n4 == n5 == min(20, sv - 19)


def test_judge_rejects_faces_outside_1_to_20() -> None:
    with pytest.raises(ValueError, match="1 to 20"):
        judge(0, 10, N5)
    with pytest.raises(ValueError, match="1 to 20"):
        judge(21, 10, N5)


def test_normal_roll_counts_plain_successes_and_criticals_separately() -> None:
    """7.3: each die against the SV; ``successes`` excludes Criticals."""
    roll = normal_roll(13, [5, 13, 17], N5)
    assert (roll.successes, roll.criticals) == (1, 1)
    assert [d.success for d in roll.dice] == [True, True, False]
    assert roll.sv == 13


def test_normal_roll_with_no_dice_for_sv_below_one() -> None:
    """7.1, 7.3: a Normal Roll below SV 1 rolls no dice and scores nothing."""
    roll = normal_roll(-1, [], N5)
    assert (roll.successes, roll.criticals, roll.dice) == (0, 0, ())
