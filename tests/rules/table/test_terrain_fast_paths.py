"""``inside_intervals``, ``blocked_by_terrain``, ``has_line_of_fire`` and ``RouteSight`` skip
work whose answer is known (a segment outside the footprint's box, an edge too far to touch a
midpoint, a sight line deep inside or far outside a convex footprint taller than it, a piece
lower than the whole line, a target wholly in the shadow of such a footprint, the first line
clear so no shadow to test, a route's samples shared by every viewer); their answers must stay
exactly those of the plain computation, kept here as the reference.

Implementation test: no rule section. Speed-ups checked against the plain computation."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from server.rules.ids import TerrainId
from server.rules.table.geometry import EPSILON, Body, Point, in_front_arc, point_to_segment_distance
from server.rules.table.line_of_fire import (
    blocked_by_body,
    blocked_by_terrain,
    has_line_of_fire,
    terrain_between,
)
from server.rules.table.polygons import (
    cone_extreme,
    inside_intervals,
    point_in_polygon,
    segment_meets_interior,
    segment_passes_with_room,
    shadow_holds_disc,
)
from server.rules.table.route_sight import RouteSight, points_of_route_in_lof, sees_any_point_of_route
from server.rules.table.routes import route_samples
from server.rules.table.sight_lines import in_pair_order, sight_lines
from server.rules.table.silhouettes import KNOWN_SIZES
from server.rules.table.terrain import Table, TerrainPiece, codeone_table


def reference_inside_intervals(p: Point, q: Point,
                               polygon: Sequence[Point]) -> list[tuple[float, float]]:
    px, py = p
    dx, dy = q[0] - px, q[1] - py
    cuts = [0.0, 1.0]
    for i in range(len(polygon)):
        ax, ay = polygon[i - 1]
        bx, by = polygon[i]
        ex, ey = bx - ax, by - ay
        denom = dx * ey - dy * ex
        apx, apy = ax - px, ay - py
        if abs(denom) <= EPSILON:
            continue
        t = (apx * ey - apy * ex) / denom
        u = (apx * dy - apy * dx) / denom
        if 0.0 <= t <= 1.0 and -EPSILON <= u <= 1.0 + EPSILON:
            cuts.append(t)
    cuts.sort()
    intervals: list[tuple[float, float]] = []
    for t0, t1 in itertools.pairwise(cuts):
        if t1 - t0 <= EPSILON:
            continue
        mid = (t0 + t1) / 2.0
        middle = (px + mid * dx, py + mid * dy)
        on_boundary = any(point_to_segment_distance(middle, polygon[i - 1], polygon[i]) <= EPSILON
                          for i in range(len(polygon)))
        if point_in_polygon(middle, polygon) and not on_boundary:
            if intervals and abs(intervals[-1][1] - t0) <= EPSILON:
                intervals[-1] = (intervals[-1][0], t1)
            else:
                intervals.append((t0, t1))
    return intervals


# Coordinates on a coarse grid as well as anywhere: grid points make segments that run
# along edges, graze vertices and touch boxes exactly -- the cases the shortcuts must respect.
coordinate = st.one_of(st.integers(0, 8).map(float),
                       st.floats(0.0, 8.0, allow_nan=False, allow_infinity=False))
point = st.tuples(coordinate, coordinate)
polygon = st.lists(point, min_size=3, max_size=7).map(tuple)


@settings(max_examples=400, deadline=None)
@given(point, point, polygon)
def test_inside_intervals_equals_the_plain_computation(p: Point, q: Point,
                                                       footprint: tuple[Point, ...]) -> None:
    assert inside_intervals(p, q, footprint) == reference_inside_intervals(p, q, footprint)


def test_edge_cases_equal_the_plain_computation() -> None:
    square = ((1.0, 1.0), (3.0, 1.0), (3.0, 3.0), (1.0, 3.0))
    cases = [((0.0, 1.0), (4.0, 1.0)),   # along an edge
             ((0.0, 0.0), (4.0, 4.0)),   # through two corners
             ((0.0, 2.0), (1.0, 2.0)),   # ends on an edge
             ((0.0, 4.0), (4.0, 0.0)),   # the other diagonal
             ((2.0, 2.0), (2.0, 2.5)),   # wholly inside
             ((3.0 + 1e-7, 0.0), (3.0 + 1e-7, 4.0)),  # just outside, within the margin
             ((5.0, 5.0), (6.0, 6.0))]   # far outside
    for p, q in cases:
        assert inside_intervals(p, q, square) == reference_inside_intervals(p, q, square)


def reference_blocked_by_terrain(p: Point, q: Point, height_p: float, height_q: float,
                                 piece: TerrainPiece) -> bool:
    rise = height_q - height_p
    return any(min(height_p + t0 * rise, height_p + t1 * rise) <= piece.height + EPSILON
               for t0, t1 in reference_inside_intervals(p, q, piece.polygon))


def convex_hull(points: Sequence[Point]) -> tuple[Point, ...]:
    ordered = sorted(set(points))
    if len(ordered) < 3:
        return tuple(ordered)

    def half(seq: Sequence[Point]) -> list[Point]:
        out: list[Point] = []
        for point in seq:
            while len(out) >= 2 and ((out[-1][0] - out[-2][0]) * (point[1] - out[-2][1])
                                     - (out[-1][1] - out[-2][1]) * (point[0] - out[-2][0])) <= 0:
                out.pop()
            out.append(point)
        return out

    lower, upper = half(ordered), half(ordered[::-1])
    return tuple(lower[:-1] + upper[:-1])


height = st.one_of(st.sampled_from([0.0, 1.0, 2.0, 4.0]), st.floats(0.0, 5.0))
hull = st.lists(point, min_size=3, max_size=8).map(convex_hull).filter(lambda h: len(h) >= 3)


@settings(max_examples=600, deadline=None)
@given(point, point, height, height, st.one_of(polygon, hull), height, st.booleans())
def test_blocked_by_terrain_equals_the_plain_computation(
        p: Point, q: Point, height_p: float, height_q: float, footprint: tuple[Point, ...],
        piece_height: float, clockwise: bool) -> None:
    """Convex footprints take the clipping shortcut, others the cutting; both must give the
    plain computation's answer, on grid points (edges, corners) as anywhere."""
    outline = footprint[::-1] if clockwise else footprint
    piece = TerrainPiece(TerrainId("t"), outline, piece_height)
    assert blocked_by_terrain(p, q, height_p, height_q, piece) == reference_blocked_by_terrain(
        p, q, height_p, height_q, piece)


