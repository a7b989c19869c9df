"""Face to Face roll (DIGEST 7.4): hand-made cases plus an exhaustive check of every dice
combination for several (SV, Burst) pairings against an independent reference resolver."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from server.rules.combat.face_to_face import FaceToFace, face_to_face
from server.rules.combat.rolls import CritConvention

N4 = CritConvention.N4
N5 = CritConvention.N5


# --- hand-made cases ---------------------------------------------------------------------


def test_failures_are_discarded_and_unopposed_successes_survive() -> None:
    """7.4 step 1: failures are discarded; successes with nothing to beat them stand."""
    result = face_to_face(12, [3, 15, 8], 10, [18], N5)
    assert result.first.successes == 2
    assert result.first.cancelled == (False, False, False)
    assert result.second.successes == 0
    assert result.second.cancelled == (False,)


def test_higher_success_cancels_lower_ones() -> None:
    """7.4 step 4: the opponent's best success cancels every lower or equal success."""
    result = face_to_face(13, [4, 9, 12], 12, [10], N5)
    assert result.first.cancelled == (True, True, False)
    assert result.first.successes == 1
    assert result.second.cancelled == (True,)
    assert result.second.successes == 0


def test_equal_values_cancel_each_other_tie() -> None:
    """7.4 step 4: equal values cancel each other: nobody scores (a tie)."""
    result = face_to_face(13, [9], 15, [9], N5)
    assert (result.first.successes, result.second.successes) == (0, 0)
    assert result.first.cancelled == (True,)
    assert result.second.cancelled == (True,)


def test_a_cancelled_success_still_cancels_lower_enemy_successes() -> None:
    """7.4 step 4: the reactive 10 is cancelled by the active 11 yet still cancels the 9."""
    result = face_to_face(13, [9, 11], 12, [10], N5)
    assert result.first.cancelled == (True, False)
    assert result.first.successes == 1
    assert result.second.successes == 0


def test_one_sided_critical_cancels_every_enemy_success_and_higher_plains_survive() -> None:
    """7.4 step 3: crit side keeps its crit and its plain successes above the enemy's best."""
    result = face_to_face(14, [14, 12, 6], 13, [11, 5], N5)
    assert result.first.criticals == 1
    assert result.first.successes == 1  # the 12 beats 11; the 6 does not
    assert result.first.cancelled == (False, False, True)
    assert result.second.cancelled == (True, True)


def test_critical_vs_critical_cancels_everything() -> None:
    """7.4 step 2: both sides have a Critical: every success of both sides is cancelled."""
    result = face_to_face(14, [14, 13], 10, [10, 2], N5)
    assert not result.first.scored
    assert not result.second.scored
    assert result.first.cancelled == (True, True)
    assert result.second.cancelled == (True, True)


def test_a_side_with_sv_below_one_rolls_nothing_and_the_other_side_is_unopposed() -> None:
    """7.1: SV < 1 is an automatic failure with no dice; the opponent's successes stand."""
    result = face_to_face(0, [], 11, [7, 3], N5)
    assert result.first.dice == ()
    assert result.second.successes == 2


# --- exhaustive enumeration --------------------------------------------------------------


def _reference_crit_faces(sv: int, convention: CritConvention) -> frozenset[int]:
    """Faces that are Criticals, written out from DIGEST 7.2 rather than derived per die."""
    if sv < 1:
        return frozenset()
    if sv <= 20:
        return frozenset({sv})
    excess = sv - 20
    if convention is N5:
        return frozenset({20, *range(1, excess + 1)})
    return frozenset(range(20 - excess, 21))  # face + excess >= 20


