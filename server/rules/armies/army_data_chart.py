"""The Fireteams Chart in the operator's army data, and the army document's
``fireteam_chart`` made from it (docs/armies.md, "Fireteams Chart").

A faction document of the army builder may hold a ``fireteamChart``: ``spec`` (the most
teams of each type, keys ``CORE``, ``HARIS``, ``DUO``), and ``teams``, each with a ``name``,
its ``type`` list and its ``units`` (``name``, ``slug``, ``min``, ``max``, ``required``,
``comment``). The shape is the one several independent community tools read from the
builder's faction documents; the project has no official description of it, so only those
fields are read, each checked, and anything else ignored (docs/rules-decisions/fireteams.md,
"The chart in the operator's army data").

Conversion (``chart_document``): a chart unit is the faction's unit of the same name (case
and spacing ignored) or whose name makes its slug; it stands for every profile group of that
unit (the converted profiles' ids, ``u<unit>-g<group>``). A team whose name says "wildcard",
or a unit whose comment does, gives wildcards. Types the referee does not play (other than
Core, Haris, Duo), units the data lacks and units with no place (``max`` 0) are left out; a
limit above the document's ceiling means no limit.

Implementation module: the rules are in ``orders/fireteam_chart.py``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from server.rules.armies.army_data_records import ArmyDataError, Unit
from server.rules.armies.fireteam_chart import KINDS, MAX_LIMIT, MAX_TEXT, TEAM_MAX_MEMBERS

MAX_CHART_TEAMS = 100
MAX_CHART_UNITS = 50
WILDCARD = "wildcard"


@dataclass(frozen=True, slots=True)
class DataChartUnit:
    name: str
    slug: str
    min: int
    max: int
    required: bool
    comment: str


@dataclass(frozen=True, slots=True)
class DataChartTeam:
    name: str
    types: tuple[str, ...]
    units: tuple[DataChartUnit, ...]


@dataclass(frozen=True, slots=True)
class DataFireteamChart:
    spec: Mapping[str, int]
    teams: tuple[DataChartTeam, ...]


def _fail(document: str, path: str, problem: str) -> ArmyDataError:
    return ArmyDataError(f"{document}: fireteamChart{path} {problem}.")


def _text(raw: Mapping[str, Any], key: str, document: str, path: str) -> str:
    value = raw.get(key, "")
    if value is None:
        return ""
    if not isinstance(value, str) or len(value) > MAX_TEXT:
        raise _fail(document, f"{path}.{key}", f"must be text of at most {MAX_TEXT} characters")
    return value


def _count(value: Any, document: str, path: str) -> int:
    """A whole number, written as a number or as text (the data has both)."""
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 10_000:
        raise _fail(document, path, "must be a whole number from 0 to 10000")
    return value


def read_fireteam_chart(document: Mapping[str, Any], name: str) -> DataFireteamChart | None:
    """The faction document's ``fireteamChart``, or None when it has none; ``ArmyDataError``
    naming the field on the first problem."""
    raw = document.get("fireteamChart")
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise _fail(name, "", "must be an object")
    spec_raw = raw.get("spec", {})
    if not isinstance(spec_raw, Mapping):
        raise _fail(name, ".spec", "must be an object")
    spec = {str(key).upper(): _count(value, name, f".spec.{key}")
            for key, value in spec_raw.items() if value is not None}
    teams_raw = raw.get("teams", [])
    if not isinstance(teams_raw, list) or len(teams_raw) > MAX_CHART_TEAMS:
        raise _fail(name, ".teams", f"must be a list of at most {MAX_CHART_TEAMS} teams")
    return DataFireteamChart(spec, tuple(_team(item, name, f".teams[{index}]")
                                         for index, item in enumerate(teams_raw)))


def _team(raw: Any, document: str, path: str) -> DataChartTeam:
    if not isinstance(raw, Mapping):
        raise _fail(document, path, "must be an object")
    types = raw.get("type", [])
    if not isinstance(types, list) or not all(isinstance(t, str) for t in types):
        raise _fail(document, f"{path}.type", "must be a list of texts")
    units = raw.get("units", [])
    if not isinstance(units, list) or len(units) > MAX_CHART_UNITS:
        raise _fail(document, f"{path}.units", f"must be a list of at most {MAX_CHART_UNITS} "
                                               "units")
    return DataChartTeam(_text(raw, "name", document, path), tuple(types),
                         tuple(_unit(item, document, f"{path}.units[{index}]")
                               for index, item in enumerate(units)))


def _unit(raw: Any, document: str, path: str) -> DataChartUnit:
    if not isinstance(raw, Mapping):
        raise _fail(document, path, "must be an object")
    required = raw.get("required", False)
    if not isinstance(required, bool):
        raise _fail(document, f"{path}.required", "must be true or false")
    return DataChartUnit(_text(raw, "name", document, path), _text(raw, "slug", document, path),
                         _count(raw.get("min", 0), document, f"{path}.min"),
                         _count(raw.get("max", TEAM_MAX_MEMBERS), document, f"{path}.max"),
                         required, _text(raw, "comment", document, path))


def _plain(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.casefold()).strip("-")


def _data_unit(unit: DataChartUnit, units: Sequence[Unit]) -> Unit | None:
    wanted = {key for key in (_plain(unit.name), _plain(unit.slug)) if key}
    return next((found for found in units if _plain(found.name) in wanted), None)


def _document_unit(unit: DataChartUnit, found: Unit, wildcard: bool = False) -> dict[str, Any]:
    written: dict[str, Any] = {"unit": [f"u{found.id}-g{group.id}" for group in found.groups],
                               "name": found.name}
    if not wildcard:
        most = min(unit.max, TEAM_MAX_MEMBERS)
        written.update(min=min(unit.min, most), max=most, required=unit.required)
    return written


def chart_document(chart: DataFireteamChart, units: Sequence[Unit]) -> dict[str, Any]:
    """The army document's ``fireteam_chart`` for the data's chart of one faction."""
    limits: dict[str, int | None] = {}
    for kind in KINDS:
        value = chart.spec.get(kind.upper(), 0)
        limits[kind] = None if value > MAX_LIMIT else value
    teams: list[dict[str, Any]] = []
    wildcards: dict[int, dict[str, Any]] = {}
    for team in chart.teams:
        whole_team_wild = WILDCARD in team.name.casefold()
        kinds = [kind for kind in KINDS if kind.upper() in {t.upper() for t in team.types}]
        written: list[dict[str, Any]] = []
        for unit in team.units:
            found = _data_unit(unit, units)
            if found is None or not found.groups or unit.max < 1:
                continue
            if whole_team_wild or WILDCARD in unit.comment.casefold():
                wildcards.setdefault(found.id, _document_unit(unit, found, wildcard=True))
            else:
                written.append(_document_unit(unit, found))
        if kinds and written and not whole_team_wild:
            teams.append({"name": (team.name.strip() or written[0]["name"])[:MAX_TEXT],
                          "types": kinds, "units": written})
    return {"limits": limits, "teams": teams, "wildcards": list(wildcards.values())}
