"""Which missions a tournament round (and a room) may be played on: the shipped missions'
ids per ruleset, read from the missions' index (``server/rules/data/missions/index.json``,
``{"n5": [ids], "codeone": [ids]}``; docs/missions.md). No index (a server without
missions): no mission id is known, so every one is refused and games are the annihilation
they were.

Read at each call (a creation or a round start, not a hot path), so a test points
``INDEX`` at a temporary file. The mission documents themselves are the rules core's
(``server.rules.missions``); this module reads only their ids and titles."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import server

MISSIONS_DIR = Path(server.__file__).parent / "rules" / "data" / "missions"
INDEX = MISSIONS_DIR / "index.json"


def _index(index: Path | None) -> dict[str, Any]:
    path = INDEX if index is None else index
    if not path.is_file():
        return {}
    found = json.loads(path.read_text(encoding="utf-8"))
    return found if isinstance(found, dict) else {}


def mission_ids(ruleset: str, index: Path | None = None) -> set[str]:
    """The ids of the missions shipped for ``ruleset`` (empty without an index)."""
    listed = _index(index).get(ruleset, [])
    if not isinstance(listed, list):
        return set()
    return {item for item in listed if isinstance(item, str) and item}


def mission_title(mission: str, index: Path | None = None) -> str:
    """The mission's title as its document gives it (next to the index), or its id when
    the document cannot be read: what the tournament pages name a round's mission by."""
    folder = (INDEX if index is None else index).parent
    path = folder / f"{mission}.json"
    if "/" in mission or "\\" in mission or not path.is_file():
        return mission
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return mission
    title = document.get("title") if isinstance(document, dict) else None
    return title if isinstance(title, str) and title else mission
