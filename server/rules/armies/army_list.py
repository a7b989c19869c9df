"""Army Lists: who a player brings, in which Combat Group, and who leads (DIGEST 3.2, 14).

``load_army_list`` turns the plain data of an army file (see docs/armies.md) into a
validated ``ArmyList``, or raises ``ArmyListError`` listing every problem found, each as a
sentence a player understands.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from server.rules.armies.fireteam_chart import FireteamChart, chart_from_plain
from server.rules.armies.profiles import Training, TroopType, UnitProfile, profile_from_plain
from server.rules.armies.weapons import Weapon, weapon_problems
from server.rules.ids import Side, TrooperId, WeaponId
from server.rules.plain import FormatError, from_plain

GROUP_MAX = 10
"""Members of one Combat Group, Peripherals not counted (DIGEST 3.2)."""
STANDARD_LIST_MAX = 15
"""[N5] troopers in a standard Army List, Peripherals not counted (DIGEST 3.2)."""
POINTS_PER_SWC = {"standard": 50, "codeone": 5}
MAX_NESTING = 16
"""Levels of lists and objects in an army file at most (a valid one uses 5). Deeper data is
refused before it is read: describing it in a problem would recurse past Python's limit."""

# Limits on a list document, far above any legal list (15 troopers, a few Peripherals), low
# enough that a hostile document costs little to refuse.
MAX_ENTRIES = 40
MAX_UNITS = 40
MAX_LIST_WEAPONS = 60
MAX_NOT_REFEREED = 50
MAX_NOTE_CHARS = 200


class ListFormat(StrEnum):
    STANDARD = "standard"
    CODEONE = "codeone"


@dataclass(frozen=True, slots=True)
class ListEntry:
    """One trooper (or Peripheral) of an Army List.

    ``id`` is unique within the list. A Peripheral names its Controller's entry id in
    ``controller``; every other entry has ``controller`` None.
    """

    id: str
    profile: UnitProfile
    combat_group: int
    lieutenant: bool = False
    controller: str | None = None
    not_refereed: tuple[str, ...] = ()
    """What this trooper carries that the referee does not play (a skill, equipment or
    weapon property without a rule in the engine), as a player reads it; both players
    accept these before the game (docs/armies.md, "What the referee knows")."""

    @property
    def is_peripheral(self) -> bool:
        return self.profile.is_peripheral

    def trooper_id(self, side: Side) -> TrooperId:
        """The id of this trooper in a game, e.g. ``"A-t3"``."""
        return TrooperId(f"{side.value}-{self.id}")


@dataclass(frozen=True, slots=True)
class ArmyList:
    """A validated Army List. ``arsenal`` holds every weapon its profiles carry, by id order,
    so a list is self-contained once loaded."""

    id: str
    name: str
    faction: str
    format: ListFormat
    points: int
    entries: tuple[ListEntry, ...]
    arsenal: tuple[Weapon, ...] = ()
    description: str = ""
    source: str = ""
    """How the list came to the game, set by the server, never read from a document:
    ``"shipped"`` (a sample list), ``"code"`` (an army code read with the operator's army
    data: its figures are the army builder's), ``"list"`` (a list file: its figures are as
    its player wrote them), ``"registered"`` (a tournament registration, checked there)."""
    fireteam_chart: FireteamChart | None = None
    """The army's own Fireteams Chart (``armies/fireteam_chart.py``), or None: the default
    chart (one Core, one Haris, Duos unlimited; the profiles' Fireteam types)."""

    def combat_groups(self) -> tuple[int, ...]:
        """The Combat Group numbers in use, ascending."""
        return tuple(sorted({entry.combat_group for entry in self.entries}))

    def entry(self, entry_id: str) -> ListEntry:
        for entry in self.entries:
            if entry.id == entry_id:
                return entry
        raise KeyError(f"army list '{self.id}' has no entry '{entry_id}'")

    def group(self, combat_group: int) -> tuple[ListEntry, ...]:
        return tuple(entry for entry in self.entries if entry.combat_group == combat_group)

    def troopers(self) -> tuple[ListEntry, ...]:
        """Entries that are not Peripherals: the ones that count for list size and Orders."""
        return tuple(entry for entry in self.entries if not entry.is_peripheral)

    def peripherals_of(self, controller_id: str) -> tuple[ListEntry, ...]:
        return tuple(entry for entry in self.entries if entry.controller == controller_id)

    @property
    def lieutenant(self) -> ListEntry:
        return next(entry for entry in self.entries if entry.lieutenant)

    def weapon(self, weapon_id: WeaponId) -> Weapon:
        for weapon in self.arsenal:
            if weapon.id == weapon_id:
                return weapon
        raise KeyError(f"army list '{self.id}' carries no weapon '{weapon_id}'")

    def weapons(self, entry_id: str) -> tuple[Weapon, ...]:
        """The weapons of one entry, in its profile's order."""
        return tuple(self.weapon(weapon_id) for weapon_id in self.entry(entry_id).profile.weapons)

    def total_cost(self) -> int:
        return sum(entry.profile.cost for entry in self.entries)

    def total_swc(self) -> float:
        return sum(entry.profile.swc for entry in self.entries)


