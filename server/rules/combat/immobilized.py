"""The Immobilized-B state (DIGEST 7.6, 8): what E/M adds on HI, TAG and REM troopers.

* **Caused by** a failed BTS Saving Roll against E/M by a trooper of troop type HI, TAG or
  REM (VH, also named by the digest, is not a troop type here), alongside Isolated
  (``damage.resolve_hits``: an ``ImmobilizedBSet`` effect).
* **Declarations**: Reset only (``skill_not_allowed`` otherwise), in its Active Turn and in
  ARO. In its Active Turn it may also declare Idle: a skill a trooper does not use counts as
  Idle (DIGEST 4.1), and Idle keeps an activated trooper's Order completable.
* **Reset** at WIP -3 (``mods.reset_mods``); a successful Reset cancels it
  (``resolution._resets``: ``ImmobilizedBCleared``).
* It still brings its Order at the Order Count (not Null), and makes no Guts Roll
  (DIGEST 7.8: "not Engaged, Null or IMM"; ``guts.guts_rolls``).

Not built: Immobilized-A (PARA ammunition is not modelled), Engineer cancelling it.
"""

from __future__ import annotations

from ..armies.profiles import TroopType
from ..armies.skills import Skill
from ..decision import require
from ..reasons import Reason
from ..state import GameState, TrooperState

TROOP_TYPES = frozenset({TroopType.HI, TroopType.TAG, TroopType.REM})
"""Troop types E/M also makes Immobilized-B (DIGEST 7.6)."""
IMMOBILIZED_B_RESET_MOD = -3
"""To an Immobilized-B trooper's own Reset (DIGEST 8)."""
ACTIVE_SKILLS = frozenset({"reset", "idle"})
ARO_SKILLS = frozenset({"reset"})


def immobilized_by_em(trooper: TrooperState) -> bool:
    """Whether a failed E/M save also makes ``trooper`` Immobilized-B (HI, TAG, REM)."""
    return trooper.profile.troop_type in TROOP_TYPES


def check_immobilized_may_declare(state: GameState, trooper: TrooperState, skill: Skill,
                                  in_aro: bool) -> None:
    """Refuse (``skill_not_allowed``) what an Immobilized-B trooper may not declare."""
    allowed = ARO_SKILLS if in_aro else ACTIVE_SKILLS
    if skill.TYPE in allowed or not trooper.immobilized_b:
        return
    names = "Reset" if in_aro else "Reset (or Idle)"
    require(
        False,
        Reason.SKILL_NOT_ALLOWED,
        f"{trooper.id} is Immobilized-B: it may only declare {names} until a successful "
        "Reset cancels the state.",
    )
