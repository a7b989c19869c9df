"""The Engaged state (DIGEST 8, 9): a trooper in base contact with an enemy.

Engaged is not stored: it is read from the table. A trooper is Engaged while its base
touches the base of an enemy model on the table that is not in a Null state (an Unconscious
enemy does not hold it in close combat; a Camouflage Marker cannot be contacted as such,
DIGEST 12). While Engaged a trooper may declare only Berserk, CC Attack, Dodge, Idle or Reset
in its Active Turn, and only CC Attack, Dodge or Reset in ARO; it makes no Guts Roll (DIGEST 7.8);
a successful Dodge may move it out of contact (DIGEST 6.3).
"""

from __future__ import annotations

from ..armies.skills import Skill
from ..decision import require
from ..ids import TrooperId
from ..reasons import Reason
from ..state import GameState, TrooperState
from .geometry import in_base_contact

ACTIVE_SKILLS = frozenset({"berserk", "cc_attack", "dodge", "idle", "reset"})
"""What an Engaged trooper may declare in its Active Turn (DIGEST 8, Engaged row)."""
ARO_SKILLS = frozenset({"cc_attack", "dodge", "reset"})
"""What an Engaged trooper may declare in ARO."""
_SHOWN = {"berserk": "Berserk", "cc_attack": "CC Attack", "dodge": "Dodge", "idle": "Idle", "reset": "Reset"}
"""The skills above as the players' rules name them (the messages never show type ids)."""


def engaged_with(state: GameState, trooper: TrooperState) -> tuple[TrooperId, ...]:
    """The enemies holding ``trooper`` in close combat (none if it is not on the table)."""
    if not trooper.on_table:
        return ()
    body = trooper.body()
    return tuple(
        enemy.id
        for enemy in state.troopers_of(trooper.side.other)
        if enemy.can_act and not enemy.marker and in_base_contact(body, enemy.body())
    )


def is_engaged(state: GameState, trooper: TrooperState) -> bool:
    return bool(engaged_with(state, trooper))


def check_engaged_may_declare(state: GameState, trooper: TrooperState, skill: Skill,
                              in_aro: bool) -> None:
    """Reject a skill an Engaged trooper may not declare (``skill_not_allowed``)."""
    allowed = ARO_SKILLS if in_aro else ACTIVE_SKILLS
    if skill.TYPE in allowed or not is_engaged(state, trooper):
        return
    shown = [_SHOWN[skill_type] for skill_type in sorted(allowed)
             if skill_type != "berserk" or trooper.profile.berserk]  # named to those who have it
    names = f"{', '.join(shown[:-1])} or {shown[-1]}"
    require(
        False,
        Reason.SKILL_NOT_ALLOWED,
        f"{trooper.profile.name} is Engaged (in base contact with an enemy): it may only "
        f"declare {names}.",
    )
