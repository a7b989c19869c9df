"""The shipped weapons table and sample armies (DIGEST 2, 3.2, 12, 14)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import replace
from importlib import resources

import pytest

from server.rules.armies.army_catalogue import (
    WeaponDataError,
    load_weapons,
    sample_armies,
    sample_army,
    shipped_list_problems,
    weapons_from_plain,
)
from server.rules.armies.army_list import ArmyList, ListEntry, ListFormat
from server.rules.armies.army_selection import list_format_for
from server.rules.armies.profiles import Training, TroopType, UnitProfile
from server.rules.armies.weapons import WeaponKind, weapon_problems
from server.rules.plain import from_plain, to_plain
from server.rules.ruleset import Ruleset


def all_profiles() -> list[UnitProfile]:
    return [entry.profile for army in sample_armies().values() for entry in army.entries]


def test_weapons_table_loads_and_every_weapon_is_sound() -> None:
    weapons = load_weapons()
    assert len(weapons) >= 10
    for weapon_id, weapon in weapons.items():
        assert weapon.id == weapon_id
        assert weapon_problems(weapon) == ()


def test_load_weapons_returns_a_fresh_table() -> None:
    first = load_weapons()
    first.clear()
    assert load_weapons()


def test_weapons_table_problems_are_reported_together() -> None:
    raw = {"weapons": [
        {"id": "a", "name": "A", "kind": "ballistic", "burst": 0, "ps": 7, "ammo": "N",
         "ranges": [{"up_to": 8, "mod": 0}]},
        {"id": "b", "name": "B", "kind": "laser", "burst": 1, "ps": 7, "ammo": "N"},
    ]}
    with pytest.raises(WeaponDataError) as caught:
        weapons_from_plain(raw)
    assert len(caught.value.problems) == 2
    with pytest.raises(WeaponDataError):
        weapons_from_plain([])


# What the shipped lists of each ruleset must show between them, so a player can try every
# deployment and support skill the engine referees, and the random games that pick among the
# shipped lists (tests/support/liveness.py) meet them. Impetuous is not a CodeOne rule
# (DIGEST 14): the engine refuses it in CodeOne lists, and CodeOne has no Fireteams
# (orders/fireteams.py), so CodeOne needs all but those.
COVERED_SKILLS: dict[str, Callable[[ArmyList, ListEntry], bool]] = {
    "Hidden Deployment": lambda army, entry: entry.profile.hidden_deployment,
    "Camouflage": lambda army, entry: entry.profile.camouflage > 0,
    "Mimetism": lambda army, entry: entry.profile.mimetism > 0,
    "Impetuous": lambda army, entry: entry.profile.impetuous,
    "a Peripheral with its Controller": lambda army, entry: (
        entry.is_peripheral and entry.controller is not None
        and not army.entry(entry.controller).is_peripheral),
    "Hacker": lambda army, entry: entry.profile.hacker,
    "Repeater": lambda army, entry: entry.profile.repeater,
    "Airborne Deployment (Combat Jump)": lambda army, entry: entry.profile.combat_jump,
    # Issue 36 point 5: the Fireteams and skills the engine referees since then.
    "Fireteam: Core": lambda army, entry: _fireteam(army, entry, "fireteam_core", 2),
    "Fireteam: Haris": lambda army, entry: _fireteam(army, entry, "fireteam_haris", 3),
    "Fireteam: Duo": lambda army, entry: _fireteam(army, entry, "fireteam_duo", 2),
    "No Wound Incapacitation": lambda army, entry: entry.profile.nwi,
    "Dogged": lambda army, entry: entry.profile.dogged,
    "Courage": lambda army, entry: entry.profile.courage,
    "Immunity": lambda army, entry: bool(entry.profile.immunities),
    "Martial Arts": lambda army, entry: entry.profile.martial_arts > 0,
    "Total Reaction": lambda army, entry: entry.profile.total_reaction,
    "Nanoscreen": lambda army, entry: entry.profile.nanoscreen,
    "a Dodge MOD": lambda army, entry: entry.profile.dodge_mod != 0,
    "Multispectral Visor": lambda army, entry: entry.profile.multispectral_visor > 0,
    "ECM": lambda army, entry: entry.profile.ecm_hacker > 0,
    "Smoke Ammunition": lambda army, entry: _carries_ammo(army, entry, "Smoke"),
    "Eclipse Ammunition": lambda army, entry: _carries_ammo(army, entry, "Eclipse"),
    "Infiltration": lambda army, entry: entry.profile.infiltration,
    "Forward Deployment": lambda army, entry: entry.profile.forward_deployment > 0,
    "Chain of Command": lambda army, entry: entry.profile.chain_of_command,
    "Climbing Plus": lambda army, entry: entry.profile.climbing_plus,
    "Super-Jump": lambda army, entry: entry.profile.super_jump,
    "Doctor": lambda army, entry: entry.profile.doctor,
    "Paramedic": lambda army, entry: entry.profile.paramedic,
    "Engineer": lambda army, entry: entry.profile.engineer,
    "Forward Observer": lambda army, entry: entry.profile.forward_observer,
    "Specialist Operative": lambda army, entry: entry.profile.specialist_operative,
    "Minelayer with Mines": lambda army, entry: entry.profile.minelayer > 0 and any(
        weapon.is_mine for weapon in army.weapons(entry.id)),
    "Berserk": lambda army, entry: entry.profile.berserk,
    "Warhorse": lambda army, entry: entry.profile.warhorse,
    "Terrain": lambda army, entry: bool(entry.profile.terrain),
}
NOT_IN_FORMAT = {
    ListFormat.STANDARD: set(),
    # CodeOne has no Fireteams, no Impetuous, no Berserk and no Special Terrain areas.
    ListFormat.CODEONE: {"Impetuous", "Fireteam: Core", "Fireteam: Haris", "Fireteam: Duo",
                         "Berserk", "Terrain"},
}

# How each row above is stripped from a profile for the negative test (the Peripheral row
# cuts the Controller link instead; the ammunition rows take the weapons away).
STRIPPED: dict[str, dict[str, object]] = {
    "Hidden Deployment": {"hidden_deployment": False},
    "Camouflage": {"camouflage": 0},
    "Mimetism": {"camouflage": 0, "mimetism": 0},
    "Impetuous": {"impetuous": False},
    "Hacker": {"hacker": False},
    "Repeater": {"repeater": False},
    "Airborne Deployment (Combat Jump)": {"combat_jump": False},
    "Fireteam: Core": {"fireteam_core": False},
    "Fireteam: Haris": {"fireteam_haris": False},
    "Fireteam: Duo": {"fireteam_duo": False},
    "No Wound Incapacitation": {"nwi": False},
    "Dogged": {"dogged": False},
    "Courage": {"courage": False},
    "Immunity": {"immunities": ()},
    "Martial Arts": {"martial_arts": 0},
    "Total Reaction": {"total_reaction": False},
    "Nanoscreen": {"nanoscreen": False},
    "a Dodge MOD": {"dodge_mod": 0},
    "Multispectral Visor": {"multispectral_visor": 0},
    "ECM": {"ecm_hacker": 0},
    "Infiltration": {"infiltration": False},
    "Forward Deployment": {"forward_deployment": 0},
    "Chain of Command": {"chain_of_command": False},
    "Climbing Plus": {"climbing_plus": False},
    "Super-Jump": {"super_jump": False},
    "Doctor": {"doctor": False},
    "Paramedic": {"paramedic": False},
    "Engineer": {"engineer": False},
    "Forward Observer": {"forward_observer": False},
    "Specialist Operative": {"specialist_operative": False},
    "Minelayer with Mines": {"minelayer": 0},
    "Berserk": {"berserk": False, "berserk_mod": 0},
    "Warhorse": {"warhorse": False},
    "Terrain": {"terrain": ()},
}
STRIPPED_AMMUNITION = {"Smoke Ammunition": "Smoke", "Eclipse Ammunition": "Eclipse"}


def _fireteam(army: ArmyList, entry: ListEntry, flag: str, fewest: int) -> bool:
    """The entry may join a Fireteam of this type that its list can actually field: at least
    ``fewest`` troopers of its Combat Group list the type, none a Peripheral, a Controller or
    an Airborne Deployment trooper (orders/fireteams.py refuses those)."""
    def eligible(other: ListEntry) -> bool:
        return (bool(getattr(other.profile, flag)) and not other.is_peripheral
                and not army.peripherals_of(other.id) and not other.profile.combat_jump)
    return eligible(entry) and sum(
        1 for other in army.group(entry.combat_group) if eligible(other)) >= fewest


def _carries_ammo(army: ArmyList, entry: ListEntry, ammo: str) -> bool:
    return any(weapon.ammo == ammo for weapon in army.weapons(entry.id))


def uncovered_skills(armies: Iterable[ArmyList], list_format: ListFormat) -> list[str]:
    """The skills of ``COVERED_SKILLS`` legal in the format that no list of it carries."""
    lists = [army for army in armies if army.format is list_format]
    return [skill for skill, carries in COVERED_SKILLS.items()
            if skill not in NOT_IN_FORMAT[list_format]
            and not any(carries(army, entry) for army in lists for entry in army.entries)]


@pytest.mark.parametrize("ruleset", list(Ruleset))
def test_each_ruleset_ships_four_lists_that_together_cover_every_deployment_and_support_skill(
        ruleset: Ruleset) -> None:
    """Issue 35 point 6: at least four lists per ruleset; between them Hidden Deployment,
    Camouflage, Mimetism, Impetuous (N5 only), a Peripheral with its Controller, a Hacker,
    a Repeater and Airborne Deployment. Issue 36 point 5: and every Fireteam type (N5 only,
    each with enough members in one Combat Group to form it) and every skill and ammunition
    of ``COVERED_SKILLS`` the engine referees since."""
    list_format = list_format_for(ruleset)
    lists = [army for army in sample_armies().values() if army.format is list_format]
    assert len(lists) >= 4, [army.id for army in lists]
    assert uncovered_skills(lists, list_format) == []


@pytest.mark.parametrize("skill", sorted(COVERED_SKILLS))
def test_the_coverage_check_fails_when_a_skill_leaves_every_list(skill: str) -> None:
    """The check above can fail: strip one skill from every shipped list (a Peripheral's
    Controller link for the Peripheral row, the weapons for an ammunition row) and it is
    reported, in each format using it."""
    armies = [_without(army, skill) for army in sample_armies().values()]
    # Camouflage needs Mimetism (the marker shows it), so Mimetism goes with it.
    expected = {"Camouflage", "Mimetism"} if skill == "Mimetism" else {skill}
    for list_format in ListFormat:
        if skill not in NOT_IN_FORMAT[list_format]:
            assert set(uncovered_skills(armies, list_format)) == expected


def test_every_covered_skill_has_a_way_to_strip_it() -> None:
    assert set(COVERED_SKILLS) == {
        *STRIPPED, *STRIPPED_AMMUNITION, "a Peripheral with its Controller"}


def _without(army: ArmyList, skill: str) -> ArmyList:
    if skill in STRIPPED_AMMUNITION:
        dropped = {weapon.id for weapon in army.arsenal
                   if weapon.ammo == STRIPPED_AMMUNITION[skill]}
        entries = tuple(
            replace(entry, profile=replace(entry.profile, weapons=tuple(
                w for w in entry.profile.weapons if w not in dropped)))
            for entry in army.entries)
        return replace(army, entries=entries)
    entries = tuple(
        replace(entry, controller=None) if skill == "a Peripheral with its Controller"
        else replace(entry, profile=replace(entry.profile, **STRIPPED[skill]))
        for entry in army.entries)
    return replace(army, entries=entries)


@pytest.mark.parametrize("army_id", sorted(sample_armies()))
def test_sample_army_fits_its_format(army_id: str) -> None:
    """N5: 300 pts, <=15 troopers in 2 groups; CodeOne: 30 pts, one closed group of <=10."""
    army = sample_army(army_id)
    troopers = army.troopers()
    assert sum(1 for entry in army.entries if entry.lieutenant) == 1
    assert army.total_cost() <= army.points
    if army.format is ListFormat.STANDARD:
        assert army.points == 300
        assert army.combat_groups() == (1, 2)
        assert len(troopers) <= 15
    else:
        assert army.points == 30
        assert army.combat_groups() == (1,)
        assert len(troopers) <= 10
    for group in army.combat_groups():
        assert sum(1 for entry in army.group(group) if not entry.is_peripheral) <= 10


SHIPPED = resources.files("server.rules.data").joinpath("armies")


@pytest.mark.parametrize("file", sorted(f.name for f in SHIPPED.iterdir() if f.name.endswith(".json")))
def test_every_shipped_list_spends_exactly_its_points_limit(file: str) -> None:
    """Victory Points are the surviving troopers' points (DIGEST 11.5): a sample list that
    spent less than its limit would lose a game with no casualty, or win a concession on
    points. Read from the file itself, not through the catalogue's own check."""
    data = json.loads(SHIPPED.joinpath(file).read_text(encoding="utf-8"))
    costs = {unit["id"]: unit["cost"] for unit in data["units"]}
    total = sum(entry["profile"]["cost"] if "profile" in entry else costs[entry["unit"]]
                for entry in data["entries"])
    assert total == data["points"], f"{file}: the troopers cost {total} of {data['points']}"
    army = sample_army(data["id"])
    assert army.total_cost() == army.points == data["points"]


