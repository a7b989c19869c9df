"""``inside_intervals`` and ``blocked_by_terrain`` skip work whose answer is known (a segment
outside the footprint's box, an edge too far to touch a midpoint, a sight line deep inside
or far outside a convex footprint taller than it); their answers must stay exactly those of
the plain computation, kept here as the reference."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from server.rules.geometry import EPSILON, Point, point_to_segment_distance
from server.rules.ids import TerrainId
from server.rules.line_of_fire import blocked_by_terrain
from server.rules.terrain import TerrainPiece, inside_intervals, point_in_polygon


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
        for low, high in ((1.0, 2.0), (3.99, 3.99), (4.0, 4.0), (5.0, 0.0)):
            assert blocked_by_terrain(p, q, low, high, square) == reference_blocked_by_terrain(
                p, q, low, high, square), (p, q, low, high)
