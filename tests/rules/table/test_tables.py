"""The table format (docs/tables.md): a document becomes the rules core's ``Table`` and zones,
and every malformed one is refused with a ``TableError`` naming the field at fault. Also the
game's table as ``GameSetup`` chooses it, and states stored before tables had ids, titles,
names and kinds.

Implementation test: no rule section. The table file format and how a game picks its table."""

from __future__ import annotations

import copy
import math
from typing import Any

import pytest

from server.rules import engine
from server.rules.ids import TerrainId
from server.rules.plain import from_plain, to_plain
from server.rules.ruleset import Ruleset
from server.rules.state import GameState
from server.rules.table import table_catalogue
from server.rules.table.tables import (
    FORMAT,
    MAX_CONCAVE,
    MAX_PIECES,
    MAX_POINTS,
    MAX_TOTAL_POINTS,
    TableError,
    parse_table,
    polygon_problem,
)
from server.rules.table.terrain import Table, TerrainKind, TerrainPiece, Zone


def square(x: float, y: float, size: float = 2.0) -> list[list[float]]:
    return [[x, y], [x + size, y], [x + size, y + size], [x, y + size]]


def document(**overrides: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "format": FORMAT, "id": "test-yard", "title": "Test yard", "rulesets": ["n5"],
        "width": 48, "depth": 48,
        "zones": {"south": {"x0": 0, "y0": 0, "x1": 48, "y1": 12},
                  "north": {"x0": 0, "y0": 36, "x1": 48, "y1": 48}},
        "terrain": [
            {"id": "hab", "name": "Hab block", "kind": "building", "polygon": square(10, 20, 5),
             "height": 4, "gives_cover": True},
            {"id": "wall", "name": "Low wall", "kind": "wall",
             "polygon": [[30, 24], [34, 24], [34, 24.5], [30, 24.5]], "height": 1},
        ],
    }
    doc.update(overrides)
    return doc


def piece(**overrides: Any) -> dict[str, Any]:
    return {"id": "p", "name": "Crates", "kind": "scatter", "polygon": square(20, 20),
            "height": 2, **overrides}


def refused(doc: Any) -> TableError:
    with pytest.raises(TableError) as caught:
        parse_table(doc)
    return caught.value


def test_a_document_becomes_a_table_with_named_pieces_and_two_zones() -> None:
    layout = parse_table(document())
    table = layout.table
    assert (table.id, table.title, table.width, table.depth) == ("test-yard", "Test yard", 48, 48)
    hab, wall = table.terrain
    assert (hab.id, hab.name, hab.kind, hab.height, hab.gives_cover) == (
        "hab", "Hab block", TerrainKind.BUILDING, 4.0, True)
    assert hab.polygon == ((10.0, 20.0), (15.0, 20.0), (15.0, 25.0), (10.0, 25.0))
    assert wall.gives_cover is True, "gives_cover defaults to true"
    assert layout.zones == {"south": Zone(0, 0, 48, 12), "north": Zone(0, 36, 48, 48)}
    assert layout.rulesets == (Ruleset.N5,)


def test_a_layout_writes_back_the_document_it_was_read_from() -> None:
    doc = document(description="A yard to test in.")
    written = parse_table(doc).document()
    doc["terrain"][1]["gives_cover"] = True  # written out in full
    assert written == doc
    assert parse_table(written) == parse_table(doc)


