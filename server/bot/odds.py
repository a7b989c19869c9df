"""Exact odds of a roll from Success Values alone: a Normal Roll's and a Face to Face
roll's chance to score at least one success (DIGEST 7.2, 7.4).

Each die is judged by the rules core's own ``judge`` (a pure function of a face, an SV and
the ruleset's Critical convention), so the odds follow the same Criticals and values the
referee rolls with; only public numbers go in (the SVs ``options`` previews, a profile's
attribute the view shows)."""

from __future__ import annotations

from functools import cache

from server.rules.combat.rolls import CritConvention, judge
from server.rules.ruleset import Ruleset, options

FACES = range(1, 21)
NO_SUCCESS = 0


@cache
def _dice(sv: int, convention: CritConvention) -> tuple[tuple[int, bool, bool], ...]:
    """Each face's (value, success, critical) at ``sv``."""
    return tuple((d.value, d.success, d.critical)
                 for d in (judge(face, sv, convention) for face in FACES))


def _no_crit_at_most(sv: int, convention: CritConvention, best: float) -> float:
    """One die's chance to roll no Critical and no plain success above ``best``."""
    dice = _dice(sv, convention)
    return sum(1 for value, success, critical in dice
               if not critical and (not success or value <= best)) / 20


def _side(sv: int, dice: int, convention: CritConvention) -> tuple[float, dict[int, float]]:
    """A side's chance to hold a Critical, and, without one, the chance of each best plain
    success value (``NO_SUCCESS``: none)."""
    if sv < 1 or dice < 1:
        return 0.0, {NO_SUCCESS: 1.0}
    values = sorted({value for value, success, critical in _dice(sv, convention)
                     if success and not critical})
    no_crit = _no_crit_at_most(sv, convention, float("inf")) ** dice
    best: dict[int, float] = {}
    below = _no_crit_at_most(sv, convention, NO_SUCCESS) ** dice
    best[NO_SUCCESS] = below
    for value in values:
        upto = _no_crit_at_most(sv, convention, value) ** dice
        best[value] = upto - below
        below = upto
    return 1.0 - no_crit, best


def normal_odds(sv: int, dice: int, convention: CritConvention) -> float:
    """The chance that a Normal Roll of ``dice`` dice at ``sv`` scores at least once."""
    crit, best = _side(sv, dice, convention)
    return crit + sum(p for value, p in best.items() if value != NO_SUCCESS)


def face_to_face_odds(sv: int, dice: int, other_sv: int, other_dice: int,
                      convention: CritConvention) -> float:
    """The chance that the first side of a Face to Face roll keeps at least one success:
    a Critical against none, or a best plain success above the other side's best (a
    Critical on both sides cancels everything; ties cancel)."""
    crit, best = _side(sv, dice, convention)
    other_crit, other_best = _side(other_sv, other_dice, convention)
    odds = crit * (1.0 - other_crit)
    for value, p in best.items():
        if value == NO_SUCCESS:
            continue
        odds += p * sum(q for other, q in other_best.items() if other < value)
    return odds


def convention_of(ruleset: str) -> CritConvention:
    """The Critical convention of a ruleset as the view names it (DIGEST 7.2)."""
    return options(Ruleset(ruleset)).crit_convention
