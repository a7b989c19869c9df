"""Immunity and Shock Immunity: what a trooper's Immunity does to the saves it makes and the
States it may enter (infinitythewiki "Immunity", N5; "Shock Immunity" is the older name of
Immunity (Shock), and the catalogue maps both to the same category).

An Immunity names its category between brackets on the profile (``UnitProfile.immunities``):

* an ammunition ("Shock", "AP", "DA", "EXP", "T2", "E/M", "Stun"): against that ammunition
  the trooper saves as against Normal ammunition: one save per hit (two on a Critical), its
  ARM/BTS not halved, one wound per failed save, no State, and Shock's "Unconscious becomes
  Dead" gone;
* a State ("isolated", "immobilized_b", "stunned"): no effect or rule can put it in that
  State;
* "total": every ammunition is Normal ammunition to it, and it cannot be put in a State by
  an ammunition (Isolated, Immobilized-B, Stunned). What the wiki adds (Traits that reduce
  Attributes, weapons with special Traits) has no counterpart in the engine's weapons yet.

Judgement calls (docs/rules-decisions/skills.md "Immunity"): Stun and E/M treated as Normal
ammunition still use the weapon's save attribute and now cause wounds, as the page's "treat
it as Normal Ammunition" says literally; for Immunity (Total) they impose no State either.
"""

from __future__ import annotations

from ..armies.profiles import UnitProfile
from ..orders.warhorse import never_isolated
from .ammunition import Ammunition

TOTAL = "total"
STATE_IMMUNITIES = frozenset({"isolated", "immobilized_b", "stunned"})
"""The States an Immunity can name that the engine models."""


def _categories(profile: UnitProfile) -> frozenset[str]:
    return frozenset(category.casefold() for category in profile.immunities)


def ammunition_against(profile: UnitProfile, ammo: Ammunition) -> Ammunition:
    """The ammunition ``profile``'s saves treat ``ammo`` as: Normal when an Immunity covers
    it (its own category, or Total), else ``ammo`` itself."""
    categories = _categories(profile)
    if ammo is Ammunition.N:
        return ammo
    if TOTAL in categories or ammo.value.casefold() in categories:
        return Ammunition.N
    return ammo


def immune_to_state(profile: UnitProfile, state: str) -> bool:
    """True when no effect may put a trooper of ``profile`` in ``state`` (one of
    ``STATE_IMMUNITIES``): an Immunity naming it, or Immunity (Total)."""
    if state not in STATE_IMMUNITIES:
        raise ValueError(f"unknown State {state!r}")
    categories = _categories(profile)
    if state == "isolated" and never_isolated(profile):  # Warhorse (orders/warhorse.py)
        return True
    return state in categories or TOTAL in categories
