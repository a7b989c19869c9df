"""DIGEST 9 (Move, Cautious Movement, Jump, Climb measured against MOV) and DIGEST 2 (MOV)
inside Special Terrain areas, and the Terrain skill (infinitythewiki "Difficult Terrain",
"Very Difficult Terrain", "Special Terrain", "Terrain"). docs/rules-decisions/
deployment-skills.md "Terrain".

The wiki's example: a trooper with MOV 4-2 outside a Difficult Terrain area Moves into
contact with it, and its movement ends there even with MOV left; to go on it needs a new
Order, where its MOV is 3-1. With Terrain of the area's Type it crosses as open ground and
has +1 inch on its first MOV value inside. Here: a swamp (Aquatic) fills x 20-28, y 16-24 of
an N5 skirmish table; A-t7 (given MOV 4-2) stands south of it at (24, 13).
"""

from __future__ import annotations

from dataclasses import replace

from server.rules import engine
from server.rules.commands import parse_command
from server.rules.decision import Accepted, Rejected
from server.rules.ids import Side, TrooperId
from server.rules.options import seat_options
from server.rules.plain import Plain
from server.rules.state import GameState
from server.rules.table.special_terrain import Difficulty, SpecialTerrainArea, TerrainType
from tests.support.games import close_aro_window, play
from tests.support.skirmish import skirmish

MOVER = TrooperId("A-t7")
SWAMP = ((20.0, 16.0), (28.0, 16.0), (28.0, 24.0), (20.0, 24.0))


def _game(at: tuple[float, float] = (24.0, 13.0), terrain: tuple[TerrainType, ...] = (),
          difficulty: Difficulty = Difficulty.DIFFICULT,
          kind: TerrainType = TerrainType.AQUATIC) -> GameState:
    state = skirmish({"A-t7": (*at, 90.0), "A-t1": (2.0, 2.0, 90.0),
                      "B-t1": (44.0, 44.0, 270.0)}, ruleset="n5", first=Side.A)
    area = SpecialTerrainArea("swamp", "Swamp", SWAMP, difficulty, kind)
    state = replace(state, table=replace(state.table, terrain=(), special_terrain=(area,)))
    found = state.trooper(MOVER)
    profile = replace(found.entry.profile, mov=(4, 2), terrain=terrain)
    state = state.with_trooper(replace(found, entry=replace(found.entry, profile=profile)))
    state, _ = play(state, Side.A, {"type": "activate", "trooper": MOVER, "order": "regular"})
    return state


def _declare(state: GameState, skill: dict[str, Plain]) -> Accepted | Rejected:
    decision = engine.decide(state, Side.A, parse_command({"type": "declare_skill", "skill": skill}))
    assert isinstance(decision, Accepted | Rejected)
    return decision


def _move(route: list[list[float]]) -> dict[str, Plain]:
    return {"type": "move", "route": route}  # type: ignore[dict-item]


def _allowances(state: GameState) -> Plain:
    skills = seat_options(state, Side.A)["skills"]
    assert isinstance(skills, dict)
    return skills["allowances"]


def _radius(state: GameState) -> float:
    return state.trooper(MOVER).body().radius


def test_entering_difficult_terrain_ends_the_move_where_the_base_touches_it() -> None:
    state = _game()
    edge = 16.0 - _radius(state)  # the base touches the swamp with its centre here
    through = _declare(state, _move([[24.0, 13.0], [24.0, 17.0]]))
    assert isinstance(through, Rejected) and through.code == "bad_route"
    assert "Swamp (Difficult Terrain, Aquatic)" in through.message
    assert "ends" in through.message
    assert isinstance(_declare(state, _move([[24.0, 13.0], [24.0, edge]])), Accepted)


