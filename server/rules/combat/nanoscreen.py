"""Nanoscreen (DIGEST 10.6: "Nanoscreen = same as cover, no stacking"; the equipment's
wiki page was not among the stored pages): a trooper carrying it counts as in Partial Cover
against BS Attacks and Discover, wherever it stands: the attacker takes -3 (the MOD
``nanoscreen``) and the target +3 to its Saving Rolls against a BS Attack. It does not add
to Partial Cover from scenery: a trooper in both has the cover once (the MOD stays
``partial_cover``). Like Partial Cover, it gives nothing against CC or Direct Templates.

Judgement call (docs/rules-decisions/skills.md "Nanoscreen"): an Impetuous trooper keeps it
(DIGEST 3.6 denies it the cover of scenery; the Nanoscreen is carried).
"""

from __future__ import annotations

from ..state import TrooperState


def screened(target: TrooperState) -> bool:
    return target.profile.nanoscreen
