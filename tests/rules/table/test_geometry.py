"""Silhouettes, distances between bases, the front arc and terrain polygons (DIGEST 10.2, 10.4)."""

from __future__ import annotations

import dataclasses
import math

import pytest

from server.rules.ids import TerrainId
from server.rules.table.geometry import Body, distance, in_base_contact, in_front_arc, point_distance
from server.rules.table.polygons import point_in_polygon, segment_crosses_polygon
from server.rules.table.silhouettes import MM_PER_INCH, silhouette
from server.rules.table.terrain import TerrainPiece, Zone, codeone_table, standard_table

S1_RADIUS = 12.5 / MM_PER_INCH


def s1(x: float, y: float, facing: float = 0.0, all_round: bool = False) -> Body:
    return Body((x, y), facing, 1, all_round)


# --- Silhouettes (DIGEST 10.2) ---------------------------------------------------------


def test_silhouette_table_converts_millimetres_to_inches() -> None:
    s2 = silhouette(2)
    assert s2.base_diameter == pytest.approx(25 / 25.4)
    assert s2.height == pytest.approx(40 / 25.4)
    s8 = silhouette(8)
    assert (s8.base_diameter, s8.height) == pytest.approx((70 / 25.4, 70 / 25.4))
    assert silhouette(0).height == pytest.approx(3 / 25.4)


@pytest.mark.parametrize("size", [-1, 9, 42])
def test_unknown_silhouette_is_a_value_error(size: int) -> None:
    with pytest.raises(ValueError, match="unknown silhouette"):
        silhouette(size)


def test_body_rejects_unknown_silhouette_and_normalises_facing() -> None:
    with pytest.raises(ValueError):
        Body((1.0, 1.0), 0.0, 12)
    assert Body((1.0, 1.0), -90.0, 1).facing == 270.0
    assert Body((1.0, 1.0), 720.0, 1).facing == 0.0
    assert Body((1.0, 1.0), 365.5, 1).facing == pytest.approx(5.5)


def test_body_radius_and_height_come_from_its_silhouette() -> None:
    body = Body((5.0, 5.0), 0.0, 4)
    assert body.radius == pytest.approx(55 / 25.4 / 2)
    assert body.height == pytest.approx(32 / 25.4)


def test_body_is_frozen_and_its_derived_measures_follow_replace() -> None:
    body = Body((5, 5), 90, 1)
    assert body.position == (5.0, 5.0) and isinstance(body.position[0], float)
    assert isinstance(body.facing, float)
    with pytest.raises(dataclasses.FrozenInstanceError):
        body.position = (1.0, 1.0)  # type: ignore[misc]
    bigger = dataclasses.replace(body, silhouette=4, all_round_vision=True)
    assert bigger.radius == pytest.approx(55 / 25.4 / 2) and bigger.all_round_vision
    assert bigger.facing == 90.0
    assert body == Body((5.0, 5.0), 450.0, 1)  # the measures do not take part in equality
    assert repr(body) == "Body(position=(5.0, 5.0), facing=90.0, silhouette=1, all_round_vision=False)"


# --- Distances between closest points of the bases (DIGEST 10.4) -------------------------


def test_distance_between_touching_bases_is_zero_and_they_are_in_contact() -> None:
    a, b = s1(10.0, 10.0), s1(10.0 + 2 * S1_RADIUS, 10.0)
    assert distance(a, b) == pytest.approx(0.0, abs=1e-12)
    assert in_base_contact(a, b)


def test_distance_between_separated_bases_is_edge_to_edge() -> None:
    a, b = s1(10.0, 10.0), Body((13.0, 14.0), 0.0, 4)
    expected = 5.0 - S1_RADIUS - 55 / 25.4 / 2
    assert distance(a, b) == pytest.approx(expected)
    assert distance(b, a) == pytest.approx(expected)
    assert not in_base_contact(a, b)


def test_overlapping_bases_are_at_distance_zero() -> None:
    assert distance(s1(10.0, 10.0), s1(10.3, 10.0)) == 0.0


def test_base_contact_tolerance() -> None:
    a = s1(10.0, 10.0)
    assert in_base_contact(a, s1(10.0 + 2 * S1_RADIUS + 0.04, 10.0))
    assert not in_base_contact(a, s1(10.0 + 2 * S1_RADIUS + 0.06, 10.0))
    assert in_base_contact(a, s1(10.0 + 2 * S1_RADIUS + 0.06, 10.0), tolerance=0.1)


def test_point_distance() -> None:
    assert point_distance((1.0, 1.0), (4.0, 5.0)) == 5.0


# --- Front arc: 180 degrees (DIGEST 10.1) --------------------------------------------------


