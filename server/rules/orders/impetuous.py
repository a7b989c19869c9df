"""Impetuous (DIGEST 3.6; N4/N5, not CodeOne): what an Impetuous activation may declare and
where its movement must go, and the Partial Cover an Impetuous trooper never gets.

* The skill combinations (the N4/N5 list the DIGEST only names "a fixed set"): Move + Attack
  (BS, CC or Comms Attack), Move + Dodge, Move + Idle (each in either order), Move + Move,
  Jump, Climb. Idle may also follow any first skill, so Idle + Idle (the activation spent
  doing nothing) is accepted: a trooper that uses neither skill has declared Idle (DIGEST
  4.1), and the game must never wait on a trooper that can make no legal Move
  (docs/rules-decisions/README.md). Anything else is refused ``illegal_skill_combination``.
* Move, Jump or Climb in an Impetuous activation (``impetuous_route`` otherwise): the route
  ends in base contact with an enemy; or, when no enemy is within reach (the gap between
  the bases no longer than the MOV value), it goes towards the enemy Deployment Zone: never
  farther from it at any corner of the route, ending nearer than it started, and as long as
  the MOV value (Jump and Climb: the first MOV value) unless it ends inside that zone. A
  trooper that starts inside the enemy zone moves freely as long as it stays inside. The
  trooper must move (a route of one point is refused), which cancels Prone.
* At all times an Impetuous trooper gets no Partial Cover MOD (``mods``; N4 FAQ: the Partial
  Cover and Marker bullets apply at all times).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import pairwise

from ..armies.skills import Climb, Jump, Skill
from ..decision import require
from ..reasons import Reason
from ..state import ActiveOrder, GameState, OrderType, TrooperState
from ..table.geometry import Body, Point, distance, in_base_contact
from ..table.routes import route_length
from ..table.terrain import Zone
from .difficult_terrain import STOP_TOLERANCE, effective_mov, route_stop

ATTACKS = frozenset({"bs_attack", "cc_attack", "comms_attack"})
FIRST_SKILLS = frozenset({"move", "dodge", "idle", "jump", "climb", "berserk", *ATTACKS})
"""What an Impetuous activation may declare first."""
AFTER_MOVE = frozenset({"move", "dodge", "idle", *ATTACKS})
"""What may follow a Move; after any other first skill only Move or Idle may."""
TOLERANCE = 0.05
"""Inches of measuring slack, as for routes and base contact."""


def impetuous(order: ActiveOrder) -> bool:
    return order.order_type is OrderType.IMPETUOUS


def may_declare(first: str | None, name: str) -> bool:
    """Whether ``name`` fits the Impetuous combinations after ``first`` (None: first skill)."""
    if first is None:
        return name in FIRST_SKILLS
    if first == "move":
        return name in AFTER_MOVE
    return name in ("move", "idle")


def check_impetuous_skill(order: ActiveOrder, skill: Skill) -> None:
    if not impetuous(order):
        return
    first = order.skills[0].TYPE if order.skills else None
    require(
        may_declare(first, skill.TYPE),
        Reason.ILLEGAL_SKILL_COMBINATION,
        "An Impetuous activation allows only Move + Attack, Move + Dodge, Move + Idle (either "
        "order), Move + Move, Jump or Climb.",
    )


def required_length(state: GameState, order: ActiveOrder, trooper: TrooperState,
                    skill: Skill) -> float:
    """The full MOV value the movement must use: Move its first or second value, Jump and
    Climb the first (as the Special Terrain area it stands in leaves them)."""
    mov = effective_mov(state.table, trooper)
    if isinstance(skill, Jump | Climb):
        return float(mov[0])
    moved_before = any(s.TYPE in ("move", "jump", "climb") for s in order.skills)
    return float(mov[1] if moved_before else mov[0])


def enemy_zone(state: GameState, trooper: TrooperState) -> Zone | None:
    name = state.initiative.zones.get(trooper.side.other)
    return state.deployment_zones.get(name) if name is not None else None


def zone_gap(zone: Zone, point: Point) -> float:
    """How far a point is from the zone (0 inside it)."""
    x, y = point
    dx = max(zone.x0 - x, 0.0, x - zone.x1)
    dy = max(zone.y0 - y, 0.0, y - zone.y1)
    return math.hypot(dx, dy)


def enemies(state: GameState, trooper: TrooperState) -> list[TrooperState]:
    """The enemy models and markers on the table (what the player sees)."""
    return [t for t in state.troopers_of(trooper.side.other) if t.on_table and not t.is_null]


def in_reach(state: GameState, order: ActiveOrder, trooper: TrooperState, skill: Skill,
             start: Point) -> list[TrooperState]:
    """Enemies whose base the trooper could touch with this movement (straight-line gap)."""
    mover = trooper.body().moved_to(start)
    reach = required_length(state, order, trooper, skill) + TOLERANCE
    return [e for e in enemies(state, trooper) if distance(mover, e.body()) <= reach]


def check_impetuous_route(state: GameState, order: ActiveOrder, trooper: TrooperState,
                          skill: Skill, route: Sequence[Point]) -> None:
    """Refuse (``impetuous_route``) a movement that breaks DIGEST 3.6's priorities."""
    if not impetuous(order):
        return
    require(len(route) > 1 and route_length(route) > TOLERANCE, Reason.IMPETUOUS_ROUTE,
            "An Impetuous trooper that moves must move: draw its route.")
    mover = trooper.body()
    end = mover.moved_to(route[-1])
    if any(in_base_contact(end, e.body()) for e in enemies(state, trooper)):
        return
    reachable = in_reach(state, order, trooper, skill, route[0])
    require(
        not reachable,
        Reason.IMPETUOUS_ROUTE,
        "An Impetuous move must end in base contact with an enemy within reach ("
        + ", ".join(e.id for e in reachable) + ").",
    )
    zone = enemy_zone(state, trooper)
    if zone is None:
        return
    stop = route_stop(state.table, trooper, route)
    if stop is not None and abs(route_length(route) - stop[0]) <= STOP_TOLERANCE:
        full = stop[0]  # entering Difficult Terrain ended the move short of its MOV
    else:
        full = required_length(state, order, trooper, skill)
    _check_towards_zone(zone, mover, route, full)