class ArmyListError(ValueError):
    """An army file that is not a legal Army List; ``problems`` lists every problem found."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = tuple(problems)
        super().__init__(" ".join(self.problems))


_TOP_FIELDS = frozenset(
    {"id", "name", "faction", "format", "points", "units", "entries", "description", "weapons",
     "fireteam_chart"}
)
_ENTRY_FIELDS = frozenset(
    {"id", "unit", "profile", "combat_group", "lieutenant", "controller", "not_refereed"}
)


def load_army_list(data: Mapping[str, Any], weapons: Mapping[WeaponId, Weapon]) -> ArmyList:
    """Validate the plain data of an army file and build the list.

    Every problem is collected before raising ``ArmyListError``; nothing raises ``KeyError``
    or ``TypeError`` on malformed input.
    """
    if not isinstance(data, Mapping):
        raise ArmyListError(["An army file must be a JSON object."])
    if _nesting(data) > MAX_NESTING:
        raise ArmyListError([f"The army file is nested more than {MAX_NESTING} levels deep; "
                             "an army file is a few levels of objects and lists."])
    problems: list[str] = []
    header = _read_header(data, problems)
    weapons = _with_own_weapons(data.get("weapons", []), weapons, problems)
    units = _read_units(data.get("units", []), problems)
    entries, complete = _read_entries(data.get("entries"), units, problems)
    profiles = {id(entry.profile): entry.profile for entry in entries}
    profiles.update({id(profile): profile for profile in units.values() if profile})
    problems.extend(_weapon_problems(profiles.values(), weapons))
    list_format, points = header.get("format"), header.get("points")
    chart = _read_chart(data, list_format, problems)
    # Counting Lieutenants or group sizes over a partly read list would report problems
    # that are not there, so the whole-list checks wait until every entry could be read.
    if complete and isinstance(list_format, ListFormat):
        problems.extend(composition_problems(entries, list_format))
        if isinstance(points, int):
            problems.extend(_budget_problems(entries, list_format, points))
    if problems:
        raise ArmyListError(problems)
    used = {weapon_id for entry in entries for weapon_id in entry.profile.weapons}
    return ArmyList(
        entries=tuple(entries),
        fireteam_chart=chart,
        arsenal=tuple(weapons[weapon_id] for weapon_id in sorted(used)),
        **header,
    )


def _read_chart(data: Mapping[str, Any], list_format: Any,
                problems: list[str]) -> FireteamChart | None:
    """The list's own Fireteams Chart, if it has one (docs/armies.md, "Fireteams Chart")."""
    if "fireteam_chart" not in data:
        return None
    if list_format is ListFormat.CODEONE:
        problems.append('A CodeOne list has no Fireteams, so it takes no "fireteam_chart".')
        return None
    chart, found = chart_from_plain(data["fireteam_chart"])
    problems.extend(found)
    return chart


