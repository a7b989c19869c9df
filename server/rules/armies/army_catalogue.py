"""The weapons table and sample armies shipped with the rules core.

Reads only this package's own data files (``data/weapons.json``, ``data/armies/*.json``)
through ``importlib.resources``; everything is parsed and validated once per process.

A shipped list must spend its points limit exactly (``shipped_list_problems``): Victory
Points are the points of the surviving troopers, so two sample lists that spent different
sums would start a game apart and decide it with no casualty (docs/rules-decisions/README.md,
"Victory Points and lists under their limit"). A list a player brings may spend less
(``army_list``: only a list over its limit is refused).
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any

from server.rules.armies.army_list import ArmyList, ArmyListError, load_army_list
from server.rules.armies.weapons import Weapon, weapon_problems
from server.rules.ids import WeaponId
from server.rules.plain import FormatError, from_plain

_DATA = "server.rules.data"


class WeaponDataError(ValueError):
    """The shipped weapons table is malformed; ``problems`` lists every problem found."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = tuple(problems)
        super().__init__(" ".join(self.problems))


def load_weapons() -> dict[WeaponId, Weapon]:
    """All weapons of ``data/weapons.json`` by id (a fresh dict; the weapons are frozen)."""
    return dict(_weapons())


def is_shipped_weapon(weapon_id: str) -> bool:
    """Whether ``data/weapons.json`` has the weapon (a list's own weapons are not in it)."""
    return weapon_id in _weapons()


def sample_armies() -> dict[str, ArmyList]:
    """All sample armies of ``data/armies`` by army id, validated against the weapons table."""
    return dict(_armies())


def sample_army(army_id: str) -> ArmyList:
    armies = _armies()
    if army_id not in armies:
        known = ", ".join(sorted(armies))
        raise KeyError(f"no sample army '{army_id}'; the sample armies are: {known}")
    return armies[army_id]


@cache
def _weapons() -> dict[WeaponId, Weapon]:
    raw = _read_json(resources.files(_DATA).joinpath("weapons.json"))
    return weapons_from_plain(raw)


def weapons_from_plain(raw: Any) -> dict[WeaponId, Weapon]:
    """Build a weapons table from ``{"weapons": [...]}`` plain data, or raise
    ``WeaponDataError`` with every problem found."""
    items = raw.get("weapons") if isinstance(raw, dict) else None
    if not isinstance(items, list):
        raise WeaponDataError(['The weapons file must be an object with a "weapons" list.'])
    table: dict[WeaponId, Weapon] = {}
    problems: list[str] = []
    for index, item in enumerate(items):
        try:
            weapon = from_plain(Weapon, item, f"weapons[{index}]")
        except FormatError as error:
            problems.append(f"{error}.")
            continue
        problems.extend(weapon_problems(weapon))
        if weapon.id in table:
            problems.append(f"Weapon id '{weapon.id}' is defined twice.")
        table[weapon.id] = weapon
    if problems:
        raise WeaponDataError(problems)
    return table


@cache
def _armies() -> dict[str, ArmyList]:
    weapons = _weapons()
    armies: dict[str, ArmyList] = {}
    folder = resources.files(_DATA).joinpath("armies")
    for file in sorted(folder.iterdir(), key=lambda f: f.name):
        if not file.name.endswith(".json"):
            continue
        stem = file.name.removesuffix(".json")
        try:
            army = load_army_list(_read_json(file), weapons)
        except ArmyListError as error:
            raise ArmyListError([f"{file.name}: {problem}" for problem in error.problems]) from None
        if army.id != stem or army.id in armies:
            raise ArmyListError([f"{file.name}: the army id '{army.id}' must match the file name."])
        problems = shipped_list_problems(army)
        if problems:
            raise ArmyListError([f"{file.name}: {problem}" for problem in problems])
        armies[army.id] = army
    return armies


def shipped_list_problems(army: ArmyList) -> list[str]:
    """What keeps a valid list from being shipped as a sample: its troopers must cost
    exactly its points limit, so every sample game starts level on Victory Points."""
    cost = army.total_cost()
    if cost != army.points:
        return [f"The troopers cost {cost} points; a shipped list spends exactly its {army.points}."]
    return []


def _read_json(file: Traversable) -> Any:
    with file.open("r", encoding="utf-8") as stream:
        return json.load(stream)