def test_after_entering_the_second_move_of_the_order_is_refused_and_not_offered() -> None:
    state = _game()
    edge = 16.0 - _radius(state)
    state, _ = play(state, Side.A, {"type": "declare_skill", "skill": _move([[24.0, 13.0], [24.0, edge]])})
    state, _ = close_aro_window(state)
    refused = _declare(state, _move([[24.0, edge], [24.0, edge + 1.0]]))
    assert isinstance(refused, Rejected) and refused.code == "skill_not_allowed"
    assert "movement ended" in refused.message
    skills = seat_options(state, Side.A)["skills"]
    assert isinstance(skills, dict) and "move" not in skills["route_skills"]


def test_a_new_order_inside_moves_with_mov_minus_one_and_options_say_so() -> None:
    state = _game(at=(24.0, 18.0))
    assert _allowances(state) == {"move": 3.0, "cautious_move": 3.0, "jump": 5.0, "climb": 3.0}
    too_far = _declare(state, _move([[24.0, 18.0], [24.0, 21.5]]))
    assert isinstance(too_far, Rejected) and too_far.code == "route_too_long"
    state, _ = play(state, Side.A, {"type": "declare_skill", "skill": _move([[24.0, 18.0], [24.0, 21.0]])})
    state, _ = close_aro_window(state)
    assert _allowances(state)["move"] == 1.0  # type: ignore[index]
    assert isinstance(_declare(state, _move([[24.0, 21.0], [24.0, 22.5]])), Rejected)
    assert isinstance(_declare(state, _move([[24.0, 21.0], [24.0, 22.0]])), Accepted)


def test_very_difficult_terrain_allows_one_movement_skill_per_order() -> None:
    state = _game(at=(24.0, 18.0), difficulty=Difficulty.VERY_DIFFICULT)
    state, _ = play(state, Side.A, {"type": "declare_skill", "skill": _move([[24.0, 18.0], [24.0, 20.0]])})
    state, _ = close_aro_window(state)
    refused = _declare(state, _move([[24.0, 20.0], [24.0, 21.0]]))
    assert isinstance(refused, Rejected) and refused.code == "skill_not_allowed"
    assert "only one movement skill" in refused.message


def test_terrain_of_the_areas_type_crosses_it_freely_with_a_bonus_inch() -> None:
    state = _game(terrain=(TerrainType.AQUATIC,))
    assert isinstance(_declare(state, _move([[24.0, 13.0], [24.0, 17.0]])), Accepted)
    inside = _game(at=(24.0, 18.0), terrain=(TerrainType.AQUATIC,))
    assert _allowances(inside)["move"] == 5.0  # type: ignore[index]
    assert isinstance(_declare(inside, _move([[24.0, 18.0], [24.0, 23.0]])), Accepted)


def test_terrain_of_another_type_does_not_help_terrain_total_does() -> None:
    jungle = _game(terrain=(TerrainType.JUNGLE,))
    assert isinstance(_declare(jungle, _move([[24.0, 13.0], [24.0, 17.0]])), Rejected)
    total = _game(terrain=tuple(TerrainType))
    assert isinstance(_declare(total, _move([[24.0, 13.0], [24.0, 17.0]])), Accepted)


def test_catalogue_maps_terrain_of_one_type_total_and_a_choice_of_types() -> None:
    """The wiki's "Terrain": one Type, Total, or several Types in brackets to choose one
    from when the trooper is placed (``terrain_choice``); an unknown Type is not refereed."""
    from server.rules.armies.item_catalogue import DataItem, TrooperFlags, apply_item
    from server.rules.armies.not_refereed import ItemKind
    total, jungle, choice, odd = TrooperFlags(), TrooperFlags(), TrooperFlags(), TrooperFlags()
    assert apply_item(DataItem(ItemKind.SKILL, "Terrain (Total)"), total) is None
    assert total.fields == {"terrain": ["aquatic", "desert", "jungle", "mountain", "zero_g"]}
    assert apply_item(DataItem(ItemKind.SKILL, "Terrain", ("Jungle",)), jungle) is None
    assert jungle.fields == {"terrain": ["jungle"]}
    assert apply_item(DataItem(ItemKind.SKILL, "Terrain (Jungle, Mountain)"), choice) is None
    assert choice.fields == {"terrain_choice": ["jungle", "mountain"]}
    found = apply_item(DataItem(ItemKind.SKILL, "Terrain (Jungle, Lava)"), odd)
    assert found is not None and found.name == "Terrain" and odd.fields == {}


