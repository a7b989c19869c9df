"""Bad army lists and army codes get a clear refusal and nothing else.

Implementation test: no rule section.

``load_army_list`` on random JSON-like data (deep nesting, huge strings, wrong types
anywhere, an entry id given twice, unknown units, numbers out of range, negative, fractional
or written as booleans) either returns a list that is valid, or raises ``ArmyListError`` with
at least one problem in words; never another exception. ``decode_army_code`` on random text,
random bytes in Base64, and damaged or cut valid codes raises only ``ArmyCodeError``.
Most documents are a shipped list with a few random mutations, so the fuzzing reaches the
checks behind the first ones; some are random from the top.
"""

from __future__ import annotations

import base64
import copy
import json
from importlib import resources
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.rules.armies.army_catalogue import load_weapons
from server.rules.armies.army_code import (
    ArmyCode,
    ArmyCodeError,
    CombatGroup,
    Customisation,
    GroupMember,
    decode_army_code,
    encode_army_code,
)
from server.rules.armies.army_list import (
    MAX_NESTING,
    ArmyList,
    ArmyListError,
    composition_problems,
    load_army_list,
)

FUZZ = settings(max_examples=100, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

WEAPONS = load_weapons()
SHIPPED = resources.files("server.rules.data").joinpath("armies")
SHIPPED_DOCUMENTS = [json.loads(SHIPPED.joinpath(name).read_text(encoding="utf-8"))
                     for name in sorted(f.name for f in SHIPPED.iterdir() if f.name.endswith(".json"))]

HUGE = "x" * 200_000
ADDED_KEYS = ["id", "unit", "lieutenant", "controller", "not_refereed", "weapons", "extra", ""]


def _brought(document: dict[str, Any]) -> dict[str, Any]:
    """A shipped list as a converted code would bring it: a weapon of its own (a shipped one
    under a new id), carried by its first unit, and not-refereed items on its first entry."""
    brought = copy.deepcopy(document)
    weapon = {**next(w for w in json.loads(
        resources.files("server.rules.data").joinpath("weapons.json").read_text(encoding="utf-8"))["weapons"]
        if w["id"] == "line_rifle"), "id": "w-101-0"}
    brought.update(id=f"{document['id']}-brought", weapons=[weapon])
    brought["units"][0]["weapons"] = ["w-101-0", *brought["units"][0]["weapons"][1:]]
    brought["entries"][0]["not_refereed"] = ["Multispectral Visor L1", "Booty L2"]
    return brought


SHIPPED_DOCUMENTS += [_brought(document) for document in SHIPPED_DOCUMENTS[:2]]


def nested(depth: int, leaf: Any = 1) -> Any:
    """``depth`` lists (and objects, alternately) around ``leaf``, built without recursion."""
    value = leaf
    for level in range(depth):
        value = [value] if level % 2 else {"a": value}
    return value


# Values that are wrong in some way for some field: wrong types, numbers out of range,
# fractional or boolean numbers, empty or huge text, deep nesting.
EDGE_VALUES: list[Any] = [
    None, True, False, 0, -1, 1, 2, 11, 16, 10**6, -(2**63), 2**64, 10**400, 0.5, 1.0, -0.0,
    float("inf"), float("-inf"), float("nan"), 1e308, "", " ", "t1", "p1", "line_rifle",
    "standard", "codeone", "peripheral", "rem", "irregular", HUGE, "\x00\ud800", [], {}, [4],
    [4, 4, 4], ["4", 4], [True, False], [None], {"id": None}, nested(17), nested(40),
]

json_leaves = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(),
    st.text(max_size=20), st.sampled_from(EDGE_VALUES))
json_values = st.recursive(
    json_leaves,
    lambda children: st.lists(children, max_size=5)
    | st.dictionaries(st.text(max_size=12), children, max_size=5),
    max_leaves=20)


def fresh(value: Any) -> Any:
    """A copy of a drawn value: later mutations must not change ``EDGE_VALUES`` itself."""
    return copy.deepcopy(value)


def _containers(value: Any) -> list[Any]:
    """Every list and object in ``value``, outermost first (iterative)."""
    found, pending = [], [value]
    while pending:
        item = pending.pop()
        if isinstance(item, (list, dict)):
            found.append(item)
            pending.extend(item.values() if isinstance(item, dict) else item)
    return found


