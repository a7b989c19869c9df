"""The Face to Face roll (DIGEST 7.4).

Both sides roll; failures are discarded; successes cancel each other:

1. If both sides have at least one Critical, every success of both sides is cancelled.
2. If only one side has Criticals, all the other side's successes are cancelled; the Critical
   side keeps its Criticals and each plain success strictly higher than the other side's best
   success.
3. Otherwise a plain success is cancelled when the opponent's best success value is greater
   than or equal to it (equal values cancel each other: a tie). A success that is itself
   cancelled still cancels lower enemy successes, which is why only the *best* value matters.

At most one side is left with surviving successes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from server.rules.combat.rolls import CritConvention, Die, judge


@dataclass(frozen=True, slots=True)
class SideResult:
    """One side of a Face to Face roll.

    ``cancelled[i]`` is True when ``dice[i]`` was a success that the opponent cancelled
    (failed dice are False there and are not successes). ``successes`` and ``criticals``
    count the surviving plain successes and surviving Criticals.
    """

    dice: tuple[Die, ...]
    cancelled: tuple[bool, ...]
    successes: int
    criticals: int

    @property
    def scored(self) -> bool:
        """True when at least one success of this side survived."""
        return self.successes + self.criticals > 0


@dataclass(frozen=True, slots=True)
class FaceToFace:
    """The outcome of a Face to Face roll between ``first`` and ``second``."""

    first: SideResult
    second: SideResult


def face_to_face(
    first_sv: int,
    first_faces: Sequence[int],
    second_sv: int,
    second_faces: Sequence[int],
    convention: CritConvention,
) -> FaceToFace:
    """Resolve a Face to Face roll. A side whose SV is below 1 passes no faces."""
    first = tuple(judge(face, first_sv, convention) for face in first_faces)
    second = tuple(judge(face, second_sv, convention) for face in second_faces)
    result = FaceToFace(first=_side(first, second), second=_side(second, first))
    assert not (result.first.scored and result.second.scored), "both sides cannot score"
    return result


def _side(own: tuple[Die, ...], opponent: tuple[Die, ...]) -> SideResult:
    opponent_crits = any(die.critical for die in opponent)
    opponent_best = _best_plain_value(opponent)
    cancelled: list[bool] = []
    plain = criticals = 0
    for die in own:
        kept = die.success and _survives(die, opponent_crits, opponent_best)
        cancelled.append(die.success and not kept)
        if kept and die.critical:
            criticals += 1
        elif kept:
            plain += 1
    return SideResult(dice=own, cancelled=tuple(cancelled), successes=plain, criticals=criticals)


def _survives(die: Die, opponent_crits: bool, opponent_best: int) -> bool:
    """Whether one success of a side survives the opponent's dice."""
    if opponent_crits:
        return False  # rule 1 (crit vs crit) and rule 2 (the non-crit side loses everything)
    if die.critical:
        return True
    # Rules 2 and 3 coincide here: the opponent has no Criticals, so its best success is its
    # best plain success, and a plain success survives only by being strictly higher.
    return die.value > opponent_best


def _best_plain_value(dice: tuple[Die, ...]) -> int:
    """The highest value among the non-critical successes, or 0 when there are none."""
    return max((die.value for die in dice if die.success and not die.critical), default=0)
