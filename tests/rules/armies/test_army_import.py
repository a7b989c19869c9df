"""An army code plus the operator's army data -> the project's army document
(server/rules/armies/army_import.py and the modules it uses: item_catalogue,
weapon_conversion, customisations, trooper_conversion, army_coverage), on the invented
dataset of testkit/army_data/.

Implementation test: no rule section."""

from __future__ import annotations

import base64
import copy
import json
import math
import subprocess
import sys
from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.armies.__main__ import main as armies_main
from server.node.army_data_folder import load_army_data
from server.rules.armies.army_catalogue import load_weapons
from server.rules.armies.army_code import (
    ArmyCode,
    CombatGroup,
    Customisation,
    GroupMember,
    encode_army_code,
)
from server.rules.armies.army_coverage import army_coverage
from server.rules.armies.army_data import ArmyData, ArmyDataError
from server.rules.armies.army_data_records import DataWeapon, DistanceBand, Order, WeaponMode
from server.rules.armies.army_import import ArmyImportError, army_document_from_code
from server.rules.armies.army_list import (
    POINTS_PER_SWC,
    ArmyListError,
    ListFormat,
    load_army_list,
)
from server.rules.armies.item_catalogue import DataItem, TrooperFlags, apply_item, split_level
from server.rules.armies.not_refereed import MAX_ITEMS, MAX_TEXT, ItemKind, NotRefereed, item_texts
from server.rules.armies.trooper_conversion import TrooperConversionError, convert_trooper
from server.rules.armies.weapon_conversion import convert_weapon
from server.rules.armies.weapons import Weapon, weapon_problems
from server.rules.plain import from_plain
from testkit.army_codes import (
    army_code_text,
    legal_army_code,
    synthetic_army_data,
    trooper_choices,
)
from testkit.synthetic_army_data import SYNTHETIC_ARMY_DATA

STANDARD = ListFormat.STANDARD


@pytest.fixture(scope="module")
def data() -> ArmyData:
    return synthetic_army_data()


def _document(groups: list[list[tuple[int, int, int]]], *, faction: int = 901,
              points: int = 300, list_format: ListFormat = STANDARD, **kwargs: Any) -> dict[str, Any]:
    code = army_code_text(faction, groups, points=points, **kwargs)
    return army_document_from_code(code, synthetic_army_data(), list_format)


def _entry(pick: tuple[int, int, int], faction: int = 901, **kwargs: Any) -> dict[str, Any]:
    """The entry of a lone trooper (a Lieutenant comes first, so the list is legal)."""
    lieutenant = (11, 1, 3) if faction == 901 else (21, 1, 2)
    entries = _document([[lieutenant, pick]], faction=faction, **kwargs)["entries"]
    return entries[1]


def _load(document: dict[str, Any]) -> Any:
    return load_army_list(document, load_weapons())


def _problems(document: dict[str, Any]) -> tuple[str, ...]:
    with pytest.raises(ArmyListError) as caught:
        _load(document)
    return caught.value.problems


# --- one trooper, figure by figure ----------------------------------------------------------


def test_a_hacker_converts_figure_by_figure(data: ArmyData) -> None:
    entry = _entry((12, 1, 1))
    assert entry["profile"] == {
        "id": "u12-g1", "name": "Wirewright", "mov": [4, 4], "cc": 14, "bs": 11, "ph": 10,
        "wip": 14, "arm": 1, "bts": 3, "vita": 1, "structure": False, "silhouette": 2,
        "troop_type": "mi", "training": "regular", "cost": 21, "swc": 0.5, "hacker": True,
        "weapons": ["w-501-1", "w-502-1"]}
    assert entry["combat_group"] == 1
    assert "lieutenant" not in entry and "controller" not in entry
    assert entry["not_refereed"] == ["Relay Antenna — played without it"]


@pytest.mark.parametrize(("pick", "faction", "mov"), [
    ((11, 1, 1), 901, [4, 4]), ((13, 1, 1), 901, [4, 2]), ((15, 1, 1), 901, [6, 4]),
    ((22, 1, 1), 902, [6, 4])])
def test_mov_goes_from_centimetres_to_inches(pick: tuple[int, int, int], faction: int,
                                             mov: list[int]) -> None:
    assert _entry(pick, faction)["profile"]["mov"] == mov


def test_a_tag_keeps_its_structure_and_silhouette() -> None:
    profile = _entry((22, 1, 1), 902)["profile"]
    assert (profile["troop_type"], profile["structure"], profile["vita"], profile["silhouette"],
            profile["arm"], profile["bts"]) == ("tag", True, 3, 7, 8, 6)
    assert (profile["cost"], profile["swc"]) == (87, 2.0)


# --- weapons ------------------------------------------------------------------------------


