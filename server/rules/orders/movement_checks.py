"""A declared movement's route against what the trooper may move: the allowance of the
skill (MOV values, Jump, Super-Jump, Special Terrain), what it may pass over, and the bases
in its way (DIGEST 9; docs/rules-decisions/README.md for Jump heights)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..armies.skills import MOVEMENT_SKILLS, Climb, Jump, Skill
from ..combat.wounds import Condition
from ..decision import require
from ..ids import Side, TrooperId
from ..reasons import Reason
from ..state import ActiveOrder, GameState, TrooperState
from ..table.geometry import Body, Point
from ..table.routes import check_route
from ..table.terrain import Table
from . import super_jump
from .climbing_plus import climbs_while_moving
from .difficult_terrain import check_area_movement, effective_mov

JUMP_EXTRA = 2.0
"""N5 Jump: up to the first MOV value plus 2 inches (DIGEST 9)."""
JUMP_CLEARS = 2.0
"""A Jump passes over terrain up to this height (inches); see docs/rules-decisions/README.md."""


def movement_allowance(order: ActiveOrder, trooper: TrooperState, skill: Skill,
                       table: Table) -> float:
    """First movement of an Order uses the first MOV value, a second one the second; the
    Special Terrain area the trooper stands in changes both (``difficult_terrain``)."""
    mov = effective_mov(table, trooper)
    moved_before = any(isinstance(s, MOVEMENT_SKILLS) for s in order.skills)
    if isinstance(skill, Jump) and trooper.profile.super_jump:
        return super_jump.allowance(mov, moved_before)
    if isinstance(skill, Jump):
        return mov[0] + JUMP_EXTRA
    return float(mov[1] if moved_before else mov[0])


def obstacles(state: GameState, *exclude: TrooperId, mover: Side | None = None) -> tuple[Body, ...]:
    """Bases on the table that block movement (hidden troopers are not on the table). With
    ``mover``, that side's own troopers in Hidden Deployment block it too: their player knows
    where they are written down, as when deploying (``deployment.placement_problem``), and a
    model moved onto one would stand on it when it reveals. The enemy's never block (a
    refusal would tell where one is)."""
    # on_table and not is_null, spelled out: asked of every trooper at every movement.
    return tuple([
        t.body() for t in state.troopers.values()
        if t.position is not None and (not t.hidden or t.side is mover)
        and t.condition is Condition.NORMAL and t.id not in exclude
    ])


def check_movement(
    state: GameState, order: ActiveOrder, trooper: TrooperState, route: Sequence[Point], skill: Skill
) -> None:
    check_area_movement(state.table, order, trooper, skill, route)
    allowance = movement_allowance(order, trooper, skill, state.table)
    require(allowance > 0, Reason.SKILL_NOT_ALLOWED, f"{trooper.profile.name} cannot move.")
    crossing = (math.inf if isinstance(skill, Climb) or climbs_while_moving(trooper, skill)
                else allowance if isinstance(skill, Jump) and trooper.profile.super_jump
                else JUMP_CLEARS if isinstance(skill, Jump) else 0.0)
    problem = check_route(
        route, trooper.body(), allowance, state.table,
        obstacles(state, trooper.id, mover=trooper.side), crossing
    )
    if problem is not None:
        reason = Reason.ROUTE_TOO_LONG if problem.code == "route_too_long" else Reason.BAD_ROUTE
        require(False, reason, problem.message)
