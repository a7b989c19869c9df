"""The shipped tournament layouts are worth playing on (docs/tables.md, "The shipped layouts"):
tournament density, buildings of several heights, scatter and walls that block Line of Fire
and low pieces that only give cover, the same table for both sides, lanes a base can walk
from one deployment zone to the other, and, measured with the rules core's own Line of
Fire, a trooper in one deployment zone sees little of the other.

Implementation test: no rule section. The shipped tables' content (the table sizes are
DIGEST 14's)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from server.rules.ids import TerrainId
from server.rules.ruleset import Ruleset, options
from server.rules.table.geometry import Body, Point
from server.rules.table.line_of_fire import has_line_of_fire
from server.rules.table.polygons import bounding_box, point_in_polygon, segment_polygon_distance
from server.rules.table.silhouettes import silhouette
from server.rules.table.table_catalogue import layout, shipped
from server.rules.table.tables import TableLayout
from server.rules.table.terrain import Table, TerrainKind, TerrainPiece, Zone

TOURNAMENT = [item.layout for item in shipped() if not item.sample]
N5 = [t for t in TOURNAMENT if Ruleset.N5 in t.rulesets]
CODEONE = [t for t in TOURNAMENT if Ruleset.CODEONE in t.rulesets]

SIGHT_SHARE_BOUND = 0.05
"""At most this share of the (south spot, north spot) pairs of the sight grid has Line of
Fire: the bound docs/tables.md states."""
WORST_VIEWER_BOUND = 0.20
"""No spot of one zone sees more than this share of the other zone's spots."""
TALLEST_COMMON = silhouette(5).height
"""S5, the tallest Silhouette of the sample armies but the TAGs: a piece this tall or more
hides a standing S1-S5 trooper."""
ZONE_DEPTH = {Ruleset.N5: 12.0, Ruleset.CODEONE: 8.0}
"""docs/rules-decisions/README.md, "Table and deployment zones"."""


def ids(layouts: list[TableLayout]) -> list[str]:
    return [t.id for t in layouts]


def test_there_are_three_n5_and_one_codeone_tournament_layouts_and_a_sample_of_each() -> None:
    assert len(N5) >= 3 and len(CODEONE) >= 1
    samples = [item.layout.id for item in shipped() if item.sample]
    assert samples == ["sample-open", "sample-open-codeone"]
    assert shipped()[0].layout.id == N5[0].id, "the tournament layouts are listed first"


@pytest.mark.parametrize("table", TOURNAMENT, ids=ids(TOURNAMENT))
def test_the_table_and_zones_are_the_rulesets(table: TableLayout) -> None:
    (ruleset,) = table.rulesets
    width, depth = options(ruleset).table_width, options(ruleset).table_depth
    assert (table.table.width, table.table.depth) == (width, depth)
    zone = ZONE_DEPTH[ruleset]
    assert table.zones == {"south": Zone(0, 0, width, zone),
                           "north": Zone(0, depth - zone, width, depth)}


@pytest.mark.parametrize("table", N5, ids=ids(N5))
def test_an_n5_layout_has_tournament_density(table: TableLayout) -> None:
    assert 20 <= len(table.table.terrain) <= 30
    assert 0.10 <= covered_share(table.table) <= 0.25


@pytest.mark.parametrize("table", CODEONE, ids=ids(CODEONE))
def test_a_codeone_layout_covers_as_much_of_its_table_as_the_n5_layouts(
        table: TableLayout) -> None:
    shares = [covered_share(t.table) for t in N5]
    assert min(shares) - 0.02 <= covered_share(table.table) <= max(shares) + 0.02
    assert len(table.table.terrain) >= 10


@pytest.mark.parametrize("table", TOURNAMENT, ids=ids(TOURNAMENT))
def test_buildings_of_several_heights_with_blocking_scatter_and_low_cover(
        table: TableLayout) -> None:
    pieces = table.table.terrain
    buildings = {p.height for p in pieces if p.kind is TerrainKind.BUILDING}
    assert len(buildings) >= 3 and max(buildings) >= 5.0
    blocking = [p for p in pieces if p.kind is not TerrainKind.BUILDING
                and p.height >= TALLEST_COMMON]
    assert {p.kind for p in blocking} & {TerrainKind.WALL, TerrainKind.SCATTER,
                                         TerrainKind.CONTAINER}
    low_cover = [p for p in pieces if p.height < silhouette(2).height and p.gives_cover]
    assert len(low_cover) >= 4, "low walls and scatter: cover without blocking the view"
    assert all(p.name for p in pieces)


@pytest.mark.parametrize("table", TOURNAMENT, ids=ids(TOURNAMENT))
def test_both_sides_get_the_same_table_turned_round(table: TableLayout) -> None:
    width, depth = table.table.width, table.table.depth

    def corners(outline: tuple[Point, ...], turn: bool) -> frozenset[Point]:
        # To the micro-inch: the files hold the coordinates to the thousandth.
        return frozenset((round(width - x if turn else x, 6), round(depth - y if turn else y, 6))
                         for x, y in outline)

    pieces = {(corners(p.polygon, False), p.height, p.kind) for p in table.table.terrain}
    assert {(corners(p.polygon, True), p.height, p.kind) for p in table.table.terrain} == pieces


