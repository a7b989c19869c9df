"""No Wound Incapacitation and Dogged: troopers that keep fighting at the Unconscious
threshold (infinitythewiki "No Wound Incapacitation" and "Dogged", N5).

When such a trooper takes as many wounds as its VITA/STR it does not become Unconscious: the
engine keeps it in the Normal condition at wounds == VITA (its NWI or Dogged token, shown by
the ``IncapacitationIgnored`` effect), so it keeps its Orders, AROs, Guts Rolls and automatic
skills and does not go Prone. Any further wound takes it past VITA, which is Dead, directly.

* Dogged lasts only for the rest of that Player Turn: the trooper's ``dogged_in`` records the
  turn, and the States Phase of that turn kills it (``orders/states_phase.py``).
* Shock ammunition (on VITA, not STR) cancels both: a trooper that reaches the threshold
  through a failed save against Shock goes Dead instead (``wounds.apply_failed_saves``).
* A trooper with both uses No Wound Incapacitation (it lasts; Dogged does not).
* Healing (``support_skills.py``): a trooper fighting on with NWI may be healed as an
  Unconscious one (a Doctor's or Paramedic's treatment, an Engineer's repair): passed, one
  Wound fewer and its NWI token gone; failed, Dead (the failure's Wound takes it past VITA).
  A trooper that used Dogged cannot be healed at all (``unhealable_by_dogged``).

Judgement calls (docs/rules-decisions/skills.md "No Wound Incapacitation and Dogged"): the
player's announcement is taken as made (using the skill is never worse than Unconscious, as
the engine models the game); a trooper already Unconscious cannot use either.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum

from ..armies.profiles import UnitProfile
from ..ids import TrooperId
from ..state import TrooperState
from .wounds import Condition


class IncapacitationSkill(StrEnum):
    """The skill that kept a trooper acting at its Unconscious threshold."""

    NWI = "nwi"
    DOGGED = "dogged"


def incapacitation_skill(profile: UnitProfile) -> IncapacitationSkill | None:
    """The skill ``profile`` uses when it reaches its Unconscious threshold, or None."""
    if profile.nwi:
        return IncapacitationSkill.NWI
    if profile.dogged:
        return IncapacitationSkill.DOGGED
    return None


def fights_on_with_nwi(trooper: TrooperState) -> bool:
    """Whether ``trooper`` is in the NWI state: at its Unconscious threshold (wounds == its
    VITA/STR) and kept Normal by No Wound Incapacitation. The wiki's "No Wound Incapacitation"
    (N5) lets it be healed as an Unconscious trooper is."""
    return (trooper.profile.nwi and trooper.condition is Condition.NORMAL
            and trooper.wounds >= trooper.profile.vita)


def unhealable_by_dogged(trooper: TrooperState) -> bool:
    """Whether ``trooper`` used Dogged: from then on no skill or equipment heals it
    (infinitythewiki "Dogged": the N4 revision says so in its effects; the stored N5 revision is cut
    off before that bullet, so this is carried over, docs/rules-decisions/skills.md)."""
    return trooper.dogged_in is not None and trooper.condition is Condition.NORMAL


def dogged_to_kill(troopers: Iterable[TrooperState]) -> tuple[TrooperId, ...]:
    """The troopers still standing on Dogged, whom the States Phase kills (by id)."""
    return tuple(sorted(trooper.id for trooper in troopers
                        if trooper.dogged_in is not None and trooper.condition is Condition.NORMAL))

