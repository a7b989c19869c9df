"""ECM, electronic countermeasures (DIGEST 6: an Automatic skill; wiki "ECM", not in our
sources: the decision and what stays uncertain are in docs/rules-decisions/resolution.md,
"ECM").

In our words: a trooper with ECM (Hacker -3) or (Hacker -6) makes every enemy Comms Attack on
it roll with that MOD; it works on its own, always (Automatic), and needs no Order. Only
Comms Attacks are modified: the engine has no Guided attacks, so ECM (Guided) is not
refereed (the item catalogue says so on the list).
"""

from __future__ import annotations

from ..state import TrooperState
from .rolls import Mod


def ecm_mods(target: TrooperState) -> tuple[Mod, ...]:
    """The ECM MOD an enemy Comms Attack on ``target`` takes; none without ECM."""
    value = target.profile.ecm_hacker
    return (Mod("ecm", -value),) if value else ()