def test_blocked_by_terrain_edge_cases_equal_the_plain_computation() -> None:
    square = TerrainPiece(TerrainId("sq"), ((1.0, 1.0), (3.0, 1.0), (3.0, 3.0), (1.0, 3.0)), 4.0)
    cases = [((0.0, 1.0), (4.0, 1.0)), ((0.0, 0.0), (4.0, 4.0)), ((0.0, 2.0), (1.0, 2.0)),
             ((0.0, 4.0), (4.0, 0.0)), ((2.0, 2.0), (2.0, 2.5)), ((1.0, 0.0), (1.0, 4.0)),
             ((1.0 + 1e-7, 0.0), (1.0 + 1e-7, 4.0)), ((1.0 - 1e-7, 0.0), (1.0 - 1e-7, 4.0)),
             ((0.0, 2.0), (1.0 + 1e-7, 2.0)), ((5.0, 5.0), (6.0, 6.0))]
    for p, q in cases:
        # Lines just over the piece's top (within EPSILON, and just past it) as well.
        for low, high in ((1.0, 2.0), (3.99, 3.99), (4.0, 4.0), (5.0, 0.0),
                          (4.0 + 1e-9, 4.0 + 1e-9), (4.0 + 2e-9, 5.0), (5.0, 4.0 + 1e-6)):
            assert blocked_by_terrain(p, q, low, high, square) == reference_blocked_by_terrain(
                p, q, low, high, square), (p, q, low, high)


def reference_has_line_of_fire(viewer: Body, target: Body, table: Table,
                               blockers: Sequence[Body] = ()) -> bool:
    """Every sampled sight line tried against every piece and body, no shortcut (the pair
    taken in the order Line of Fire takes it, so the rounding is the same)."""
    if not in_front_arc(viewer, target):
        return False
    first, second = in_pair_order(viewer, target)
    pieces = terrain_between(first, second, table)
    bodies = [b for b in blockers if b != viewer and b != target]
    return any(
        not any(reference_blocked_by_terrain(p, q, hp, hq, piece) for piece in pieces)
        and not any(blocked_by_body(p, q, hp, hq, body) for body in bodies)
        for p, q, ends in sight_lines(first, second) for hp, hq in ends)


