"""The wound track and the Unconscious/Dead states (DIGEST 7.7, with ammunition from 7.6).

Wounds count up from 0. Wounds equal to VITA (N4: W/STR) -> Unconscious; more than VITA ->
Dead. (N4 phrases it as the attribute reaching 0 / going below 0: the same thresholds.)
The same track serves STR (Structure: remotes, TAGs); only Shock tells the two apart.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from server.rules.combat.ammunition import Ammunition, inflicts_wounds, wounds_per_failed_save

CRITICAL_EXTRA_SAVE_WOUNDS = 1
"""Wounds from a failed extra save forced by a Critical, even with T2 (DIGEST 7.2)."""


class Condition(StrEnum):
    """Where a trooper stands on its wound track."""

    NORMAL = "normal"
    UNCONSCIOUS = "unconscious"
    DEAD = "dead"


@dataclass(frozen=True, slots=True)
class WoundOutcome:
    """Wounds taken so far and the resulting condition."""

    wounds: int
    condition: Condition


def wounds_dealt(ammo: Ammunition, failed_saves: int, failed_extra_saves: int = 0) -> int:
    """Wounds caused by ``failed_saves`` failed saves, ``failed_extra_saves`` of which were
    the extra saves forced by Criticals (those deal one wound each, T2 included)."""
    if failed_saves < 0 or not 0 <= failed_extra_saves <= failed_saves:
        raise ValueError("need 0 <= failed_extra_saves <= failed_saves")
    regular = failed_saves - failed_extra_saves
    return regular * wounds_per_failed_save(ammo) + failed_extra_saves * CRITICAL_EXTRA_SAVE_WOUNDS


def apply_failed_saves(
    wounds_before: int,
    failed_saves: int,
    vita: int,
    ammo: Ammunition,
    condition_before: Condition,
    *,
    structure: bool,
    failed_extra_saves: int = 0,
    ignores_unconscious: bool = False,
) -> WoundOutcome:
    """Apply failed Saving Rolls of one ammunition type to a trooper.

    ``failed_saves`` counts every failed save; ``failed_extra_saves`` says how many of them
    were the extra saves forced by Criticals (only T2 treats those differently).
    ``vita`` is the trooper's VITA, or its STR when ``structure`` is true.

    * wounds == VITA -> Unconscious; wounds > VITA -> Dead.
    * Shock against a trooper with VITA 1: any failed save -> Dead. Not against STR 1 (a
      remote or TAG: Shock acts as Normal ammunition there), nor against VITA 2 or more
      (one wound per failed save on the usual track).
    * An Unconscious trooper that takes any further wound -> Dead.
    * A Dead trooper stays Dead and takes no further wounds.
    * ``ignores_unconscious`` (No Wound Incapacitation, Dogged: ``incapacitation.py``):
      wounds == VITA leaves it Normal, unless the wounds came from Shock on VITA (Dead).
    """
    if not inflicts_wounds(ammo):
        raise ValueError(f"{ammo.value} ammunition imposes a State, not wounds")
    if vita < 1 or wounds_before < 0:
        raise ValueError("VITA must be at least 1 and wounds must not be negative")
    dealt = wounds_dealt(ammo, failed_saves, failed_extra_saves)
    if condition_before is Condition.DEAD or dealt == 0:
        return WoundOutcome(wounds=wounds_before, condition=condition_before)
    wounds = wounds_before + dealt
    condition = _condition(wounds, vita, ammo, condition_before, structure=structure,
                           ignores_unconscious=ignores_unconscious)
    return WoundOutcome(wounds=wounds, condition=condition)


def _condition(wounds: int, vita: int, ammo: Ammunition, before: Condition, *,
               structure: bool, ignores_unconscious: bool = False) -> Condition:
    shock = ammo is Ammunition.SHOCK and not structure
    if shock and vita == 1:
        return Condition.DEAD
    if before is Condition.UNCONSCIOUS or wounds > vita:
        return Condition.DEAD
    if wounds < vita:
        return Condition.NORMAL
    if ignores_unconscious:  # NWI / Dogged keep it Normal; Shock cancels them (Dead)
        return Condition.DEAD if shock else Condition.NORMAL
    return Condition.UNCONSCIOUS
