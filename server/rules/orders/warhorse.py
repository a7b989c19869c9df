"""Warhorse (infinitythewiki "Warhorse", N5; the N5 successor of N4's Veteran: the wiki's N5
"Retreat! and Loss of Lieutenant Summary Chart" puts Warhorse in the row Veteran had;
docs/rules-decisions/skills.md "Warhorse"). An Automatic Skill:

* Loss of Lieutenant does not reach it: it stays Regular, its Order goes to its Combat
  Group's pool (``order_pool.count_orders``).
* The Retreat! situation does not reach it: it stays Regular and never enters the Retreat!
  State, acting normally to the end of the game (``retreat.in_retreat``, as Courage).
* It cannot enter the Isolated State (``combat/immunity.immune_to_state``, as Immunity
  (Isolated)).

The page's last point (BS Attack (-X) has no effect on it) has nothing to act on: the engine
has no BS Attack (-X) skill.
"""

from __future__ import annotations

from ..armies.profiles import UnitProfile


def keeps_regular(profile: UnitProfile) -> bool:
    """Loss of Lieutenant (and the Retreat! situation, which brings it) leaves it Regular."""
    return profile.warhorse


def ignores_retreat(profile: UnitProfile) -> bool:
    """It never enters the Retreat! State."""
    return profile.warhorse


def never_isolated(profile: UnitProfile) -> bool:
    """No effect puts it in the Isolated State."""
    return profile.warhorse
