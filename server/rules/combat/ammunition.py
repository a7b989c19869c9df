"""Ammunition types and what they do to Saving Rolls (DIGEST 7.6).

Only the ammunition whose save count and effect are clear in the rules digest is listed.
Stun (DIGEST 7.6; official N5 Stun Ammunition and Ammunition Summary Chart, infinitythewiki):
one save per hit, two on a Critical, Non-Lethal, a failed save makes the target Stunned.
A weapon's own "Save Rolls" / "Save Attr." entries override these defaults; that override
belongs to the weapon data, not here.
"""

from __future__ import annotations

from enum import StrEnum


class Ammunition(StrEnum):
    """Ammunition types. ``EM`` is E/M; ``T2`` is Two Wounds."""

    N = "N"
    AP = "AP"
    DA = "DA"
    EXP = "EXP"
    SHOCK = "Shock"
    T2 = "T2"
    EM = "E/M"
    STUN = "Stun"
    SMOKE = "Smoke"
    ECLIPSE = "Eclipse"


class SaveAttribute(StrEnum):
    """The attribute a Saving Roll is made against."""

    ARM = "ARM"
    BTS = "BTS"


_SAVES_PER_HIT: dict[Ammunition, int] = {
    Ammunition.N: 1,
    Ammunition.AP: 1,
    Ammunition.DA: 2,
    Ammunition.EXP: 3,
    Ammunition.SHOCK: 1,
    Ammunition.T2: 1,
    Ammunition.EM: 2,
    Ammunition.STUN: 1,
    Ammunition.SMOKE: 0,
    Ammunition.ECLIPSE: 0,
}
"""Smoke and Eclipse hit no one (they place a zone, ``smoke.py``): no save ever."""


def saves_per_hit(ammo: Ammunition) -> int:
    """How many Saving Rolls one successful (non-critical) hit forces."""
    return _SAVES_PER_HIT[ammo]


def save_attribute(ammo: Ammunition) -> SaveAttribute:
    """The attribute the target saves with: BTS for E/M, ARM otherwise (Stun, like N, saves
    with ARM or BTS as its weapon says: the weapon's ``save_attribute``)."""
    return SaveAttribute.BTS if ammo is Ammunition.EM else SaveAttribute.ARM


def halves_armour(ammo: Ammunition) -> bool:
    """True when the ammunition halves the save attribute (rounding up).

    AP halves ARM; E/M halves BTS, which is the attribute E/M is saved against.
    """
    return ammo in (Ammunition.AP, Ammunition.EM)


def inflicts_wounds(ammo: Ammunition) -> bool:
    """False for ammunition whose failed saves impose a State instead of wounds: E/M
    (Isolated) and Stun (Stunned; Non-Lethal, ``stunned.py``)."""
    return ammo not in (Ammunition.EM, Ammunition.STUN, Ammunition.SMOKE, Ammunition.ECLIPSE)


def wounds_per_failed_save(ammo: Ammunition) -> int:
    """Wounds dealt by one failed regular save: 2 for T2, 1 otherwise (0 for E/M, Stun)."""
    if not inflicts_wounds(ammo):
        return 0
    return 2 if ammo is Ammunition.T2 else 1
