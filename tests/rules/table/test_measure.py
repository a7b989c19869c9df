"""The ruler and Line of Fire check (server/rules/table/measure.py): distances, Line of Fire,
front arc and range MODs against hand-computed values, and who may measure from what."""

from __future__ import annotations

from dataclasses import replace

import pytest

from server.rules.combat.mods import bs_attack_mods
from server.rules.decision import Rejection
from server.rules.ids import SPECTATOR, Side, TerrainId, TrooperId, Viewer
from server.rules.state import GameState
from server.rules.table.geometry import Point
from server.rules.table.measure import Measurement, WeaponRange, measure
from server.rules.table.silhouettes import MM_PER_INCH
from server.rules.table.terrain import Table, TerrainPiece
from tests.support.skirmish import Placement, skirmish

S2 = 25.0 / MM_PER_INCH / 2  # radius of a Silhouette 2 base (25 mm), inches
S8 = 70.0 / MM_PER_INCH / 2  # radius of a Silhouette 8 base (70 mm)

OFFICER = TrooperId("A-t1")  # Warden Officer, S2: breacher rifle, sidearm, combat knife
HEAVY = TrooperId("A-t6")  # Colossus Assault Frame, S5 (40 mm base, 45 mm tall)
SCOUT = TrooperId("A-t3")  # Pathfinder Scout: Camouflage, deploys as a marker
RESERVE = TrooperId("A-t2")  # never deployed in these games
GHOST = TrooperId("B-t2")  # Ghost Infiltrator: Hidden Deployment
ENFORCER = TrooperId("B-t3")  # Syndicate Enforcer, S2: punch carbine, sidearm, knife

PLACEMENTS: dict[str, Placement] = {
    OFFICER: (10.0, 4.0, 90.0),  # facing +y
    SCOUT: (30.0, 4.0, 90.0),
    GHOST: (30.0, 20.0, 270.0, "hidden"),
    ENFORCER: (40.0, 40.0, 270.0),
}


def game(*pieces: TerrainPiece, **more: Placement) -> GameState:
    """An N5 game in its Orders Phase on a bare 48" table (plus ``pieces``)."""
    state = skirmish({**PLACEMENTS, **more}, ruleset="n5", seed=3)
    return replace(state, table=Table(48.0, 48.0, pieces))


def wall(x0: float, y0: float, x1: float, y1: float, height: float) -> TerrainPiece:
    return TerrainPiece(TerrainId("wall"), ((x0, y0), (x1, y0), (x1, y1), (x0, y1)), height)


def refusal(state: GameState, viewer: Viewer, origin: str | Point, to: Point,
            silhouette: int | None = None) -> tuple[str, str]:
    start = TrooperId(origin) if isinstance(origin, str) else origin
    with pytest.raises(Rejection) as refused:
        measure(state, viewer, start, to, silhouette)
    return refused.value.reason.value, refused.value.message


def test_from_a_trooper_the_distance_is_between_the_bases_and_the_bands_are_its_weapons() -> None:
    """DIGEST 10.4: distances run between the closest points of the bases."""
    measured = measure(game(), Side.A, OFFICER, (10.0, 20.0))
    assert measured.distance == pytest.approx(16.0 - 2 * S2)  # 15.016": centre 16" apart
    assert (measured.silhouette, measured.line_of_fire, measured.in_front_arc) == (2, True, True)
    assert measured.weapons == (
        WeaponRange("breacher_rifle", "Breacher Rifle (Shock)", 3),  # 8.01-16: +3
        WeaponRange("sidearm", "Sidearm", 0),  # 8.01-16: 0
        WeaponRange("stunner", "Stunner (Stun)", 0),  # 8.01-16: 0
        WeaponRange("combat_knife", "Combat Knife (Shock)", None),  # not in base contact
    )


def test_the_target_silhouette_changes_the_base_measured_to() -> None:
    """DIGEST 10.2 and 10.4: the target's Silhouette sets the base measured to."""
    measured = measure(game(), Side.A, OFFICER, (10.0, 20.0), silhouette=8)
    assert measured.distance == pytest.approx(16.0 - S2 - S8)  # 14.130"
    assert measured.silhouette == 8


def test_range_mods_are_the_ones_an_attack_at_that_distance_gets() -> None:
    """The enemy standing at the point is shot at the same range band as measured. DIGEST 10.5."""
    for y in (10.0, 20.5, 29.0, 34.0):
        state = game(**{ENFORCER: (10.0, y, 270.0)})
        measured = measure(state, Side.A, OFFICER, (10.0, y))
        officer, enforcer = state.trooper(OFFICER), state.trooper(ENFORCER)
        assert measured.weapons is not None
        for weapon, entry in zip(state.armies[Side.A].weapons(officer.entry.id),
                                 measured.weapons, strict=True):
            if not weapon.ranges:
                continue
            shot = bs_attack_mods(weapon, enforcer, officer.body(), enforcer.body(), state.table)
            band = [mod.value for mod in shot.mods if mod.source == "range"]
            assert entry.mod == (None if shot.out_of_range else band[0]), (y, weapon.id)


def test_in_base_contact_the_close_combat_weapon_is_in_range() -> None:
    """DIGEST 9: a CC Attack needs Silhouette contact."""
    measured = measure(game(), Side.A, OFFICER, (10.0, 4.5))
    assert measured.distance == 0.0
    assert measured.weapons is not None and measured.weapons[-1].mod == 0


def test_behind_the_trooper_is_outside_its_front_arc_and_out_of_its_line_of_fire() -> None:
    """DIGEST 10.1: Line of Fire only in the front arc."""
    measured = measure(game(), Side.A, OFFICER, (10.0, 1.0))
    assert (measured.in_front_arc, measured.line_of_fire) == (False, False)
    beside = measure(game(), Side.A, OFFICER, (20.0, 4.0))  # on its front line: base half in
    assert (beside.in_front_arc, beside.line_of_fire) == (True, True)


