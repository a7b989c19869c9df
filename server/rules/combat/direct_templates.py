"""Who a Direct Template weapon's teardrop affects (DIGEST 13; docs/rules-decisions/resolution.md).

One template per Burst point, placed at declaration: its axis runs from the shooter's centre
(at its firing point) through the centre of the Main Target named for it (the ARO: the
active trooper, at the point of its path the ARO is taken against), its narrow tip on the
shooter's base (``table/templates.py``). Every trooper whose base it touches or covers is
affected, unless Total Cover stands between the Blast Focus (its tip) and that trooper:
terrain limits a template, intervening troopers do not. Then:

* the Main Target out of the area (beyond the teardrop's length, or behind terrain): the
  attack fails, no one is affected (``beyond_template_reach``);
* an ally of the shooter (Unconscious too) under it: the template is cancelled, no one is
  affected (``template_touches_ally``); the Order or ARO and a Disposable use are spent;
* otherwise every enemy under it that is not Null suffers the attack (no roll), each one
  eligible to react to it (its ARO: DIGEST 6.1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..armies.weapons import Weapon, WeaponKind
from ..ids import Side, TrooperId
from ..state import GameState, TrooperState
from ..table.geometry import Body, Point
from ..table.line_of_fire import blocked_by_terrain
from ..table.sight_lines import sight_height
from ..table.templates import (
    Teardrop,
    covers_point,
    nearest_axis_point,
    place_teardrop,
    teardrop_size,
    touches_base,
)
from ..table.terrain import Table
from .wounds import Condition

BEYOND_REACH = "beyond_template_reach"
TOUCHES_ALLY = "template_touches_ally"

_HALF = math.sqrt(0.5)
_RIM = ((1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0),
        (_HALF, _HALF), (-_HALF, _HALF), (-_HALF, -_HALF), (_HALF, -_HALF))
"""Unit directions of the rim points sampled on a base (with its centre) for Total Cover."""


@dataclass(frozen=True, slots=True)
class TemplateArea:
    """One template as placed: who it affects and whether it goes off at all."""

    teardrop: Teardrop
    main_target: TrooperId
    main_reached: bool
    enemies: tuple[TrooperId, ...]
    """Enemies of the shooter under it, not Null, Main Target included (roster order)."""
    allies: tuple[TrooperId, ...]
    """Allies of the shooter under it (any but the Dead): each cancels the template."""

    @property
    def problem(self) -> str | None:
        """Why it affects no one (a ``BecameIdle`` reason), or None."""
        if not self.main_reached:
            return BEYOND_REACH
        if self.allies:
            return TOUCHES_ALLY
        return None

    @property
    def affected(self) -> tuple[TrooperId, ...]:
        """The enemies that suffer the attack: none when it fails or is cancelled."""
        return self.enemies if self.problem is None else ()


def is_direct_template(weapon: Weapon) -> bool:
    return weapon.kind is WeaponKind.DIRECT_TEMPLATE and weapon.template is not None


def template_area(state: GameState, shooter: TrooperState, shooter_body: Body, weapon: Weapon,
                  main_target: TrooperState, main_body: Body | None = None) -> TemplateArea:
    """The template ``shooter`` (standing as ``shooter_body``) places with ``weapon`` on
    ``main_target`` (standing as ``main_body``, by default where it is). Every other trooper
    is taken where it stands; the shooter itself is never under its own template."""
    return template_area_of(state, shooter.id, shooter.side, shooter_body, weapon, main_target,
                            main_body)


def template_area_of(state: GameState, shooter_id: TrooperId | None, side: Side,
                     shooter_body: Body, weapon: Weapon, main_target: TrooperState,
                     main_body: Body | None = None) -> TemplateArea:
    """``template_area`` for a shooter of ``side`` that may not be a trooper (a Mine,
    ``mines.py``: ``shooter_id`` None)."""
    assert weapon.template is not None, f"{weapon.id} is not a Direct Template weapon"
    target_body = main_body if main_body is not None else main_target.body()
    teardrop = place_teardrop(shooter_body, target_body.position, teardrop_size(weapon.template))
    height = shooter_body.height

    def under(body: Body) -> bool:
        return touches_base(teardrop, body) and _clear_of_terrain(teardrop, height, body,
                                                                   state.table)

    enemies: list[TrooperId] = []
    allies: list[TrooperId] = []
    for trooper in state.troopers.values():
        if trooper.id == shooter_id or not trooper.on_table:
            continue
        body = target_body if trooper.id == main_target.id else trooper.body()
        if not under(body):
            continue
        if trooper.side is side:
            if trooper.condition is not Condition.DEAD:
                allies.append(trooper.id)
        elif not trooper.is_null:
            enemies.append(trooper.id)
    return TemplateArea(teardrop, main_target.id, main_target.id in enemies, tuple(enemies),
                        tuple(allies))


def _clear_of_terrain(teardrop: Teardrop, height: float, body: Body, table: Table) -> bool:
    """Some point of the base under the teardrop is joined to the Blast Focus by a line that
    no terrain blocks (a sight line from the shooter's height; troopers do not block)."""
    if not table.terrain:
        return True
    top = sight_height(body)
    return any(not any(blocked_by_terrain(teardrop.focus, point, height, top, piece)
                       for piece in table.terrain)
               for point in _base_points_under(teardrop, body))


def _base_points_under(teardrop: Teardrop, body: Body) -> tuple[Point, ...]:
    """Sampled points of the base that lie under the teardrop: its centre, eight rim points
    and the rim point nearest the teardrop's axis (under it whenever the base is touched)."""
    (x, y), r = body.position, body.radius
    axis = nearest_axis_point(teardrop, body.position)
    dx, dy = axis[0] - x, axis[1] - y
    length = math.hypot(dx, dy)
    nearest = (x + r * dx / length, y + r * dy / length) if length > r else axis
    points = [(x, y), nearest, *((x + r * ux, y + r * uy) for ux, uy in _RIM)]
    under = tuple(p for p in points if covers_point(teardrop, p))
    return under or (nearest,)
