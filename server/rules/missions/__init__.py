"""Missions and Objective Points (docs/missions.md): mission documents and the catalogue of
shipped ones, here; the objective kinds (``dominate``, ``consoles``, ``kills``), the OP
bookkeeping (``points``) and when they are scored (``scoring``) in their own modules, which
read the game state (this package's top imports nothing that does, so the state can hold a
``Mission``)."""

from __future__ import annotations

from . import catalogue as mission_catalogue
from .mission import (
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
from .mission_data import FORMAT, MissionError, load_mission

__all__ = [
    "FORMAT",
    "ActivateMarker",
    "DominateZone",
    "KillBand",
    "KillLieutenant",
    "KillThresholds",
    "Mission",
    "MissionError",
    "MissionMarker",
    "MissionZone",
    "MorePointsKilled",
    "Objective",
    "SpecialRule",
    "load_mission",
    "mission_catalogue",
]
