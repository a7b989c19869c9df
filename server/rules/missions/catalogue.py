"""The missions shipped with the rules core (``data/missions/*.json``, listed per ruleset by
its ``index.json``), and the choice of a game's mission among them or from a whole document.

Every shipped mission is read and checked once per process.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from importlib import resources
from typing import Any

from ..plain import Plain, to_plain
from ..ruleset import Ruleset
from .describe import objective_text
from .mission import Mission, Objective
from .mission_data import MissionError, load_mission

_DATA = "server.rules.data"
_NOT_MISSIONS = frozenset({"index.json", "classified-deck.json"})
"""Files of data/missions that are not missions (the Classified Objectives deck)."""


def shipped() -> tuple[Mission, ...]:
    """Every shipped mission, in the order of ``index.json`` (N5's, then CodeOne's)."""
    return _shipped()


def missions(ruleset: Ruleset) -> tuple[Mission, ...]:
    return tuple(m for m in _shipped() if ruleset in m.rulesets)


def mission(mission_id: str) -> Mission:
    """A shipped mission by id; ``MissionError`` if there is none."""
    for item in _shipped():
        if item.id == mission_id:
            return item
    raise MissionError("mission", f"there is no mission '{mission_id}'")


def choose(choice: str | Mapping[str, Any], ruleset: Ruleset | str) -> Mission:
    """The mission a game is set up with: a shipped mission's id or a whole mission
    document. ``MissionError`` if there is no such mission, the document is malformed, or
    the mission is not made for ``ruleset``."""
    ruleset = Ruleset(ruleset)
    chosen = mission(choice) if isinstance(choice, str) else load_mission(dict(choice))
    if ruleset not in chosen.rulesets:
        raise MissionError("mission", f"'{chosen.id}' is a mission for "
                           f"{', '.join(r.value for r in chosen.rulesets)}, not {ruleset.value}")
    return chosen


def summaries(ruleset: Ruleset | str) -> list[dict[str, Plain]]:
    """What a lobby lists of the shipped missions of ``ruleset``: id, title, description,
    each objective in words, the Classified Objectives, the special rules."""
    return [summary(m) for m in missions(Ruleset(ruleset))]


def summary(item: Mission) -> dict[str, Plain]:
    return {
        "id": item.id,
        "title": item.title,
        "description": item.description,
        "rulesets": [r.value for r in item.rulesets],
        "rounds": item.rounds,
        "max_op": item.max_op,
        "objectives": [{"id": o.id, "kind": o.TYPE, "text": objective_text(item, o)}
                       for o in item.objectives],
        "classified": {"draw": item.classified_draw, "op": item.classified_op},
        "special_rules": [r.text for r in item.special_rules],
    }


def view(item: Mission) -> dict[str, Plain]:
    """The mission as every viewer of a game sees it (open information): the summary, with
    each objective's own fields beside its words, and the zones and markers on the table."""
    plain = summary(item)
    plain["objectives"] = [{**_fields(o), "kind": o.TYPE, "text": objective_text(item, o)}
                           for o in item.objectives]
    plain["zones"] = [to_plain(z) for z in item.zones]
    plain["markers"] = [to_plain(m) for m in item.markers]
    return plain


def _fields(objective: Objective) -> dict[str, Plain]:
    plain: dict[str, Plain] = to_plain(objective)
    plain.pop("type", None)
    return plain


@cache
def _shipped() -> tuple[Mission, ...]:
    folder = resources.files(_DATA).joinpath("missions")
    index = json.loads(folder.joinpath("index.json").read_text(encoding="utf-8"))
    files = sorted(f.name.removesuffix(".json") for f in folder.iterdir()
                   if f.name.endswith(".json") and f.name not in _NOT_MISSIONS)
    order = [name for ruleset in Ruleset for name in index.get(ruleset.value, [])]
    if sorted(order) != files:
        raise MissionError("index.json", "must list every mission file of data/missions once")
    out = []
    for name in order:
        document = json.loads(folder.joinpath(f"{name}.json").read_text(encoding="utf-8"))
        try:
            parsed = load_mission(document)
        except MissionError as error:
            raise MissionError(f"{name}.json: {error.path}", error.problem) from None
        if parsed.id != name:
            raise MissionError(f"{name}.json: id", "must match the file name")
        out.append(parsed)
    return tuple(out)
