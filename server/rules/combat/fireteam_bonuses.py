"""Fireteam Bonuses that change a roll (N5, DIGEST 3.5; the wiki's N5 "Fireteam Bonuses").

By the team's Level (the bonuses add up):

* Level 2: a member's BS Attack rolls one extra die and discards one ("+1 SD",
  ``sustained_dice.py``): its Burst and the ammunition it spends do not change. With the
  Burst split between targets the extra die goes to the first target's dice.
* Level 3: +3 to a member's Discover, and +1 to its Dodge roll (a MOD, as a profile's
  "Dodge (+1)" reads; docs/rules-decisions/fireteams.md "Level 3: +1 Dodge").
* Level 4: +1 to a member's BS Attack (BS, or the attribute its BS Weapon uses).

Every bonus shows in the roll (a MOD named ``fireteam``, or ``PlannedRoll.sustained_dice``)
and so in ``options``' previews. In the Active Turn only the leader rolls (the members
follow it or stay Idle, ``orders/fireteams.py``); in the Reactive Turn each member's ARO
gets them. Level 5's Sixth Sense is ``orders/fireteams.grants_sixth_sense``.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..evolve import replace
from ..ids import TrooperId
from ..orders.fireteams import fireteam_level, team_of
from ..state import GameState
from .plan import PlannedRoll
from .rolls import Mod

SUSTAINED_DICE_LEVEL, SUSTAINED_DICE = 2, 1
DISCOVER_LEVEL, DISCOVER_MOD = 3, 3
DODGE_LEVEL, DODGE_MOD = 3, 1
BS_LEVEL, BS_MOD = 4, 1


def _level(state: GameState, trooper: TrooperId) -> int:
    """The Level of ``trooper``'s Fireteam, 0 when it is in none."""
    team = team_of(state, trooper)
    return 0 if team is None else fireteam_level(state, team.members)


def fireteam_mods(state: GameState, trooper: TrooperId, skill: str) -> tuple[Mod, ...]:
    """The Fireteam Bonus MODs of ``trooper``'s roll of ``skill`` (a ``PlannedRoll.skill``)."""
    level = _level(state, trooper)
    if skill == "discover" and level >= DISCOVER_LEVEL:
        return (Mod("fireteam", DISCOVER_MOD),)
    if skill == "dodge" and level >= DODGE_LEVEL:
        return (Mod("fireteam", DODGE_MOD),)
    if skill == "bs_attack" and level >= BS_LEVEL:
        return (Mod("fireteam", BS_MOD),)
    return ()


def with_sustained_dice(state: GameState,
                        rolls: Sequence[PlannedRoll]) -> tuple[PlannedRoll, ...]:
    """``rolls`` with Level 2's extra die on each member's BS Attack: on the first of its
    BS Attack rolls (one per target), so one BS Attack gets one extra die."""
    seen: set[TrooperId] = set()
    out: list[PlannedRoll] = []
    for roll in rolls:
        if (roll.skill == "bs_attack" and roll.trooper not in seen
                and _level(state, roll.trooper) >= SUSTAINED_DICE_LEVEL):
            seen.add(roll.trooper)
            roll = replace(roll, sustained_dice=roll.sustained_dice + SUSTAINED_DICE)
        out.append(roll)
    return tuple(out)