def _weapons(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {weapon["id"]: weapon for weapon in document["weapons"]}


def test_each_weapon_mode_becomes_an_engine_weapon() -> None:
    weapons = _weapons(_document([[(11, 1, 3), (14, 1, 2), (15, 1, 1), (13, 1, 1)]]))
    assert weapons["w-501-1"] == {
        "id": "w-501-1", "name": "Pulse Carbine", "kind": "ballistic", "burst": 3, "ps": 7,
        "ammo": "N", "save_attribute": "ARM", "traits": ["suppressive_fire"],
        "ranges": [{"up_to": 8.0, "mod": 3}, {"up_to": 16.0, "mod": 0},
                   {"up_to": 24.0, "mod": -3}, {"up_to": 40.0, "mod": -6}]}
    assert weapons["w-506-1"] == {"id": "w-506-1", "name": "Shock Maul", "kind": "close_combat",
                                  "burst": 1, "ps": 6, "ammo": "Shock", "save_attribute": "ARM"}
    assert weapons["w-507-1"] == {
        "id": "w-507-1", "name": "Cinder Spout", "kind": "direct_template", "burst": 1,
        "ps": 7, "ammo": "EXP", "template": "large_teardrop", "save_attribute": "ARM"}
    # Two modes of one weapon: two engine weapons, each with its own ammunition and save.
    assert (weapons["w-508-1"]["name"], weapons["w-508-1"]["ammo"],
            weapons["w-508-1"]["disposable"]) == ("Rivet Charge (Blast)", "DA", 2)
    assert (weapons["w-508-2"]["ammo"], weapons["w-508-2"]["save_attribute"]) == ("Stun", "BTS")
    assert weapons["w-505-1"]["ammo"] == "AP"
    for plain in weapons.values():
        weapon = from_plain(Weapon, plain)
        assert weapon_problems(weapon) == ()


def _mode(**fields: Any) -> WeaponMode:
    base: dict[str, Any] = {"mode": "", "burst": "2", "damage": "8", "saving": "ARM",
                            "ammunition": 4, "properties": (),
                            "distance": (DistanceBand("short", 20, 3),)}
    base.update(fields)
    return WeaponMode(**base)


AMMUNITION = {4: "N", 5: " ap ", 3: "Burst Charge", 6: "Smoke", 7: "ECLIPSE"}


def _convert(**fields: Any) -> tuple[list[dict[str, Any]], list[str]]:
    converted = convert_weapon(DataWeapon(900, "Test Gun", (_mode(**fields),)), AMMUNITION)
    return list(converted.weapons), [note.text for note in converted.not_refereed]


@pytest.mark.parametrize(("bands", "inches"), [
    ([(20, 3), (40, 0), (60, -3), (100, -6)], [8.0, 16.0, 24.0, 40.0]),
    ([(11, 0), (30, -3)], [4.4, 12.0]),
    ([(5, 6)], [2.0])])
def test_range_bands_go_from_centimetres_to_inches_without_rounding(
        bands: list[tuple[int, int]], inches: list[float]) -> None:
    weapons, _ = _convert(distance=tuple(DistanceBand(name, cm, mod) for name, (cm, mod)
                                         in zip(("short", "med", "long", "max"), bands, strict=False)))
    assert [band["up_to"] for band in weapons[0]["ranges"]] == inches
    assert [band["mod"] for band in weapons[0]["ranges"]] == [mod for _, mod in bands]
    assert inches == [float(Decimal(cm) / Decimal("2.5")) for cm, _ in bands]


@pytest.mark.parametrize(("ammunition", "ammo"), [(6, "Smoke"), (7, "Eclipse")])
def test_smoke_and_eclipse_convert_without_damage_or_save(ammunition: int, ammo: str) -> None:
    """Smoke and Eclipse grenades (wiki "Smoke Ammunition", "Eclipse Ammunition"; DIGEST 10):
    Damage and save "-" (they hit no one: combat/smoke.py); Non-Lethal and Targetless are what
    they are anyway; Throwing Weapon makes the throw roll PH; any other property stays not
    refereed."""
    weapons, notes = _convert(ammunition=ammunition, burst="1", damage="-", saving="-",
                              properties=("Non-Lethal", "Targetless", "Throwing Weapon",
                                          "Reflective"))
    assert (weapons[0]["ammo"], weapons[0]["ps"], weapons[0]["kind"]) == (ammo, 0, "ballistic")
    assert weapons[0]["traits"] == ["throwing_weapon"]
    assert notes == ["Test Gun: Reflective — played without it"]


def test_ammunition_is_matched_by_name_ignoring_case_and_spaces() -> None:
    weapons, notes = _convert(ammunition=5)
    assert weapons[0]["ammo"] == "AP" and notes == []


@pytest.mark.parametrize(("fields", "text"), [
    ({"damage": "PH"}, "Test Gun — not carried: its Damage is PH, which the referee cannot play"),
    ({"burst": "-"}, "Test Gun — not carried: it has no Burst"),
    ({"burst": "0"}, "Test Gun — not carried: its Burst is 0"),
    ({"damage": "25"}, "Test Gun — not carried: its Damage 25 is above 20"),
    ({"ammunition": 3}, "Test Gun — not carried: the referee has no Burst Charge ammunition"),
    ({"ammunition": None}, "Test Gun — not carried: it names no ammunition"),
    ({"saving": "-"}, "Test Gun — not carried: its save (-) is not on ARM or BTS"),
    ({"distance": ()}, "Test Gun — not carried: it has no range"),
    ({"distance": (DistanceBand("short", 40, 0), DistanceBand("med", 20, 0))},
     "Test Gun — not carried: its range bands are not positive and ascending"),
    ({"distance": (), "properties": ("Direct Template",)},
     "Test Gun — not carried: it is a Direct Template without a teardrop shape"),
])
def test_a_mode_the_engine_cannot_play_is_left_off_and_named(fields: dict[str, Any],
                                                              text: str) -> None:
    weapons, notes = _convert(**fields)
    assert weapons == [] and notes == [text]


def test_unread_properties_stay_on_a_carried_weapon_as_not_refereed() -> None:
    weapons, notes = _convert(mode="Burst", properties=("Suppressive Fire", "Anti-materiel",
                                                        "Small Teardrop"))
    assert weapons[0]["name"] == "Test Gun (Burst)"
    assert (weapons[0]["kind"], weapons[0]["template"]) == ("direct_template", "small_teardrop")
    assert "ranges" not in weapons[0]
    assert weapons[0]["traits"] == ["suppressive_fire"]
    assert notes == ["Test Gun (Burst): Anti-materiel — played without it"]


def test_a_throwing_weapon_is_thrown_on_ph() -> None:
    """The Throwing Weapon property becomes the trait the rules read to roll PH
    (``combat/attack_attribute.py``): it is refereed, so it is not listed as played without."""
    weapons, notes = _convert(properties=("Throwing Weapon",))
    assert weapons[0]["traits"] == ["throwing_weapon"] and notes == []


def test_a_trooper_lists_the_weapons_it_cannot_carry() -> None:
    entry = _entry((11, 1, 2))
    assert entry["profile"]["weapons"] == ["w-502-1"]
    assert entry["not_refereed"] == [
        "Knuckle Blade — not carried: its Damage is PH, which the referee cannot play",
        "Arc Launcher (Shell) — not carried: the referee has no Burst Charge ammunition",
        "Arc Launcher (Flare) — not carried: it has no Damage"]


# --- the item catalogue -------------------------------------------------------------------


@pytest.mark.parametrize(("pick", "faction", "flags"), [
    ((12, 1, 1), 901, {"hacker": True}),  # Hacker skill
    ((16, 1, 1), 901, {"hacker": True}),  # Hacking Device equipment
    ((13, 1, 1), 901, {"camouflage": 3, "mimetism": 3, "hidden_deployment": True}),
    ((24, 1, 1), 902, {"camouflage": 6, "mimetism": 6, "hidden_deployment": True}),
    ((15, 1, 1), 901, {"impetuous": True}),  # from the option's IMPETUOUS order
    ((15, 1, 2), 901, {"impetuous": True}),  # from the Impetuous skill
    ((14, 1, 2), 901, {"tactical_awareness": True, "combat_jump": True}),  # TACTICAL order
    ((25, 1, 1), 902, {"tactical_awareness": True, "combat_jump": True}),  # skills; AD L1
    ((14, 1, 1), 901, {"combat_jump": True}),
    ((22, 1, 1), 902, {"sixth_sense": True}),
])
def test_each_mapped_item_sets_its_engine_flag(pick: tuple[int, int, int], faction: int,
                                               flags: dict[str, Any]) -> None:
    profile = _entry(pick, faction)["profile"]
    known = {"hacker", "camouflage", "mimetism", "hidden_deployment", "impetuous",
             "tactical_awareness", "combat_jump", "sixth_sense", "repeater"}
    assert {key: value for key, value in profile.items() if key in known} == flags


def test_the_lieutenant_option_makes_the_entry_the_lieutenant() -> None:
    entries = _document([[(11, 1, 1), (11, 1, 3)]])["entries"]
    assert [entry.get("lieutenant", False) for entry in entries] == [False, True]
    # Nothing about the Lieutenant shows in its open items or its profile's id and name.
    assert entries[0]["profile"]["id"] == entries[1]["profile"]["id"] == "u11-g1"
    assert not any("Lieutenant" in text for text in entries[1]["not_refereed"])


def test_a_peripheral_is_controlled_by_the_nearest_trooper_before_it_in_its_group() -> None:
    document = _document([[(11, 1, 3), (16, 1, 1), (11, 1, 1), (17, 1, 1)],
                          [(14, 1, 1), (17, 1, 1), (17, 1, 1)]])
    entries = {entry["id"]: entry for entry in document["entries"]}
    assert entries["t4"]["controller"] == "t3"
    assert entries["t6"]["controller"] == entries["t7"]["controller"] == "t5"
    mite = entries["t4"]["profile"]
    assert (mite["troop_type"], mite["repeater"], mite["training"]) == (
        "peripheral", True, "regular")
    army = _load(document)
    assert [entry.id for entry in army.peripherals_of("t5")] == ["t6", "t7"]


def test_a_peripheral_with_no_trooper_before_it_in_its_group_is_refused() -> None:
    with pytest.raises(ArmyImportError) as caught:
        _document([[(11, 1, 3)], [(17, 1, 1), (11, 1, 1)]])
    assert caught.value.problem == (
        "The army code's member 1 of combat group 2 (Loom Mite) is a Peripheral with no "
        "trooper before it in its combat group to control it.")


@pytest.mark.parametrize(("pick", "faction", "texts"), [
    ((13, 1, 1), 901, ["Twin Spitter: Heat Sink — played without it"]),
    ((15, 1, 1), 901, ["Drift Walk — played without it",
                       "Cinder Spout: Intuitive Attack — played without it"]),
    ((22, 1, 1), 902, ["Glare Visor — played without it",
                       "Knuckle Blade — not carried: its Damage is PH, which the referee "
                       "cannot play",
                       "Twin Spitter: Heat Sink — played without it"]),
    ((26, 1, 1), 902, ["Glare Visor L1 — played without it",
                       "Camouflage — deployed as a model, not a marker: the referee plays "
                       "Camouflage only with Mimetism -3 or -6"]),
    ((16, 1, 1), 901, []),
])
def test_what_is_not_mapped_is_listed_per_trooper(pick: tuple[int, int, int], faction: int,
                                                  texts: list[str]) -> None:
    entry = _entry(pick, faction)
    assert entry["not_refereed"] == texts
    assert all(len(text) <= MAX_TEXT for text in entry["not_refereed"])


def test_camouflage_without_mimetism_deploys_as_a_model() -> None:
    profile = _entry((26, 1, 1), 902)["profile"]
    assert "camouflage" not in profile and "mimetism" not in profile


@pytest.mark.parametrize(("name", "split"), [
    ("Mimetism (-6)", ("Mimetism", ("-6",))), ("Lieutenant L2", ("Lieutenant", ("L2",))),
    ("  Sixth   Sense ", ("Sixth Sense", ())), ("Hidden Deployment", ("Hidden Deployment", ())),
    ("Repeater +1", ("Repeater", ("+1",)))])
def test_names_lose_spaces_and_a_written_level(name: str, split: tuple[str, tuple[str, ...]]) -> None:
    assert split_level(name) == split


@pytest.mark.parametrize(("item", "fields", "text"), [
    (DataItem(ItemKind.SKILL, "MIMETISM (-6)"), {"mimetism": 6}, None),
    (DataItem(ItemKind.SKILL, "mimetism", ("-3",)), {"mimetism": 3}, None),
    (DataItem(ItemKind.SKILL, "Mimetism", ("-4",)), {},
     "Mimetism -4 — played without it: the referee plays Mimetism -3 or -6 only"),
    (DataItem(ItemKind.SKILL, "airborne   deployment", ("L2",)), {"combat_jump": True}, None),
    (DataItem(ItemKind.EQUIPMENT, "hacking device"), {"hacker": True}, None),
    (DataItem(ItemKind.EQUIPMENT, "Repeater"), {"repeater": True}, None),
    (DataItem(ItemKind.EQUIPMENT, "Glare Visor", ("L1",)), {}, "Glare Visor L1 — played without it"),
    (DataItem(ItemKind.EQUIPMENT, "Multispectral Visor", ("L1",)), {"multispectral_visor": 1}, None),
    (DataItem(ItemKind.EQUIPMENT, "multispectral visor L3"), {"multispectral_visor": 3}, None),
    (DataItem(ItemKind.EQUIPMENT, "Multispectral Visor"), {},
     "Multispectral Visor — played without it: the referee plays Multispectral Visor L1-L3 only"),
])
def test_the_catalogue_reads_names_in_any_case_and_spacing(item: DataItem, fields: dict[str, Any],
                                                           text: str | None) -> None:
    flags = TrooperFlags()
    note = apply_item(item, flags)
    assert flags.fields == fields
    assert (note.text if note else None) == text


def test_airborne_deployment_written_with_two_spaces_is_mapped() -> None:
    entry = _entry((25, 1, 1), 902)
    assert entry["profile"]["combat_jump"] is True
    assert entry["not_refereed"] == []


def test_a_trooper_with_more_items_than_a_list_holds_sums_up_the_rest() -> None:
    items = tuple(NotRefereed(ItemKind.SKILL, f"S{n}", f"Skill {n}") for n in range(60))
    texts = item_texts(items)
    assert len(texts) == MAX_ITEMS
    assert texts[-1] == "11 more items — played without them"
    assert NotRefereed(ItemKind.SKILL, "x", "x" * 300).text.endswith("…")
    assert len(NotRefereed(ItemKind.SKILL, "x", "x" * 300).text) == MAX_TEXT


# --- orders and customisations ------------------------------------------------------------


def _custom(*entries: Any) -> tuple[Customisation, ...]:
    return (Customisation(1, json.dumps(list(entries))),)


def test_customisations_raise_a_stat_and_add_a_skill_the_engine_has(data: ArmyData) -> None:
    document = _document(
        [[(11, 1, 3), (11, 1, 1)]],
        customisations={(0, 1): _custom({"type": "stat", "stat": "bts", "q": 2},
                                        {"type": "skill", "id": 607},
                                        {"type": "equip", "id": 702, "extra": [1]})})
    entry = document["entries"][1]
    assert (entry["profile"]["bts"], entry["profile"]["sixth_sense"]) == (2, True)
    assert entry["not_refereed"] == [
        "Glare Visor L1 — played without it",
        "Knuckle Blade — not carried: its Damage is PH, which the referee cannot play"]


@pytest.mark.parametrize(("custom", "text"), [
    ({"type": "stat", "stat": "s", "q": 1}, "Customisation +1 S — played without it"),
    ({"type": "skill", "id": 28, "extra": [6]},
     "Added skill 28, which the server's army data does not have — played without it"),
    ({"type": "paint", "colour": "red"},
     'Customisation {"type":"paint","colour":"red"} — played without it'),
    ("just text", 'Customisation "just text" — played without it'),
])
def test_a_customisation_the_engine_cannot_apply_is_not_refereed(custom: Any, text: str) -> None:
    document = _document([[(11, 1, 3), (11, 1, 1)]], customisations={(0, 1): _custom(custom)})
    assert document["entries"][1]["not_refereed"][-1] == text


def test_an_order_the_engine_does_not_know_is_not_refereed(data: ArmyData) -> None:
    trooper = data.trooper(901, 11, 1, 1)
    odd = replace(trooper, orders=(Order("REGULAR", 2), Order("COORDINATOR", 1)))
    notes = [note.text for note in convert_trooper(data, odd).not_refereed]
    assert notes[:2] == ["2 Regular Orders — played as one",
                         "Coordinator Order — played without it"]


def test_a_trooper_without_an_order_that_is_not_a_peripheral_cannot_be_fielded(
        data: ArmyData) -> None:
    lone = replace(data.trooper(901, 11, 1, 1), orders=(), training=None)
    with pytest.raises(TrooperConversionError, match="Lamplighter brings no Order"):
        convert_trooper(data, lone)


# --- the document and its loading ----------------------------------------------------------


def test_the_document_header_comes_from_the_code() -> None:
    code = army_code_text(901, [[(11, 1, 3)]], points=150, name="Night Shift")
    document = army_document_from_code(code, synthetic_army_data(), ListFormat.CODEONE)
    assert {key: document[key] for key in ("name", "faction", "format", "points")} == {
        "name": "Night Shift", "faction": "Lantern Accord", "format": "codeone", "points": 150}
    assert document["id"].startswith("code-") and len(document["id"]) == 17
    # The same code pasted URL-encoded, unpadded and broken over lines keeps its id.
    pasted = code.rstrip("=").replace("/", "%2F").replace("+", "%2B")
    pasted = pasted[:10] + "\n" + pasted[10:]
    assert army_document_from_code(pasted, synthetic_army_data(), STANDARD)["id"] == document["id"]
    unnamed = army_code_text(901, [[(11, 1, 3)]], points=150, name="  ")
    assert army_document_from_code(unnamed, synthetic_army_data(), STANDARD)["name"] == (
        "Lantern Accord list")


def test_the_id_says_nothing_of_which_trooper_is_the_lieutenant() -> None:
    """DIGEST 11.2: the opponent sees the list's id; two codes that differ only in which of
    two troopers took the Lieutenant option get the same one."""
    one = army_code_text(901, [[(11, 1, 3), (11, 1, 1)]], points=150, name="Night Shift")
    other = army_code_text(901, [[(11, 1, 1), (11, 1, 3)]], points=150, name="Night Shift")
    ids = {army_document_from_code(code, synthetic_army_data(), STANDARD)["id"]
           for code in (one, other)}
    assert len(ids) == 1


def test_a_legal_code_loads_into_a_legal_list() -> None:
    document = _document([[(11, 1, 3), (12, 1, 1), (13, 1, 1), (16, 1, 1), (17, 1, 1)]],
                         points=100)
    army = _load(document)
    assert army.lieutenant.id == "t1"
    assert army.total_cost() == 10 + 21 + 26 + 16 + 4
    assert army.entry("t3").profile.camouflage == 3
    assert {weapon.id for weapon in army.arsenal} == {"w-501-1", "w-502-1", "w-505-1"}


@pytest.mark.parametrize(("groups", "points", "problem"), [
    ([[(11, 1, 3), (11, 1, 3)]], 300, "The list has 2 Lieutenants; it needs exactly one."),
    ([[(11, 1, 1)]], 300, "The list has 0 Lieutenants; it needs exactly one."),
    ([[(11, 1, 3), (12, 1, 1)]], 30, "The troopers cost 31 points; the list allows 30."),
    ([[(11, 1, 3), (11, 1, 2), (11, 1, 2)]], 50, "The troopers use 2 SWC; 50 points allow 1."),
])
def test_a_code_for_an_illegal_list_is_refused_by_the_list_rules_with_a_named_problem(
        groups: list[list[tuple[int, int, int]]], points: int, problem: str) -> None:
    assert problem in _problems(_document(groups, points=points))


def test_codeone_refuses_an_impetuous_trooper_brought_by_code() -> None:
    document = _document([[(11, 1, 3), (15, 1, 1)]], list_format=ListFormat.CODEONE)
    assert "Entry 't2' (Ashen Zealot) is Impetuous, a rule not used in CodeOne." in _problems(
        document)


# --- unknown ids and damaged codes ------------------------------------------------------------


@pytest.mark.parametrize(("faction", "groups", "problem"), [
    (901, [[(11, 1, 3), (77, 1, 1)]],
     "The army code's member 2 of combat group 1 (unit 77, profile group 1, option 1) cannot "
     "be found in the server's army data: Faction 901 has no unit 77."),
    (901, [[(11, 1, 3)], [(11, 1, 1), (11, 1, 9)]],
     "The army code's member 2 of combat group 2 (unit 11, profile group 1, option 9) cannot "
     "be found in the server's army data: Profile group 1 of unit 11 (Lamplighter Line) of "
     "faction 901 has no option 9."),
    (901, [[(11, 4, 1)]],
     "The army code's member 1 of combat group 1 (unit 11, profile group 4, option 1) cannot "
     "be found in the server's army data: Unit 11 (Lamplighter Line) of faction 901 has no "
     "profile group 4."),
    (950, [[(11, 1, 1)]], "This army code is for faction 950 (someone), which the server's "
     "army data does not have."),
    (903, [[(11, 1, 1)]], "The server's army data knows the faction Unbuilt League but has "
     "none of its units, so this army code cannot be read."),
])
def test_an_unknown_id_is_named_with_its_member_and_group(
        faction: int, groups: list[list[tuple[int, int, int]]], problem: str) -> None:
    code = army_code_text(faction, groups, points=300, slug="someone" if faction == 950 else "")
    with pytest.raises(ArmyImportError) as caught:
        army_document_from_code(code, synthetic_army_data(), STANDARD)
    assert caught.value.problem.startswith(problem)


def test_a_damaged_code_names_the_byte_and_the_field() -> None:
    code = army_code_text(901, [[(11, 1, 3), (12, 1, 1)]], points=300)
    stream = base64.b64decode(code)
    truncated = base64.b64encode(stream[:-3]).decode()
    with pytest.raises(ArmyImportError) as caught:
        army_document_from_code(truncated, synthetic_army_data(), STANDARD)
    assert caught.value.problem.startswith(
        "This army code is damaged or incomplete: at byte 20 it expected the option id of "
        "member 2 of combat group 1, but the code ended.")
    with pytest.raises(ArmyImportError, match="saved on the army builder's server"):
        army_document_from_code("https://example.invalid/l/abc", synthetic_army_data(), STANDARD)


def test_a_combat_group_numbered_zero_is_refused() -> None:
    code = ArmyCode("n4", 901, "", "", 300, (CombatGroup(0, (GroupMember(11, 1, 3),), None),))
    with pytest.raises(ArmyImportError, match="combat group 1 is numbered 0"):
        army_document_from_code(encode_army_code(code), synthetic_army_data(), STANDARD)


# --- generated lists -----------------------------------------------------------------------

_CHOICES = {faction: trooper_choices(synthetic_army_data(), faction) for faction in (901, 902)}
_EXPECTED = ("Lieutenants; it needs exactly one.", "is Irregular and cannot be the Lieutenant.",
             "points; the list allows", "SWC;", "a group holds at most",
             "a standard list holds at most", "a rule not used in CodeOne.",
             "A CodeOne list is one closed Combat Group")


def _legal_points(groups: list[list[Any]], list_format: ListFormat) -> int:
    cost = sum(choice.cost for group in groups for choice in group)
    swc = sum(choice.swc for group in groups for choice in group)
    return max(cost, math.ceil(swc * POINTS_PER_SWC[list_format.value]), 1)


@st.composite
def _legal_groups(draw: st.DrawFn, choices: tuple[Any, ...],
                  list_format: ListFormat) -> list[list[Any]]:
    """Groups the list rules accept: one Lieutenant, each Peripheral after a trooper of its
    group, at most 10 troopers a group (one group in CodeOne, without Impetuous or Sixth
    Sense), 15 in all."""
    allowed = [c for c in choices if list_format is ListFormat.STANDARD
               or not c.flags & {"impetuous", "sixth_sense"}]
    leaders = [c for c in allowed if c.lieutenant]
    troopers = [c for c in allowed if not c.lieutenant and not c.peripheral]
    peripherals = [c for c in allowed if c.peripheral]
    count = 1 if list_format is ListFormat.CODEONE else draw(st.integers(1, 2))
    groups: list[list[Any]] = []
    for number in range(count):
        members = draw(st.lists(st.sampled_from(troopers), min_size=0 if number == 0 else 1,
                                max_size=6))
        if number == 0:
            members.insert(0, draw(st.sampled_from(leaders)))
        with_peripherals: list[Any] = []
        for member in members:
            with_peripherals.append(member)
            with_peripherals += draw(st.lists(st.sampled_from(peripherals), max_size=2))
        groups.append(with_peripherals)
    return groups


@st.composite
def _army_codes(draw: st.DrawFn) -> tuple[str, ListFormat, list[list[Any]], bool]:
    """An army code from the invented data, and whether its list is legal by construction;
    otherwise any members in any order, for any points limit."""
    faction = draw(st.sampled_from((901, 902)))
    choices = _CHOICES[faction]
    list_format = draw(st.sampled_from(tuple(ListFormat)))
    legal = draw(st.booleans())
    if legal:
        groups = draw(_legal_groups(choices, list_format))
        points = _legal_points(groups, list_format)
    else:
        groups = draw(st.lists(st.lists(st.sampled_from(choices), min_size=1, max_size=8),
                               min_size=1, max_size=3))
        points = draw(st.integers(1, 400))
    layout = draw(st.sampled_from(("n5", "n4")))
    code = army_code_text(faction, [[choice.pick for choice in group] for group in groups],
                          points=points, layout=layout, name=draw(st.text(max_size=20)))
    return code, list_format, groups, legal


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=_army_codes())
def test_generated_codes_convert_and_load_or_fail_for_a_named_reason(
        case: tuple[str, ListFormat, list[list[Any]], bool]) -> None:
    code, list_format, groups, legal = case
    first_is_peripheral = any(group[0].peripheral for group in groups)
    try:
        document = army_document_from_code(code, synthetic_army_data(), list_format)
    except ArmyImportError as error:
        assert first_is_peripheral and not legal, error.problem
        assert "is a Peripheral with no trooper before it" in error.problem
        return
    assert not first_is_peripheral
    assert len(document["entries"]) == sum(len(group) for group in groups)
    assert json.loads(json.dumps(document)) == document  # plain JSON all the way down
    try:
        army = _load(document)
    except ArmyListError as error:
        assert not legal, error.problems
        unexpected = [p for p in error.problems if not any(e in p for e in _EXPECTED)]
        assert not unexpected, unexpected
        return
    assert len(army.entries) == len(document["entries"])
    assert [entry.profile.name for entry in army.entries] == [
        choice.name for group in groups for choice in group]


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), faction=st.sampled_from((901, 902)),
       layout=st.sampled_from(("n5", "n4")), list_format=st.sampled_from(tuple(ListFormat)),
       troopers=st.integers(1, 10))