@pytest.mark.parametrize("table", TOURNAMENT, ids=ids(TOURNAMENT))
@pytest.mark.parametrize("base_mm", [25, 40, 55])
def test_a_base_can_walk_from_zone_to_zone(table: TableLayout, base_mm: float) -> None:
    # Walking only (no Jump over the low pieces), on a half-inch grid.
    assert walkable(table, base_mm / 25.4 / 2.0, step=0.5)


@pytest.mark.parametrize("table", TOURNAMENT, ids=ids(TOURNAMENT))
def test_a_trooper_in_one_zone_sees_little_of_the_other(table: TableLayout) -> None:
    share, worst = sight_between_zones(table)
    assert share <= SIGHT_SHARE_BOUND, f"{share:.1%} of the zone-to-zone sight lines are open"
    assert worst <= WORST_VIEWER_BOUND, f"a spot sees {worst:.1%} of the other zone"


def test_the_measures_tell_an_open_table_from_a_walled_one() -> None:
    zones = {"south": Zone(0, 0, 48, 12), "north": Zone(0, 36, 48, 48)}
    bare = TableLayout(Table(48.0, 48.0), zones, (Ruleset.N5,))
    assert sight_between_zones(bare) == (1.0, 1.0)
    assert walkable(bare, 1.0, 1.0)
    wall = TerrainPiece(TerrainId("wall"), ((0, 23), (48, 23), (48, 25), (0, 25)), 4.0)
    walled = TableLayout(Table(48.0, 48.0, (wall,)), zones, (Ruleset.N5,))
    assert sight_between_zones(walled) == (0.0, 0.0)
    assert not walkable(walled, 0.5, 1.0)


def test_on_the_sparse_sample_almost_everything_is_in_sight() -> None:
    # The measure can fail: on the table every game had before, most pairs see each other.
    share, worst = sight_between_zones(layout("sample-open"))
    assert share > 0.4 and worst > 0.6


# --- measures --------------------------------------------------------------------------------


def covered_share(table: Table) -> float:
    def area(outline: tuple[Point, ...]) -> float:
        pairs = zip(outline, outline[1:] + outline[:1], strict=True)
        return abs(sum(ax * by - bx * ay for (ax, ay), (bx, by) in pairs)) / 2.0
    return sum(area(p.polygon) for p in table.terrain) / (table.width * table.depth)


def fits(table: Table, point: Point, radius: float) -> bool:
    """A base of ``radius`` centred on ``point`` is on the table and overlaps no terrain."""
    x, y = point
    if not (radius <= x <= table.width - radius and radius <= y <= table.depth - radius):
        return False
    for piece in table.terrain:
        x0, y0, x1, y1 = bounding_box(piece.polygon)
        if x0 - radius <= x <= x1 + radius and y0 - radius <= y <= y1 + radius and (
                point_in_polygon(point, piece.polygon)
                or segment_polygon_distance(point, point, piece.polygon) < radius):
            return False
    return True


def grid(zone: Zone, step: float, margin: float) -> Iterator[Point]:
    y = zone.y0 + margin
    while y <= zone.y1 - margin:
        x = zone.x0 + margin
        while x <= zone.x1 - margin:
            yield (x, y)
            x += step
        y += step


def sight_between_zones(table: TableLayout) -> tuple[float, float]:
    """(share of open pairs, the largest share one spot sees) between every spot of a grid
    in the south zone where an S2 trooper can stand and every such spot of the north zone:
    every 2 inches (1.5 on a CodeOne table), 1 inch in from the zone's edges. Troopers with
    all-round vision, so that only terrain decides."""
    radius = silhouette(2).base_diameter / 2.0
    step = 2.0 if table.table.width >= 48 else 1.5
    spots = {name: [p for p in grid(zone, step, 1.0) if fits(table.table, p, radius)]
             for name, zone in table.zones.items()}
    seen = [sum(has_line_of_fire(Body(a, 90.0, 2, True), Body(b, 270.0, 2, True), table.table)
                for b in spots["north"]) for a in spots["south"]]
    north = len(spots["north"])
    return sum(seen) / (len(seen) * north), max(seen) / north


def walkable(table: TableLayout, radius: float, step: float) -> bool:
    """A flood fill of the grid cells where the base fits, from the south zone's cells to
    any cell of the north zone."""
    t = table.table
    columns, rows = int(t.width / step), int(t.depth / step)
    free = {(i, j) for i in range(columns + 1) for j in range(rows + 1)
            if fits(t, (i * step, j * step), radius)}
    south, north = table.zones["south"], table.zones["north"]
    todo = [cell for cell in free if cell[1] * step <= south.y1 - radius]
    reached = set(todo)
    while todo:
        i, j = todo.pop()
        if j * step >= north.y0 + radius:
            return True
        for cell in ((i + 1, j), (i - 1, j), (i, j + 1), (i, j - 1)):
            if cell in free and cell not in reached:
                reached.add(cell)
                todo.append(cell)
    return False
