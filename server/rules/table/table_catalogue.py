"""The table layouts shipped with the rules core (``data/tables/*.json``, in the order of
its ``index.json``: tournament layouts first, then the sparse samples), and the choice of a
game's table among them or from a whole document.

Reads only this package's own data files through ``importlib.resources``; every layout is
parsed and validated once per process.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from ..ruleset import Ruleset
from .tables import TableError, TableLayout, parse_table

_DATA = "server.rules.data"


@dataclass(frozen=True, slots=True)
class Listed:
    """A shipped layout and whether it is a sample (sparse, for tests and the bench)."""

    layout: TableLayout
    sample: bool


def shipped() -> tuple[Listed, ...]:
    """Every layout of ``data/tables``, in the order of its ``index.json``: the tournament
    layouts first, then the samples."""
    return _shipped()


def layouts(ruleset: Ruleset | None = None) -> tuple[Listed, ...]:
    return tuple(item for item in _shipped()
                 if ruleset is None or ruleset in item.layout.rulesets)


def layout(table_id: str) -> TableLayout:
    """A shipped layout by id; ``TableError`` if there is none."""
    for item in _shipped():
        if item.layout.id == table_id:
            return item.layout
    raise TableError("table", f"there is no table '{table_id}'")


def default_table(ruleset: Ruleset) -> str:
    """The id of the first tournament layout of the ruleset (a new lobby room's table)."""
    return next(item.layout.id for item in layouts(ruleset) if not item.sample)


def sample_table(ruleset: Ruleset) -> str:
    """The id of the ruleset's sample layout: ``GameSetup``'s default and the table of every
    room stored before tables could be chosen."""
    return next(item.layout.id for item in layouts(ruleset) if item.sample)


def choose(choice: str | Mapping[str, Any], ruleset: Ruleset) -> TableLayout:
    """The layout a game is set up with: "" for the ruleset's sample, a shipped layout's id,
    or a whole table document. ``TableError`` if there is no such layout, the document is
    malformed, or the table is not made for ``ruleset``."""
    chosen = (layout(choice or sample_table(ruleset)) if isinstance(choice, str)
              else parse_table(dict(choice)))
    if ruleset not in chosen.rulesets:
        raise TableError("table", f"'{chosen.id}' is a table for "
                         f"{', '.join(r.value for r in chosen.rulesets)}, not {ruleset.value}")
    return chosen


def room_choice(value: Any, ruleset: Ruleset) -> str | dict[str, Any]:
    """What a room keeps of a requested table (a layout id or a whole document): a shipped
    layout's id, or the checked document of a table sent whole (in the form ``document``
    writes). A document with a shipped layout's id must be that layout (a copy of it is kept
    as its id): two different tables must not share a name. ``TableError`` as ``choose``."""
    if not (isinstance(value, dict) or (isinstance(value, str) and value)):
        raise TableError("table", "must be a table id or a table object")
    chosen = choose(value, ruleset)
    if isinstance(value, str):
        return chosen.id
    document = chosen.document()
    shipped_ids = {item.layout.id: item.layout for item in _shipped()}
    if chosen.id in shipped_ids:
        if shipped_ids[chosen.id].document() != document:
            raise TableError("id", f"'{chosen.id}' is the id of a shipped table; give this "
                             "one an id of its own")
        return chosen.id
    return document


def summary(choice: str | Mapping[str, Any], ruleset: Ruleset) -> dict[str, Any]:
    """Which table a room is on, as its description and welcome say it: the id, the title,
    and whether the table was sent whole rather than chosen among the shipped ones. A room
    stored before tables (choice "") is on the ruleset's sample; an id no longer shipped is
    told as it is."""
    if not isinstance(choice, str):
        return {"id": choice.get("id", ""), "title": choice.get("title", ""), "inline": True}
    table_id = choice or sample_table(ruleset)
    titles = {item.layout.id: item.layout.table.title for item in _shipped()}
    return {"id": table_id, "title": titles.get(table_id, table_id), "inline": False}


@cache
def _shipped() -> tuple[Listed, ...]:
    folder = resources.files(_DATA).joinpath("tables")
    index = json.loads(folder.joinpath("index.json").read_text(encoding="utf-8"))
    files = sorted(f.name.removesuffix(".json") for f in folder.iterdir()
                   if f.name.endswith(".json") and f.name != "index.json")
    order = [(name, False) for name in index["tournament"]] + [
        (name, True) for name in index["samples"]]
    if sorted(name for name, _ in order) != files:
        raise TableError("index.json", "must list every table file of data/tables once")
    out = []
    for name, sample in order:
        document = json.loads(folder.joinpath(f"{name}.json").read_text(encoding="utf-8"))
        try:
            parsed = parse_table(document)
        except TableError as error:
            raise TableError(f"{name}.json: {error.path}", error.problem) from None
        if parsed.id != name:
            raise TableError(f"{name}.json: id", "must match the file name")
        out.append(Listed(parsed, sample))
    return tuple(out)