def _check_towards_zone(zone: Zone, mover: Body, route: Sequence[Point], full: float) -> None:
    if all(zone.contains_body(mover.moved_to(p)) for p in route):
        return  # inside the enemy Deployment Zone it moves freely
    gaps = [zone_gap(zone, p) for p in route]
    require(
        all(b <= a + TOLERANCE for a, b in pairwise(gaps)),
        Reason.IMPETUOUS_ROUTE,
        "An Impetuous move goes towards the enemy Deployment Zone without doubling back: no "
        "part of the route may lead away from it.",
    )
    require(
        gaps[-1] < gaps[0] - TOLERANCE,
        Reason.IMPETUOUS_ROUTE,
        "An Impetuous move must end nearer the enemy Deployment Zone than it started.",
    )
    inside = zone.contains_body(mover.moved_to(route[-1]))
    length = route_length(route)
    require(
        inside or length >= full - TOLERANCE,
        Reason.IMPETUOUS_ROUTE,
        f"An Impetuous move must use its full MOV ({full:g} inches; this route is "
        f"{length:.2f}) unless it reaches an enemy or the enemy Deployment Zone.",
    )


def describe(state: GameState, order: ActiveOrder, trooper: TrooperState) -> dict[str, object]:
    """What ``options`` tells the client about an Impetuous activation's routes."""
    assert trooper.position is not None
    zone = enemy_zone(state, trooper)
    moved_before = any(s.TYPE in ("move", "jump", "climb") for s in order.skills)
    mov = effective_mov(state.table, trooper)
    full = float(mov[1] if moved_before else mov[0])
    return {
        "full_mov": {"move": full, "jump": float(mov[0]), "climb": float(mov[0])},
        "enemy_zone": state.initiative.zones.get(trooper.side.other),
        "inside_enemy_zone": zone is not None and zone.contains_body(trooper.body()),
        "charge": sorted(e.id for e in enemies(state, trooper)
                         if distance(trooper.body(), e.body()) <= full + TOLERANCE),
    }