def test_a_tall_wall_blocks_the_line_of_fire_but_not_the_arc() -> None:
    """DIGEST 10.1: scenery blocks Line of Fire."""
    state = game(wall(8.0, 10.0, 12.0, 11.0, 5.0))
    measured = measure(state, Side.A, OFFICER, (10.0, 20.0))
    assert (measured.in_front_arc, measured.line_of_fire) == (True, False)
    assert measured.distance == pytest.approx(16.0 - 2 * S2)


def test_a_model_blocks_sight_unless_it_stands_at_the_point() -> None:
    """The Colossus (S5) between the officer and the point hides the point; measured to the
    Colossus's own position, it is the target there and does not block itself.
    DIGEST 10.1: models block Line of Fire too."""
    state = game(**{HEAVY: (10.0, 12.0, 90.0)})
    assert measure(state, Side.A, OFFICER, (10.0, 20.0)).line_of_fire is False
    assert measure(state, Side.A, OFFICER, (10.0, 12.0)).line_of_fire is True


def test_between_two_points_centre_to_centre_and_nothing_else() -> None:
    """DIGEST 10.4: a free measurement between two points."""
    assert measure(game(), SPECTATOR, (0.0, 0.0), (3.0, 4.0)) == Measurement(5.0)


@pytest.mark.parametrize("to", [(48.5, 10.0), (-0.1, 3.0), (10.0, 48.01)])
def test_a_point_off_the_table_is_refused(to: Point) -> None:
    """DIGEST 10.4: measuring is done on the table."""
    code, message = refusal(game(), Side.A, OFFICER, to)
    assert code == "bad_position" and "off the table" in message
    assert refusal(game(), Side.A, to, (1.0, 1.0))[0] == "bad_position"
    assert measure(game(), Side.A, (48.0, 48.0), (0.0, 48.0)).distance == 48.0  # edges count


def test_an_undefined_silhouette_is_refused() -> None:
    """DIGEST 10.2: only the listed Silhouettes exist."""
    assert refusal(game(), Side.A, OFFICER, (10.0, 20.0), silhouette=9)[0] == "bad_target"


def test_a_hidden_enemy_answers_exactly_as_an_id_that_names_nobody() -> None:
    """DIGEST 11.2 and 12: a hidden enemy's presence is private."""
    hidden = refusal(game(), Side.A, GHOST, (10.0, 20.0))
    assert hidden == ("unknown_trooper", f"There is no trooper {GHOST}.")
    without_ghost = skirmish({k: v for k, v in PLACEMENTS.items() if k != GHOST},
                             ruleset="n5", seed=3)
    assert refusal(without_ghost, Side.A, GHOST, (10.0, 20.0)) == hidden  # not deployed
    assert refusal(game(), Side.A, "B-nobody", (10.0, 20.0)) == (
        "unknown_trooper", "There is no trooper B-nobody.")
    assert refusal(game(), SPECTATOR, GHOST, (10.0, 20.0)) == hidden
    # Whatever else is wrong with the question, the answer is the same.
    assert refusal(game(), Side.A, GHOST, (10.0, 20.0), silhouette=9) == hidden


def test_its_owner_measures_from_a_hidden_trooper_and_sees_its_weapons() -> None:
    """DIGEST 12: the owner knows where its hidden trooper is."""
    measured = measure(game(), Side.B, GHOST, (30.0, 10.0))
    assert measured.distance == pytest.approx(10.0 - 2 * S2)
    assert measured.line_of_fire is True
    assert measured.weapons is not None and measured.weapons[0] == WeaponRange(
        "lance_rifle", "Lance Rifle (DA)", 0)  # 8.01-16: 0


def test_an_own_trooper_not_deployed_yet_is_not_on_the_table() -> None:
    """DIGEST 11.1: a trooper is on the table once deployed."""
    code, message = refusal(game(), Side.A, RESERVE, (10.0, 20.0))
    assert code == "trooper_not_on_table"
    name = game().trooper(RESERVE).profile.name
    assert message == f"{name} is not deployed yet."  # its owner's name for it, not its id
    assert RESERVE not in message
    assert refusal(game(), Side.B, RESERVE, (10.0, 20.0)) == (
        "unknown_trooper", f"There is no trooper {RESERVE}.")


def test_an_enemy_marker_is_measured_from_where_it_stands_but_keeps_its_profile() -> None:
    """A Camouflage Marker's position and Silhouette are public; what it is is not. DIGEST 11.2 and 12."""
    state = game()
    assert state.trooper(SCOUT).marker
    for viewer in (Side.B, SPECTATOR):
        seen = measure(state, viewer, SCOUT, (30.0, 1.0))  # behind its facing
        assert seen.weapons is None
        assert (seen.in_front_arc, seen.line_of_fire) == (True, True)  # all-round vision
        assert seen.distance == pytest.approx(3.0 - 2 * S2)
    own = measure(state, Side.A, SCOUT, (30.0, 1.0))
    assert own.weapons is not None and own.weapons[0].weapon == "line_rifle"
    assert own.distance == seen.distance and own.line_of_fire == seen.line_of_fire


def test_enemy_and_spectator_see_a_models_weapons() -> None:
    """DIGEST 11.2: a model's equipment is Open Information."""
    for viewer in (Side.A, SPECTATOR):
        measured = measure(game(), viewer, ENFORCER, (40.0, 30.0))
        assert measured.weapons is not None
        assert [w.weapon for w in measured.weapons] == ["punch_carbine", "sidearm",
                                                        "combat_knife"]
