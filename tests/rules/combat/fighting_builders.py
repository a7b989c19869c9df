"""Troopers with the fighting skills of issue 36 (NWI, Dogged, Courage, Immunity), for the
tests of ``combat/incapacitation.py``, ``combat/courage.py`` and ``combat/immunity.py``.

Implementation test: no rule section."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from server.rules.state import TrooperState


def with_skills(trooper: TrooperState, **fields: Any) -> TrooperState:
    """``trooper`` with its profile's fields changed (``nwi=True``, ``immunities=("Shock",)``)."""
    profile = replace(trooper.entry.profile, **fields)
    return replace(trooper, entry=replace(trooper.entry, profile=profile))