def _reference_outcome(
    sv_a: int, faces_a: tuple[int, ...], sv_b: int, faces_b: tuple[int, ...],
    convention: CritConvention,
) -> tuple[tuple[bool, ...], tuple[bool, ...], tuple[int, int, int, int]]:
    """Per die: a success survives iff the opponent has no Critical and, for a plain success,
    its value is strictly above every opponent success. Returns the per-die cancelled flags
    of both sides and the tallies (A plain, A crits, B plain, B crits)."""
    shift_a = max(0, sv_a - 20) if convention is N4 else 0
    shift_b = max(0, sv_b - 20) if convention is N4 else 0
    crits_a = _reference_crit_faces(sv_a, convention)
    crits_b = _reference_crit_faces(sv_b, convention)
    hit_a = [f <= sv_a for f in faces_a]
    hit_b = [f <= sv_b for f in faces_b]
    a_has_crit = any(h and f in crits_a for h, f in zip(hit_a, faces_a, strict=True))
    b_has_crit = any(h and f in crits_b for h, f in zip(hit_b, faces_b, strict=True))
    values_a = [f + shift_a for h, f in zip(hit_a, faces_a, strict=True) if h]
    values_b = [f + shift_b for h, f in zip(hit_b, faces_b, strict=True) if h]

    def side(faces: tuple[int, ...], hits: list[bool], crits: frozenset[int], shift: int,
             opp_crit: bool, opp_values: list[int]) -> tuple[tuple[bool, ...], int, int]:
        cancelled: list[bool] = []
        plain = crit = 0
        for face, hit in zip(faces, hits, strict=True):
            if not hit:
                cancelled.append(False)
                continue
            is_crit = face in crits
            alive = not opp_crit and (is_crit or all(v < face + shift for v in opp_values))
            cancelled.append(not alive)
            if alive and is_crit:
                crit += 1
            elif alive:
                plain += 1
        return tuple(cancelled), plain, crit

    ca, pa, ka = side(faces_a, hit_a, crits_a, shift_a, b_has_crit, values_b)
    cb, pb, kb = side(faces_b, hit_b, crits_b, shift_b, a_has_crit, values_a)
    return ca, cb, (pa, ka, pb, kb)


def _tallies(result: FaceToFace) -> tuple[int, int, int, int]:
    return (result.first.successes, result.first.criticals,
            result.second.successes, result.second.criticals)


# (first SV, first Burst, second SV, second Burst, convention): SV 1, SV 10 vs 13, SV 20,
# SV 21-23 (where the conventions differ), SV 0, and Bursts 1..3 vs 1..2. Three-dice pairings
# run under both conventions; the two four-dice pairings (160,000 combinations each) have
# SVs <= 20, where the conventions judge every face identically (see test_rolls), so each
# runs once -- one per convention -- to keep the whole enumeration to a few seconds.
PAIRINGS = [
    *[(*p, c) for p in [
        (1, 2, 13, 1),
        (20, 2, 20, 1),
        (22, 2, 16, 1),
        (23, 1, 21, 2),
        (23, 2, 22, 1),
        (21, 2, 12, 1),
        (0, 2, 12, 1),
        (11, 1, 11, 2),
    ] for c in (N4, N5)],
    (10, 2, 13, 2, N5),
    (13, 3, 12, 1, N4),
]


@pytest.mark.parametrize(("sv_a", "burst_a", "sv_b", "burst_b", "convention"), PAIRINGS)
def test_face_to_face_matches_reference_on_every_dice_combination(
    sv_a: int, burst_a: int, sv_b: int, burst_b: int, convention: CritConvention,
) -> None:
    """7.4, exhaustively: every combination of faces agrees with the reference resolver."""
    faces = range(1, 21)
    for roll_a in itertools.product(faces, repeat=burst_a):
        for roll_b in itertools.product(faces, repeat=burst_b):
            result = face_to_face(sv_a, roll_a, sv_b, roll_b, convention)
            cancelled_a, cancelled_b, tallies = _reference_outcome(
                sv_a, roll_a, sv_b, roll_b, convention
            )
            assert _tallies(result) == tallies, (roll_a, roll_b)
            assert result.first.cancelled == cancelled_a, (roll_a, roll_b)
            assert result.second.cancelled == cancelled_b, (roll_a, roll_b)
            assert not (result.first.scored and result.second.scored)


@pytest.mark.parametrize(("sv_a", "burst_a", "sv_b", "burst_b"),
                         [(22, 2, 16, 1), (23, 1, 21, 2), (21, 2, 12, 1)])
def test_n4_and_n5_give_the_same_outcome_distribution_above_sv_20(
    sv_a: int, burst_a: int, sv_b: int, burst_b: int,
) -> None:
    """7.2 / W3 note: the two SV>20 conventions relabel faces; the odds are identical."""
    distributions = {}
    for convention in (N4, N5):
        distributions[convention] = Counter(
            _tallies(face_to_face(sv_a, roll_a, sv_b, roll_b, convention))
            for roll_a in itertools.product(range(1, 21), repeat=burst_a)
            for roll_b in itertools.product(range(1, 21), repeat=burst_b)
        )
    assert distributions[N4] == distributions[N5]
    assert len(distributions[N5]) > 3  # a real spread of outcomes, not a degenerate one
