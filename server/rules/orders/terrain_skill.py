"""Terrain (Special Skill; infinitythewiki "Terrain").

In our words: a trooper trained for a Type of Terrain (Aquatic, Desert, Jungle, Mountain,
Zero-G; Terrain (Total) for all five) moves through Special Terrain areas of that Type as if
they were open ground, and gains +1 inch to the first value of its MOV when it declares a
movement skill while inside such an area. The areas' hindrances are
``orders/difficult_terrain.py``; this module says which areas a trooper masters.

A profile that lists several Types (``UnitProfile.terrain_choice``) masters none until its
player chooses one as the trooper is placed on the table ("Terrain": the choice is made when
the trooper is placed): the ``deploy`` command names it (``terrain``), and the choice
(``TerrainTypeChosen``) narrows the trooper's ``terrain`` to it for the rest of the game.
The choice is part of the trooper's profile: open when it deploys as a Model, its side's
while it is a Camouflage Marker or in Hidden Deployment. docs/rules-decisions/
deployment-skills.md "Terrain".
"""

from __future__ import annotations

from ..armies.profiles import UnitProfile
from ..decision import require
from ..events import TerrainTypeChosen
from ..evolve import replace
from ..reasons import Reason
from ..state import GameState, TrooperState
from ..table.special_terrain import TERRAIN_TYPE_NAMES, SpecialTerrainArea, TerrainType

TERRAIN_BONUS = 1
"""Inches added to the first MOV value inside an area of the trooper's Type."""


def masters(profile: UnitProfile, area: SpecialTerrainArea) -> bool:
    """Whether the trooper's Terrain skill covers the area's Type of Terrain."""
    return area.terrain_type in profile.terrain


def choice_offered(trooper: TrooperState) -> list[str]:
    """The Types ``deploy.terrain`` may name for the trooper (empty: it has no choice)."""
    if trooper.profile.terrain:  # chosen already, or a single Type / Total
        return []
    return [t.value for t in trooper.profile.terrain_choice]


def chosen_terrain(trooper: TrooperState, named: str | None, hidden: bool,
                   marker: bool) -> list[TerrainTypeChosen]:
    """The choice a ``deploy`` command makes, or a rejection: a trooper with a choice of
    Types must name one of them; one without may name none."""
    offered = choice_offered(trooper)
    name = trooper.profile.name
    if not offered:
        require(named is None, Reason.SKILL_NOT_ALLOWED,
                f"{name} has no choice of Types of Terrain to make.")
        return []
    words = " or ".join(TERRAIN_TYPE_NAMES[TerrainType(t)] for t in offered)
    require(named in offered, Reason.BAD_COMMAND,
            f"{name} has Terrain with a choice of Types: name the one it uses ({words}) "
            "as it deploys (deploy.terrain).")
    assert named is not None
    return [TerrainTypeChosen(trooper.id, named, public=not (hidden or marker))]


def apply_terrain_type_chosen(state: GameState, event: TerrainTypeChosen) -> GameState:
    """The trooper masters the chosen Type, and only it, from now on."""
    trooper = state.trooper(event.trooper)
    profile = replace(trooper.profile, terrain=(TerrainType(event.terrain_type),))
    return state.with_trooper(replace(trooper, entry=replace(trooper.entry, profile=profile)))
