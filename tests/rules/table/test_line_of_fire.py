"""Line of Fire on the 2.5D table (DIGEST 10.1) and along movement routes (DIGEST 9, Move)."""

from __future__ import annotations

from server.rules.ids import TerrainId
from server.rules.table.geometry import Body, Point
from server.rules.table.line_of_fire import has_line_of_fire
from server.rules.table.route_sight import points_of_route_in_lof, sees_any_point_of_route
from server.rules.table.terrain import Table, TerrainPiece, standard_table


def box(x0: float, y0: float, x1: float, y1: float) -> tuple[Point, ...]:
    return ((x0, y0), (x1, y0), (x1, y1), (x0, y1))


def wall(x0: float, y0: float, x1: float, y1: float, height: float) -> TerrainPiece:
    return TerrainPiece(TerrainId("wall"), box(x0, y0, x1, y1), height)


def table_with(*pieces: TerrainPiece) -> Table:
    return standard_table(pieces)


VIEWER = Body((10.0, 10.0), 0.0, 1)  # facing +x
TARGET = Body((20.0, 10.0), 180.0, 1)


def test_lof_in_open_ground() -> None:
    assert has_line_of_fire(VIEWER, TARGET, standard_table())


def test_no_lof_to_a_target_behind_the_viewer() -> None:
    """The LoF arc is the front 180 degrees."""
    assert not has_line_of_fire(VIEWER, Body((2.0, 10.0), 0.0, 1), standard_table())


def test_all_round_vision_sees_behind() -> None:
    """Camouflage markers have 360-degree LoF."""
    marker = Body((10.0, 10.0), 0.0, 1, all_round_vision=True)
    assert has_line_of_fire(marker, Body((2.0, 10.0), 0.0, 1), standard_table())


def test_tall_wall_blocks_lof() -> None:
    table = table_with(wall(14.0, 5.0, 15.0, 15.0, 3.0))
    assert not has_line_of_fire(VIEWER, TARGET, table)
    assert not has_line_of_fire(TARGET, VIEWER, table)


def test_low_wall_blocks_short_troopers_but_a_tall_trooper_sees_over_it() -> None:
    table = table_with(wall(14.0, 5.0, 15.0, 15.0, 1.0))  # 1" wall, S1 is ~0.98" tall
    assert not has_line_of_fire(VIEWER, TARGET, table)
    tall_viewer = Body((10.0, 10.0), 0.0, 7)  # S7, ~2.6" tall
    assert has_line_of_fire(tall_viewer, TARGET, table)


def test_wall_beside_the_line_does_not_block() -> None:
    table = table_with(wall(14.0, 12.0, 15.0, 20.0, 5.0))
    assert has_line_of_fire(VIEWER, TARGET, table)


def test_another_model_blocks_lof() -> None:
    """Models, friend or foe, block LoF (DIGEST 10.1)."""
    in_the_way = Body((15.0, 10.0), 0.0, 7)
    assert not has_line_of_fire(VIEWER, TARGET, standard_table(), blockers=[in_the_way])
    assert has_line_of_fire(VIEWER, TARGET, standard_table(), blockers=[])


def test_model_of_the_same_width_leaves_the_edges_of_the_target_visible() -> None:
    same_size = Body((15.0, 10.0), 0.0, 1)
    assert has_line_of_fire(VIEWER, TARGET, standard_table(), blockers=[same_size])


def test_tall_trooper_sees_over_a_smaller_model() -> None:
    small = Body((15.0, 10.0), 0.0, 3)  # 40 mm base, ~1.26" tall
    assert not has_line_of_fire(VIEWER, TARGET, standard_table(), blockers=[small])
    tall_viewer = Body((10.0, 10.0), 0.0, 7)
    assert has_line_of_fire(tall_viewer, TARGET, standard_table(), blockers=[small])


def test_viewer_and_target_in_blockers_are_ignored() -> None:
    assert has_line_of_fire(VIEWER, TARGET, standard_table(), blockers=[VIEWER, TARGET])


def test_partial_view_past_a_corner_is_enough_for_lof() -> None:
    """Any visible part of the target gives LoF, even a sliver past a corner."""
    corner = wall(14.0, 9.8, 16.0, 20.0, 5.0)  # hides the target's centre, not its lower edge
    table = table_with(corner)
    assert has_line_of_fire(VIEWER, TARGET, table)
    hidden = Body((20.0, 12.0), 180.0, 1)
    assert not has_line_of_fire(VIEWER, hidden, table)


def test_concave_terrain_with_the_line_through_its_notch() -> None:
    l_shape = TerrainPiece(
        TerrainId("ruin"),
        ((13.0, 5.0), (17.0, 5.0), (17.0, 6.0), (14.0, 6.0), (14.0, 14.0), (13.0, 14.0)),
        5.0,
    )
    # The line between them runs through the empty notch of the L, east of its upright.
    viewer = Body((15.5, 12.0), 270.0, 1)
    target = Body((15.5, 8.0), 90.0, 1)
    assert has_line_of_fire(viewer, target, table_with(l_shape))
    assert not has_line_of_fire(VIEWER, TARGET, table_with(l_shape))


# --- LoF along a route (DIGEST 9, Move: AROs along the whole path) ----------------------------

SCREEN = wall(14.0, 12.0, 16.0, 30.0, 5.0)
MOVER = Body((20.0, 25.0), 270.0, 1)


def test_mover_coming_out_from_behind_cover_is_seen_mid_route() -> None:
    table = table_with(SCREEN)
    route = [(20.0, 25.0), (20.0, 5.0)]
    assert not has_line_of_fire(VIEWER, MOVER, table)
    assert has_line_of_fire(VIEWER, MOVER.moved_to((20.0, 5.0)), table)
    assert sees_any_point_of_route(VIEWER, MOVER, route, table)
    seen = points_of_route_in_lof(VIEWER, MOVER, route, table)
    assert seen
    assert (20.0, 25.0) not in seen
    assert seen[-1] == (20.0, 5.0)
    # Once in view, the mover stays in view down the rest of this straight route.
    assert min(y for _, y in seen) == 5.0
    assert max(y for _, y in seen) < 16.0


def test_route_staying_behind_the_wall_is_never_seen() -> None:
    table = table_with(SCREEN)
    route = [(20.0, 25.0), (20.0, 18.0), (24.0, 20.0)]
    assert not sees_any_point_of_route(VIEWER, MOVER, route, table)
    assert points_of_route_in_lof(VIEWER, MOVER, route, table) == ()


def test_route_samples_include_every_vertex() -> None:
    """A short dash into view at a corner vertex is caught even with a coarse step."""
    table = table_with(SCREEN)
    route = [(20.0, 25.0), (20.0, 8.0), (20.0, 25.0)]
    seen = points_of_route_in_lof(VIEWER, MOVER, route, table, step=100.0)
    assert seen == ((20.0, 8.0),)