table_x = st.one_of(st.integers(0, 24).map(float), st.floats(0.0, 24.0))
table_y = st.one_of(st.integers(0, 32).map(float), st.floats(0.0, 32.0))
spot = st.tuples(table_x, table_y)
body = st.builds(Body, spot, st.one_of(st.sampled_from([0.0, 90.0, 180.0, 270.0]),
                                       st.floats(0.0, 359.0)),
                 st.sampled_from(KNOWN_SIZES), st.booleans())
box_piece = st.builds(
    lambda x, y, w, d, h: TerrainPiece(TerrainId("box"), ((x, y), (x + w, y), (x + w, y + d),
                                                          (x, y + d)), h),
    table_x, table_y, st.floats(0.5, 8.0), st.floats(0.5, 8.0), height)
hull_piece = st.builds(lambda outline, h: TerrainPiece(TerrainId("hull"), outline, h),
                       st.lists(spot, min_size=3, max_size=6).map(convex_hull)
                       .filter(lambda h: len(h) >= 3), height)


@settings(max_examples=500, deadline=None)
@given(body, body, st.lists(st.one_of(box_piece, hull_piece), max_size=3),
       st.lists(body, max_size=2))
def test_line_of_fire_equals_trying_every_sight_line(
        viewer: Body, target: Body, pieces: list[TerrainPiece], others: list[Body]) -> None:
    """The shadow shortcut (a tall convex piece hiding the whole target) and the clipping
    shortcut give the answer of trying every sight line against everything."""
    table = codeone_table(pieces)
    assert has_line_of_fire(viewer, target, table, others) == reference_has_line_of_fire(
        viewer, target, table, others)


@settings(max_examples=300, deadline=None)
@given(spot, spot, st.floats(0.0, 1.0), st.one_of(box_piece, hull_piece),
       st.lists(st.tuples(st.floats(0.0, 6.3), st.floats(0.0, 1.0)), min_size=1, max_size=8))
def test_a_disc_in_the_shadow_is_reached_only_through_the_core(
        viewer: Point, centre: Point, radius: float, piece: TerrainPiece,
        polar: list[tuple[float, float]]) -> None:
    if not shadow_holds_disc(viewer, centre, radius, piece.polygon):
        return
    for angle, fraction in polar:
        point = (centre[0] + radius * fraction * math.cos(angle),
                 centre[1] + radius * fraction * math.sin(angle))
        assert segment_meets_interior(viewer, point, piece.polygon) is True


def reference_cone_extreme(rays: Sequence[Point], side: float) -> Point | None:
    """The O(k^2) definition: the first ray with every ray on its one side."""
    return next((r for r in rays
                 if all(side * (r[0] * o[1] - r[1] * o[0]) >= 0.0 for o in rays)), None)


@settings(max_examples=600, deadline=None)
@given(point, st.one_of(polygon, hull), st.booleans(), st.sampled_from([1.0, -1.0]))
def test_cone_extreme_equals_the_plain_search(viewer: Point, corners: tuple[Point, ...],
                                              clockwise: bool, side: float) -> None:
    """Grid points make rays that are collinear (ties), equal or zero; any polygon, not
    only convex ones, makes rays spanning more than half a turn (no extreme at all)."""
    outline = corners[::-1] if clockwise else corners
    rays = [(x - viewer[0], y - viewer[1]) for x, y in outline]
    assert cone_extreme(rays, side) == reference_cone_extreme(rays, side)


def test_cone_extreme_keeps_the_first_of_tied_rays() -> None:
    rays = [(1.0, 0.0), (2.0, 1.0), (2.0, 0.0), (1.0, 1.0)]  # (1, 0) and (2, 0) collinear
    for side in (1.0, -1.0):
        assert cone_extreme(rays, side) == reference_cone_extreme(rays, side)
    assert cone_extreme(rays, 1.0) == (1.0, 0.0)


@settings(max_examples=300, deadline=None)
@given(spot, spot, st.floats(0.0, 1.0), st.one_of(box_piece, hull_piece),
       st.lists(st.tuples(st.floats(0.0, 6.3), st.floats(0.0, 1.0), st.floats(0.0, 6.3),
                          st.floats(0.0, 1.0)), min_size=1, max_size=8))
