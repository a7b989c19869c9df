"""The operator's army data: the army builder's documents validated, indexed and one trooper
converted into the engine's figures (server/rules/armies/army_data.py), read from the
invented dataset in testkit/army_data/.

Implementation test: no rule section."""

from __future__ import annotations

import contextlib
import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.config import Settings
from server.node.army_data_folder import load_army_data
from server.rules.armies.army_data import (
    MAX_REFS,
    NO_VALUE,
    ArmyData,
    ArmyDataError,
    mov_inches,
    unit_profile_fields,
)
from server.rules.armies.profiles import (
    Training,
    TroopType,
    UnitProfile,
    profile_problems,
)
from testkit.synthetic_army_data import SYNTHETIC_ARMY_DATA


def _documents() -> tuple[dict[str, Any], dict[int, Any]]:
    metadata = json.loads((SYNTHETIC_ARMY_DATA / "metadata.json").read_text("utf-8"))
    factions = {faction_id: json.loads((SYNTHETIC_ARMY_DATA / f"{faction_id}.json")
                                       .read_text("utf-8"))
                for faction_id in (901, 902)}
    return metadata, factions


@pytest.fixture(scope="module")
def data() -> ArmyData:
    return load_army_data(SYNTHETIC_ARMY_DATA)


def test_the_synthetic_folder_loads_with_its_two_faction_documents(data: ArmyData) -> None:
    assert data.faction_ids == (901, 902)
    assert data.faction(901).name == "Lantern Accord"
    assert data.faction(902).slug == "cinder-compact"
    assert [unit.name for unit in data.units(901)] == [
        "Lamplighter Line", "Wirewright", "Gloam Stalker", "Skyfall Lancer", "Ashen Zealot",
        "Loom Keeper", "Loom Mite"]


def test_every_lookup_finds_its_entry(data: ArmyData) -> None:
    unit = data.unit(901, 11)
    assert unit.name == "Lamplighter Line"
    group = data.profile_group(901, 11, 1)
    assert [option.id for option in group.options] == [1, 2, 3]
    option = data.option(901, 11, 1, 2)
    assert (option.name, option.points, float(option.swc)) == ("Arc Launcher", 14, 1.0)
    assert data.ammunition_name(3) == "Burst Charge"


@pytest.mark.parametrize(("lookup", "message"), [
    (lambda d: d.faction(999), "The army data has no faction 999."),
    (lambda d: d.units(903), "The army data has no document for faction 903 (Unbuilt League)."),
    (lambda d: d.unit(901, 77), "Faction 901 has no unit 77."),
    (lambda d: d.profile_group(901, 11, 5),
     "Unit 11 (Lamplighter Line) of faction 901 has no profile group 5."),
    (lambda d: d.option(901, 11, 1, 9),
     "Profile group 1 of unit 11 (Lamplighter Line) of faction 901 has no option 9."),
    (lambda d: d.trooper(902, 21, 1, 4),
     "Profile group 1 of unit 21 (Ember Regular) of faction 902 has no option 4."),
    (lambda d: d.weapon(1), "The army data has no weapon 1."),
    (lambda d: d.ammunition_name(42), "The army data has no ammunition 42."),
])
def test_an_unknown_id_is_named(data: ArmyData, lookup: Any, message: str) -> None:
    with pytest.raises(ArmyDataError) as caught:
        lookup(data)
    assert caught.value.problem == message


@pytest.mark.parametrize(("cm", "inches"), [
    (0, 0), (5, 2), (10, 4), (15, 6), (20, 8), (11, 4), (12, 5), (25, 10)])
def test_mov_converts_at_two_and_a_half_centimetres_to_the_inch(cm: int, inches: int) -> None:
    assert mov_inches(cm) == inches


def test_a_line_trooper_resolves_to_the_engine_figures(data: ArmyData) -> None:
    trooper = data.trooper(901, 11, 1, 1)
    assert trooper.mov == (4, 4)
    assert (trooper.cc, trooper.bs, trooper.ph, trooper.wip, trooper.arm, trooper.bts) == (
        13, 11, 10, 13, 1, 0)
    assert (trooper.vita, trooper.structure, trooper.silhouette) == (1, False, 2)
    assert trooper.troop_type is TroopType.LI
    assert trooper.training is Training.REGULAR
    assert (trooper.cost, trooper.swc) == (10, 0.0)
    # The profile's weapons come first, then the option's.
    assert [(w.id, w.name) for w in trooper.weapons] == [
        (504, "Knuckle Blade"), (501, "Pulse Carbine"), (502, "Sidearm")]


