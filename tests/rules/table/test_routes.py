"""Movement routes (DIGEST 9: Move, Jump; 10.4 distances)."""

from __future__ import annotations

import pytest

from server.rules.ids import TerrainId
from server.rules.table.geometry import Body
from server.rules.table.routes import check_route, point_along, route_length, route_samples
from server.rules.table.silhouettes import MM_PER_INCH
from server.rules.table.terrain import TerrainKind, TerrainPiece, codeone_table

S1_RADIUS = 12.5 / MM_PER_INCH
MOVER = Body((5.0, 5.0), 0.0, 1)
LOW_WALL = TerrainPiece(
    TerrainId("low-wall"), ((8.0, 0.0), (8.5, 0.0), (8.5, 10.0), (8.0, 10.0)), 1.0,
    name="Low wall", kind=TerrainKind.WALL,
)
TABLE = codeone_table([LOW_WALL])


def test_route_length_and_point_along() -> None:
    route = [(0.0, 0.0), (3.0, 4.0), (3.0, 10.0)]
    assert route_length(route) == 11.0
    assert route_length([(1.0, 1.0)]) == 0.0
    assert point_along(route, 2.5) == pytest.approx((1.5, 2.0))
    assert point_along(route, 8.0) == pytest.approx((3.0, 7.0))
    assert point_along(route, 50.0) == (3.0, 10.0)
    assert point_along(route, -1.0) == (0.0, 0.0)
    with pytest.raises(ValueError):
        point_along([], 1.0)


def test_route_samples_cover_each_segment_and_vertex() -> None:
    samples = list(route_samples([(0.0, 0.0), (1.0, 0.0), (1.0, 0.5)], 0.25))
    assert samples[0] == (0.0, 0.0)
    assert (1.0, 0.0) in samples
    assert samples[-1] == (1.0, 0.5)
    assert len(samples) == 1 + 4 + 2


def test_legal_move() -> None:
    assert check_route([(5.0, 5.0), (5.0, 9.0)], MOVER, 4.0, TABLE, others=[]) is None


def test_staying_in_place_is_legal() -> None:
    assert check_route([(5.0, 5.0)], MOVER, 4.0, TABLE, others=[]) is None


def test_route_empty() -> None:
    problem = check_route([], MOVER, 4.0, TABLE, others=[])
    assert problem is not None
    assert problem.code == "route_empty"
    assert problem.message == "The route has no points; draw where the model goes."


def test_route_bad_start() -> None:
    problem = check_route([(5.5, 5.0), (5.5, 7.0)], MOVER, 4.0, TABLE, others=[])
    assert problem is not None
    assert problem.code == "route_bad_start"
    assert problem.message == (
        "The route must start where the model stands; it starts 0.5 inches away."
    )
    assert check_route([(5.005, 5.0), (5.0, 7.0)], MOVER, 4.0, TABLE, others=[]) is None


def test_route_too_long() -> None:
    """A Move may cover at most the MOV value (DIGEST 9)."""
    problem = check_route([(5.0, 5.0), (5.0, 10.3)], MOVER, 4.0, TABLE, others=[])
    assert problem is not None
    assert problem.code == "route_too_long"
    assert problem.message == "The route is 5.3 inches long; this Move allows 4."
    assert check_route([(5.0, 5.0), (5.0, 9.0)], MOVER, 4.0, TABLE, others=[]) is None


def test_route_off_table() -> None:
    problem = check_route([(5.0, 5.0), (5.0, 2.0), (0.3, 2.0)], MOVER, 8.0, TABLE, others=[])
    assert problem is not None
    assert problem.code == "route_off_table"
    assert problem.message == "The route takes the base off the table at (0.3, 2)."
    assert check_route([(5.0, 5.0), (S1_RADIUS, 5.0)], MOVER, 8.0, TABLE, others=[]) is None


def test_route_through_terrain() -> None:
    problem = check_route([(5.0, 5.0), (11.0, 5.0)], MOVER, 8.0, TABLE, others=[])
    assert problem is not None
    assert problem.code == "route_through_terrain"
    assert problem.message == ("The route passes through the Low wall south of the centre, "
                               "which is 1 inch high.")


def test_base_sweeping_into_terrain_is_caught_even_if_the_centre_line_misses() -> None:
    route = [(5.0, 5.0), (8.0 - S1_RADIUS / 2, 5.0)]
    problem = check_route(route, MOVER, 8.0, TABLE, others=[])
    assert problem is not None and problem.code == "route_through_terrain"


def test_moving_up_against_terrain_is_legal() -> None:
    assert check_route([(5.0, 5.0), (8.0 - S1_RADIUS, 5.0)], MOVER, 8.0, TABLE, others=[]) is None


def test_jump_may_cross_terrain_up_to_its_allowance() -> None:
    """Jump passes over scenery (DIGEST 9, Jump); the caller passes the allowed height."""
    route = [(5.0, 5.0), (11.0, 5.0)]
    assert check_route(route, MOVER, 8.0, TABLE, others=[], may_cross_terrain_up_to=1.0) is None
    problem = check_route(route, MOVER, 8.0, TABLE, others=[], may_cross_terrain_up_to=0.5)
    assert problem is not None
    assert problem.code == "route_through_terrain"
    assert problem.message.endswith("this move may only cross terrain up to 0.5 inches.")


def test_route_through_model() -> None:
    blocker = Body((5.0, 7.0), 0.0, 1)
    problem = check_route([(5.0, 5.0), (5.0, 9.0)], MOVER, 4.0, TABLE, others=[blocker])
    assert problem is not None
    assert problem.code == "route_through_model"
    assert problem.message == (
        "The route passes through the base of the model at (5, 7); "
        "models cannot move through each other."
    )


def test_moving_into_base_contact_is_legal() -> None:
    """Ending in silhouette contact (e.g. to engage) is not passing through."""
    other = Body((5.0, 9.0), 0.0, 1)
    route = [(5.0, 5.0), (5.0, 9.0 - 2 * S1_RADIUS)]
    assert check_route(route, MOVER, 4.0, TABLE, others=[other]) is None
