"""``inside_intervals`` skips work whose answer is known (a segment outside the footprint's
box, an edge too far to touch a midpoint); its answers must stay exactly those of the plain
computation, kept here as the reference."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from server.rules.geometry import EPSILON, Point, point_to_segment_distance
from server.rules.terrain import inside_intervals, point_in_polygon


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