def test_the_testkit_builds_legal_codes(seed: int, faction: int, layout: Any,
                                        list_format: ListFormat, troopers: int) -> None:
    code = legal_army_code(seed, faction_id=faction, layout=layout, list_format=list_format,
                           troopers=troopers)
    army = _load(army_document_from_code(code, synthetic_army_data(), list_format))
    assert len(army.troopers()) == troopers


@settings(max_examples=300, deadline=None)
@given(blob=st.binary(max_size=120) | st.text(max_size=200))
def test_random_input_raises_nothing_but_an_import_error(blob: bytes | str) -> None:
    text = base64.b64encode(blob).decode() if isinstance(blob, bytes) else blob
    try:
        army_document_from_code(text, synthetic_army_data(), STANDARD)
    except ArmyImportError as error:
        assert error.problem


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 1000), cut=st.integers(0, 400), flip=st.integers(0, 255))
def test_truncated_and_altered_codes_raise_nothing_but_an_import_error(
        seed: int, cut: int, flip: int) -> None:
    stream = bytearray(base64.b64decode(legal_army_code(seed, troopers=8)))
    position = cut % len(stream)
    for damaged in (stream[:position], stream[:position] + bytes([flip]) + stream[position + 1:]):
        try:
            army_document_from_code(base64.b64encode(bytes(damaged)).decode(),
                                    synthetic_army_data(), STANDARD)
        except ArmyImportError as error:
            assert error.problem


