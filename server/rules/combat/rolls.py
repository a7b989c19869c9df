"""Success Values, MODs, Criticals and the Normal Roll (DIGEST 7.1-7.3).

A roll is judged die by die: ``judge`` turns a natural d20 face into a ``Die`` that says
whether it succeeds, whether it is a Critical, and which number it shows in a Face to Face
comparison. The two editions differ only when the SV is above 20 (``CritConvention``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from server.rules.combat.dice import D20_FACES, check_face

MOD_CAP = 12
"""The net MOD applied to a roll is clamped to -12..+12 (DIGEST 7.1)."""


class CritConvention(StrEnum):
    """How Criticals work when the SV is above 20 (DIGEST 7.2).

    * ``N5``: Critical on a natural 20 and on faces 1..(SV-20); faces compared as rolled.
    * ``N4`` (also CodeOne): every die gets +(SV-20); a modified result of 20 or more is a
      Critical; Face to Face compares the modified values.
    """

    N5 = "n5"
    N4 = "n4"


@dataclass(frozen=True, slots=True)
class Mod:
    """One modifier to a roll, named by where it comes from (``"range"``, ``"mimetism"``)."""

    source: str
    value: int


def total_mod(mods: Sequence[Mod]) -> int:
    """The net MOD: the sum of all MODs, clamped to [-MOD_CAP, +MOD_CAP].

    The cap applies to the net sum, not to each MOD (DIGEST W2: -21 +3 -> -12).
    """
    return max(-MOD_CAP, min(MOD_CAP, sum(mod.value for mod in mods)))


def success_value(attribute: int, mods: Sequence[Mod]) -> int:
    """SV = attribute + capped net MOD. May be below 1 or above 20."""
    return attribute + total_mod(mods)


def needs_no_roll(sv: int) -> bool:
    """True when the SV is below 1: the roll fails automatically and no dice are rolled."""
    return sv < 1


@dataclass(frozen=True, slots=True)
class Die:
    """One judged die.

    ``face`` is the natural d20. ``value`` is the number compared in a Face to Face roll: the
    face, except under N4 with SV above 20 where it is face + (SV-20). ``critical`` implies
    ``success``.
    """

    face: int
    value: int
    success: bool
    critical: bool


def judge(face: int, sv: int, convention: CritConvention) -> Die:
    """Judge one natural ``face`` against ``sv`` under ``convention``."""
    check_face(face)
    if needs_no_roll(sv):
        return Die(face=face, value=face, success=False, critical=False)
    if sv <= D20_FACES:
        return Die(face=face, value=face, success=face <= sv, critical=face == sv)
    excess = sv - D20_FACES
    if convention is CritConvention.N4:
        value = face + excess
        return Die(face=face, value=value, success=True, critical=value >= D20_FACES)
    return Die(face=face, value=face, success=True, critical=face == D20_FACES or face <= excess)


@dataclass(frozen=True, slots=True)
class NormalRoll:
    """A Normal Roll: ``successes`` counts plain (non-critical) successes only."""

    sv: int
    dice: tuple[Die, ...]
    successes: int
    criticals: int


def normal_roll(sv: int, faces: Sequence[int], convention: CritConvention) -> NormalRoll:
    """Judge a Normal Roll (no opposing roll). With SV below 1 callers roll no faces at all."""
    dice = tuple(judge(face, sv, convention) for face in faces)
    criticals = sum(1 for die in dice if die.critical)
    successes = sum(1 for die in dice if die.success) - criticals
    return NormalRoll(sv=sv, dice=dice, successes=successes, criticals=criticals)
