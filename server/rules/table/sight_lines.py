"""The sampled sight lines between two bodies on a 2.5D table, which Line of Fire tests
(``line_of_fire``, DIGEST 10.1).

A sight line joins a point of one body's cylinder to a point of the other's. Sampling
(documented in docs/rules-decisions/geometry.md):

* plan view: the centre of each base, the five rim points of the half facing the other body
  (oriented on the line between the centres) and each base's point deepest into the other's
  front arc: the same points whichever body looks;
* a body that has the other in its front arc (or all-round vision) draws the lines that
  leave from the front half of its own base and land on the part of the other inside its
  arc (the N3 FAQ), from its top to the other's highest point that still shows the ~3 mm
  the rules ask for (``sight_height``). Nothing overhangs on this table, so a higher end
  point never makes a line more obstructed: these heights dominate every lower pair;
* reciprocity (DIGEST 10.1): the pair's lines are those either body draws, so when each has
  the other in its arc, A sees B exactly when B sees A -- a line one of them could draw,
  the other may fire back along. Every obstruction test takes the pair in one fixed order
  (``in_pair_order``), so even the rounding is the same both ways; only the front-arc test
  knows which body is the viewer. Cover (``cover.py``) samples several target heights
  because it asks how much of the target is hidden.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from server.rules.table.geometry import EPSILON, Body, Point, facing_vector

MIN_VISIBLE = 3.0 / 25.4
"""The smallest part of a target that counts as seen: about 3 mm (DIGEST 10.1)."""

_SQRT_HALF = math.sqrt(0.5)
_RIM = ((1.0, 0.0), (0.0, 1.0), (0.0, -1.0), (_SQRT_HALF, _SQRT_HALF), (_SQRT_HALF, -_SQRT_HALF))
"""Rim points sampled on each base, as (along, across) the line from its centre towards the
other body's, the most useful first: the half of the rim facing the other body (a line from
the far half crosses the near half of the same base, which never blocks it, so the near
half's points see what it would)."""

Line = tuple[Point, Point]
Ends = tuple[tuple[float, float], ...]
"""One or two (height at the first body, height at the second) pairs."""
Sight = tuple[Point, Point, Ends]
"""A sampled sight line: its plan ends, and the height of each end as each body that draws
it draws it (one or two pairs)."""


def sight_height(body: Body) -> float:
    """The highest point of a body a sight line may aim at and still see ~3 mm of it (half
    the height for a body lower than 6 mm)."""
    return body.height - min(MIN_VISIBLE, body.height / 2.0)


def in_pair_order(a: Body, b: Body) -> tuple[Body, Body]:
    """The two bodies in the order every obstruction test takes them, whichever looks: by
    position, then facing, Silhouette and vision (equal bodies in either order are one)."""
    (ax, ay), (bx, by) = a.position, b.position
    if ax != bx:
        return (a, b) if ax < bx else (b, a)
    if ay != by:
        return (a, b) if ay < by else (b, a)
    if a.facing != b.facing:
        return (a, b) if a.facing < b.facing else (b, a)
    if a.silhouette != b.silhouette:
        return (a, b) if a.silhouette < b.silhouette else (b, a)
    return (a, b) if b.all_round_vision or not a.all_round_vision else (b, a)


def _reach(origin: Point, facing: Point, point: Point) -> float:
    """How far ``point`` lies in front of the line through ``origin`` across the unit vector
    ``facing`` (negative behind it)."""
    return (point[0] - origin[0]) * facing[0] + (point[1] - origin[1]) * facing[1]


def looks(viewer: Body, facing: Point, target: Body) -> bool:
    """``in_front_arc`` with ``front_reach`` computed alike, the viewer's facing vector
    given: some part of the target's base lies strictly in the viewer's front arc (always,
    with all-round vision)."""
    return (viewer.all_round_vision
            or _reach(viewer.position, facing, target.position) + target.radius > EPSILON)


def _sample_points(a: Body, b: Body, fa: Point, fb: Point
                   ) -> tuple[tuple[Point, ...], tuple[Point, ...]]:
    """The sampled plan points of each base, (a's, b's): each centre, the rim points of
    ``_RIM`` (a's oriented towards b, b's towards a) and (unless the other has all-round
    vision) the rim point deepest into the other's front arc, last. Swapping a and b gives
    the same points, bit for bit (the directions are negated exactly)."""
    (ax, ay), (bx, by) = a.position, b.position
    dx, dy = bx - ax, by - ay
    length = math.hypot(dx, dy)
    ux, uy = (dx / length, dy / length) if length > EPSILON else (1.0, 0.0)
    nx, ny = -uy, ux
    ra, rb = a.radius, b.radius
    a_points = [(ax, ay)] + [(ax + ra * (along * ux + across * nx),
                              ay + ra * (along * uy + across * ny)) for along, across in _RIM]
    b_points = [(bx, by)] + [(bx - rb * (along * ux + across * nx),
                              by - rb * (along * uy + across * ny)) for along, across in _RIM]
    if not b.all_round_vision:
        a_points.append((ax + ra * fb[0], ay + ra * fb[1]))
    if not a.all_round_vision:
        b_points.append((bx + rb * fa[0], by + rb * fa[1]))
    return tuple(a_points), tuple(b_points)


