"""Terrain (Special Skill; infinitythewiki "Terrain").

In our words: a trooper trained for a Type of Terrain (Aquatic, Desert, Jungle, Mountain,
Zero-G; Terrain (Total) for all five) moves through Special Terrain areas of that Type as if
they were open ground, and gains +1 inch to the first value of its MOV when it declares a
movement skill while inside such an area. The areas' hindrances are
``orders/difficult_terrain.py``; this module says which areas a trooper masters.

Not built: a profile that lists several Types to choose one from at deployment (the item
catalogue names it "not refereed"). docs/rules-decisions/deployment-skills.md "Terrain".
"""

from __future__ import annotations

from ..armies.profiles import UnitProfile
from ..table.special_terrain import SpecialTerrainArea

TERRAIN_BONUS = 1
"""Inches added to the first MOV value inside an area of the trooper's Type."""


def masters(profile: UnitProfile, area: SpecialTerrainArea) -> bool:
    """Whether the trooper's Terrain skill covers the area's Type of Terrain."""
    return area.terrain_type in profile.terrain