@st.composite
def mutated_documents(draw: st.DrawFn) -> Any:
    """A shipped list with one to four random mutations somewhere inside it."""
    document = copy.deepcopy(draw(st.sampled_from(SHIPPED_DOCUMENTS)))
    for _ in range(draw(st.integers(1, 4))):
        # Half the mutations fall on the entries, where the whole-list checks (Lieutenant,
        # Controllers, group sizes, points and SWC) are reached only if every entry reads.
        within = document.get("entries") if isinstance(document, dict) else None
        if not isinstance(within, list) or not draw(st.booleans()):
            within = document
        target = draw(st.sampled_from(_containers(within)))
        action = draw(st.sampled_from(["replace", "delete", "add", "duplicate"]))
        if isinstance(target, dict):
            keys = sorted(target)
            if action == "add" or not keys:
                target[draw(st.sampled_from(ADDED_KEYS))] = fresh(draw(json_values))
            elif action == "delete":
                del target[draw(st.sampled_from(keys))]
            else:
                target[draw(st.sampled_from(keys))] = fresh(draw(json_values))
        elif target:
            index = draw(st.integers(0, len(target) - 1))
            if action == "delete":
                del target[index]
            elif action == "duplicate":
                target.insert(index, copy.deepcopy(target[index]))
            else:
                target[index] = fresh(draw(json_values))
        else:
            target.append(fresh(draw(json_values)))
    return document


@st.composite
def redrawn_rosters(draw: st.DrawFn) -> Any:
    """A shipped list whose entries are drawn anew from plausible values (its units, ids that
    repeat, groups out of range, Lieutenants and Controllers anywhere), so that most entries
    read and the whole-list checks (Lieutenant, Controllers, sizes, points, SWC) decide."""
    document = copy.deepcopy(draw(st.sampled_from(SHIPPED_DOCUMENTS)))
    # Each kind of fault is allowed in some rosters only, so that others read entirely.
    faults = draw(st.sets(st.sampled_from(["unknown unit", "bad group", "bad flag"])))
    ids = st.sampled_from([f"t{n}" for n in range(1, 16)] + ["p1", "p2"])
    units = [u["id"] for u in document["units"]] + (["nobody"] if "unknown unit" in faults else [])
    groups = st.integers(1, 3) if "bad group" not in faults else st.sampled_from(
        [-1, 0, 1, 2, 17, True, 1.0, 2.5, None])
    flags = st.booleans() if "bad flag" not in faults else st.sampled_from([True, False, 1, None])
    entry = st.fixed_dictionaries(
        {"id": ids, "unit": st.sampled_from(units), "combat_group": groups},
        optional={"lieutenant": flags, "controller": ids})
    document["entries"] = draw(st.lists(entry, min_size=1, max_size=25))
    return document


def check_refused_or_valid(document: Any) -> None:
    try:
        army = load_army_list(document, WEAPONS)
    except ArmyListError as error:
        assert error.problems, "refused without a problem"
        assert all(isinstance(problem, str) and problem.strip() for problem in error.problems)
        return
    # Accepted: the list holds what a valid list holds.
    assert isinstance(army, ArmyList)
    assert army.total_cost() <= army.points
    assert composition_problems(army.entries, army.format) == []
    assert len({entry.id for entry in army.entries}) == len(army.entries)
    assert {weapon.id for weapon in army.arsenal} == {
        weapon_id for entry in army.entries for weapon_id in entry.profile.weapons}


@settings(FUZZ, max_examples=200)
@given(mutated_documents())
def test_a_shipped_list_with_random_mutations_is_refused_with_problems_or_is_valid(document: Any) -> None:
    check_refused_or_valid(document)


@FUZZ
@given(redrawn_rosters())
def test_a_shipped_list_with_a_redrawn_roster_is_refused_with_problems_or_is_valid(document: Any) -> None:
    check_refused_or_valid(document)


@FUZZ
@given(json_values)
def test_random_json_data_is_refused_with_problems_or_is_valid(document: Any) -> None:
    check_refused_or_valid(document)


@FUZZ
@given(st.fixed_dictionaries({}, optional={
    key: json_values for key in ("id", "name", "faction", "format", "points", "description",
                                 "weapons", "units", "entries")}))
def test_an_army_object_with_random_fields_is_refused_with_problems_or_is_valid(document: Any) -> None:
    check_refused_or_valid(document)


