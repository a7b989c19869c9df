"""Reads the operator's army data folder (``REFEREE_ARMY_DATA``, docs/armies.md, "Operator
army data") into ``server.rules.armies.army_data.ArmyData``.

The layout: ``metadata.json`` and one ``<faction id>.json`` per faction (e.g. ``101.json``),
each the army builder's document as it is. Other files are ignored. The rules core stays
free of file reading; this module only opens files, bounds their size and parses JSON.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from server.rules.armies.army_data import MAX_FACTIONS, ArmyData, ArmyDataError

METADATA_FILE = "metadata.json"
MAX_FILE_BYTES = 32 * 1024 * 1024
"""Larger than any faction or metadata document the army builder publishes."""


def _read_json(path: Path) -> Any:
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise ArmyDataError(f"{path.name}: {size} bytes, more than the limit of "
                                f"{MAX_FILE_BYTES}.")
        with path.open("r", encoding="utf-8") as stream:
            return json.load(stream)
    except OSError as error:
        raise ArmyDataError(f"{path.name}: cannot be read ({error.strerror}).") from None
    except (ValueError, RecursionError) as error:
        # ValueError covers JSONDecodeError and bad UTF-8; RecursionError, absurd nesting.
        raise ArmyDataError(f"{path.name}: not a JSON document ({error}).") from None


def load_army_data(folder: Path) -> ArmyData:
    """The army data of ``folder``; ``ArmyDataError`` naming the file and the first problem."""
    if not folder.is_dir():
        raise ArmyDataError(f"The army data folder {folder} does not exist or is not a folder.")
    metadata_path = folder / METADATA_FILE
    if not metadata_path.is_file():
        raise ArmyDataError(f"The army data folder {folder} has no {METADATA_FILE}.")
    faction_paths = sorted((path for path in folder.glob("*.json")
                            if path.stem.isdigit() and path.is_file()),
                           key=lambda path: int(path.stem))
    if len(faction_paths) > MAX_FACTIONS:
        raise ArmyDataError(f"The army data folder {folder} has {len(faction_paths)} faction "
                            f"documents, more than the limit of {MAX_FACTIONS}.")
    factions = {int(path.stem): _read_json(path) for path in faction_paths}
    return ArmyData(_read_json(metadata_path), factions)