def test_target_ahead_is_in_front_arc_and_behind_is_not() -> None:
    viewer = s1(10.0, 10.0, facing=0.0)
    assert in_front_arc(viewer, s1(20.0, 10.0))
    assert in_front_arc(viewer, s1(20.0, 30.0))
    assert not in_front_arc(viewer, s1(5.0, 10.0))


def test_front_arc_follows_facing_counter_clockwise() -> None:
    facing_up = s1(10.0, 10.0, facing=90.0)
    assert in_front_arc(facing_up, s1(10.0, 15.0))
    assert not in_front_arc(facing_up, s1(10.0, 5.0))
    facing_diag = s1(10.0, 10.0, facing=225.0)
    assert in_front_arc(facing_diag, s1(5.0, 5.0))
    assert not in_front_arc(facing_diag, s1(15.0, 15.0))


def test_target_straddling_the_arc_edge_is_in_the_arc() -> None:
    """Any part of the base inside the arc is enough."""
    viewer = s1(10.0, 10.0, facing=0.0)
    assert in_front_arc(viewer, s1(10.0, 15.0))  # centre on the arc edge
    assert in_front_arc(viewer, s1(10.0 - S1_RADIUS + 0.01, 15.0))


def test_target_only_touching_the_arc_edge_is_not_in_the_arc() -> None:
    viewer = s1(10.0, 10.0, facing=0.0)
    assert not in_front_arc(viewer, s1(10.0 - S1_RADIUS, 15.0))
    assert not in_front_arc(viewer, s1(10.0 - S1_RADIUS - 0.01, 15.0))


def test_all_round_vision_sees_behind() -> None:
    """Camouflage markers have 360-degree LoF (DIGEST 10.1, 12)."""
    marker = s1(10.0, 10.0, facing=0.0, all_round=True)
    assert in_front_arc(marker, s1(2.0, 10.0))
    assert in_front_arc(marker, s1(10.0, 2.0))


# --- Tables, zones and polygons ------------------------------------------------------------


def test_table_sizes() -> None:
    assert (codeone_table().width, codeone_table().depth) == (24.0, 32.0)
    assert (standard_table().width, standard_table().depth) == (48.0, 48.0)


def test_table_contains_only_bases_wholly_on_it() -> None:
    table = codeone_table()
    assert table.contains_body(s1(S1_RADIUS, 5.0))
    assert not table.contains_body(s1(S1_RADIUS - 0.05, 5.0))
    assert not table.contains_body(s1(12.0, 32.0))


def test_zone_totally_inside_versus_touching() -> None:
    """Inside = silhouette touches the zone; totally inside = all of it (DIGEST 10.2)."""
    zone = Zone(0.0, 0.0, 24.0, 8.0)
    assert zone.contains_body(s1(5.0, 8.0 - S1_RADIUS))
    straddling = s1(5.0, 8.0)
    assert not zone.contains_body(straddling)
    assert zone.touches_body(straddling)
    assert not zone.touches_body(s1(5.0, 8.0 + S1_RADIUS + 0.01))
    with pytest.raises(ValueError):
        Zone(5.0, 0.0, 1.0, 1.0)


L_SHAPE = ((0.0, 0.0), (4.0, 0.0), (4.0, 1.0), (1.0, 1.0), (1.0, 4.0), (0.0, 4.0))


def test_point_in_concave_polygon() -> None:
    assert point_in_polygon((0.5, 3.0), L_SHAPE)
    assert point_in_polygon((3.0, 0.5), L_SHAPE)
    assert not point_in_polygon((3.0, 3.0), L_SHAPE)  # in the notch
    assert point_in_polygon((0.5, 3.0), tuple(reversed(L_SHAPE)))


def test_segment_crossing_a_concave_polygon() -> None:
    assert segment_crosses_polygon((-1.0, 0.5), (5.0, 0.5), L_SHAPE)
    assert not segment_crosses_polygon((2.0, 2.0), (5.0, 5.0), L_SHAPE)  # stays in the notch
    assert segment_crosses_polygon((0.5, 0.5), (0.5, 0.6), L_SHAPE)  # wholly inside
    assert not segment_crosses_polygon((-1.0, -1.0), (5.0, -1.0), L_SHAPE)
    # Grazing a vertex or running along an edge is not crossing.
    assert not segment_crosses_polygon((3.0, 2.0), (5.0, 0.0), L_SHAPE)
    assert not segment_crosses_polygon((-1.0, 0.0), (5.0, 0.0), L_SHAPE)


def test_terrain_piece_validation() -> None:
    with pytest.raises(ValueError):
        TerrainPiece(TerrainId("w"), ((0.0, 0.0), (1.0, 1.0)), 1.0)
    with pytest.raises(ValueError):
        TerrainPiece(TerrainId("w"), L_SHAPE, -1.0)
    assert math.isclose(TerrainPiece(TerrainId("w"), L_SHAPE, 2.0).height, 2.0)