@pytest.mark.parametrize(("change", "path", "problem"), [
    (lambda d: d.update(format="infinity-referee-table/2"), "format", "must be"),
    (lambda d: d.pop("format"), "format", "must be"),
    (lambda d: d.update(colour="red"), "", "unknown fields ['colour']"),
    (lambda d: d.update(id="Test Yard"), "id", "lower-case"),
    (lambda d: d.update(id=""), "id", "lower-case"),
    (lambda d: d.update(id="x" * 49), "id", "lower-case"),
    (lambda d: d.update(title=""), "title", "1 to 80"),
    (lambda d: d.update(title="t" * 81), "title", "1 to 80"),
    (lambda d: d.pop("title"), "title", "1 to 80"),
    (lambda d: d.update(description=7), "description", "1 to 400"),
    (lambda d: d.update(rulesets=[]), "rulesets", "one or more"),
    (lambda d: d.update(rulesets="n5"), "rulesets", "one or more"),
    (lambda d: d.update(rulesets=["n6"]), "rulesets", "one or more"),
    (lambda d: d.update(rulesets=["n5", "n5"]), "rulesets", "each once"),
    (lambda d: d.update(width="48"), "width", "must be a number"),
    (lambda d: d.update(width=True), "width", "must be a number"),
    (lambda d: d.update(width=float("nan")), "width", "must be a number"),
    (lambda d: d.update(width=60), "width", "48 wide and 48 deep"),
    (lambda d: d.update(rulesets=["codeone"]), "width", "24 wide and 32 deep"),
    (lambda d: d.update(zones=[]), "zones", "must be an object"),
    (lambda d: d["zones"].pop("north"), "zones.north", "is missing"),
    (lambda d: d["zones"].update(east={"x0": 0, "y0": 0, "x1": 1, "y1": 1}), "zones",
     "unknown fields ['east']"),
    (lambda d: d["zones"]["south"].update(z=1), "zones.south", "unknown fields ['z']"),
    (lambda d: d["zones"]["south"].pop("y1"), "zones.south.y1", "must be a number"),
    (lambda d: d["zones"]["south"].update(x1=49), "zones.south", "on the table"),
    (lambda d: d["zones"]["north"].update(y0=50), "zones.north", "on the table"),
    (lambda d: d["zones"]["south"].update(y1=0), "zones.south", "on the table"),
    (lambda d: d["zones"]["south"].update(y0=1), "zones.south", "south edge"),
    (lambda d: d["zones"]["north"].update(y1=47), "zones.north", "north edge"),
    (lambda d: d["zones"]["south"].update(y1=40), "zones", "must not meet"),
    (lambda d: d.update(terrain={}), "terrain", "must be a list"),
    (lambda d: d["terrain"].append("hab"), "terrain[2]", "must be an object"),
    (lambda d: d["terrain"].append(piece(id="hab")), "terrain[2].id", "used by another piece"),
    (lambda d: d["terrain"].append(piece(id="P1")), "terrain[2].id", "lower-case"),
    (lambda d: d["terrain"].append(piece(name="")), "terrain[2].name", "1 to 80"),
    (lambda d: d["terrain"].append(piece(kind="tree")), "terrain[2].kind", "must be one of"),
    (lambda d: d["terrain"].append(piece(height=-1)), "terrain[2].height", "more than 0"),
    (lambda d: d["terrain"].append(piece(height=0)), "terrain[2].height", "more than 0"),
    (lambda d: d["terrain"].append(piece(height=13)), "terrain[2].height", "at most 12"),
    (lambda d: d["terrain"].append(piece(height="2")), "terrain[2].height", "a number"),
    (lambda d: d["terrain"].append(piece(gives_cover="yes")), "terrain[2].gives_cover",
     "true or false"),
    (lambda d: d["terrain"].append(piece(floors=2)), "terrain[2]", "unknown fields ['floors']"),
    (lambda d: d["terrain"].append(piece(polygon=[[1, 1], [2, 1]])), "terrain[2].polygon",
     "3 to 12 points"),
    (lambda d: d["terrain"].append(piece(polygon="square")), "terrain[2].polygon",
     "3 to 12 points"),
    (lambda d: d["terrain"].append(piece(polygon=[[1, 1], [2, 1], [2]])),
     "terrain[2].polygon[2]", "a point [x, y]"),
    (lambda d: d["terrain"].append(piece(polygon=[[1, 1], [2, 1], [2, None]])),
     "terrain[2].polygon[2]", "a number"),
    (lambda d: d["terrain"].append(piece(polygon=square(47, 10))), "terrain[2].polygon[1]",
     "off the table"),
    (lambda d: d["terrain"].append(piece(polygon=square(10, -1))), "terrain[2].polygon[0]",
     "off the table"),
    (lambda d: d["terrain"].append(piece(polygon=[[1, 1], [3, 1], [5, 1]])),
     "terrain[2].polygon", "at least 0.05 square inches"),
    (lambda d: d["terrain"].append(piece(polygon=[[1, 1], [3, 1], [1, 1], [1, 3]])),
     "terrain[2].polygon", "repeats the point (1, 1)"),
    (lambda d: d["terrain"].append(piece(polygon=[[0, 0], [4, 4], [4, 0], [0, 2]])),
     "terrain[2].polygon", "must not cross itself"),
])
def test_a_malformed_document_is_refused_naming_the_field(change: Any, path: str,
                                                          problem: str) -> None:
    doc = copy.deepcopy(document())
    change(doc)
    error = refused(doc)
    assert (error.path, problem in error.problem) == (path, True), str(error)
    assert str(error) == (f"{path}: {error.problem}" if path else error.problem)


