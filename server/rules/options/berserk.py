"""What ``options`` offers of Berserk (``orders/berserk.py``): for each CC weapon, the enemies
a Berserk reaches from where the trooper stands, each with the route it would take (straight
to where the bases touch), its allowance (both MOV values added) and what Resolution would
make of the CC Attack at the end of it (``previews``: the MODs with the Berserk MOD, and the
final Success Value). An enemy a straight route does not reach (too far, blocked, out of LoF)
is not offered: a Berserk declared at it all the same is an Idle or refused. A player may
still draw a route of their own; the rules core judges it on declaration.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from .. import commands as c
from ..armies.skills import Berserk, Skill
from ..armies.weapons import WeaponKind
from ..combat.wounds import Condition
from ..ids import Side
from ..orders.berserk import allowance
from ..plain import Plain
from ..previews import preview, shown
from ..state import GameState, TrooperState
from ..table.geometry import Point
from .accepted import carried_weapons


def straight_route(trooper: TrooperState, target: TrooperState) -> tuple[Point, ...]:
    """From where the trooper stands straight towards the target, to where the bases touch
    (a single point when they touch already)."""
    start, aim = trooper.body(), target.body()
    dx, dy = aim.position[0] - start.position[0], aim.position[1] - start.position[1]
    gap = math.hypot(dx, dy)
    touching = start.radius + aim.radius
    if gap <= touching:
        return (start.position,)
    scale = (gap - touching) / gap
    return (start.position, (start.position[0] + dx * scale, start.position[1] + dy * scale))


def berserk_offers(state: GameState, side: Side, trooper: TrooperState, allowed: list[str],
                   legal: Callable[[Skill], bool]) -> dict[str, Plain]:
    if "berserk" not in allowed or not trooper.profile.berserk:
        return {}
    enemies = [t for t in state.troopers_of(side.other)
               if t.on_table and t.condition is not Condition.DEAD]
    found: dict[str, Plain] = {}
    for weapon in carried_weapons(state, trooper, (WeaponKind.CLOSE_COMBAT,)):
        offers: dict[str, Plain] = {}
        for enemy in enemies:
            route = straight_route(trooper, enemy)
            skill = Berserk(weapon.id, enemy.id, route)
            if not legal(skill):
                continue
            plan = preview(state, side, c.DeclareSkill(skill))
            if plan is not None and (seen := shown(state, side, plan)) is not None:
                offers[enemy.id] = {"route": [list(p) for p in route],
                                    "allowance": allowance(trooper), **seen}
        if offers:
            found[weapon.id] = offers
    return found