def test_options_of_one_unit_differ_in_points_swc_and_skills(data: ArmyData) -> None:
    carbine = data.trooper(901, 11, 1, 1)
    launcher = data.trooper(901, 11, 1, 2)
    lieutenant = data.trooper(901, 11, 1, 3)
    assert (carbine.cost, carbine.swc) == (10, 0.0)
    assert (launcher.cost, launcher.swc) == (14, 1.0)
    assert [(s.name, s.extras) for s in lieutenant.skills] == [("Lieutenant", (1,))]
    assert [order.type for order in lieutenant.orders] == ["REGULAR", "LIEUTENANT"]
    assert carbine.skills == ()


def test_a_tag_has_structure_and_a_trooper_wounds(data: ArmyData) -> None:
    tag = data.trooper(902, 22, 1, 1)
    assert (tag.troop_type, tag.structure, tag.vita, tag.silhouette) == (
        TroopType.TAG, True, 3, 7)
    assert tag.mov == (6, 4)
    assert (tag.cost, tag.swc) == (87, 2.0)
    line = data.trooper(902, 21, 1, 1)
    assert (line.structure, line.vita) == (False, 1)


def test_hacker_camouflage_and_peripheral_carry_their_references(data: ArmyData) -> None:
    hacker = data.trooper(901, 12, 1, 1)
    assert hacker.troop_type is TroopType.MI
    assert [(s.name, s.extras) for s in hacker.skills] == [("Hacker", (2,))]
    assert [e.name for e in hacker.equips] == ["Relay Antenna"]
    assert hacker.swc == 0.5
    stalker = data.trooper(901, 13, 1, 1)
    assert stalker.troop_type is TroopType.SK
    assert stalker.training is Training.IRREGULAR
    assert stalker.mov == (4, 2)
    assert [s.name for s in stalker.skills] == ["Camouflage", "Mimetism", "Hidden Deployment"]
    drone = data.trooper(902, 23, 1, 1)
    assert (drone.troop_type, drone.structure) == (TroopType.REM, True)
    assert drone.training is None  # a peripheral brings no order
    assert [(s.name, s.extras) for s in drone.skills] == [("Peripheral", (21,))]


@pytest.mark.parametrize(("type_number", "troop_type"), [
    (1, TroopType.LI), (2, TroopType.MI), (3, TroopType.HI), (4, TroopType.TAG),
    (5, TroopType.REM), (6, TroopType.SK), (7, TroopType.WB)])
def test_each_troop_type_number_maps_to_the_engine_type(type_number: int,
                                                        troop_type: TroopType) -> None:
    metadata, factions = _documents()
    factions[901]["units"][0]["profileGroups"][0]["profiles"][0]["type"] = type_number
    assert ArmyData(metadata, factions).trooper(901, 11, 1, 1).troop_type is troop_type


def test_weapon_modes_keep_their_distance_bands_in_centimetres(data: ArmyData) -> None:
    launcher = data.weapon(503)
    assert [mode.mode for mode in launcher.modes] == ["Shell", "Flare"]
    shell = launcher.modes[0]
    assert [(b.name, b.max_cm, b.mod) for b in shell.distance] == [
        ("short", 40, 0), ("med", 80, 3), ("long", 120, -3)]
    assert (shell.burst, shell.damage, shell.saving, shell.ammunition) == ("1", "14", "ARM", 3)
    assert shell.properties == ("Impact Template", "Anti-materiel")
    assert data.weapon(504).modes[0].distance == ()
    assert data.weapon(505).modes[0].burst == "4"


def test_the_data_fields_make_a_valid_engine_profile(data: ArmyData) -> None:
    for faction_id in data.faction_ids:
        for unit in data.units(faction_id):
            for group in unit.groups:
                for option in group.options:
                    trooper = data.trooper(faction_id, unit.id, group.id, option.id)
                    fields = unit_profile_fields(trooper)
                    fields.setdefault("training", Training.REGULAR)
                    profile = UnitProfile(id="t", name=trooper.name, **fields)  # type: ignore[arg-type]
                    assert profile_problems(profile) == ()


