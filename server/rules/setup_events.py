"""Events of the game's set-up: the armies chosen and accepted, the Initiative Roll and its
choices, and the Deployment Phase (troopers and Mines placed, Infiltration rolls, the
deployment steps, a Terrain Type chosen). ``events.py`` re-exports them with every other event.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .armies.army_list import ArmyList
from .combat.dice import Dice
from .combat.outcome import RollRecord
from .event_base import Event
from .ids import Side, TrooperId, WeaponId
from .table.geometry import Point


@dataclass(frozen=True, slots=True)
class ArmyChosen(Event):
    TYPE: ClassVar[str] = "army_chosen"
    side: Side
    army: ArmyList
    trooper_ids: tuple[tuple[str, TrooperId], ...]
    """(army-list entry id, game trooper id). Game ids are random per room, so that an id
    tells the opponent nothing about the trooper behind a marker or in Hidden Deployment."""
    entropy: str = ""
    """The player's contribution to the dice key (private until the game ends)."""


@dataclass(frozen=True, slots=True)
class ArmiesAccepted(Event):
    """``side`` accepted both lists as the referee plays them (``AcceptArmies``): the game
    starts once both sides did, when either list has items the referee does not play."""

    TYPE: ClassVar[str] = "armies_accepted"
    side: Side


@dataclass(frozen=True, slots=True)
class InitiativeRolled(Event):
    """Face to Face WIP roll between the Lieutenants; ties and double failures re-roll."""

    TYPE: ClassVar[str] = "initiative_rolled"
    attempts: tuple[tuple[int, int], ...]
    """(A's face, B's face) for every attempt; the last one decided."""
    success_values: tuple[int, int]
    winner: Side
    dice: Dice


@dataclass(frozen=True, slots=True)
class InitiativeChosen(Event):
    TYPE: ClassVar[str] = "initiative_chosen"
    side: Side
    keep: str
    first: bool
    zone: str | None


@dataclass(frozen=True, slots=True)
class InitiativeSettled(Event):
    TYPE: ClassVar[str] = "initiative_settled"
    first_player: Side
    deploys_first: Side
    zones: dict[Side, str]


@dataclass(frozen=True, slots=True)
class TrooperDeployed(Event):
    TYPE: ClassVar[str] = "trooper_deployed"
    trooper: TrooperId
    position: Point
    facing: float
    hidden: bool
    marker: bool


@dataclass(frozen=True, slots=True)
class TerrainTypeChosen(Event):
    """Terrain with a choice of Types (``orders/terrain_skill.py``): the Type the player
    chose for ``trooper`` as it deploys; it masters that Type from now on. ``public``: it
    deploys as a Model, whose profile is open; else (a Camouflage Marker, Hidden
    Deployment) the choice is its side's until the profile is revealed (``views``)."""

    TYPE: ClassVar[str] = "terrain_type_chosen"
    trooper: TrooperId
    terrain_type: str
    public: bool


@dataclass(frozen=True, slots=True)
class MinePlaced(Event):
    """A Mine put on the table (``combat/mines.py``) by ``owner``: by Minelayer as it
    deploys. Others see it exactly as a Camouflage Marker deployed (``views``): what it
    is stays Private Information until it is Discovered or goes off."""

    TYPE: ClassVar[str] = "mine_placed"
    mine: TrooperId
    side: Side
    owner: TrooperId
    weapon: WeaponId
    position: Point
    facing: float


@dataclass(frozen=True, slots=True)
class MinesLost(Event):
    """A Minelayer that failed its Infiltration Roll loses the Mines it named (the wiki's
    "Minelayer"): ``count`` Disposable uses spent, none placed. Private to its side."""

    TYPE: ClassVar[str] = "mines_lost"
    owner: TrooperId
    weapon: WeaponId
    count: int


@dataclass(frozen=True, slots=True)
class InfiltrationRolled(Event):
    """Infiltration into the enemy half (``orders/infiltration.py``): the PH-3 Roll made for
    the spot ``position``; ``passed``, the ``trooper_deployed`` that follows places it there,
    failed, in its own Deployment Zone as a Model. Others see a passed Camouflage Marker's
    without the roll's record (``views``)."""

    TYPE: ClassVar[str] = "infiltration_rolled"
    trooper: TrooperId
    position: Point
    facing: float
    roll: RollRecord
    passed: bool
    marker: bool
    """It deploys as a Camouflage Marker if the roll passes."""
    dice: Dice


@dataclass(frozen=True, slots=True)
class DeploymentStepEnded(Event):
    TYPE: ClassVar[str] = "deployment_step_ended"
    side: Side
    step: int