def test_a_segment_with_room_carries_every_nearby_segment_deep_inside(
        p: Point, q: Point, room: float, piece: TerrainPiece,
        offsets: list[tuple[float, float, float, float]]) -> None:
    """Segments whose ends lie within ``room`` of p and of q pass deep inside too."""
    if not segment_passes_with_room(p, q, room, piece.polygon):
        return
    for angle_p, fraction_p, angle_q, fraction_q in offsets:
        near_p = (p[0] + room * fraction_p * math.cos(angle_p),
                  p[1] + room * fraction_p * math.sin(angle_p))
        near_q = (q[0] + room * fraction_q * math.cos(angle_q),
                  q[1] + room * fraction_q * math.sin(angle_q))
        assert segment_meets_interior(near_p, near_q, piece.polygon) is True


def test_a_segment_through_the_middle_has_room_for_a_base() -> None:
    square = ((4.0, 4.0), (8.0, 4.0), (8.0, 8.0), (4.0, 8.0))
    assert segment_passes_with_room((0.0, 6.0), (12.0, 6.0), 1.0, square)
    assert not segment_passes_with_room((0.0, 6.0), (12.0, 6.0), 2.0, square)  # too thin
    assert not segment_passes_with_room((0.0, 4.5), (12.0, 4.5), 1.0, square)  # too near
    assert not segment_passes_with_room((0.0, 6.0), (3.0, 6.0), 0.0, square)   # short


# Two tall buildings and a low wall, as in the benchmark's table: a route behind them is
# partly hidden along the centres, partly by the shadow test, partly in LoF.
buildings = (
    TerrainPiece(TerrainId("west"), ((3.0, 13.0), (8.0, 13.0), (8.0, 19.0), (3.0, 19.0)), 4.0),
    TerrainPiece(TerrainId("east"), ((16.0, 13.0), (21.0, 13.0), (21.0, 19.0), (16.0, 19.0)),
                 4.0),
    TerrainPiece(TerrainId("wall"), ((10.0, 15.5), (14.0, 15.5), (14.0, 16.5), (10.0, 16.5)),
                 1.0),
)
step_of_route = st.tuples(st.floats(-4.0, 4.0), st.floats(-4.0, 4.0))
route = st.builds(
    lambda start, steps: list(itertools.accumulate(
        steps, lambda p, d: (min(24.0, max(0.0, p[0] + d[0])), min(32.0, max(0.0, p[1] + d[1]))),
        initial=start)),
    spot, st.lists(step_of_route, max_size=3))


@settings(max_examples=250, deadline=None)
@given(body, body, route, st.lists(body, max_size=2))
def test_route_line_of_fire_equals_asking_at_every_sampled_point(
        viewer: Body, mover: Body, path: list[Point], others: list[Body]) -> None:
    """The per-route shortcuts (front arc and hiding along the centres, told without a
    body or sight lines) give the answers of the plain computation at each sampled point."""
    table = codeone_table(buildings)
    seen = tuple(p for p in route_samples(path, 0.25)
                 if reference_has_line_of_fire(viewer, mover.moved_to(p), table, others))
    assert points_of_route_in_lof(viewer, mover, path, table, others) == seen
    assert sees_any_point_of_route(viewer, mover, path, table, others) == bool(seen)


@settings(max_examples=150, deadline=None)
@given(st.lists(body, min_size=1, max_size=3), body, route, st.lists(body, max_size=2))
def test_one_route_sight_answers_every_viewer_as_the_plain_computation(
        viewers: list[Body], mover: Body, path: list[Point], others: list[Body]) -> None:
    """As an ARO window asks it: one ``RouteSight`` for every viewer, the viewers' bodies
    among the blockers; each viewer ignores its own, as if it had been left out."""
    table = codeone_table(buildings)
    asked: list[int] = []
    sight = RouteSight(mover, path, table, lambda: asked.append(1) or [*others, *viewers])
    for viewer in viewers:
        blockers = [*others, *(v for v in viewers if v != viewer)]
        seen = tuple(p for p in route_samples(path, 0.25)
                     if reference_has_line_of_fire(viewer, mover.moved_to(p), table, blockers))
        assert tuple(sight.points_in_lof(viewer)) == seen
        assert sight.seen_by(viewer) == bool(seen)
    assert len(asked) <= 1  # the blockers are made once, if ever
