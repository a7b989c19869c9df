"""An army's own Fireteams Chart (N5): how many teams of each type it may have on the table,
and which units form which team, with their minimums and maximums and the wildcards.

Read from the Infinity wiki's N5 page "Fireteams Chart" (how to read an army's chart: the
maximum of each type on the table, the units of a team with their Min and Max columns, the
asterisk of a unit one of which every such team needs) and the notes on Wildcards the
decisions record (docs/rules-decisions/fireteams.md, "Who may join which type").

``chart_from_plain`` reads the optional ``fireteam_chart`` of an army document
(docs/armies.md, "Fireteams Chart") into a ``FireteamChart``, or lists every problem as a
sentence a player understands. The rules that judge a team against it are in
``orders/fireteam_chart.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from server.rules.armies.profiles import UnitProfile

KINDS = ("core", "haris", "duo")
"""The Fireteam types a chart may name (``orders/fireteams.py``'s kinds)."""
MAX_TEAMS = 40
MAX_UNITS_PER_TEAM = 30
MAX_WILDCARDS = 40
MAX_KEYS = 100
"""Profile ids or names one chart unit may list."""
MAX_TEXT = 120
MAX_LIMIT = 99
"""A type's count limit at most (higher: write ``null``, no limit)."""
TEAM_MAX_MEMBERS = 5


@dataclass(frozen=True, slots=True)
class ChartUnit:
    """One unit of a chart team (or a wildcard): ``keys`` are the profile ids or names it
    stands for (compared without case), ``name`` how the chart names it to players."""

    keys: tuple[str, ...]
    name: str
    min: int = 0
    max: int = TEAM_MAX_MEMBERS
    required: bool = False
    """The chart's asterisk: a team of this composition needs a member of at least one of
    its required units."""

    def fits(self, profile: UnitProfile) -> bool:
        wanted = {key.casefold() for key in self.keys}
        return profile.id.casefold() in wanted or profile.name.casefold() in wanted


@dataclass(frozen=True, slots=True)
class ChartTeam:
    """One composition of the chart: the types it may be formed as and its units."""

    name: str
    kinds: tuple[str, ...]
    units: tuple[ChartUnit, ...]


@dataclass(frozen=True, slots=True)
class FireteamChart:
    """``core``/``haris``/``duo``: how many teams of the type the army may have on the table
    at once (None: no limit; 0: none)."""

    core: int | None
    haris: int | None
    duo: int | None
    teams: tuple[ChartTeam, ...]
    wildcards: tuple[ChartUnit, ...] = ()

    def limit(self, kind: str) -> int | None:
        return {"core": self.core, "haris": self.haris, "duo": self.duo}[kind]

    def teams_of(self, kind: str) -> tuple[ChartTeam, ...]:
        return tuple(team for team in self.teams if kind in team.kinds)

    def wildcard(self, profile: UnitProfile) -> ChartUnit | None:
        return next((unit for unit in self.wildcards if unit.fits(profile)), None)


_CHART_FIELDS = frozenset({"limits", "teams", "wildcards"})
_TEAM_FIELDS = frozenset({"name", "types", "units"})
_UNIT_FIELDS = frozenset({"unit", "name", "min", "max", "required"})


def chart_from_plain(raw: Any) -> tuple[FireteamChart | None, list[str]]:
    """The chart an army document's ``fireteam_chart`` describes, or None with the
    problems (each a sentence naming where in the chart it is)."""
    problems: list[str] = []
    if not isinstance(raw, Mapping):
        return None, ['The army\'s "fireteam_chart" must be an object with "limits" and '
                      '"teams".']
    _unknown(raw, _CHART_FIELDS, "The Fireteams Chart", problems)
    limits = _limits(raw.get("limits"), problems)
    teams = _teams(raw.get("teams"), problems)
    wildcards = _wildcards(raw.get("wildcards", []), problems)
    if problems or limits is None or teams is None or wildcards is None:
        return None, problems
    return FireteamChart(limits["core"], limits["haris"], limits["duo"], teams,
                         wildcards), []


def _unknown(item: Mapping[Any, Any], known: frozenset[str], label: str,
             problems: list[str]) -> None:
    unknown = sorted(str(key) for key in item if key not in known)
    if unknown:
        problems.append(f"{label} has unknown fields: {', '.join(unknown)}.")


def _limits(raw: Any, problems: list[str]) -> dict[str, int | None] | None:
    where = 'The Fireteams Chart\'s "limits"'
    if not isinstance(raw, Mapping):
        problems.append(f'{where} must be an object giving, for "core", "haris" and "duo", '
                        "how many such teams may be on the table at once (null: no limit).")
        return None
    _unknown(raw, frozenset(KINDS), where, problems)
    limits: dict[str, int | None] = {}
    for kind in KINDS:
        value = raw.get(kind, 0)
        if value is None or (isinstance(value, int) and not isinstance(value, bool)
                             and 0 <= value <= MAX_LIMIT):
            limits[kind] = value
        else:
            problems.append(f'{where}: "{kind}" must be a whole number from 0 to {MAX_LIMIT}, '
                            "or null for no limit.")
    return limits


def _text(raw: Any) -> bool:
    return isinstance(raw, str) and 0 < len(raw.strip()) <= MAX_TEXT


def _teams(raw: Any, problems: list[str]) -> tuple[ChartTeam, ...] | None:
    if not isinstance(raw, list) or len(raw) > MAX_TEAMS:
        problems.append(f'The Fireteams Chart\'s "teams" must be a list of at most {MAX_TEAMS} '
                        "teams.")
        return None
    teams: list[ChartTeam] = []
    for index, item in enumerate(raw):
        team = _team(index, item, problems)
        if team is not None:
            teams.append(team)
    return tuple(teams) if len(teams) == len(raw) else None


def _team(index: int, item: Any, problems: list[str]) -> ChartTeam | None:
    label = f"Fireteams Chart team number {index + 1}"
    if not isinstance(item, Mapping):
        problems.append(f"{label} must be an object.")
        return None
    start = len(problems)
    name = item.get("name")
    if _text(name):
        label = f"Fireteams Chart team '{name}'"
    else:
        problems.append(f'{label} needs a "name" (text of 1 to {MAX_TEXT} characters).')
    _unknown(item, _TEAM_FIELDS, label, problems)
    kinds = item.get("types")
    if (not isinstance(kinds, list) or not kinds
            or not all(isinstance(k, str) and k in KINDS for k in kinds)):
        problems.append(f'{label}: "types" must list one or more of "core", "haris", "duo".')
        kinds = []
    raw_units = item.get("units")
    units: list[ChartUnit] = []
    if not isinstance(raw_units, list) or not raw_units or len(raw_units) > MAX_UNITS_PER_TEAM:
        problems.append(f'{label}: "units" must list 1 to {MAX_UNITS_PER_TEAM} units.')
    else:
        for number, unit in enumerate(raw_units, start=1):
            read = _unit(f"{label}, unit number {number}", unit, problems)
            if read is not None:
                units.append(read)
    if len(problems) > start:
        return None
    assert isinstance(name, str)
    return ChartTeam(name.strip(), tuple(dict.fromkeys(kinds)), tuple(units))


def _unit(label: str, item: Any, problems: list[str],
          wildcard: bool = False) -> ChartUnit | None:
    if not isinstance(item, Mapping):
        problems.append(f"{label} must be an object.")
        return None
    start = len(problems)
    _unknown(item, _UNIT_FIELDS - ({"min", "max", "required"} if wildcard else set()),
             label, problems)
    keys = item.get("unit")
    if _text(keys):
        keys = [keys]
    if (not isinstance(keys, list) or not keys or len(keys) > MAX_KEYS
            or not all(_text(key) for key in keys)):
        problems.append(f'{label}: "unit" must be a profile id or name, or a list of up to '
                        f"{MAX_KEYS} of them.")
        keys = []
    name = item.get("name", keys[0] if keys else "")
    if not _text(name):
        problems.append(f'{label}: "name" must be text of 1 to {MAX_TEXT} characters.')
    fewest, most = item.get("min", 0), item.get("max", TEAM_MAX_MEMBERS)
    if not all(isinstance(v, int) and not isinstance(v, bool)
               and 0 <= v <= TEAM_MAX_MEMBERS for v in (fewest, most)):
        problems.append(f'{label}: "min" and "max" must be whole numbers from 0 to '
                        f"{TEAM_MAX_MEMBERS}.")
    elif fewest > most or most == 0:
        problems.append(f'{label}: "min" ({fewest}) must not exceed "max" ({most}), and "max" '
                        "must be at least 1.")
    required = item.get("required", False)
    if not isinstance(required, bool):
        problems.append(f'{label}: "required" must be true or false.')
    if len(problems) > start:
        return None
    return ChartUnit(tuple(str(key).strip() for key in keys), str(name).strip(), fewest, most,
                     required)


def _wildcards(raw: Any, problems: list[str]) -> tuple[ChartUnit, ...] | None:
    if not isinstance(raw, list) or len(raw) > MAX_WILDCARDS:
        problems.append(f'The Fireteams Chart\'s "wildcards" must be a list of at most '
                        f"{MAX_WILDCARDS} units.")
        return None
    found = [_unit(f"Fireteams Chart wildcard number {n}", item, problems, wildcard=True)
             for n, item in enumerate(raw, start=1)]
    units = tuple(unit for unit in found if unit is not None)
    return units if len(units) == len(raw) else None
