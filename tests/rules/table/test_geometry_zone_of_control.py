"""Zone of Control: 8 inches from the edge of the silhouette (DIGEST 10.3)."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from server.rules.table.geometry import Body, Point, point_to_segment_distance
from server.rules.table.silhouettes import KNOWN_SIZES, MM_PER_INCH
from server.rules.table.zone_of_control import (
    ZONE_OF_CONTROL,
    RouteInZones,
    in_zone_of_control,
    route_enters_zone_of_control,
)

TWO_S1_RADII = 25.0 / MM_PER_INCH


def s1(x: float, y: float) -> Body:
    return Body((x, y), 0.0, 1)


def test_zone_of_control_is_eight_inches() -> None:
    """10.3: a Zone of Control reaches 8 inches."""
    assert ZONE_OF_CONTROL == 8.0


def test_zoc_7_9_inches_edge_to_edge_is_inside() -> None:
    """10.3: 7.9 inches between the silhouettes' edges is inside the Zone of Control."""
    assert in_zone_of_control(s1(10.0, 10.0), s1(10.0 + 7.9 + TWO_S1_RADII, 10.0))


def test_zoc_8_1_inches_edge_to_edge_is_outside() -> None:
    """10.3: 8.1 inches between the silhouettes' edges is outside it."""
    assert not in_zone_of_control(s1(10.0, 10.0), s1(10.0 + 8.1 + TWO_S1_RADII, 10.0))


def test_zoc_is_measured_from_the_edge_of_bigger_bases() -> None:
    """10.3: measured from the edge of the silhouette, however big the base."""
    big = Body((10.0, 10.0), 0.0, 8)  # 70 mm base
    gap = 7.9 + 35.0 / MM_PER_INCH + 12.5 / MM_PER_INCH
    assert in_zone_of_control(big, s1(10.0, 10.0 + gap))
    assert not in_zone_of_control(s1(10.0, 10.0), s1(10.0, 10.0 + gap))


def test_route_passing_outside_zoc_does_not_enter() -> None:
    """10.3 (DIGEST 9, Move): a route that stays more than 8 inches away never enters the zone."""
    owner, mover = s1(10.0, 10.0), s1(0.0, 10.0 + 8.1 + TWO_S1_RADII)
    route = [mover.position, (30.0, mover.position[1])]
    assert not route_enters_zone_of_control(owner, mover, route)


def test_route_whose_vertices_are_outside_but_segment_passes_inside_enters() -> None:
    """The whole path counts, not only where it starts and ends (DIGEST 9, Move)."""
    owner, mover = s1(10.0, 10.0), s1(0.0, 10.0 + 7.9 + TWO_S1_RADII)
    route = [mover.position, (30.0, mover.position[1])]
    assert route_enters_zone_of_control(owner, mover, route)


def test_route_that_ends_inside_zoc_enters() -> None:
    """10.3 (DIGEST 9, Move): a route that ends inside the zone enters it."""
    owner, mover = s1(10.0, 10.0), s1(10.0, 30.0)
    assert route_enters_zone_of_control(owner, mover, [(10.0, 30.0), (10.0, 18.0)])
    assert not route_enters_zone_of_control(owner, mover, [(10.0, 30.0), (10.0, 20.0)])
    assert not route_enters_zone_of_control(owner, mover, [])


# ``RouteInZones`` tells an owner far from the route's box without measuring; its answers
# must stay those of measuring every segment, kept here as the reference. Grid coordinates
# put owners exactly at the reach from a vertex or a box edge.
coordinate = st.one_of(st.integers(0, 24).map(float), st.floats(0.0, 24.0),
                       st.sampled_from([8.0 + TWO_S1_RADII, 8.0 + TWO_S1_RADII + 1e-7]))
spot = st.tuples(coordinate, coordinate)
body = st.builds(Body, spot, st.just(0.0), st.sampled_from(KNOWN_SIZES))


def reference_route_enters(owner: Body, mover: Body, route: list[Point]) -> bool:
    reach = ZONE_OF_CONTROL + owner.radius + mover.radius
    segments = [(route[0], route[0])] if len(route) == 1 else list(itertools.pairwise(route))
    return any(point_to_segment_distance(owner.position, a, b) <= reach for a, b in segments)


@settings(max_examples=500, deadline=None)
@given(st.lists(body, min_size=1, max_size=4), body, st.lists(spot, max_size=4))
def test_route_in_zones_equals_measuring_every_segment(
        owners: list[Body], mover: Body, route: list[Point]) -> None:
    """10.3: a route's zone check answers as measuring each of its segments does."""
    zones = RouteInZones(mover, route)  # one route, many owners, as an ARO window asks
    for owner in owners:
        assert zones.entered_by(owner) == reference_route_enters(owner, mover, route)
        assert route_enters_zone_of_control(owner, mover, route) == zones.entered_by(owner)
