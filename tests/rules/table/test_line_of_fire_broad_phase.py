"""The broad phase of ``has_line_of_fire`` on dense tables (docs/performance.md, "Tables worth
playing on"): the pieces it leaves out (boxes that no sight line comes near, boxes kept per
terrain tuple) change no answer, on many pieces as on the shipped layouts.

Implementation test: no rule section. A speed-up checked against the plain computation."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from server.rules.ids import TerrainId
from server.rules.table import line_of_fire
from server.rules.table.geometry import Body
from server.rules.table.line_of_fire import has_line_of_fire, piece_boxes
from server.rules.table.polygons import bounding_box
from server.rules.table.silhouettes import KNOWN_SIZES
from server.rules.table.table_catalogue import shipped
from server.rules.table.terrain import Table, TerrainPiece
from tests.rules.table.test_terrain_fast_paths import reference_has_line_of_fire

coordinate = st.one_of(st.integers(0, 48).map(float), st.floats(0.0, 48.0))
spot = st.tuples(coordinate, coordinate)
body = st.builds(Body, spot, st.floats(0.0, 359.0), st.sampled_from(KNOWN_SIZES), st.booleans())
piece = st.builds(
    lambda x, y, w, d, h: TerrainPiece(TerrainId("p"), ((x, y), (x + w, y), (x + w, y + d),
                                                        (x, y + d)), h),
    coordinate, coordinate, st.floats(0.25, 6.0), st.floats(0.25, 6.0),
    st.sampled_from([1.0, 2.25, 2.5, 4.0, 6.0]))


@settings(max_examples=400, deadline=None)
@given(body, body, st.lists(piece, max_size=14), st.lists(body, max_size=2))
def test_many_pieces_give_the_answer_of_trying_every_sight_line(
        viewer: Body, target: Body, pieces: list[TerrainPiece], others: list[Body]) -> None:
    table = Table(48.0, 48.0, tuple(pieces))
    assert has_line_of_fire(viewer, target, table, others) == reference_has_line_of_fire(
        viewer, target, table, others)


def test_on_every_shipped_layout_the_answers_are_those_of_every_sight_line() -> None:
    draw = random.Random(20261124)
    for listed in shipped():
        table = listed.layout.table
        for _ in range(150):
            viewer, target = (
                Body((draw.uniform(0, table.width), draw.uniform(0, table.depth)),
                     draw.uniform(0, 360), draw.choice((1, 2, 5, 7)), draw.random() < 0.3)
                for _ in range(2))
            assert has_line_of_fire(viewer, target, table) == reference_has_line_of_fire(
                viewer, target, table), (listed.layout.id, viewer, target)


def test_a_piece_just_beyond_the_reach_of_the_sight_lines_is_left_out_and_one_within_is_kept(
) -> None:
    box = (10.0, 10.0, 12.0, 12.0)
    near = line_of_fire._box_near_segment
    # A segment along y = 9 passes 1 inch below the box.
    assert near(box, (0.0, 9.0), (20.0, 9.0), 1.0)
    assert not near(box, (0.0, 9.0), (20.0, 9.0), 0.99)
    # Vertical, diagonal, and a segment that stops short of the box.
    assert near(box, (13.0, 0.0), (13.0, 30.0), 1.0)
    assert not near(box, (13.5, 0.0), (13.5, 30.0), 1.0)
    assert near(box, (0.0, 0.0), (30.0, 30.0), 0.0)
    assert not near(box, (0.0, 0.0), (8.0, 8.0), 1.0)
    assert near(box, (11.0, 11.0), (11.0, 11.0), 0.0), "a point inside the box"


def test_boxes_are_made_once_per_terrain_tuple_and_never_confused() -> None:
    square = TerrainPiece(TerrainId("s"), ((1.0, 1.0), (3.0, 1.0), (3.0, 4.0), (1.0, 4.0)), 2.0)
    terrain = (square,)
    boxes = piece_boxes(terrain)
    assert boxes == (bounding_box(square.polygon),) == ((1.0, 1.0, 3.0, 4.0),)
    assert piece_boxes(terrain) is boxes
    other = (TerrainPiece(TerrainId("t"), ((5.0, 5.0), (6.0, 5.0), (6.0, 6.0)), 1.0),)
    assert piece_boxes(other) == ((5.0, 5.0, 6.0, 6.0),)
    assert piece_boxes(terrain) is boxes


def test_a_full_box_cache_starts_again() -> None:
    before = dict(line_of_fire._PIECE_BOXES)
    try:
        tables = [tuple([TerrainPiece(TerrainId("x"), ((0.0, 0.0), (1.0, 0.0), (0.0, float(k + 1))),
                                      1.0)]) for k in range(line_of_fire._PIECE_BOXES_LIMIT + 1)]
        for terrain in tables:
            assert piece_boxes(terrain)[0][3] == terrain[0].polygon[2][1]
        assert len(line_of_fire._PIECE_BOXES) <= line_of_fire._PIECE_BOXES_LIMIT
    finally:
        line_of_fire._PIECE_BOXES.clear()
        line_of_fire._PIECE_BOXES.update(before)