def _document_with(path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    document: dict[str, Any] = copy.deepcopy(SHIPPED_DOCUMENTS[0])
    target: Any = document
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    return document


FIELD_PATHS = [("id",), ("format",), ("points",), ("units",), ("entries",),
               ("units", 0), ("units", 0, "id"), ("units", 0, "mov"), ("units", 0, "weapons"),
               ("units", 0, "troop_type"), ("units", 0, "swc"), ("entries", 0),
               ("entries", 0, "id"), ("entries", 0, "unit"), ("entries", 0, "combat_group"),
               ("entries", 1, "controller"), ("entries", 1, "profile")]


@pytest.mark.parametrize("path", FIELD_PATHS, ids=lambda path: "/".join(map(str, path)))
@pytest.mark.parametrize("depth", [900, 5000])
def test_deeply_nested_data_in_any_field_is_refused_with_problems(path: tuple[Any, ...], depth: int) -> None:
    """A JSON parser stops near a depth of 1000; data nested that deep, or deeper (built in
    Python), is refused like any other wrong value."""
    with pytest.raises(ArmyListError) as refused:
        load_army_list(_document_with(path, nested(depth)), WEAPONS)
    assert refused.value.problems


def test_nesting_up_to_the_limit_is_read_and_one_level_more_is_refused() -> None:
    """The limit counts levels of lists and objects: the army object is level 1."""
    at_limit = _document_with(("units", 0, "extra"), nested(MAX_NESTING - 3))
    with pytest.raises(ArmyListError) as refused:
        load_army_list(at_limit, WEAPONS)
    assert refused.value.problems == ("Unit 'lancer': has unknown fields extra.",)
    with pytest.raises(ArmyListError) as refused:
        load_army_list(_document_with(("units", 0, "extra"), nested(MAX_NESTING - 2)), WEAPONS)
    assert len(refused.value.problems) == 1 and "nested more than 16" in refused.value.problems[0]


@pytest.mark.parametrize("path", FIELD_PATHS, ids=lambda path: "/".join(map(str, path)))
def test_a_huge_string_in_any_field_is_refused_with_problems_or_read(path: tuple[Any, ...]) -> None:
    """Text has no length limit here (the edge bounds what arrives: docs/armies.md)."""
    check_refused_or_valid(_document_with(path, HUGE))


# --- army codes -------------------------------------------------------------------------------


def _refused_or_read(text: str) -> None:
    try:
        code = decode_army_code(text)
    except ArmyCodeError as error:
        assert str(error).strip() and error.expected
        return
    assert isinstance(code, ArmyCode)


VALID_CODE = encode_army_code(ArmyCode(
    "n5", 101, "petrel-free-company", "Drop team", 300,
    (CombatGroup(1, (GroupMember(12, 1, 1), GroupMember(200, 2, 3, (
        Customisation(1, '[{"type":"stat","stat":"bts","q":2}]'),)), GroupMember(7, 1, 2)), (1, 0)),
     CombatGroup(2, (GroupMember(13, 1, 4),), (1, 0)))))
VALID_STREAM = base64.b64decode(VALID_CODE)


@FUZZ
@given(st.text(max_size=200))
def test_random_text_is_refused_as_a_code_or_read(text: str) -> None:
    _refused_or_read(text)


@FUZZ
@given(st.binary(max_size=300))
def test_random_bytes_in_base64_are_refused_as_a_code_or_read(stream: bytes) -> None:
    encoded = base64.b64encode(stream).decode("ascii")
    _refused_or_read(encoded)
    _refused_or_read(encoded.rstrip("="))
    _refused_or_read(base64.urlsafe_b64encode(stream).decode("ascii"))


@FUZZ
@given(st.data())
def test_a_valid_code_damaged_cut_or_lengthened_is_refused_or_read(data: st.DataObject) -> None:
    stream = bytearray(VALID_STREAM)
    for _ in range(data.draw(st.integers(1, 4))):
        action = data.draw(st.sampled_from(["set", "insert", "delete", "cut", "append"]))
        index = data.draw(st.integers(0, max(len(stream) - 1, 0)))
        if action == "set" and stream:
            stream[index] = data.draw(st.integers(0, 255))
        elif action == "insert":
            stream.insert(index, data.draw(st.integers(0, 255)))
        elif action == "delete" and stream:
            del stream[index]
        elif action == "cut":
            del stream[index:]
        else:
            stream += data.draw(st.binary(max_size=40))
    encoded = base64.b64encode(bytes(stream)).decode("ascii")
    _refused_or_read(encoded)
    # The text itself damaged: a character cut off, or one replaced.
    position = data.draw(st.integers(0, len(VALID_CODE)))
    _refused_or_read(VALID_CODE[:position])
    _refused_or_read(VALID_CODE[:position] + data.draw(st.characters()) + VALID_CODE[position + 1:])
