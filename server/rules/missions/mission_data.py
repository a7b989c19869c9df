"""Mission documents (format ``infinity-referee-mission/1``, docs/missions.md): reading and
checking one into a ``Mission``.

``load_mission`` raises ``MissionError`` naming the first field at fault
(``objectives[2].zones``) and what is wrong with it. Zones and markers must lie on the table
of every ruleset the mission is for (48 by 48 inches in N5, 24 by 32 in CodeOne,
``ruleset.options``), as a table document's own zones must (``table/tables.py``).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from typing import Any

from ..document_fields import DocumentError, FieldReader
from ..document_fields import at as _at
from ..ruleset import options
from .mission import (
    ROUND_END,
    WHENS,
    ActivateMarker,
    DominateZone,
    KillBand,
    KillLieutenant,
    KillThresholds,
    Mission,
    MissionMarker,
    MissionZone,
    MorePointsKilled,
    Objective,
    SpecialRule,
)

FORMAT = "infinity-referee-mission/1"
MAX_OP = 10
"""The most Objective Points a mission may give a side (ITS practice: a 0 to 10 score)."""
MAX_ROUNDS = 6
MAX_TEXT = 80
MAX_DESCRIPTION = 600
MAX_RULE_TEXT = 400
MAX_ITEMS = 12
"""Zones, markers, objectives, special rules, kill bands: each at most this many."""
MAX_OBJECTIVE_OP = 10
MAX_CLASSIFIED_DRAW = 4
MARKER_KINDS = ("console", "antenna")
"""Markers a trooper activates (``consoles.py``); both work alike."""
DOMINATE_BY = ("points", "count")
TIE_BREAKS = ("vp",)

_DOCUMENT_FIELDS = frozenset({"format", "id", "title", "description", "rulesets", "rounds",
                              "max_op", "zones", "markers", "objectives", "classified",
                              "special_rules", "tie_break"})
_ZONE_FIELDS = frozenset({"id", "name", "x0", "y0", "x1", "y1"})
_MARKER_FIELDS = frozenset({"id", "name", "kind", "x", "y"})
_RULE_FIELDS = frozenset({"id", "text"})
_CLASSIFIED_FIELDS = frozenset({"draw", "op"})


class MissionError(DocumentError):
    """A mission document that breaks the format: ``path`` says where
    (``objectives[1].op``), ``problem`` what is wrong."""


_fields = FieldReader(MissionError)
_mapping, _identifier, _text = _fields.mapping, _fields.identifier, _fields.text
_number, _whole, _flag, _rulesets = _fields.number, _fields.whole, _fields.flag, _fields.rulesets


def load_mission(document: Any) -> Mission:
    """Check a mission document (plain JSON data) and build its ``Mission``."""
    doc = _mapping(document, "", _DOCUMENT_FIELDS)
    if doc.get("format") != FORMAT:
        raise MissionError("format", f'must be "{FORMAT}"')
    mission_id = _identifier(doc, "id", "")
    title = _text(doc, "title", "", MAX_TEXT)
    description = _text(doc, "description", "", MAX_DESCRIPTION)
    rulesets = _rulesets(doc.get("rulesets"))
    rounds = _whole(doc, "rounds", "", 1, MAX_ROUNDS)
    max_op = _whole(doc, "max_op", "", 1, MAX_OP)
    width = min(options(r).table_width for r in rulesets)
    depth = min(options(r).table_depth for r in rulesets)
    zones = _items(doc, "zones", lambda item, path: _zone(item, path, width, depth))
    markers = _items(doc, "markers", lambda item, path: _marker(item, path, width, depth))
    _unique([z.id for z in zones], "zones")
    _unique([m.id for m in markers], "markers")
    objectives = _items(doc, "objectives", lambda item, path: _objective(item, path, zones, markers),
                        required=True)
    _unique([o.id for o in objectives], "objectives")
    _markers_once(objectives)
    draw, classified_op = _classified(doc.get("classified"))
    rules = _items(doc, "special_rules", _special_rule)
    _unique([r.id for r in rules], "special_rules")
    tie_break = doc.get("tie_break", "vp")
    if tie_break not in TIE_BREAKS:
        raise MissionError("tie_break", f"must be one of {list(TIE_BREAKS)}")
    return Mission(mission_id, title, description, rulesets, rounds, max_op, zones, markers,
                   objectives, draw, classified_op, rules, tie_break)


# --- parts ------------------------------------------------------------------------------------


def _zone(item: Any, path: str, width: float, depth: float) -> MissionZone:
    data = _mapping(item, path, _ZONE_FIELDS)
    zone_id = _identifier(data, "id", path)
    name = _text(data, "name", path, MAX_TEXT)
    x0, y0, x1, y1 = (_number(data, f, path) for f in ("x0", "y0", "x1", "y1"))
    if not (0.0 <= x0 < x1 <= width and 0.0 <= y0 < y1 <= depth):
        raise MissionError(path, f"must be a rectangle of some area on the table (0 <= x0 < x1 "
                           f"<= {width:g}, 0 <= y0 < y1 <= {depth:g})")
    return MissionZone(zone_id, name, x0, y0, x1, y1)


def _marker(item: Any, path: str, width: float, depth: float) -> MissionMarker:
    data = _mapping(item, path, _MARKER_FIELDS)
    marker_id = _identifier(data, "id", path)
    name = _text(data, "name", path, MAX_TEXT)
    kind = data.get("kind")
    if kind not in MARKER_KINDS:
        raise MissionError(_at(path, "kind"), f"must be one of {list(MARKER_KINDS)}")
    x, y = _number(data, "x", path), _number(data, "y", path)
    if not (0.0 < x < width and 0.0 < y < depth):
        raise MissionError(path, f"({x:g}, {y:g}) is not on the table (0..{width:g} by "
                           f"0..{depth:g})")
    return MissionMarker(marker_id, name, kind, x, y)


_KIND_FIELDS: dict[str, frozenset[str]] = {
    "dominate": frozenset({"id", "kind", "op", "zones", "by", "when"}),
    "activate": frozenset({"id", "kind", "op", "markers", "when", "per_round",
                           "specialists_only"}),
    "kill_lieutenant": frozenset({"id", "kind", "op"}),
    "more_points_killed": frozenset({"id", "kind", "op"}),
    "kill_thresholds": frozenset({"id", "kind", "bands"}),
}


def _objective(item: Any, path: str, zones: tuple[MissionZone, ...],
               markers: tuple[MissionMarker, ...]) -> Objective:
    if not isinstance(item, dict):
        raise MissionError(path, "must be an object")
    kind = item.get("kind")
    if kind not in _KIND_FIELDS:
        raise MissionError(_at(path, "kind"), f"must be one of {sorted(_KIND_FIELDS)}")
    data = _mapping(item, path, _KIND_FIELDS[kind])
    objective_id = _identifier(data, "id", path)
    if kind == "kill_thresholds":
        return KillThresholds(objective_id, _bands(data.get("bands"), _at(path, "bands")))
    op = _whole(data, "op", path, 1, MAX_OBJECTIVE_OP)
    if kind == "dominate":
        named = _names(data.get("zones"), _at(path, "zones"), {z.id for z in zones}, "zone")
        by = data.get("by", "points")
        if by not in DOMINATE_BY:
            raise MissionError(_at(path, "by"), f"must be one of {list(DOMINATE_BY)}")
        when = data.get("when", [ROUND_END])
        if (not isinstance(when, list) or not when or any(w not in WHENS for w in when)
                or len(set(when)) != len(when)):
            raise MissionError(_at(path, "when"), f"must list one or both of {list(WHENS)}")
        return DominateZone(objective_id, op, named, by, tuple(w for w in WHENS if w in when))
    if kind == "activate":
        named = _names(data.get("markers"), _at(path, "markers"), {m.id for m in markers},
                       "marker")
        when = data.get("when", "game_end")
        if when not in WHENS:
            raise MissionError(_at(path, "when"), f"must be one of {list(WHENS)}")
        return ActivateMarker(objective_id, op, named, when,
                              _flag(data, "per_round", path), _flag(data, "specialists_only", path))
    if kind == "kill_lieutenant":
        return KillLieutenant(objective_id, op)
    return MorePointsKilled(objective_id, op)


def _bands(value: Any, path: str) -> tuple[KillBand, ...]:
    if not isinstance(value, list) or not 1 <= len(value) <= MAX_ITEMS:
        raise MissionError(path, f"must list 1 to {MAX_ITEMS} bands")
    bands = []
    for index, item in enumerate(value):
        where = f"{path}[{index}]"
        data = _mapping(item, where, frozenset({"share", "op"}))
        share = _number(data, "share", where)
        if not 0.0 < share <= 1.0:
            raise MissionError(_at(where, "share"), "must be more than 0 and at most 1 (a "
                               "share of the enemy's army points)")
        bands.append(KillBand(share, _whole(data, "op", where, 1, MAX_OBJECTIVE_OP)))
    if any(b.share <= a.share or b.op <= a.op for a, b in itertools.pairwise(bands)):
        raise MissionError(path, "the bands must rise: each a larger share for more OP")
    return tuple(bands)


def _markers_once(objectives: tuple[Objective, ...]) -> None:
    """A marker is activated under one objective's terms only."""
    seen: set[str] = set()
    for index, objective in enumerate(objectives):
        if isinstance(objective, ActivateMarker):
            again = seen.intersection(objective.markers)
            if again:
                raise MissionError(f"objectives[{index}].markers", f"'{sorted(again)[0]}' is "
                                   "already activated under another objective")
            seen.update(objective.markers)