def _faction_edit(edit: Any) -> str:
    metadata, factions = _documents()
    edit(metadata, factions[901])
    with pytest.raises(ArmyDataError) as caught:
        ArmyData(metadata, factions)
    return caught.value.problem


def _profile(faction: Any) -> Any:
    return faction["units"][0]["profileGroups"][0]["profiles"][0]


def _option(faction: Any) -> Any:
    return faction["units"][0]["profileGroups"][0]["options"][0]


@pytest.mark.parametrize(("edit", "message"), [
    (lambda m, f: _profile(f).pop("bs"),
     "faction 901: units[0].profileGroups[0].profiles[0].bs is missing."),
    (lambda m, f: _profile(f).update(arm="3"),
     "faction 901: units[0].profileGroups[0].profiles[0].arm must be a whole number."),
    (lambda m, f: _profile(f).update(type=8),
     "faction 901: units[0].profileGroups[0].profiles[0].type is 8, outside 1-7."),
    (lambda m, f: _profile(f).update(move=[10]),
     "faction 901: units[0].profileGroups[0].profiles[0].move must be two whole numbers "
     "of centimetres, 0-100 (or 255: none)."),
    (lambda m, f: _profile(f).update(ph=120),
     "faction 901: units[0].profileGroups[0].profiles[0].ph is 120, outside 0-99 "
     "(or 255: none)."),
    (lambda m, f: _profile(f).update(str="yes"),
     "faction 901: units[0].profileGroups[0].profiles[0].str must be true or false."),
    (lambda m, f: _option(f).update(swc="0.3"),
     "faction 901: units[0].profileGroups[0].options[0].swc is 0.3, not 0-20 in steps "
     "of 0.5."),
    (lambda m, f: _option(f).update(swc="lots"),
     "faction 901: units[0].profileGroups[0].options[0].swc must be a number such as 0, "
     "0.5 or 1.5."),
    (lambda m, f: _option(f).pop("points"),
     "faction 901: units[0].profileGroups[0].options[0].points is missing."),
    (lambda m, f: _option(f)["weapons"].append({"id": 999, "q": 1}),
     "faction 901: units[0].profileGroups[0].options[0].weapons[2].id is 999, a weapon the "
     "metadata lacks."),
    (lambda m, f: _profile(f).update(skills=[{"id": 603, "extra": ["x"]}]),
     "faction 901: units[0].profileGroups[0].profiles[0].skills[0].extra must be a list of "
     "whole numbers."),
    (lambda m, f: f["units"].append(copy.deepcopy(f["units"][0])),
     "faction 901: units has id 11 twice."),
    (lambda m, f: f.pop("units"), "faction 901: units is missing."),
    (lambda m, f: m.pop("skills"), "metadata: skills is missing."),
    (lambda m, f: m["weapons"][0]["distance"]["short"].update(mod="near"),
     "metadata: weapons[0].distance.short.mod must be a whole number such as +3, 0 or -6."),
    (lambda m, f: m["weapons"][1]["distance"]["med"].update(mod="+-3"),
     "metadata: weapons[1].distance.med.mod must be a whole number such as +3, 0 or -6."),
    (lambda m, f: m["weapons"][1]["distance"]["med"].update(mod="\u00b2"),
     "metadata: weapons[1].distance.med.mod must be a whole number such as +3, 0 or -6."),
    (lambda m, f: m["factions"][0].update(id="901"),
     "metadata: factions[0].id must be a whole number."),
    (lambda m, f: _option(f).update(weapons=[{"id": 501}] * (MAX_REFS + 1)),
     f"faction 901: units[0].profileGroups[0].options[0].weapons has {MAX_REFS + 1} entries, "
     f"more than the limit of {MAX_REFS}."),
])
def test_a_malformed_document_is_refused_naming_the_field(edit: Any, message: str) -> None:
    assert _faction_edit(edit) == message