def test_a_table_file_declares_special_terrain_areas_and_a_bad_one_is_named() -> None:
    import pytest

    from server.rules.table import table_catalogue
    from server.rules.table.tables import TableError, parse_table
    document = table_catalogue.layout("n5-cargo-terminus").document()
    assert [a["type"] for a in document["special_terrain"]] == ["aquatic", "aquatic"]
    again = parse_table(document)
    assert again.table.special_terrain == table_catalogue.layout("n5-cargo-terminus").table.special_terrain
    codeone = {**table_catalogue.layout("sample-open-codeone").document(),
               "special_terrain": document["special_terrain"][:1]}
    with pytest.raises(TableError) as refused:
        parse_table(codeone)
    assert refused.value.path == "special_terrain" and "CodeOne" in refused.value.problem
    document["special_terrain"][1]["difficulty"] = "impassable"
    with pytest.raises(TableError) as refused:
        parse_table(document)
    assert refused.value.path == "special_terrain[1].difficulty"


def _impetuous(razorback: tuple[float, float]) -> GameState:
    """B's Razorback Berserker (Impetuous, MOV 4-4, S2) in its Impetuous activation, playing
    first from the south; A's zone (y 36-48), the enemy's, is north; the swamp as above."""
    from tests.support.scenarios import build_state
    swamp = {"id": "swamp", "name": "Swamp", "polygon": [list(p) for p in SWAMP],
             "difficulty": "difficult", "terrain_type": "aquatic"}
    state = build_state({"ruleset": "n5", "terrain": [], "first": "B", "special_terrain": [swamp],
                         "placements": {"B-t6": [*razorback, 90], "A-t7": [44, 44, 270],
                                        "B-t1": [2, 2, 90]}})
    state, _ = play(state, Side.B, {"type": "activate", "trooper": "B-t6", "order": "impetuous"})
    return state


def test_digest_3_6_an_impetuous_move_inside_difficult_terrain_owes_mov_minus_one() -> None:
    state = _impetuous((24.0, 18.0))
    skills = seat_options(state, Side.B)["skills"]
    assert isinstance(skills, dict) and isinstance(skills["impetuous"], dict)
    assert skills["impetuous"]["full_mov"]["move"] == 3.0
    move = {"type": "move", "route": [[24.0, 18.0], [24.0, 21.0]]}
    assert isinstance(engine.decide(state, Side.B, parse_command(
        {"type": "declare_skill", "skill": move})), Accepted)


def test_digest_3_6_an_impetuous_move_that_enters_difficult_terrain_ends_there_short_of_its_mov() -> None:
    state = _impetuous((24.0, 13.0))
    edge = 16.0 - state.trooper(TrooperId("B-t6")).body().radius
    move = {"type": "move", "route": [[24.0, 13.0], [24.0, edge]]}
    assert isinstance(engine.decide(state, Side.B, parse_command(
        {"type": "declare_skill", "skill": move})), Accepted)


# --- Dodge and Guts movements (the wiki's "Difficult Terrain": contact during an Order ends
# a movement whatever its type; the older page's example has a Dodge stopping there) -------

GUARD = TrooperId("B-t1")


def _watched(guard_at: tuple[float, float] = (24.0, 26.0)) -> GameState:
    """A-t7 is activated south of the swamp; B's guard stands north of it, 2 inches from
    its edge, watching."""
    state = _game()
    found = state.trooper(GUARD)
    return state.with_trooper(replace(found, position=guard_at, facing=270.0))