def _nesting(value: Any) -> int:
    """How many levels of lists and objects ``value`` has, counted up to just past
    ``MAX_NESTING`` (iterative: hostile nesting cannot exhaust the stack)."""
    deepest, pending = 0, [(value, 1)]
    while pending:
        item, level = pending.pop()
        if isinstance(item, Mapping):
            children: Iterable[Any] = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        deepest = max(deepest, level)
        if deepest > MAX_NESTING:
            break
        pending += [(child, level + 1) for child in children]
    return deepest


def _with_own_weapons(
    raw: Any, shipped: Mapping[WeaponId, Weapon], problems: list[str]
) -> Mapping[WeaponId, Weapon]:
    """The shipped weapons plus those the list defines itself (a converted army code's):
    each checked like a shipped one, and none may take a shipped weapon's id."""
    if not isinstance(raw, list) or len(raw) > MAX_LIST_WEAPONS:
        problems.append(f'The army\'s "weapons" must be a list of at most {MAX_LIST_WEAPONS} '
                        "weapons.")
        return shipped
    own: dict[WeaponId, Weapon] = {}
    for index, item in enumerate(raw):
        try:
            weapon = from_plain(Weapon, item, f"weapons[{index}]")
        except FormatError as error:
            problems.append(f"The army's weapon number {index + 1}: {error.problem}.")
            continue
        problems.extend(weapon_problems(weapon))
        if weapon.id in shipped or weapon.id in own:
            problems.append(f"Weapon id '{weapon.id}' is defined twice (a list's own weapons "
                            "cannot reuse a shipped weapon's id).")
        own[weapon.id] = weapon
    return {**shipped, **own} if own else shipped


def _read_header(data: Mapping[str, Any], problems: list[str]) -> dict[str, Any]:
    header: dict[str, Any] = {}
    for key in ("id", "name", "faction"):
        value = data.get(key)
        if isinstance(value, str) and value.strip():
            header[key] = value
        else:
            problems.append(f"The army file needs a non-empty text \"{key}\".")
    description = data.get("description", "")
    if isinstance(description, str):
        header["description"] = description
    else:
        problems.append("The army's \"description\" must be text.")
    try:
        header["format"] = ListFormat(str(data.get("format")))
    except ValueError:
        problems.append('The army\'s "format" must be "standard" or "codeone".')
    points = data.get("points")
    if isinstance(points, int) and not isinstance(points, bool) and points > 0:
        header["points"] = points
    else:
        problems.append('The army\'s "points" must be a positive whole number.')
    unknown = sorted(str(key) for key in data if key not in _TOP_FIELDS)
    if unknown:
        problems.append(f"The army file has unknown fields: {', '.join(unknown)}.")
    return header


def _read_units(raw: Any, problems: list[str]) -> dict[str, UnitProfile | None]:
    """Unit profiles by id; ``None`` marks a unit whose profile has problems."""
    if not isinstance(raw, list) or len(raw) > MAX_UNITS:
        problems.append(f'The army\'s "units" must be a list of at most {MAX_UNITS} unit '
                        "profiles.")
        return {}
    units: dict[str, UnitProfile | None] = {}
    for index, item in enumerate(raw):
        unit_id = item.get("id") if isinstance(item, Mapping) else None
        label = f"Unit '{unit_id}'" if isinstance(unit_id, str) else f"Unit number {index + 1}"
        profile, found = profile_from_plain(item)
        problems.extend(f"{label}: {problem}" for problem in found)
        if not isinstance(unit_id, str):
            continue
        if unit_id in units:
            problems.append(f"{label} is defined twice in the units section.")
        units[unit_id] = profile
    return units


def _read_entries(
    raw: Any, units: Mapping[str, UnitProfile | None], problems: list[str]
) -> tuple[list[ListEntry], bool]:
    """The entries that could be read, and whether that is all of them."""
    if not isinstance(raw, list) or not raw or len(raw) > MAX_ENTRIES:
        problems.append(f'The army\'s "entries" must be a non-empty list of at most {MAX_ENTRIES} troopers.')
        return [], False
    entries: list[ListEntry] = []
    seen: set[str] = set()
    for index, item in enumerate(raw):
        entry = _read_entry(index, item, units, problems)
        if entry is None:
            continue
        if entry.id in seen:
            problems.append(f"Entry id '{entry.id}' is used twice; entry ids must be unique.")
        seen.add(entry.id)
        entries.append(entry)
    return entries, len(entries) == len(raw)


