"""The bot's odds are exact: the chance to score of a Normal Roll and of a Face to Face roll
equals the count, over every combination of faces, of the rolls the rules core's own
``face_to_face`` and ``normal_roll`` judge as scoring (DIGEST 7.2, 7.4)."""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import pytest

from server.bot.odds import face_to_face_odds, normal_odds
from server.rules.combat.face_to_face import face_to_face
from server.rules.combat.rolls import CritConvention, normal_roll

FACES = range(1, 21)


def _counted_face_to_face(sv: int, dice: int, other_sv: int, other_dice: int,
                          convention: CritConvention) -> float:
    scored = total = 0
    for faces in product(FACES, repeat=dice + other_dice):
        total += 1
        result = face_to_face(sv, faces[:dice], other_sv, faces[dice:], convention)
        scored += result.first.scored
    return float(Fraction(scored, total))


@pytest.mark.parametrize("convention", list(CritConvention))
@pytest.mark.parametrize(("sv", "dice", "other_sv", "other_dice"), [
    (11, 1, 11, 1), (14, 2, 9, 1), (23, 1, 12, 2), (8, 2, 22, 1), (0, 2, 10, 1), (20, 1, 20, 1)])
def test_face_to_face_odds_match_every_roll(sv: int, dice: int, other_sv: int, other_dice: int,
                                            convention: CritConvention) -> None:
    assert face_to_face_odds(sv, dice, other_sv, other_dice, convention) == pytest.approx(
        _counted_face_to_face(sv, dice, other_sv, other_dice, convention))


@pytest.mark.parametrize("convention", list(CritConvention))
@pytest.mark.parametrize(("sv", "dice"), [(11, 1), (5, 3), (0, 2), (24, 2), (20, 2)])
def test_normal_odds_match_every_roll(sv: int, dice: int, convention: CritConvention) -> None:
    rolls = list(product(FACES, repeat=dice))
    scored = 0 if sv < 1 else sum(
        1 for faces in rolls
        if (lambda r: r.successes + r.criticals > 0)(normal_roll(sv, faces, convention)))
    assert normal_odds(sv, dice, convention) == pytest.approx(scored / len(rolls))