def test_a_document_that_is_not_an_object_is_refused() -> None:
    assert refused(["not", "a", "table"]).problem == "must be an object"


def test_the_limits_keep_a_hostile_document_small() -> None:
    crowd = [piece(id=f"p{i}", polygon=square(i % 40, 13 + i // 40 * 3, 0.5))
             for i in range(MAX_PIECES + 1)]
    assert "at most 48" in refused(document(terrain=crowd)).problem
    parse_table(document(terrain=crowd[:MAX_PIECES]))  # the limit itself is allowed

    def round_piece(x: float, y: float, points: int) -> list[list[float]]:
        return [[round(x + math.cos(2 * math.pi * k / points), 4),
                 round(y + math.sin(2 * math.pi * k / points), 4)] for k in range(points)]
    error = refused(document(terrain=[piece(polygon=round_piece(20, 20, MAX_POINTS + 1))]))
    assert error.path == "terrain[0].polygon" and "3 to 12 points" in error.problem
    many = [piece(id=f"r{i}", polygon=round_piece(2 + 3 * (i % 15), 15 + 3 * (i // 15),
                                                  MAX_POINTS))
            for i in range(MAX_TOTAL_POINTS // MAX_POINTS + 1)]
    error = refused(document(terrain=many))
    assert (error.path, error.problem) == (
        "terrain", f"the footprints have more than {MAX_TOTAL_POINTS} points in all")
    parse_table(document(terrain=many[:-1]))


def test_at_most_eight_footprints_are_concave() -> None:
    def ell(x: float, y: float) -> list[list[float]]:
        return [[x, y], [x + 3, y], [x + 3, y + 1], [x + 1, y + 1], [x + 1, y + 3], [x, y + 3]]
    ells = [piece(id=f"l{i}", polygon=ell(1 + 5 * i, 14)) for i in range(MAX_CONCAVE + 1)]
    parse_table(document(terrain=ells[:MAX_CONCAVE]))
    error = refused(document(terrain=ells))
    assert (error.path, error.problem) == ("terrain[8].polygon",
                                           "more than 8 footprints are not convex")


def test_overlapping_pieces_are_allowed_each_blocks_on_its_own() -> None:
    # Footprints that overlap stand for touching or stacked scenery: every rule tests each
    # piece on its own (docs/tables.md), so nothing needs their union.
    parse_table(document(terrain=[piece(id="a"), piece(id="b", polygon=square(21, 21))]))


@pytest.mark.parametrize(("outline", "simple"), [
    ([(0, 0), (4, 0), (4, 4), (0, 4)], True),
    ([(0, 0), (4, 0), (4, 1), (1, 1), (1, 4), (0, 4)], True),  # an L: concave is fine
    ([(0, 0), (4, 0), (4, 4), (2, 0)], False),  # a corner on another edge
    ([(0, 0), (4, 0), (2, 0), (2, 3)], False),  # an edge folding back over the last
    ([(0, 0), (2, 0), (4, 0), (2, 3)], True),  # a corner in the middle of a straight side
])
def test_only_simple_outlines_are_footprints(outline: list[tuple[float, float]],
                                             simple: bool) -> None:
    assert (polygon_problem(outline) is None) is simple


def test_a_game_is_set_up_on_a_shipped_layout_by_id_or_on_a_whole_document() -> None:
    by_id = engine.new_game(engine.GameSetup(table="n5-night-market"))
    assert by_id.table == table_catalogue.layout("n5-night-market").table
    assert by_id.deployment_zones["north"] == Zone(0, 36, 48, 48)
    whole = engine.new_game(engine.GameSetup(table=document()))
    assert whole.table.id == "test-yard" and len(whole.table.terrain) == 2
    codeone = engine.new_game(engine.GameSetup(ruleset="codeone",
                                               table="codeone-orbital-medlab"))
    assert (codeone.table.width, codeone.table.depth) == (24, 32)


def test_without_a_table_a_game_is_on_the_rulesets_sparse_sample() -> None:
    n5 = engine.new_game(engine.GameSetup())
    codeone = engine.new_game(engine.GameSetup(ruleset="codeone"))
    assert (n5.table.id, len(n5.table.terrain)) == ("sample-open", 5)
    assert (codeone.table.id, len(codeone.table.terrain)) == ("sample-open-codeone", 3)
    assert n5.deployment_zones == {"south": Zone(0, 0, 48, 12), "north": Zone(0, 36, 48, 48)}
    assert codeone.deployment_zones == {"south": Zone(0, 0, 24, 8),
                                        "north": Zone(0, 24, 24, 32)}


@pytest.mark.parametrize(("ruleset", "table", "problem"), [
    ("codeone", "n5-night-market", "is a table for n5, not codeone"),
    ("n5", "codeone-orbital-medlab", "is a table for codeone, not n5"),
    ("n5", "no-such-table", "there is no table 'no-such-table'"),
])
def test_a_table_the_ruleset_cannot_play_on_is_refused(ruleset: str, table: str,
                                                       problem: str) -> None:
    with pytest.raises(TableError, match=problem):
        engine.new_game(engine.GameSetup(ruleset=ruleset, table=table))


def test_a_room_keeps_a_layouts_id_and_a_sent_tables_checked_document() -> None:
    n5 = Ruleset.N5
    assert table_catalogue.room_choice("n5-cargo-terminus", n5) == "n5-cargo-terminus"
    assert table_catalogue.room_choice(document(), n5) == parse_table(document()).document()
    # A copy of a shipped layout (as GET /api/tables lists it) is kept as that layout's id.
    shipped = table_catalogue.layout("n5-night-market").document()
    assert table_catalogue.room_choice(shipped, n5) == "n5-night-market"
    changed = copy.deepcopy(shipped)
    changed["terrain"].pop()
    with pytest.raises(TableError, match="the id of a shipped table"):
        table_catalogue.room_choice(changed, n5)
    for bad in ("", 7, None, ["n5-night-market"]):
        with pytest.raises(TableError, match="must be a table id or a table object"):
            table_catalogue.room_choice(bad, n5)


def test_a_state_stored_before_tables_had_names_loads_with_defaults() -> None:
    state = engine.new_game(engine.GameSetup(table="n5-ashfall-refinery"))
    plain = to_plain(state)
    assert set(plain["table"]) == {"id", "title", "width", "depth", "terrain", "zones",
                                   "special_terrain"}
    assert set(plain["table"]["terrain"][0]) == {"id", "name", "kind", "polygon", "height",
                                                 "gives_cover"}
    # zones: Smoke and Eclipse, added later still; special_terrain later again
    for name in ("id", "title", "zones", "special_terrain"):
        del plain["table"][name]
    for item in plain["table"]["terrain"]:
        del item["name"], item["kind"]
    old = from_plain(GameState, plain)
    assert (old.table.id, old.table.title, old.table.zones) == ("", "", ())
    assert old.table.special_terrain == ()
    assert {(p.name, p.kind) for p in old.table.terrain} == {("", TerrainKind.SCENERY)}
    assert [p.polygon for p in old.table.terrain] == [p.polygon for p in state.table.terrain]


def test_a_table_piece_made_in_code_still_needs_no_name_or_kind() -> None:
    wall = TerrainPiece(id=TerrainId("w"), polygon=((0, 0), (1, 0), (1, 1)), height=1.0)
    assert (wall.name, wall.kind) == ("", TerrainKind.SCENERY)
    assert Table(48.0, 48.0, (wall,)).id == ""
