"""Army List validation (DIGEST 2, 3.2, 11.3, 14)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.rules.armies.army_list import ArmyList, ArmyListError, ListFormat, load_army_list
from server.rules.armies.weapons import RangeBand, Weapon, WeaponKind
from server.rules.ids import Side, WeaponId
from server.rules.plain import from_plain, to_plain

WEAPONS = {
    WeaponId("rifle"): Weapon(
        WeaponId("rifle"), "Rifle", WeaponKind.BALLISTIC, 3, 7, "N",
        ranges=(RangeBand(8, 3), RangeBand(24, 0)),
    ),
    WeaponId("knife"): Weapon(WeaponId("knife"), "Knife", WeaponKind.CLOSE_COMBAT, 1, 8, "Shock"),
}


def unit(unit_id: str, **changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": unit_id, "name": unit_id.title(), "troop_type": "li", "training": "regular",
        "mov": [4, 4], "cc": 13, "bs": 11, "ph": 10, "wip": 13, "arm": 1, "bts": 0,
        "vita": 1, "structure": False, "silhouette": 2, "weapons": ["rifle", "knife"],
        "cost": 10,
    }
    data.update(changes)
    return data


UNITS = [
    unit("line"),
    unit("militia", training="irregular", cost=5),
    unit("engineer", cost=12),
    unit("drone", troop_type="peripheral", structure=True, silhouette=1, cost=3),
    unit("walker", troop_type="rem", structure=True, silhouette=3, cost=20, swc=1),
]


def entry(entry_id: str, unit_id: str = "line", group: int = 1, **extra: Any) -> dict[str, Any]:
    return {"id": entry_id, "unit": unit_id, "combat_group": group, **extra}


def army(**changes: Any) -> dict[str, Any]:
    """A legal standard list: Lt, an irregular, a Controller with a Peripheral, a REM."""
    data: dict[str, Any] = {
        "id": "test", "name": "Test", "faction": "Testers", "format": "standard",
        "points": 300, "units": copy.deepcopy(UNITS),
        "entries": [
            entry("t1", lieutenant=True), entry("t2", "militia"), entry("t3", "engineer"),
            entry("p1", "drone", controller="t3"), entry("t4", "walker", group=2),
        ],
    }
    data.update(changes)
    return data


def problems_of(data: Any) -> tuple[str, ...]:
    with pytest.raises(ArmyListError) as caught:
        load_army_list(data, WEAPONS)
    return caught.value.problems


def assert_problem(data: Any, fragment: str) -> None:
    problems = problems_of(data)
    assert any(fragment in problem for problem in problems), problems


def with_entries(*entries: dict[str, Any], **changes: Any) -> dict[str, Any]:
    return army(entries=list(entries), **changes)


def test_a_legal_list_loads_with_its_groups_and_weapons() -> None:
    army_list = load_army_list(army(), WEAPONS)
    assert army_list.format is ListFormat.STANDARD
    assert army_list.combat_groups() == (1, 2)
    assert army_list.lieutenant.id == "t1"
    assert [e.id for e in army_list.troopers()] == ["t1", "t2", "t3", "t4"]
    assert [e.id for e in army_list.peripherals_of("t3")] == ["p1"]
    assert army_list.entry("p1").is_peripheral
    assert [w.id for w in army_list.weapons("t2")] == ["rifle", "knife"]
    assert army_list.total_cost() == 10 + 5 + 12 + 3 + 20
    assert army_list.entry("t2").trooper_id(Side.B) == "B-t2"


def test_unknown_entry_id_is_a_clear_key_error() -> None:
    army_list = load_army_list(army(), WEAPONS)
    with pytest.raises(KeyError, match="no entry 't99'"):
        army_list.entry("t99")


def test_a_list_survives_plain_data_and_json() -> None:
    """Lists travel to clients and storage as plain data; nothing is lost on the way."""
    army_list = load_army_list(army(), WEAPONS)
    plain = json.loads(json.dumps(to_plain(army_list)))
    assert from_plain(ArmyList, plain) == army_list


def test_profiles_can_be_written_inline() -> None:
    inline = entry("t5")
    del inline["unit"]
    inline["profile"] = unit("sniper", cost=30)
    army_list = load_army_list(with_entries(*army()["entries"], inline), WEAPONS)
    assert army_list.entry("t5").profile.name == "Sniper"


@pytest.mark.parametrize("lieutenants", [0, 2])
def test_exactly_one_lieutenant(lieutenants: int) -> None:
    entries = [entry(f"t{i}", lieutenant=i <= lieutenants) for i in range(1, 4)]
    assert_problem(with_entries(*entries), f"The list has {lieutenants} Lieutenants")


def test_an_irregular_trooper_cannot_be_lieutenant() -> None:
    """Irregular-profile troopers cannot be Lieutenant (DIGEST 11.3)."""
    assert_problem(with_entries(entry("t1", "militia", lieutenant=True)), "is Irregular")


def test_a_remote_cannot_be_lieutenant() -> None:
    """A REM cannot be Lieutenant (DIGEST 11.3)."""
    assert_problem(with_entries(entry("t1", "walker", lieutenant=True)), "Remote (REM)")


def test_a_peripheral_cannot_be_lieutenant() -> None:
    data = with_entries(
        entry("t1", "engineer"), entry("p1", "drone", controller="t1", lieutenant=True)
    )
    assert_problem(data, "is a Peripheral and cannot be the Lieutenant")


def test_combat_group_holds_at_most_ten_troopers() -> None:
    entries = [entry(f"t{i}", lieutenant=i == 1) for i in range(1, 12)]
    assert_problem(
        with_entries(*entries),
        "Combat Group 1 has 11 troopers; a group holds at most 10 (Peripherals do not count).",
    )


def test_peripherals_do_not_fill_a_combat_group() -> None:
    """A Controller and its Peripherals count as one trooper (DIGEST 2, 3.2)."""
    entries = [entry(f"t{i}", "engineer", lieutenant=i == 1) for i in range(1, 11)]
    entries += [entry("p1", "drone", controller="t1"), entry("p2", "drone", controller="t1")]
    army_list = load_army_list(with_entries(*entries), WEAPONS)
    assert len(army_list.group(1)) == 12
    assert len(army_list.troopers()) == 10


@given(st.integers(min_value=1, max_value=14))
def test_group_limit_is_reported_exactly_when_exceeded(size: int) -> None:
    entries = [entry(f"t{i}", lieutenant=i == 1) for i in range(1, size + 1)]
    data = with_entries(*entries)
    if size <= 10:
        assert len(load_army_list(data, WEAPONS).troopers()) == size
    else:
        assert_problem(data, f"Combat Group 1 has {size} troopers")


def test_standard_list_holds_at_most_fifteen_troopers() -> None:
    """[N5] An Army List holds at most 15 troopers (DIGEST 3.2)."""
    entries = [entry(f"t{i}", group=1 + i % 2, lieutenant=i == 1) for i in range(1, 17)]
    assert_problem(with_entries(*entries, points=400), "The list has 16 troopers")


def test_peripherals_do_not_count_toward_fifteen() -> None:
    entries = [entry(f"t{i}", "engineer", group=1 + i % 2, lieutenant=i == 1)
               for i in range(1, 16)]
    entries.append(entry("p1", "drone", group=2, controller="t1"))
    entries[0]["combat_group"] = 2
    entries[-2]["combat_group"] = 1
    army_list = load_army_list(with_entries(*entries), WEAPONS)
    assert len(army_list.troopers()) == 15
    assert len(army_list.entries) == 16


def codeone(*entries: dict[str, Any]) -> dict[str, Any]:
    small_units = [dict(u, cost=1, swc=0) for u in UNITS]
    return army(format="codeone", points=30, units=small_units, entries=list(entries))


def test_codeone_list_is_one_closed_group() -> None:
    """CodeOne: the Army List is one closed Combat Group (DIGEST 14)."""
    data = codeone(entry("t1", lieutenant=True), entry("t2", group=2))
    assert_problem(data, "one closed Combat Group numbered 1")


def test_codeone_list_holds_at_most_ten_troopers_plus_peripherals() -> None:
    entries = [entry(f"t{i}", "engineer", lieutenant=i == 1) for i in range(1, 11)]
    entries.append(entry("p1", "drone", controller="t1"))
    assert len(load_army_list(codeone(*entries), WEAPONS).troopers()) == 10
    entries.append(entry("t11"))
    assert_problem(codeone(*entries), "Combat Group 1 has 11 troopers")


@pytest.mark.parametrize(("skill", "name"), [("impetuous", "Impetuous"),
                                             ("sixth_sense", "Sixth Sense")])
def test_codeone_refuses_rules_it_does_not_use(skill: str, name: str) -> None:
    """Impetuous and Sixth Sense are not used in CodeOne (DIGEST 14)."""
    inline = {"id": "t2", "profile": unit("wild", cost=1, **{skill: True}), "combat_group": 1}
    assert_problem(codeone(entry("t1", lieutenant=True), inline), f"{name}, a rule not used")


@pytest.mark.parametrize(
    ("peripheral", "fragment"),
    [
        (entry("p1", "drone"), "must name its Controller's entry id"),
        (entry("p1", "drone", controller="t9"), "must name its Controller's entry id"),
        (entry("p1", "drone", group=2, controller="t1"), "they must share a group"),
        (entry("p2", "drone", controller="p0"), "but that is a Peripheral"),
        (entry("t2", controller="t1"), "is not a Peripheral, so it cannot have a controller"),
    ],
)
def test_peripherals_need_a_controller_in_their_group(
    peripheral: dict[str, Any], fragment: str
) -> None:
    data = with_entries(
        entry("t1", "engineer", lieutenant=True), entry("p0", "drone", controller="t1"),
        peripheral,
    )
    assert_problem(data, fragment)


def test_unknown_weapons_are_named() -> None:
    units = [*copy.deepcopy(UNITS), unit("gunner", weapons=["rifle", "plasma_cannon"])]
    data = with_entries(entry("t1", lieutenant=True), entry("t2", "gunner"), units=units)
    assert_problem(data, "Unit 'gunner' (Gunner) carries unknown weapon 'plasma_cannon'.")


def test_duplicate_entry_ids_are_refused() -> None:
    data = with_entries(entry("t1", lieutenant=True), entry("t1"))
    assert_problem(data, "Entry id 't1' is used twice")


def test_duplicate_unit_ids_are_refused() -> None:
    data = army(units=[*copy.deepcopy(UNITS), unit("line")])
    assert_problem(data, "Unit 'line' is defined twice")


def test_points_total_may_not_exceed_the_list_points() -> None:
    assert_problem(army(points=49), "The troopers cost 50 points; the list allows 49.")


def test_a_players_list_may_spend_its_limit_or_less() -> None:
    """The wiki's "Army List": the troopers' total is equal to or lower than the agreed
    points. Under its limit a list just has fewer Victory Points to keep."""
    assert load_army_list(army(points=50), WEAPONS).total_cost() == 50
    under = load_army_list(army(points=300), WEAPONS)
    assert (under.points, under.total_cost()) == (300, 50)


def test_swc_total_may_not_exceed_one_per_fifty_points() -> None:
    """1 SWC per 50 points in a standard game (DIGEST 3.2)."""
    assert_problem(army(points=49), "The troopers use 1 SWC; 49 points allow 0.98.")


def test_entry_must_reference_a_known_unit_or_inline_profile() -> None:
    both = dict(entry("t2"), profile=unit("x"))
    neither = {"id": "t3", "combat_group": 1}
    data = with_entries(entry("t1", lieutenant=True), both, neither, entry("t4", "ghost"))
    problems = " ".join(problems_of(data))
    assert "Entry 't2' needs exactly one of" in problems
    assert "Entry 't3' needs exactly one of" in problems
    assert "refers to unit 'ghost', which is not in the units section" in problems


def test_bad_types_give_sentences_not_tracebacks() -> None:
    data = army(
        points="lots", format="skirmish", name=3, extra=True,
        entries=[
            entry("t1", lieutenant="yes"), {"id": "t2", "unit": "line", "combat_group": "one"},
            "t3", {"unit": "line", "combat_group": 1}, entry("t4", controller=7),
        ],
    )
    problems = " ".join(problems_of(data))
    for fragment in ('"points" must be a positive whole number',
                     '"format" must be "standard" or "codeone"',
                     'non-empty text "name"', "unknown fields: extra",
                     '"lieutenant" must be true or false',
                     "Entry 't2' needs a \"combat_group\" number",
                     "Entry number 3 must be an object",
                     'Entry number 4 needs a non-empty text "id"',
                     '"controller" must be the id of another entry'):
        assert fragment in problems


def test_every_problem_is_collected_before_raising() -> None:
    units = copy.deepcopy(UNITS)
    units[0]["silhouette"] = 9
    units[0]["mov"] = [-2, 4]
    units[1]["camouflage"] = 4
    data = army(units=units, points=10,
                entries=[entry("t1", "engineer"), entry("t1", "engineer")])
    problems = problems_of(data)
    text = " ".join(problems)
    for fragment in ("Unit 'line': Silhouette 9", "Unit 'line': MOV values",
                     "Unit 'militia': Camouflage 4", "Entry id 't1' is used twice",
                     "0 Lieutenants", "The troopers cost 24 points"):
        assert fragment in text
    assert len(problems) == 6


def test_entries_of_a_broken_unit_do_not_cause_false_list_problems() -> None:
    """The unit's own problem is reported; no made-up '0 Lieutenants' from a skipped entry."""
    units = copy.deepcopy(UNITS)
    units[0]["bs"] = 99
    assert problems_of(army(units=units)) == ("Unit 'line': BS 99 is outside 0-30.",)


@pytest.mark.parametrize("data", [None, [], "army", 3])
def test_a_list_must_be_an_object(data: Any) -> None:
    assert problems_of(data) == ("An army file must be a JSON object.",)


def test_entries_must_be_a_non_empty_list() -> None:
    assert_problem(army(entries=[]), '"entries" must be a non-empty list')
    assert_problem(army(units={"line": {}}), '"units" must be a list')