def test_a_dodge_aro_that_enters_difficult_terrain_must_end_where_it_touches_it() -> None:
    """The guard Dodges towards the swamp: a route past the edge is refused (``bad_route``,
    the area named), one that ends where its base touches the swamp is accepted. Inside, a
    Dodge keeps its 2 inches (no MOV MOD: not a MOV value, no Movement label in N5)."""
    state = _watched()
    state, _ = play(state, Side.A, {"type": "declare_skill", "skill": _move([[24.0, 13.0], [22.0, 13.0]])})
    radius = state.trooper(GUARD).body().radius
    into = engine.decide(state, Side.B, parse_command({"type": "declare_aro", "trooper": GUARD,
                         "skill": {"type": "dodge", "route": [[24.0, 26.0], [24.0, 24.2]]}}))
    assert isinstance(into, Rejected) and into.code == "bad_route"
    assert "Dodge movement" in into.message and "Swamp (Difficult Terrain, Aquatic)" in into.message
    edge = engine.decide(state, Side.B, parse_command({"type": "declare_aro", "trooper": GUARD,
                         "skill": {"type": "dodge", "route": [[24.0, 26.0], [24.0, 24.0 + radius]]}}))
    assert isinstance(edge, Accepted)
    inside = _watched(guard_at=(24.0, 22.0))
    inside, _ = play(inside, Side.A, {"type": "declare_skill", "skill": _move([[24.0, 13.0], [22.0, 13.0]])})
    full = engine.decide(inside, Side.B, parse_command({"type": "declare_aro", "trooper": GUARD,
                         "skill": {"type": "dodge", "route": [[24.0, 22.0], [24.0, 20.0]]}}))
    assert isinstance(full, Accepted)


def test_an_active_trooper_that_entered_the_area_may_dodge_but_not_move_by_it() -> None:
    """Its movement ended for the rest of the Order: a Dodge with a route is refused, the
    Dodge roll alone accepted."""
    state = _game()
    edge = 16.0 - _radius(state)
    state, _ = play(state, Side.A, {"type": "declare_skill", "skill": _move([[24.0, 13.0], [24.0, edge]])})
    state, _ = close_aro_window(state)
    moving = _declare(state, {"type": "dodge", "route": [[24.0, edge], [22.5, edge]]})  # type: ignore[dict-item]
    assert isinstance(moving, Rejected) and moving.code == "bad_route"
    assert "ended this Order when it entered Swamp" in moving.message
    assert isinstance(_declare(state, {"type": "dodge"}), Accepted)


def test_a_guts_movement_that_enters_difficult_terrain_must_end_there() -> None:
    """A Guts movement stops where it enters the swamp as any movement does; the points a
    failed Guts Roll is offered never go past that."""
    from server.rules.combat.guts import GutsRule, guts_route_problem, guts_rule
    from server.rules.orders.difficult_terrain import reactive_move_problem
    from server.rules.state import GutsDue

    state = _watched()
    rule = GutsRule(GUARD, "guts_to_cover", ((24.0, 27.0),), (MOVER,), ())
    problem = guts_route_problem(state, rule, ((24.0, 26.0), (24.0, 24.2)))
    assert problem is not None and problem.code == "bad_route" and "Swamp" in problem.message
    offered = guts_rule(state, GutsDue(GUARD, (MOVER,)))
    assert all(reactive_move_problem(state.table, state.trooper(GUARD), ((24.0, 26.0), p)) is None
               for p in offered.points)


# --- Terrain with a choice of Types (the wiki's "Terrain": the player chooses one of the
# Types in brackets when placing the trooper on the table) -----------------------------------


def _choosing(camouflage: int = 0) -> tuple[GameState, TrooperId]:
    """N5 Deployment Phase, A first; one of A's troopers has Terrain (Jungle, Mountain)."""
    from tests.support.games import new_game_in_deployment

    state = new_game_in_deployment("n5")
    found = next(t for t in state.troopers_of(Side.A) if not t.profile.hidden_deployment)
    profile = replace(found.entry.profile, terrain_choice=(TerrainType.JUNGLE, TerrainType.MOUNTAIN),
                      camouflage=camouflage)
    return state.with_trooper(replace(found, entry=replace(found.entry, profile=profile))), found.id


