"""Retreat! (DIGEST 11.4, 8; N4/N5, not CodeOne): when it starts and what it allows.

At its Tactical Phase the Active Player totals its Victory Points; at 25% of its army's
points or less, rounded up (400 -> 100, 300 -> 75, 250 -> 63, 200 -> 50, 150 -> 38), its
army is in Retreat! for the rest of the game (``game_sequence.tactical_phase``). Then every
trooper of that army may declare only Move, Discover, Idle, Cautious Movement, Dodge and
Reset in its Active Turn, and only Discover, Dodge and Reset in ARO (N5, DIGEST 8 states
table). Anything else is refused at declaration with ``in_retreat`` (the project refuses
what it can already see is impossible rather than turning it into Idle; docs/rules-
decisions.md). CodeOne has no Retreat!, so no army is ever in it there.
"""

from __future__ import annotations

import math
from fractions import Fraction

from ..armies.skills import Skill
from ..combat.courage import ignores_retreat
from ..decision import require
from ..reasons import Reason
from ..state import GameState, TrooperState
from . import warhorse

RETREAT_SHARE = Fraction(1, 4)
"""Retreat! when the surviving army is worth 25% of its points or less (DIGEST 11.4)."""

ACTIVE_SKILLS = frozenset({"move", "discover", "idle", "cautious_move", "dodge", "reset"})
"""What a trooper of an army in Retreat! may declare in its Active Turn (DIGEST 8, N5)."""
ARO_SKILLS = frozenset({"discover", "dodge", "reset"})
"""What it may declare in ARO."""

_NAMES = {"move": "Move", "discover": "Discover", "idle": "Idle",
          "cautious_move": "Cautious Movement", "dodge": "Dodge", "reset": "Reset"}


def retreat_threshold(army_points: int) -> int:
    """The most Victory Points an army may keep and be in Retreat!: 25%, rounded up
    (DIGEST 11.4's table: 250 points -> 63)."""
    return math.ceil(army_points * RETREAT_SHARE)


def in_retreat(state: GameState, trooper: TrooperState) -> bool:
    """Its army is in Retreat! and it is not a trooper with Courage, which never enters the
    Retreat! State (``combat/courage.py``), or with Warhorse (``warhorse.py``)."""
    return (trooper.side in state.retreat and not ignores_retreat(trooper)
            and not warhorse.ignores_retreat(trooper.profile))


def check_retreat_may_declare(state: GameState, trooper: TrooperState, skill: Skill,
                              in_aro: bool) -> None:
    """Refuse (``in_retreat``) a skill a trooper of an army in Retreat! may not declare."""
    allowed = ARO_SKILLS if in_aro else ACTIVE_SKILLS
    if skill.TYPE in allowed or not in_retreat(state, trooper):
        return
    names = ", ".join(_NAMES[name] for name in sorted(allowed, key=list(_NAMES).index))
    when = "in ARO" if in_aro else "in its Active Turn"
    require(
        False,
        Reason.IN_RETREAT,
        f"{trooper.id}'s army is in Retreat!: {when} it may only declare {names}.",
    )
