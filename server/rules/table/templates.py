"""The teardrop of a Direct Template weapon, in plan view (DIGEST 13; docs/rules-decisions/geometry.md).

A teardrop is the convex hull of two circles on one axis: a small one at its narrow end and a
large one at its wide end. Its narrow tip (the Blast Focus) touches the shooter's base where
the axis leaves it, and the axis runs from the shooter's centre towards the point aimed at.
A base is under the teardrop when the teardrop touches or covers any part of it.

Pure plane geometry: no terrain, no troopers, no rules state (``combat/direct_templates.py``
decides who is affected).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from server.rules.armies.weapons import TemplateShape, template_length
from server.rules.table.geometry import EPSILON, Body, Point, facing_vector


@dataclass(frozen=True, slots=True)
class TeardropSize:
    """A teardrop's measures, inches: from its narrow tip to its far edge (``length``), and
    the radii of the round narrow and wide ends."""

    length: float
    narrow_radius: float
    wide_radius: float

    def __post_init__(self) -> None:
        # The wide end must fit inside the length with room for the narrow end, or the
        # hull would not be a teardrop (and its side lines would not exist).
        if not 0.0 < self.narrow_radius < self.wide_radius < self.length / 2.0:
            raise ValueError(f"not a teardrop: {self!r}")


NARROW_RADIUS = 0.25
"""Radius of the narrow end, inches (a tip about half an inch wide)."""
_WIDE_RADIUS: dict[TemplateShape, float] = {
    TemplateShape.SMALL_TEARDROP: 1.75,
    TemplateShape.LARGE_TEARDROP: 2.25,
}
"""Radius of the wide end, inches: about 3.5 and 4.5 inches across (geometry.md)."""


def teardrop_size(shape: TemplateShape) -> TeardropSize:
    """The measures of a template shape; its length is ``template_length``'s."""
    return TeardropSize(template_length(shape), NARROW_RADIUS, _WIDE_RADIUS[shape])


@dataclass(frozen=True, slots=True)
class Teardrop:
    """A teardrop laid on the table: its narrow tip at ``focus``, pointing along the unit
    vector ``axis``."""

    focus: Point
    axis: Point
    size: TeardropSize

    @property
    def narrow_centre(self) -> Point:
        return _along(self.focus, self.axis, self.size.narrow_radius)

    @property
    def wide_centre(self) -> Point:
        return _along(self.focus, self.axis, self.size.length - self.size.wide_radius)

    @property
    def far_point(self) -> Point:
        """The end of the axis, at the far edge of the wide end."""
        return _along(self.focus, self.axis, self.size.length)


def _along(start: Point, axis: Point, distance: float) -> Point:
    return (start[0] + axis[0] * distance, start[1] + axis[1] * distance)


def place_teardrop(shooter: Body, aim: Point, size: TeardropSize) -> Teardrop:
    """The teardrop of a shooter aiming at ``aim``: its axis from the shooter's centre through
    ``aim``, its narrow tip on the rim of the shooter's base. Aiming at its own centre (no
    direction) points it along the shooter's facing."""
    (sx, sy), (ax, ay) = shooter.position, aim
    dx, dy = ax - sx, ay - sy
    length = math.hypot(dx, dy)
    axis = (dx / length, dy / length) if length > EPSILON else facing_vector(shooter.facing)
    return Teardrop(_along(shooter.position, axis, shooter.radius), axis, size)


def teardrop_distance(teardrop: Teardrop, point: Point) -> float:
    """Signed distance from ``point`` to the teardrop's edge: negative inside, zero on the
    edge, positive outside (the distance to it)."""
    size = teardrop.size
    ux, uy = teardrop.axis
    cx, cy = teardrop.narrow_centre
    px, py = point[0] - cx, point[1] - cy
    along = px * ux + py * uy            # along the axis, from the narrow end's centre
    across = abs(px * uy - py * ux)      # distance from the axis: the shape is symmetric
    span = size.length - size.wide_radius - size.narrow_radius  # between the two centres
    # The side lines touch both circles; their normal leans back by ``lean`` (the sine of
    # the half-angle at which the sides open).
    lean = (size.wide_radius - size.narrow_radius) / span
    upright = math.sqrt(1.0 - lean * lean)
    # Where the point projects onto the side line decides which part of the edge is nearest:
    # the narrow circle, the wide circle, or the straight side between them.
    side = across * lean + along * upright
    if side < 0.0:
        return math.hypot(along, across) - size.narrow_radius
    if side > upright * span:
        return math.hypot(along - span, across) - size.wide_radius
    return across * upright - along * lean - size.narrow_radius


def covers_point(teardrop: Teardrop, point: Point) -> bool:
    """The point lies under the teardrop or on its edge."""
    return teardrop_distance(teardrop, point) <= EPSILON


def touches_disc(teardrop: Teardrop, centre: Point, radius: float) -> bool:
    """Some part of the disc lies under the teardrop or touches its edge."""
    return teardrop_distance(teardrop, centre) <= radius + EPSILON


def touches_base(teardrop: Teardrop, body: Body) -> bool:
    """The teardrop touches or covers some part of the body's base."""
    return touches_disc(teardrop, body.position, body.radius)


def nearest_axis_point(teardrop: Teardrop, point: Point) -> Point:
    """The point of the segment between the two end circles' centres nearest ``point``."""
    (ax, ay), (bx, by) = teardrop.narrow_centre, teardrop.wide_centre
    dx, dy = bx - ax, by - ay
    t = ((point[0] - ax) * dx + (point[1] - ay) * dy) / (dx * dx + dy * dy)
    t = min(1.0, max(0.0, t))
    return (ax + t * dx, ay + t * dy)
