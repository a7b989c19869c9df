"""Total Reaction (infinitythewiki "Total Reaction"): in ARO the trooper shoots its BS weapon
with the weapon's full Burst, at a single target (DIGEST 6.1, 7.5: an ARO's Burst is 1
unless a rule says otherwise; this is such a rule).

The Burst is not split in ARO (DIGEST 7.5): every die goes at the one activated trooper it
targets. A Normal Roll rolls as many dice as the Burst; a Face to Face Roll compares every
die, as in the Active Turn (``face_to_face.py``). Direct Template weapons roll no dice, so
their ARO is unchanged.

Judgement call (docs/rules-decisions/skills.md "Total Reaction"): the skill is always used
(a player who wants fewer dice has no reason to); in Suppressive Fire an SF weapon keeps its
SF Mode (Burst 3), or the weapon's Burst if that is higher.
"""

from __future__ import annotations

from ..armies.weapons import Weapon
from ..state import TrooperState
from .direct_templates import is_direct_template

PLAIN_ARO_BURST = 1


def reaction_burst(trooper: TrooperState, weapon: Weapon) -> int:
    """The Burst of an ARO BS Attack outside Suppressive Fire: the weapon's own with Total
    Reaction, else 1."""
    if trooper.profile.total_reaction and not is_direct_template(weapon):
        return max(weapon.burst, PLAIN_ARO_BURST)
    return PLAIN_ARO_BURST