def test_the_catalogue_refuses_to_ship_a_list_under_its_limit() -> None:
    army = sample_army("vesper-raiders")
    assert shipped_list_problems(army) == []
    under = replace(army, points=army.points + 10)
    assert shipped_list_problems(under) == [
        f"The troopers cost {army.points} points; a shipped list spends exactly its {army.points + 10}."]


@pytest.mark.parametrize("army_id", sorted(sample_armies()))
def test_sample_army_round_trips_through_json(army_id: str) -> None:
    army = sample_army(army_id)
    assert from_plain(ArmyList, json.loads(json.dumps(to_plain(army)))) == army


def test_samples_cover_training_and_command_features() -> None:
    profiles = all_profiles()
    assert {p.training for p in profiles} == {Training.REGULAR, Training.IRREGULAR}
    assert any(p.tactical_awareness for p in profiles)
    assert any(p.impetuous for p in profiles)
    assert any(p.hidden_deployment for p in profiles)
    assert {p.camouflage for p in profiles if p.camouflage} == {3, 6}


def test_samples_cover_silhouettes_and_a_structure_remote() -> None:
    profiles = all_profiles()
    assert {1, 2, 3, 5} <= {p.silhouette for p in profiles}
    assert any(p.troop_type is TroopType.REM and p.structure for p in profiles)


def test_samples_include_a_controller_with_peripherals() -> None:
    counts = [
        len(army.peripherals_of(entry.id))
        for army in sample_armies().values()
        for entry in army.troopers()
    ]
    assert any(1 <= count <= 2 for count in counts)


def test_samples_cover_weapon_kinds_and_ammunition() -> None:
    carried = {
        weapon
        for army in sample_armies().values()
        for entry in army.entries
        for weapon in army.weapons(entry.id)
    }
    kinds = {weapon.kind for weapon in carried}
    assert kinds == set(WeaponKind)
    assert any(weapon.disposable for weapon in carried)
    assert {"Shock", "DA", "AP", "EXP"} <= {weapon.ammo for weapon in carried}


def test_unknown_sample_army_names_the_known_ones() -> None:
    with pytest.raises(KeyError, match="helion-vanguard"):
        sample_army("no-such-army")
