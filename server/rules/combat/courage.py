"""Courage (infinitythewiki "Courage", N5): the trooper may pass any Guts Roll without rolling,
and Retreat! never reaches it (it acts normally to the end of the game; Loss of Lieutenant
still does).

* Guts (``guts.py``): a trooper with Courage passes its Guts Roll with no die, recorded as
  ``RollRecord.courage``, unless its owner's standing choice is to fail its Guts Rolls
  (``guts_choice.py``: choosing to fail is the other choice the skill leaves open). It
  passes even after a failed save against Stun in this Order: the N5 Stun Ammunition page
  makes its automatic Guts failure apply "unless Courage".
* Retreat! (``orders/retreat.py``): its declarations are never refused with ``in_retreat``.

Judgement calls (docs/rules-decisions/skills.md "Courage"): the choice to pass is taken as
made (a passed Guts Roll is never worse for its owner, who may still choose to fail); the
army still loses the game by Retreat! at the end of its turn (that is the army's state,
not the trooper's); Suppressive Fire is still cancelled by the army's Retreat!.
"""

from __future__ import annotations

from ..state import TrooperState


def passes_by_courage(trooper: TrooperState) -> bool:
    """Courage passes this trooper's Guts Roll with no die (unless its owner chose to fail,
    which ``guts.py`` checks first)."""
    return trooper.profile.courage


def ignores_retreat(trooper: TrooperState) -> bool:
    """Courage: the trooper cannot enter the Retreat! State."""
    return trooper.profile.courage