def _drawable(viewer: Body, facing: Point, own: Sequence[Point], other: Sequence[Point]
              ) -> tuple[list[bool], list[bool]]:
    """Which of the viewer's points a line may leave from (the front half of its base, its
    edge included) and which of the other's points it may land on (strictly inside the
    arc; the other's last point, the one deepest into the arc, always: it is in the arc
    whenever any of the base is, and is kept without re-testing so that it stays so)."""
    if viewer.all_round_vision:
        return [True] * len(own), [True] * len(other)
    origin = viewer.position
    leave = [_reach(origin, facing, p) >= -EPSILON for p in own]
    land = [_reach(origin, facing, q) > EPSILON for q in other]
    land[-1] = True
    return leave, land


def lines_drawn_by(viewer: Body, target: Body) -> list[Line]:
    """The sampled plan lines the viewer itself draws to the target, as (point of the
    viewer, point of the target), the line between the centres first when it is one: none
    if the target is outside its front arc (see the module docstring). Cover asks these."""
    fv, ft = facing_vector(viewer.facing), facing_vector(target.facing)
    if not looks(viewer, fv, target):
        return []
    own, other = _sample_points(viewer, target, fv, ft)
    leave, land = _drawable(viewer, fv, own, other)
    return [(p, q) for i, p in enumerate(own) if leave[i]
            for j, q in enumerate(other) if land[j]]


def sight_lines(a: Body, b: Body) -> list[Sight]:
    """The pair's sampled sight lines, as (point of a, point of b, ends): ``ends`` holds the
    (height at a, height at b) of each body that draws the line -- a from its top to b's
    ``sight_height`` if b is in a's arc, b the other way if a is in b's -- so a plan line
    both draw is sampled at both pairs of heights and measured against the terrain once.
    The same lines, reversed, for (b, a): Line of Fire asks them in ``in_pair_order``."""
    fa, fb = facing_vector(a.facing), facing_vector(b.facing)
    return sight_lines_facing(a, b, fa, fb, looks(a, fa, b), looks(b, fb, a))


def sight_lines_facing(a: Body, b: Body, fa: Point, fb: Point, a_looks: bool, b_looks: bool
                 ) -> list[Sight]:
    """``sight_lines`` with the facing vectors and who looks at whom given."""
    a_points, b_points = _sample_points(a, b, fa, fb)
    none_a, none_b = [False] * len(a_points), [False] * len(b_points)
    # a drawing: leaves from a's points, lands on b's; b drawing: the other way round.
    a_leaves, a_lands = _drawable(a, fa, a_points, b_points) if a_looks else (none_a, none_b)
    b_leaves, b_lands = _drawable(b, fb, b_points, a_points) if b_looks else (none_b, none_a)
    by_a = ((a.height, sight_height(b)),)
    by_b = ((sight_height(a), b.height),)
    by_both = by_a + by_b
    lines: list[Sight] = []
    for i, p in enumerate(a_points):
        for j, q in enumerate(b_points):
            a_draws = a_leaves[i] and a_lands[j]
            if a_draws or (b_lands[i] and b_leaves[j]):
                lines.append((p, q, (by_both if b_lands[i] and b_leaves[j] else by_a)
                              if a_draws else by_b))
    return lines


def first_line(a: Body, b: Body, fa: Point, fb: Point, a_looks: bool, b_looks: bool
                ) -> Sight | None:
    """The line between the centres with the ends of each body that draws it (each centre is
    on the front half of its own base: a body draws it when it looks at the other and has
    the other's centre strictly in its arc, ``_drawable``); None if neither does. It is
    the first of ``sight_lines_facing`` then, made without the others."""
    a_draws = a_looks and (a.all_round_vision or _reach(a.position, fa, b.position) > EPSILON)
    b_draws = b_looks and (b.all_round_vision or _reach(b.position, fb, a.position) > EPSILON)
    ends: tuple[tuple[float, float], ...] = ()
    if a_draws:
        ends += ((a.height, sight_height(b)),)
    if b_draws:
        ends += ((sight_height(a), b.height),)
    return (a.position, b.position, ends) if ends else None