def _classified(value: Any) -> tuple[int, int]:
    if value is None:
        return 0, 0
    data = _mapping(value, "classified", _CLASSIFIED_FIELDS)
    return (_whole(data, "draw", "classified", 0, MAX_CLASSIFIED_DRAW),
            _whole(data, "op", "classified", 0, MAX_OBJECTIVE_OP))


def _special_rule(item: Any, path: str) -> SpecialRule:
    data = _mapping(item, path, _RULE_FIELDS)
    return SpecialRule(_identifier(data, "id", path), _text(data, "text", path, MAX_RULE_TEXT))


# --- fields -----------------------------------------------------------------------------------


def _items(doc: Mapping[str, Any], name: str, read: Callable[[Any, str], Any],
           required: bool = False) -> tuple[Any, ...]:
    value = doc.get(name, None if required else [])
    if not isinstance(value, list) or (required and not value) or len(value) > MAX_ITEMS:
        least = 1 if required else 0
        raise MissionError(name, f"must be a list of {least} to {MAX_ITEMS} items")
    return tuple(read(item, f"{name}[{index}]") for index, item in enumerate(value))


def _names(value: Any, path: str, known: set[str], what: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not value or len(set(map(str, value))) != len(value):
        raise MissionError(path, f"must list one or more {what} ids, each once")
    for name in value:
        if name not in known:
            raise MissionError(path, f"there is no {what} '{name}' in the mission")
    return tuple(value)


def _unique(ids: list[str], path: str) -> None:
    for index, item in enumerate(ids):
        if item in ids[:index]:
            raise MissionError(f"{path}[{index}].id", f"'{item}' is used twice")
