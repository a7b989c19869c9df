"""Fireteam Bonuses that change a roll (N5, DIGEST 3.5; the wiki's N5 "Fireteam Bonuses").

A member of a Fireteam whose Level is 3 or more rolls Discover with +3; at Level 4 or more
its BS Attacks take +1 (BS, or the attribute its BS Weapon uses). In the Active Turn only
the leader rolls (the members follow it or stay Idle, ``orders/fireteams.py``); in the
Reactive Turn each member's ARO gets them. Level 5's Sixth Sense is
``orders/fireteams.grants_sixth_sense``. Not built: Level 2's BS Attack (+1 SD) and Level 3's
+1 Dodge (docs/rules-decisions/fireteams.md).
"""

from __future__ import annotations

from ..ids import TrooperId
from ..orders.fireteams import fireteam_level, team_of
from ..state import GameState
from .rolls import Mod

DISCOVER_LEVEL, DISCOVER_MOD = 3, 3
BS_LEVEL, BS_MOD = 4, 1


def fireteam_mods(state: GameState, trooper: TrooperId, skill: str) -> tuple[Mod, ...]:
    """The Fireteam Bonus MODs of ``trooper``'s roll of ``skill`` (a ``PlannedRoll.skill``)."""
    team = team_of(state, trooper)
    if team is None:
        return ()
    level = fireteam_level(state, team.members)
    if skill == "discover" and level >= DISCOVER_LEVEL:
        return (Mod("fireteam", DISCOVER_MOD),)
    if skill == "bs_attack" and level >= BS_LEVEL:
        return (Mod("fireteam", BS_MOD),)
    return ()