def test_a_characteristic_the_data_marks_as_none_loads_but_its_trooper_is_refused() -> None:
    metadata, factions = _documents()
    _profile(factions[901]).update(bs=NO_VALUE, move=[10, NO_VALUE])
    factions[902]["units"][0]["profileGroups"][0]["profiles"] = []
    data = ArmyData(metadata, factions)
    assert data.option(901, 11, 1, 1).points == 10
    with pytest.raises(ArmyDataError) as caught:
        data.trooper(901, 11, 1, 1)
    assert caught.value.problem == (
        "Unit 11 (Lamplighter Line) of faction 901, profile group 1: the profile has no value "
        "for MOV, BS, which the engine needs.")
    with pytest.raises(ArmyDataError) as caught:
        data.trooper(902, 21, 1, 1)
    assert caught.value.problem == (
        "Unit 21 (Ember Regular) of faction 902, profile group 1 has no profile.")


def test_a_document_that_is_not_an_object_is_refused() -> None:
    metadata, factions = _documents()
    with pytest.raises(ArmyDataError, match=r"^metadata: the document must be an object\.$"):
        ArmyData([metadata], factions)
    factions[902] = "units"
    with pytest.raises(ArmyDataError,
                       match=r"^faction 902: the document must be an object\.$"):
        ArmyData(metadata, factions)


def test_a_faction_document_the_metadata_does_not_list_is_refused() -> None:
    metadata, factions = _documents()
    factions[950] = factions[901]
    with pytest.raises(ArmyDataError) as caught:
        ArmyData(metadata, factions)
    assert caught.value.problem == "faction 950: the metadata lists no faction with this id."


def test_the_folder_loader_names_a_missing_metadata_and_a_broken_file(tmp_path: Path) -> None:
    with pytest.raises(ArmyDataError, match=r"has no metadata\.json"):
        load_army_data(tmp_path)
    with pytest.raises(ArmyDataError, match="does not exist or is not a folder"):
        load_army_data(tmp_path / "absent")
    (tmp_path / "metadata.json").write_text(
        (SYNTHETIC_ARMY_DATA / "metadata.json").read_text("utf-8"), "utf-8")
    (tmp_path / "901.json").write_text('{"units": [', "utf-8")
    with pytest.raises(ArmyDataError, match=r"^901\.json: not a JSON document"):
        load_army_data(tmp_path)
    (tmp_path / "901.json").write_text("[" * 100_000 + "]" * 100_000, "utf-8")
    with pytest.raises(ArmyDataError, match=r"^901\.json: not a JSON document"):
        load_army_data(tmp_path)
    (tmp_path / "901.json").write_text('{"units": []}', "utf-8")
    (tmp_path / "notes.json").write_text("not read", "utf-8")
    assert load_army_data(tmp_path).units(901) == ()


def test_the_operator_names_the_folder_with_referee_army_data() -> None:
    assert Settings.from_env({}).army_data is None
    settings = Settings.from_env({"REFEREE_ARMY_DATA": str(SYNTHETIC_ARMY_DATA)})
    assert settings.army_data == SYNTHETIC_ARMY_DATA


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.floats(allow_nan=True)
    | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                  max_size=3),
    max_leaves=8)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, (*prefix, index))
    return found


_METADATA, _FACTIONS = _documents()
_TARGETS = ([("metadata", *path) for path in _paths(_METADATA)[1:]]
            + [("faction", *path) for path in _paths(_FACTIONS[901])[1:]])


@settings(max_examples=300, deadline=None, derandomize=True)
@given(target=st.sampled_from(_TARGETS), replacement=_JSON)
def test_any_value_anywhere_is_read_or_refused_with_a_named_problem(
        target: tuple[Any, ...], replacement: Any) -> None:
    metadata, factions = _documents()
    document = metadata if target[0] == "metadata" else factions[901]
    *parents, last = target[1:]
    for key in parents:
        document = document[key]
    document[last] = replacement
    try:
        data = ArmyData(metadata, factions)
    except ArmyDataError as error:
        # A changed metadata id may leave another faction's reference dangling: named too.
        assert error.problem.startswith(("metadata: ", "faction 901: ", "faction 902: "))
        return
    for unit in data.units(901):
        for group in unit.groups:
            for option in group.options:
                with contextlib.suppress(ArmyDataError):
                    data.trooper(901, unit.id, group.id, option.id)
