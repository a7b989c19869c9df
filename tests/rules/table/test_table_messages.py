"""The table's messages name what the players see: terrain by its name and where it stands
(``terrain_names``), never by the table file's internal id; troopers by their profile's name
and skills by the rules' names, never by ids.

Implementation test: no rule section. How refusals and terrain are named to players."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from server.rules.armies.skills import Move
from server.rules.decision import Rejection
from server.rules.ids import Side, TerrainId, TrooperId
from server.rules.orders.deployment import placement_problem
from server.rules.table.engaged import check_engaged_may_declare
from server.rules.table.geometry import Body
from server.rules.table.routes import check_route
from server.rules.table.table_catalogue import layout, shipped
from server.rules.table.terrain import Table, TerrainKind, TerrainPiece, standard_table
from server.rules.table.terrain_names import terrain_name
from tests.support.skirmish import skirmish


def square(piece_id: str, x: float, y: float, name: str = "",
           kind: TerrainKind = TerrainKind.SCENERY) -> TerrainPiece:
    return TerrainPiece(TerrainId(piece_id), ((x, y), (x + 1, y), (x + 1, y + 1), (x, y + 1)),
                        2.0, name=name, kind=kind)


@pytest.mark.parametrize("table_id", [item.layout.id for item in shipped()])
def test_every_shipped_piece_has_a_name_of_its_own_without_its_id(table_id: str) -> None:
    table = layout(table_id).table
    names = [terrain_name(piece, table) for piece in table.terrain]
    assert len(set(names)) == len(names)
    for piece, name in zip(table.terrain, names, strict=True):
        assert piece.name and piece.name in name
        assert piece.id not in name.replace(piece.name, "")  # "Landed shuttle" is no id


def test_a_piece_is_named_with_the_direction_from_the_centre() -> None:
    table = layout("n5-ashfall-refinery").table
    named = {piece.id: terrain_name(piece, table) for piece in table.terrain}
    assert named["office-s"] == "the Refinery office south-east of the centre"
    assert named["office-n"] == "the Refinery office north-west of the centre"
    assert named["cracking-tower"] == "the Cracking tower in the middle of the table"


def test_two_alike_pieces_in_one_direction_are_told_apart_by_their_side() -> None:
    table = layout("n5-cargo-terminus").table
    named = {piece.id: terrain_name(piece, table) for piece in table.terrain}
    assert named["stack-west-s"] == "the southern Container stack west of the centre"
    assert named["stack-east-n"] == "the northern Container stack west of the centre"


def test_more_alike_pieces_are_told_apart_by_their_middle() -> None:
    pieces = [square(f"crate-{i}", 2.0 + 2 * i, 2.0, "Crate") for i in range(3)]
    table = standard_table(pieces)
    assert terrain_name(pieces[1], table) == (
        "the Crate south-west of the centre (its middle at (4.5, 2.5))")


def test_a_piece_without_a_name_is_called_by_its_kind() -> None:
    """States stored before pieces had names read them as "" (docs/tables.md)."""
    hut = square("hut-1", 40.0, 40.0, kind=TerrainKind.BUILDING)
    wreck = square("wreck-1", 2.0, 40.0)
    table = standard_table([hut, wreck])
    assert terrain_name(hut, table) == "the building north-east of the centre"
    assert terrain_name(wreck, table) == "the scenery north-west of the centre"


def test_a_route_refusal_on_the_refinery_names_the_office_not_its_id() -> None:
    """The issue: "The route passes through terrain office-s" on a table whose app labels
    that piece "Refinery office" (or only its height)."""
    table: Table = layout("n5-ashfall-refinery").table
    mover = Body((32.3, 12.0), 90.0, 2)
    problem = check_route([(32.3, 12.0), (32.3, 22.0)], mover, 12.0, table, others=[])
    assert problem is not None and problem.code == "route_through_terrain"
    assert problem.message == ("The route passes through the Refinery office south-east of "
                               "the centre, which is 3.5 inches high.")
    assert "office-s" not in problem.message


def test_a_deployment_refusal_names_the_piece_not_its_id() -> None:
    state = skirmish({}, ruleset="n5")  # the N5 sample: a low wall across the centre
    problem = placement_problem(state, Body((24.0, 24.0), 90.0, 2), Side.A)
    assert problem == "The base would overlap the Low wall in the middle of the table."


def test_an_engaged_refusal_names_the_trooper_and_the_skills_as_players_do() -> None:
    state = skirmish({"A-t1": (10.0, 10.0, 90.0), "B-t1": (10.0, 11.0, 270.0)})
    engaged = state.trooper(TrooperId("A-t1"))
    enemy = state.trooper(TrooperId("B-t1"))
    gap = engaged.body().radius + enemy.body().radius
    state = skirmish({"A-t1": (10.0, 10.0, 90.0), "B-t1": (10.0, 10.0 + gap, 270.0)})
    engaged = state.trooper(TrooperId("A-t1"))
    with pytest.raises(Rejection) as refused:
        check_engaged_may_declare(state, engaged, Move(((10.0, 10.0), (10.0, 8.0))), False)
    assert refused.value.message == (
        f"{engaged.profile.name} is Engaged (in base contact with an enemy): it may only "
        "declare CC Attack, Dodge, Idle or Reset.")


def test_the_apps_terrain_names_fixture_is_current() -> None:
    """client-js/test/terrain-names.test.js checks the app's tooltip names against this file:
    it must say what the rules core says (remake it with make_terrain_names_fixture.py)."""
    maker = Path(__file__).resolve().parents[3] / "client-js" / "test" / "make_terrain_names_fixture.py"
    spec = importlib.util.spec_from_file_location("make_terrain_names_fixture", maker)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert json.loads(module.FIXTURE.read_text(encoding="utf-8")) == module.names()
