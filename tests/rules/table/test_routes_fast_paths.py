"""``check_route`` skips the distance from a route segment to terrain or to a base when
their boxes are already farther apart than the limit; its answers must stay exactly those
of computing every distance, kept here as the reference.

Implementation test: no rule section. A speed-up checked against the plain computation."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from server.rules.ids import TerrainId
from server.rules.table.geometry import Body, Point, point_to_segment_distance
from server.rules.table.polygons import segment_polygon_distance
from server.rules.table.routes import OVERLAP_TOLERANCE, RouteProblem, check_route, route_length
from server.rules.table.silhouettes import KNOWN_SIZES
from server.rules.table.terrain import Table, TerrainPiece, codeone_table


def reference_problem_code(route: Sequence[Point], mover: Body, table: Table,
                           others: Sequence[Body], may_cross_up_to: float) -> str | None:
    """What ``check_route`` finds after the length and start checks, every distance
    computed (only the terrain and model checks have a shortcut)."""
    r = mover.radius - 1e-9
    if any(not (r <= x <= table.width - r and r <= y <= table.depth - r) for x, y in route):
        return "route_off_table"
    segments = list(itertools.pairwise(route)) if len(route) > 1 else [(route[0], route[0])]
    for piece in table.terrain:
        if piece.height > may_cross_up_to and any(
                segment_polygon_distance(a, b, piece.polygon) < mover.radius - OVERLAP_TOLERANCE
                for a, b in segments):
            return "route_through_terrain"
    for other in others:
        limit = mover.radius + other.radius - OVERLAP_TOLERANCE
        if any(point_to_segment_distance(other.position, a, b) < limit for a, b in segments):
            return "route_through_model"
    return None


# Grid coordinates (and quarter inches) make bases and routes that touch terrain and each
# other exactly: the boundary cases the box test must leave to the distance.
# Kept off the table's edges, where most routes would stop at the first check.
coordinate_x = st.one_of(st.integers(8, 88).map(lambda q: q / 4.0), st.floats(2.0, 22.0))
coordinate_y = st.one_of(st.integers(8, 120).map(lambda q: q / 4.0), st.floats(2.0, 30.0))
spot = st.tuples(coordinate_x, coordinate_y)
piece = st.builds(
    lambda x, y, w, d, h: TerrainPiece(TerrainId("box"), ((x, y), (x + w, y), (x + w, y + d),
                                                          (x, y + d)), h),
    coordinate_x, coordinate_y, st.integers(1, 24).map(lambda q: q / 4.0),
    st.integers(1, 24).map(lambda q: q / 4.0), st.sampled_from([0.5, 1.0, 4.0]))
body = st.builds(Body, spot, st.just(0.0), st.sampled_from(KNOWN_SIZES))


@settings(max_examples=500, deadline=None)
@given(body, st.lists(spot, max_size=3), st.lists(piece, max_size=3),
       st.lists(body, max_size=4), st.sampled_from([0.0, 1.0, 2.0]))
def test_route_problems_equal_computing_every_distance(
        mover: Body, rest: list[Point], pieces: list[TerrainPiece], others: list[Body],
        may_cross_up_to: float) -> None:
    route = [mover.position, *rest]
    table = codeone_table(pieces)
    problem: RouteProblem | None = check_route(route, mover, route_length(route) + 1.0, table,
                                               others, may_cross_up_to)
    expected = reference_problem_code(route, mover, table, others, may_cross_up_to)
    assert (problem.code if problem else None) == expected
