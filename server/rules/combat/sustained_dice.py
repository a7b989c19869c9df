"""Sustained Dice (SD): a roll that rolls extra dice and then discards as many (the wiki's
N5 "Fireteam Bonuses", Level 2: "BS Attack (+1 SD)").

The extra die is not an extra shot: the Burst, the ammunition spent and the number of dice
that can score stay as declared; the player only picks which of the rolled dice to keep.
The referee discards for the player, always the die worth least to its owner: a failure
first, then the lowest plain success, a Critical last. Keeping a better die never loses a
hit or a cancellation in a Normal or a Face to Face Roll (a higher success cancels at least
what a lower one does), so this is the choice a player makes anyway
(docs/rules-decisions/fireteams.md "Level 2: +1 SD").
"""

from __future__ import annotations

from collections.abc import Sequence

from .rolls import Die


def _worth(die: Die) -> tuple[bool, bool, int]:
    """How much a die is worth to its owner: Criticals above plain successes above
    failures, a higher value above a lower one."""
    return (die.critical, die.success, die.value if die.success else 0)


def discarded(dice: Sequence[Die], extra: int) -> tuple[bool, ...]:
    """For each die, whether the owner discards it: the ``extra`` dice worth least (the
    earliest rolled of equal worth)."""
    ranked = sorted(range(len(dice)), key=lambda i: (_worth(dice[i]), i))
    dropped = set(ranked[:extra])
    return tuple(i in dropped for i in range(len(dice)))


def kept_faces(faces: Sequence[int], flags: Sequence[bool]) -> tuple[int, ...]:
    """The faces left once the discarded ones are set aside."""
    return tuple(face for face, dropped in zip(faces, flags, strict=True) if not dropped)
