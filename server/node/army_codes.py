"""The node's army code reader: the operator's army data (``REFEREE_ARMY_DATA``) read once
when the app is made, and the reader the rooms' edge expands codes with
(``server/rooms/rules_engine.py``, ``RulesCoreEngine(army_codes=...)``).

A folder that is not army data stops the start with its problem, rather than a server that
later refuses every code: the operator asked for codes to be read.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from server.node.army_data_folder import load_army_data
from server.rooms.rules_engine import ArmyCodeReader, ArmyCodeRefused
from server.rules.armies.army_data import ArmyData
from server.rules.armies.army_import import ArmyImportError, army_document_from_code
from server.rules.armies.army_list import ListFormat

log = logging.getLogger("server.armies")


def load_operator_army_data(folder: Path | None) -> ArmyData | None:
    """The army data of ``folder`` (None: none configured); ``ArmyDataError`` if it is not
    army data."""
    if folder is None:
        return None
    data = load_army_data(folder)
    log.info("army data from %s: %d faction documents", folder, len(data.faction_ids))
    return data


def army_code_reader(data: ArmyData | None) -> ArmyCodeReader | None:
    """How the rooms read army codes with ``data``; None without data (codes are then
    refused ``no_army_data``)."""
    if data is None:
        return None

    def read(text: str, list_format: ListFormat) -> Mapping[str, Any]:
        try:
            return army_document_from_code(text, data, list_format)
        except ArmyImportError as error:
            raise ArmyCodeRefused(error.problem) from None

    return read