# --- the coverage report -------------------------------------------------------------------


def test_the_coverage_counts_fully_refereed_options_per_faction(data: ArmyData) -> None:
    coverage = army_coverage(data)
    assert [(f.faction_id, f.fully_refereed, f.options, f.unconvertible)
            for f in coverage.factions] == [(901, 3, 11, 0), (902, 1, 7, 0)]
    assert (coverage.fully_refereed, coverage.options) == (4, 18)
    assert coverage.items[:3] == (("weapon: Damage PH", 6), ("weapon property: Heat Sink", 3),
                                  ("equipment: Glare Visor", 2))


def test_the_coverage_command_prints_the_report(capsys: pytest.CaptureFixture[str]) -> None:
    assert armies_main(["coverage", str(SYNTHETIC_ARMY_DATA)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "  901 Lantern Accord: 3 of 11 options fully refereed (27%)" in lines
    assert "  902 Cinder Compact: 1 of 7 options fully refereed (14%)" in lines
    assert "Total: 4 of 18 options fully refereed (22%)" in lines
    assert "Most frequent items not refereed (options carrying them), top 11 of 11:" in lines
    assert "      6  weapon: Damage PH" in lines
    assert armies_main(["coverage", str(SYNTHETIC_ARMY_DATA), "--top", "2"]) == 0
    assert capsys.readouterr().out.splitlines()[-3].endswith("top 2 of 11:")


def test_an_option_the_engine_cannot_field_is_counted_apart(tmp_path: Path) -> None:
    for name in ("metadata.json", "901.json"):
        (tmp_path / name).write_text((SYNTHETIC_ARMY_DATA / name).read_text("utf-8"), "utf-8")
    faction = json.loads((tmp_path / "901.json").read_text("utf-8"))
    broken = copy.deepcopy(faction["units"][0])
    broken["id"] = 99
    broken["profileGroups"][0]["options"][0]["orders"] = []
    faction["units"].append(broken)
    (tmp_path / "901.json").write_text(json.dumps(faction), "utf-8")
    coverage = army_coverage(load_army_data(tmp_path))
    assert [(f.options, f.unconvertible) for f in coverage.factions] == [(14, 1)]


def test_the_coverage_command_refuses_a_folder_that_is_not_army_data(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "server.armies", "coverage", str(tmp_path)],
                            capture_output=True, text=True, check=False,
                            cwd=Path(__file__).resolve().parents[3])
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.strip().splitlines() == [
        f"error: {tmp_path} is not army data: The army data folder {tmp_path} has no "
        f"metadata.json."]


# --- the faction's Fireteams Chart ------------------------------------------------------------


def test_an_n5_list_takes_its_factions_fireteams_chart_from_the_data() -> None:
    """The builder's ``fireteamChart`` (testkit/army_data/901.json): ``spec`` gives the
    limits (256 Duos: no limit; "1" written as text), teams of types the referee does not
    play and units the data lacks are left out, and the "Wildcards" team gives wildcards."""
    document = _document([[(11, 1, 3), (11, 1, 1), (12, 1, 1), (15, 1, 1)]], points=150)
    assert document["fireteam_chart"] == {
        "limits": {"core": 1, "haris": 1, "duo": None},
        "teams": [
            {"name": "Lamplighter", "types": ["core", "haris", "duo"], "units": [
                {"unit": ["u11-g1"], "name": "Lamplighter Line", "min": 1, "max": 5,
                 "required": True},
                {"unit": ["u15-g1"], "name": "Ashen Zealot", "min": 0, "max": 1,
                 "required": False}]},
            {"name": "Zealot Pair", "types": ["duo"], "units": [
                {"unit": ["u15-g1"], "name": "Ashen Zealot", "min": 2, "max": 2,
                 "required": False}]}],
        "wildcards": [{"unit": ["u12-g1"], "name": "Wirewright"}]}
    chart = _load(document).fireteam_chart
    assert chart is not None and chart.limit("duo") is None
    assert [unit.name for unit in chart.wildcards] == ["Wirewright"]
    # CodeOne has no Fireteams: no chart; a faction without one in the data keeps the default.
    assert "fireteam_chart" not in _document([[(11, 1, 3)]], list_format=ListFormat.CODEONE)
    assert "fireteam_chart" not in _document([[(21, 1, 2)]], faction=902)


def test_a_damaged_chart_in_the_data_is_refused_naming_the_field() -> None:
    folder = json.loads((SYNTHETIC_ARMY_DATA / "901.json").read_text())
    folder["fireteamChart"]["teams"][0]["units"][0]["min"] = "many"
    metadata = json.loads((SYNTHETIC_ARMY_DATA / "metadata.json").read_text())
    with pytest.raises(ArmyDataError) as error:
        ArmyData(metadata, {901: folder})
    assert str(error.value) == ("faction 901: fireteamChart.teams[0].units[0].min must be a "
                                "whole number from 0 to 10000.")
