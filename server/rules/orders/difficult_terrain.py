"""Moving in Special Terrain areas (infinitythewiki "Difficult Terrain", "Very Difficult
Terrain", "Special Terrain"; the skill that ignores them: ``terrain_skill``).

In our words, for a movement skill (Move, Cautious Movement, Jump, Climb) of the active
trooper:

* An area hinders a trooper unless its Terrain skill covers the area's Type.
* Entering contact with a hindering area ends the trooper's movement for the rest of the
  Order: a route that reaches such an area (one the base did not touch where the route
  starts) must end where the base first touches it, and no later movement skill of the same
  Order is accepted.
* A trooper that declares a movement skill while inside a hindering area moves with -1 inch
  on both MOV values (and so on a Jump's length, which counts from the first value).
* Very Difficult Terrain also allows one movement skill per Order while inside it
  (uncertain: the N5 page is not in our sources; docs/rules-decisions/deployment-skills.md).
* Inside an area of its Type a trooper with Terrain gains +1 inch on its first MOV value.

Several areas do not add up: inside two hindering areas the MOD is still -1.

A Dodge's or a failed Guts Roll's movement also stops where it enters a hindering area, with
no MOD inside (``reactive_move_problem``); an activated trooper that entered one this Order
may not move again by Dodging (``dodge_after_entering_problem``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..armies.skills import MOVEMENT_SKILLS, Skill
from ..decision import require
from ..reasons import Reason
from ..state import ActiveOrder, TrooperState
from ..table.geometry import Point
from ..table.routes import route_length
from ..table.special_terrain import (
    Difficulty,
    SpecialTerrainArea,
    areas_touching,
    first_contact,
)
from ..table.terrain import Table
from .terrain_skill import TERRAIN_BONUS, masters

DIFFICULT_MOD = 1
"""Inches taken from both MOV values inside a hindering area."""

STOP_TOLERANCE = 0.05
"""Inches a route may run past the point where the base first touches a hindering area
(the contact tolerance: a route drawn to end "at the edge")."""


@dataclass(frozen=True, slots=True)
class AreaEffect:
    """What the areas a trooper stands in do to its next movement skill."""

    mov: tuple[int, int]
    """Its MOV values with the areas' MODs and the Terrain bonus."""
    hindering: tuple[SpecialTerrainArea, ...]
    mastered: tuple[SpecialTerrainArea, ...]

    @property
    def one_movement_only(self) -> bool:
        return any(a.difficulty is Difficulty.VERY_DIFFICULT for a in self.hindering)


def area_effect(table: Table, trooper: TrooperState) -> AreaEffect:
    """The areas' effect on a movement skill the trooper declares where it stands."""
    mov = trooper.profile.mov
    if not table.special_terrain or trooper.position is None:
        return AreaEffect(mov, (), ())
    inside = areas_touching(trooper.body(), table.special_terrain)
    mastered = tuple(a for a in inside if masters(trooper.profile, a))
    hindering = tuple(a for a in inside if not masters(trooper.profile, a))
    first, second = mov
    if hindering:
        first, second = first - DIFFICULT_MOD, second - DIFFICULT_MOD
    if mastered:
        first += TERRAIN_BONUS
    return AreaEffect((max(0, first), max(0, second)), hindering, mastered)


def effective_mov(table: Table, trooper: TrooperState) -> tuple[int, int]:
    return area_effect(table, trooper).mov


def _entered_this_order(table: Table, order: ActiveOrder,
                        trooper: TrooperState) -> SpecialTerrainArea | None:
    """A hindering area the trooper touches now but did not where the Order began: it
    entered it during the Order, which ended its movement."""
    assert trooper.position is not None
    path = order.path if order.trooper == trooper.id else order.peripheral_paths.get(
        trooper.id, order.path)
    start = trooper.body().moved_to(path[0]) if path else trooper.body()
    before = {a.id for a in areas_touching(start, table.special_terrain)}
    for area in area_effect(table, trooper).hindering:
        if area.id not in before:
            return area
    return None


def check_area_movement(table: Table, order: ActiveOrder, trooper: TrooperState, skill: Skill,
                        route: Sequence[Point]) -> None:
    """Refuse a movement skill the Special Terrain areas forbid (module docstring)."""
    if not table.special_terrain or not isinstance(skill, MOVEMENT_SKILLS):
        return
    name = trooper.profile.name
    moved_before = any(isinstance(s, MOVEMENT_SKILLS) for s in
                       (order.skills if order.trooper == trooper.id
                        else order.peripheral_skills.get(trooper.id, ())))
    if moved_before:
        entered = _entered_this_order(table, order, trooper)
        require(entered is None, Reason.SKILL_NOT_ALLOWED,
                f"{name}'s movement ended this Order when it entered {entered.label}."
                if entered else "")
        effect = area_effect(table, trooper)
        very = next((a for a in effect.hindering
                     if a.difficulty is Difficulty.VERY_DIFFICULT), None)
        require(very is None, Reason.SKILL_NOT_ALLOWED,
                f"{name} is in {very.label}: only one movement skill per Order there."
                if very else "")
    stop = route_stop(table, trooper, route)
    if stop is not None and route_length(route) > stop[0] + STOP_TOLERANCE:
        distance, area = stop
        require(False, Reason.BAD_ROUTE,
                f"The route enters {area.label} after {distance:.1f} inches: entering it ends "
                f"{name}'s movement for this Order, so the route must end there.")


def route_stop(table: Table, trooper: TrooperState,
               route: Sequence[Point]) -> tuple[float, SpecialTerrainArea] | None:
    """Where along ``route`` the trooper first touches a hindering area it was not in where
    the route starts (inches, the area), or None."""
    if not route:
        return None
    radius = trooper.body().radius
    start = trooper.body().moved_to(route[0])
    already = {a.id for a in areas_touching(start, table.special_terrain)}
    best: tuple[float, SpecialTerrainArea] | None = None
    for area in table.special_terrain:
        if area.id in already or masters(trooper.profile, area):
            continue
        hit = first_contact(route, radius, area)
        if hit is not None and (best is None or hit < best[0]):
            best = (hit, area)
    return best


def reactive_move_problem(table: Table, trooper: TrooperState,
                          route: Sequence[Point]) -> str | None:
    """Why a Dodge's or a Guts Roll's movement may not take ``route``, or None: entering a
    hindering area ends any movement, whatever its type ("Difficult Terrain": it also
    affects a trooper that makes contact during an Order), so the route must end where the
    base first touches it. These 2 inches are no MOV value and Dodge has no Movement label
    in N5, so the -1 inch inside an area does not apply to them
    (docs/rules-decisions/deployment-skills.md, "Terrain")."""
    if not table.special_terrain:
        return None
    stop = route_stop(table, trooper, route)
    if stop is None or route_length(route) <= stop[0] + STOP_TOLERANCE:
        return None
    distance, area = stop
    return (f"the route enters {area.label} after {distance:.1f} inches: entering it ends "
            f"{trooper.profile.name}'s movement, so the route must end there.")


def dodge_after_entering_problem(table: Table, order: ActiveOrder, trooper: TrooperState,
                                 route: Sequence[Point]) -> str | None:
    """An activated trooper whose movement entered a hindering area this Order may not move
    again in it, not even by Dodging (its Dodge roll is still declared, without a route)."""
    if not table.special_terrain or not route or trooper.id not in order.activated:
        return None
    entered = _entered_this_order(table, order, trooper)
    if entered is None:
        return None
    return (f"{trooper.profile.name}'s movement ended this Order when it entered "
            f"{entered.label}: its Dodge may not move it.")
