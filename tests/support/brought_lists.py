"""Army documents as a player brings them (docs/armies.md): a shipped list's own file,
renamed, with not-refereed items where a test wants them."""

from __future__ import annotations

import copy
import json
from importlib import resources
from typing import Any


def shipped_document(army_id: str) -> dict[str, Any]:
    text = resources.files("server.rules.data").joinpath(f"armies/{army_id}.json").read_text()
    document: dict[str, Any] = json.loads(text)
    return document


def brought(army_id: str = "vesper-raiders", **notes: list[str]) -> dict[str, Any]:
    """A shipped list's document as a player would bring it, renamed, with ``notes`` as the
    not-refereed items of the entries they name."""
    document = copy.deepcopy(shipped_document(army_id))
    document["id"], document["name"] = "my-list", "My Raiders"
    for entry in document["entries"]:
        if entry["id"] in notes:
            entry["not_refereed"] = notes[entry["id"]]
    return document
