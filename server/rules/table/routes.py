"""Movement routes: polylines a trooper's base follows across the table (DIGEST 9 Move/Jump).

A route is declared as a sequence of points starting at the mover's position. The base is
swept along every segment; it may touch but not overlap terrain it cannot cross and other
bases, and must stay on the table.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from server.rules.table.geometry import Body, Point, point_distance, point_to_segment_distance
from server.rules.table.polygons import bounding_box, segment_polygon_distance
from server.rules.table.terrain import Table
from server.rules.table.terrain_names import terrain_name

START_TOLERANCE = 0.01
"""How far (inches) a route may start from the mover's position."""

OVERLAP_TOLERANCE = 0.01
"""How deep (inches) a swept base may press into terrain or another base before it counts:
touching is legal (engaging, standing against a wall), rounding noise must not reject it."""


@dataclass(frozen=True, slots=True)
class RouteProblem:
    """Why a route is illegal: a stable ``code`` and a sentence for the player."""

    code: str
    message: str


def route_length(route: Sequence[Point]) -> float:
    """Total length of the polyline, inches (0 for fewer than two points)."""
    return sum(point_distance(a, b) for a, b in itertools.pairwise(route))


def point_along(route: Sequence[Point], distance_from_start: float) -> Point:
    """The point ``distance_from_start`` inches along the route, clamped to its ends."""
    if not route:
        raise ValueError("an empty route has no points")
    remaining = max(0.0, distance_from_start)
    for a, b in itertools.pairwise(route):
        length = point_distance(a, b)
        if remaining <= length and length > 0.0:
            t = remaining / length
            return (a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]))
        remaining -= length
    return (float(route[-1][0]), float(route[-1][1]))


def route_samples(route: Sequence[Point], step: float) -> Iterator[Point]:
    """Points every ``step`` inches along each segment, plus every vertex, in route order."""
    if step <= 0.0:
        raise ValueError("the sampling step must be positive")
    if not route:
        return
    yield (float(route[0][0]), float(route[0][1]))
    for a, b in itertools.pairwise(route):
        length = point_distance(a, b)
        pieces = max(1, math.ceil(length / step - 1e-9))
        for i in range(1, pieces + 1):
            t = i / pieces
            yield (a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]))


def _inches(value: float) -> str:
    """A number as players say it: one decimal, no trailing '.0'."""
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


def _measure(value: float) -> str:
    """A length in words: '1 inch', '5.3 inches'."""
    number = _inches(value)
    return f"{number} inch" if number == "1" else f"{number} inches"


def _segments(route: Sequence[Point]) -> list[tuple[Point, Point]]:
    if len(route) == 1:
        return [(route[0], route[0])]
    return list(itertools.pairwise(route))


def _off_table(route: Sequence[Point], mover: Body, table: Table) -> RouteProblem | None:
    # The table shrunk by the base radius is convex, so checking the vertices checks the path.
    r = mover.radius - 1e-9
    for x, y in route:
        if not (r <= x <= table.width - r and r <= y <= table.depth - r):
            return RouteProblem(
                "route_off_table",
                f"The route takes the base off the table at ({_inches(x)}, {_inches(y)}).",
            )
    return None


_FAR_MARGIN = 1e-6
"""Far beyond the rounding of a computed distance on the table: boxes farther apart than a
limit plus this hold nothing nearer than the limit, so the distance need not be computed."""


def _boxes_farther_than(a: tuple[float, float, float, float],
                        b: tuple[float, float, float, float], limit: float) -> bool:
    """Two (min x, min y, max x, max y) boxes lie more than ``limit`` (+ _FAR_MARGIN)
    apart along x or along y: every point of one is farther than that from the other."""
    reach = limit + _FAR_MARGIN
    return (b[0] - a[2] > reach or a[0] - b[2] > reach
            or b[1] - a[3] > reach or a[1] - b[3] > reach)


def _segment_box(a: Point, b: Point) -> tuple[float, float, float, float]:
    return (min(a[0], b[0]), min(a[1], b[1]), max(a[0], b[0]), max(a[1], b[1]))


def _through_terrain(
    route: Sequence[Point], mover: Body, table: Table, may_cross_up_to: float
) -> RouteProblem | None:
    limit = mover.radius - OVERLAP_TOLERANCE
    segments = [(a, b, _segment_box(a, b)) for a, b in _segments(route)]
    for piece in table.terrain:
        if piece.height <= may_cross_up_to:
            continue
        piece_box = bounding_box(piece.polygon)
        for a, b, box in segments:
            if _boxes_farther_than(box, piece_box, limit):
                continue  # the cheap test first: most of the route is far from each piece
            if segment_polygon_distance(a, b, piece.polygon) < limit:
                allowance = (
                    f"; this move may only cross terrain up to {_measure(may_cross_up_to)}"
                    if may_cross_up_to > 0.0 else ""
                )
                return RouteProblem(
                    "route_through_terrain",
                    f"The route passes through {terrain_name(piece, table)}, which is "
                    f"{_measure(piece.height)} high{allowance}.",
                )
    return None


def _through_model(
    route: Sequence[Point], mover: Body, others: Sequence[Body]
) -> RouteProblem | None:
    segments = [(a, b, _segment_box(a, b)) for a, b in _segments(route)]
    for other in others:
        limit = mover.radius + other.radius - OVERLAP_TOLERANCE
        x, y = other.position
        for a, b, box in segments:
            if _boxes_farther_than(box, (x, y, x, y), limit):
                continue  # the cheap test first: most bases are far from the route
            if point_to_segment_distance(other.position, a, b) < limit:
                return RouteProblem(
                    "route_through_model",
                    f"The route passes through the base of the model at "
                    f"({_inches(x)}, {_inches(y)}); models cannot move through each other.",
                )
    return None


def check_route(
    route: Sequence[Point], mover: Body, max_length: float, table: Table,
    others: Sequence[Body], may_cross_terrain_up_to: float = 0.0,
) -> RouteProblem | None:
    """The first problem with the route, or None when the mover may follow it.

    ``others`` are the bases the mover may not pass through (never the mover itself).
    ``may_cross_terrain_up_to`` lets a Jump pass over terrain up to that height (inches).
    A route of a single point (staying in place) is legal.
    """
    if not route:
        return RouteProblem("route_empty", "The route has no points; draw where the model goes.")
    start = route[0]
    if point_distance(start, mover.position) > START_TOLERANCE:
        gap = point_distance(start, mover.position)
        return RouteProblem(
            "route_bad_start",
            f"The route must start where the model stands; it starts {_measure(gap)} away.",
        )
    length = route_length(route)
    if length > max_length + 1e-6:
        return RouteProblem(
            "route_too_long",
            f"The route is {_measure(length)} long; this Move allows {_inches(max_length)}.",
        )
    return (
        _off_table(route, mover, table)
        or _through_terrain(route, mover, table, may_cross_terrain_up_to)
        or _through_model(route, mover, others)
    )