def _read_entry(
    index: int, item: Any, units: Mapping[str, UnitProfile | None], problems: list[str]
) -> ListEntry | None:
    if not isinstance(item, Mapping):
        problems.append(f"Entry number {index + 1} must be an object.")
        return None
    entry_id = item.get("id")
    if not isinstance(entry_id, str) or not entry_id:
        problems.append(f"Entry number {index + 1} needs a non-empty text \"id\".")
        return None
    label = f"Entry '{entry_id}'"
    start = len(problems)
    unknown = sorted(str(key) for key in item if key not in _ENTRY_FIELDS)
    if unknown:
        problems.append(f"{label} has unknown fields: {', '.join(unknown)}.")
    group = item.get("combat_group")
    if isinstance(group, bool) or not isinstance(group, int) or group < 1:
        problems.append(f"{label} needs a \"combat_group\" number of 1 or more.")
        group = 0
    lieutenant = item.get("lieutenant", False)
    if not isinstance(lieutenant, bool):
        problems.append(f"{label}: \"lieutenant\" must be true or false.")
    controller = item.get("controller")
    if controller is not None and not isinstance(controller, str):
        problems.append(f"{label}: \"controller\" must be the id of another entry.")
    not_refereed = _read_not_refereed(label, item.get("not_refereed", []), problems)
    profile = _entry_profile(label, item, units, problems)
    if profile is None or len(problems) > start:
        return None
    return ListEntry(entry_id, profile, group, lieutenant, controller, not_refereed)


def _read_not_refereed(label: str, raw: Any, problems: list[str]) -> tuple[str, ...]:
    if (not isinstance(raw, list) or len(raw) > MAX_NOT_REFEREED
            or not all(isinstance(item, str) and 0 < len(item) <= MAX_NOTE_CHARS
                       for item in raw)):
        problems.append(f"{label}: \"not_refereed\" must be a list of at most "
                        f"{MAX_NOT_REFEREED} texts of 1 to {MAX_NOTE_CHARS} characters.")
        return ()
    return tuple(raw)


def _entry_profile(
    label: str,
    item: Mapping[str, Any],
    units: Mapping[str, UnitProfile | None],
    problems: list[str],
) -> UnitProfile | None:
    has_unit, has_profile = "unit" in item, "profile" in item
    if has_unit == has_profile:
        problems.append(
            f"{label} needs exactly one of \"unit\" (an id from the units section) "
            "or \"profile\" (a profile written inline)."
        )
        return None
    if has_profile:
        profile, found = profile_from_plain(item["profile"])
        problems.extend(f"{label} profile: {problem}" for problem in found)
        return profile
    unit_id = item["unit"]
    if not isinstance(unit_id, str) or unit_id not in units:
        problems.append(f"{label} refers to unit '{unit_id}', which is not in the units section.")
        return None
    return units[unit_id]  # None when the unit's own problems were reported above


def _weapon_problems(
    profiles: Iterable[UnitProfile], weapons: Mapping[WeaponId, Weapon]
) -> list[str]:
    return [
        f"Unit '{profile.id}' ({profile.name}) carries unknown weapon '{weapon_id}'."
        for profile in sorted(profiles, key=lambda p: p.id)
        for weapon_id in profile.weapons
        if weapon_id not in weapons
    ]


def composition_problems(entries: Sequence[ListEntry], list_format: ListFormat) -> list[str]:
    """Problems with who is in the list: Lieutenant, Peripherals, group and list sizes."""
    problems = _lieutenant_problems(entries)
    problems.extend(_peripheral_problems(entries))
    problems.extend(_size_problems(entries, list_format))
    if list_format is ListFormat.CODEONE:
        problems.extend(_codeone_skill_problems(entries))
    return problems