def _deploy(state: GameState, trooper: TrooperId, **fields: Plain) -> Accepted | Rejected:
    body: dict[str, Plain] = {"type": "deploy", "trooper": trooper, "position": [10.0, 4.0],
                              "facing": 90.0, **fields}
    decision = engine.decide(state, Side.A, parse_command(body))
    assert isinstance(decision, Accepted | Rejected)
    return decision


def test_a_choice_of_types_is_named_as_the_trooper_deploys_and_masters_that_type_only() -> None:
    """Options offer the Types; a deploy naming none, or a Type not offered, is refused; one
    naming Jungle deploys it with Terrain (Jungle): a Jungle area no longer hinders it, a
    Mountain one still does. Deployed as a Model, the choice is open to the opponent."""
    from server.rules.events import TerrainTypeChosen
    from server.rules.ids import SPECTATOR
    from server.rules.orders.terrain_skill import masters
    from server.rules.views import view_event

    state, chooser = _choosing()
    assert seat_options(state, Side.A)["deploy_terrain"] == {chooser: ["jungle", "mountain"]}
    unnamed = _deploy(state, chooser)
    assert isinstance(unnamed, Rejected) and unnamed.code == "bad_command"
    assert "Jungle or Mountain" in unnamed.message
    other = _deploy(state, chooser, terrain="aquatic")
    assert isinstance(other, Rejected) and other.code == "bad_command"
    chosen = _deploy(state, chooser, terrain="jungle")
    assert isinstance(chosen, Accepted)
    (event,) = [e for e in chosen.events if isinstance(e, TerrainTypeChosen)]
    assert (event.trooper, event.terrain_type, event.public) == (chooser, "jungle", True)
    state = engine.apply_all(state, chosen.events)
    profile = state.trooper(chooser).profile
    assert profile.terrain == (TerrainType.JUNGLE,)
    jungle = SpecialTerrainArea("j", "Jungle", SWAMP, Difficulty.DIFFICULT, TerrainType.JUNGLE)
    mountain = SpecialTerrainArea("m", "Rocks", SWAMP, Difficulty.DIFFICULT, TerrainType.MOUNTAIN)
    assert masters(profile, jungle) and not masters(profile, mountain)
    assert view_event(event, Side.B, state) == view_event(event, SPECTATOR, state) is not None
    assert chooser not in seat_options(state, Side.A)["deploy_terrain"]


def test_a_camouflaged_troopers_choice_stays_private_and_others_may_not_choose() -> None:
    """Deployed as a Camouflage Marker, its profile is private, and so is the Type chosen:
    the opponent and spectators receive no ``terrain_type_chosen``. A trooper without a
    choice may not name a Type (``skill_not_allowed``)."""
    from server.rules.events import TerrainTypeChosen
    from server.rules.ids import SPECTATOR
    from server.rules.views import view_event

    state, chooser = _choosing(camouflage=3)
    chosen = _deploy(state, chooser, terrain="mountain")
    assert isinstance(chosen, Accepted)
    state = engine.apply_all(state, chosen.events)
    (event,) = [e for e in chosen.events if isinstance(e, TerrainTypeChosen)]
    assert not event.public and state.trooper(chooser).marker
    assert view_event(event, Side.B, state) is None and view_event(event, SPECTATOR, state) is None
    assert view_event(event, Side.A, state) is not None
    plain = next(t for t in state.troopers_of(Side.A) if t.id != chooser and not t.position
                 and not t.profile.hidden_deployment)
    refused = _deploy(state, plain.id, terrain="jungle", position=[20.0, 4.0])
    assert isinstance(refused, Rejected) and refused.code == "skill_not_allowed"
