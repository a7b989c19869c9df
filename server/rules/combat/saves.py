"""Saving Rolls (DIGEST 7.6), in both edition conventions.

* ``N5``: save SV = ARM/BTS + PS (+3 in Partial Cover); the save passes on d20 <= SV.
* ``N4`` (also CodeOne): Attack Damage = DAM - ARM/BTS (-3 in Partial Cover); the save fails
  on d20 <= Attack Damage.

Weapons are described once, by PS; under N4 the DAM used is ``20 - PS``, which gives exactly
the same failure chance for every roll (the two conventions differ only in which faces fail).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from server.rules.combat.ammunition import Ammunition, halves_armour, saves_per_hit
from server.rules.combat.dice import D20_FACES, check_face

PARTIAL_COVER_SAVE_BONUS = 3


class SaveConvention(StrEnum):
    """Which way a save face is compared (see the module docstring)."""

    N5 = "n5"
    N4 = "n4"


@dataclass(frozen=True, slots=True)
class SaveRoll:
    """One Saving Roll: the natural ``face``, the ``target`` it was compared to, the outcome."""

    face: int
    target: int
    failed: bool


def damage_from_ps(ps: int) -> int:
    """The N4 DAM equivalent to an N5 PS: ``DAM = 20 - PS``."""
    return D20_FACES - ps


def effective_armour(armour: int, ammo: Ammunition) -> int:
    """ARM/BTS after the ammunition: halved rounding up for AP (ARM) and E/M (BTS)."""
    return (armour + 1) // 2 if halves_armour(ammo) else armour


def save_target(
    armour: int,
    ps: int,
    ammo: Ammunition,
    partial_cover: bool,
    convention: SaveConvention,
) -> int:
    """The number a save face is compared with.

    ``armour`` is the target's ARM or BTS (whichever ``save_attribute(ammo)`` names).
    ``partial_cover`` must only be True for a BS Attack against a target in Partial Cover
    (never for Template weapons); the caller decides that.
    N5: the save SV (pass on face <= it). N4: the Attack Damage (fail on face <= it).
    """
    armour = effective_armour(armour, ammo)
    cover = PARTIAL_COVER_SAVE_BONUS if partial_cover else 0
    if convention is SaveConvention.N5:
        return armour + ps + cover
    return damage_from_ps(ps) - armour - cover


def judge_save(face: int, target: int, convention: SaveConvention) -> SaveRoll:
    """Judge one save face against the target from ``save_target``."""
    check_face(face)
    failed = face > target if convention is SaveConvention.N5 else face <= target
    return SaveRoll(face=face, target=target, failed=failed)


def saves_required(ammo: Ammunition, hits: int, criticals: int) -> int:
    """Saving Rolls forced by ``hits`` plain successes and ``criticals`` Critical successes.

    Every success forces ``saves_per_hit(ammo)`` saves; each Critical forces one more
    (N4/CodeOne/N5 Critical effect). Callers roll the extra Critical saves last, so the
    last ``criticals`` saves are the extra ones (this matters for T2, see ``wounds``).
    """
    if hits < 0 or criticals < 0:
        raise ValueError("hits and criticals must not be negative")
    return (hits + criticals) * saves_per_hit(ammo) + criticals