def _lieutenant_problems(entries: Sequence[ListEntry]) -> list[str]:
    lieutenants = [entry for entry in entries if entry.lieutenant]
    problems: list[str] = []
    if len(lieutenants) != 1:
        problems.append(f"The list has {len(lieutenants)} Lieutenants; it needs exactly one.")
    for entry in lieutenants:
        name = f"Entry '{entry.id}' ({entry.profile.name})"
        if entry.is_peripheral:
            problems.append(f"{name} is a Peripheral and cannot be the Lieutenant.")
        elif entry.profile.training is Training.IRREGULAR:
            problems.append(f"{name} is Irregular and cannot be the Lieutenant.")
        elif entry.profile.troop_type is TroopType.REM:
            problems.append(f"{name} is a Remote (REM) and cannot be the Lieutenant.")
    return problems


def _peripheral_problems(entries: Sequence[ListEntry]) -> list[str]:
    by_id = {entry.id: entry for entry in entries}
    problems: list[str] = []
    for entry in entries:
        name = f"Entry '{entry.id}' ({entry.profile.name})"
        if not entry.is_peripheral:
            if entry.controller is not None:
                problems.append(f"{name} is not a Peripheral, so it cannot have a controller.")
            continue
        controller = by_id.get(entry.controller) if entry.controller else None
        if controller is None:
            problems.append(
                f"{name} is a Peripheral and must name its Controller's entry id in "
                f"\"controller\" (got {entry.controller!r})."
            )
        elif controller.is_peripheral:
            problems.append(
                f"{name} names '{controller.id}' as Controller, but that is a Peripheral."
            )
        elif controller.combat_group != entry.combat_group:
            problems.append(
                f"{name} is in Combat Group {entry.combat_group} but its Controller "
                f"'{controller.id}' is in Combat Group {controller.combat_group}; "
                "they must share a group."
            )
    return problems


def _size_problems(entries: Sequence[ListEntry], list_format: ListFormat) -> list[str]:
    troopers = [entry for entry in entries if not entry.is_peripheral]
    sizes = Counter(entry.combat_group for entry in troopers)
    problems = [
        f"Combat Group {group} has {count} troopers; a group holds at most {GROUP_MAX} "
        "(Peripherals do not count)."
        for group, count in sorted(sizes.items())
        if count > GROUP_MAX
    ]
    groups = sorted({entry.combat_group for entry in entries})
    if list_format is ListFormat.CODEONE and groups not in ([], [1]):
        problems.append(
            f"A CodeOne list is one closed Combat Group numbered 1, but this one uses "
            f"groups {', '.join(map(str, groups))}."
        )
    if list_format is ListFormat.STANDARD and len(troopers) > STANDARD_LIST_MAX:
        problems.append(
            f"The list has {len(troopers)} troopers; a standard list holds at most "
            f"{STANDARD_LIST_MAX} (Peripherals do not count)."
        )
    return problems


def _codeone_skill_problems(entries: Sequence[ListEntry]) -> list[str]:
    # Impetuous and Sixth Sense are N4 rules "not used in CodeOne" (DIGEST 14): a CodeOne
    # list carrying them is refused rather than silently ignoring part of a profile.
    problems: list[str] = []
    for entry in entries:
        name = f"Entry '{entry.id}' ({entry.profile.name})"
        if entry.profile.impetuous:
            problems.append(f"{name} is Impetuous, a rule not used in CodeOne.")
        if entry.profile.sixth_sense:
            problems.append(f"{name} has Sixth Sense, a rule not used in CodeOne.")
    return problems


def _budget_problems(
    entries: Sequence[ListEntry], list_format: ListFormat, points: int
) -> list[str]:
    problems: list[str] = []
    cost = sum(entry.profile.cost for entry in entries)
    if cost > points:
        problems.append(f"The troopers cost {cost} points; the list allows {points}.")
    swc = sum(entry.profile.swc for entry in entries)
    allowed = points / POINTS_PER_SWC[list_format.value]
    if swc > allowed:
        problems.append(f"The troopers use {swc:g} SWC; {points} points allow {allowed:g}.")
    return problems
