"""A mission as the rules core plays it: its zones and markers on the table, its objectives
and what each is worth in Objective Points (docs/missions.md).

Values only: ``mission_data`` reads and checks a document into these; the objective kinds'
own modules (``dominate``, ``consoles``, ``kills``) evaluate them from the game state, and
``scoring`` says when. Nothing here imports the game state, so the state can hold a mission.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..plain import Tagged
from ..ruleset import Ruleset
from ..table.geometry import Point

ROUND_END = "round_end"
GAME_END = "game_end"
WHENS = (ROUND_END, GAME_END)
"""When an objective is scored: at the end of each Game Round, or at the end of the game."""


@dataclass(frozen=True, slots=True)
class MissionZone:
    """A rectangle of the table an objective names (a zone to dominate), inches."""

    id: str
    name: str
    x0: float
    y0: float
    x1: float
    y1: float

    def holds(self, point: Point) -> bool:
        """Whether ``point`` (a base's centre) lies in the zone, its edges included."""
        x, y = point
        return self.x0 <= x <= self.x1 and self.y0 <= y <= self.y1


@dataclass(frozen=True, slots=True)
class MissionMarker:
    """A mission marker on the table (a console, an antenna): a game element that blocks
    nothing, neither Line of Fire nor movement; a trooper works it in base contact."""

    id: str
    name: str
    kind: str
    x: float
    y: float

    @property
    def position(self) -> Point:
        return (self.x, self.y)


class Objective(Tagged):
    """One objective of a mission; each kind is a subclass (its ``TYPE`` is the document's
    ``kind``) and is evaluated by its own module."""

    id: str


@dataclass(frozen=True, slots=True)
class DominateZone(Objective):
    """``op`` to the side that dominates each of ``zones`` at each of ``when``: its
    troopers inside are worth more ``by`` points (army points) or count (troopers) than the
    other side's (``dominate.py``)."""

    TYPE: ClassVar[str] = "dominate"
    id: str
    op: int
    zones: tuple[str, ...]
    by: str = "points"
    when: tuple[str, ...] = (ROUND_END,)


@dataclass(frozen=True, slots=True)
class ActivateMarker(Objective):
    """``op`` per marker of ``markers`` a side activated (the ``activate`` Short Skill,
    ``consoles.py``): each side once per marker in the game (``per_round`` False) or once
    per marker in each Game Round (True); scored at ``when`` (at the end of a round: the
    activations of that round; at the end of the game: every activation of the game)."""

    TYPE: ClassVar[str] = "activate"
    id: str
    op: int
    markers: tuple[str, ...]
    when: str = GAME_END
    per_round: bool = False
    specialists_only: bool = False


@dataclass(frozen=True, slots=True)
class KillLieutenant(Objective):
    """``op`` at the end of the game to a side whose enemy's Lieutenant (the one its list
    named) is in a Null state or never reached the table (``kills.py``)."""

    TYPE: ClassVar[str] = "kill_lieutenant"
    id: str
    op: int


@dataclass(frozen=True, slots=True)
class MorePointsKilled(Objective):
    """``op`` at the end of the game to the side that killed more enemy army points than
    the other did (``kills.py``)."""

    TYPE: ClassVar[str] = "more_points_killed"
    id: str
    op: int


@dataclass(frozen=True, slots=True)
class KillBand:
    """A kill threshold: a side that killed at least ``share`` of the enemy's army points
    (0 < share <= 1) scores ``op``."""

    share: float
    op: int


@dataclass(frozen=True, slots=True)
class KillThresholds(Objective):
    """Annihilation's kill thresholds (CodeOne, DIGEST 14): at the end of the game each side
    scores the ``op`` of the highest band it reached (``kills.py``)."""

    TYPE: ClassVar[str] = "kill_thresholds"
    id: str
    bands: tuple[KillBand, ...]


@dataclass(frozen=True, slots=True)
class SpecialRule:
    id: str
    text: str


@dataclass(frozen=True, slots=True)
class Mission:
    """A checked mission (``mission_data.load_mission``)."""

    id: str
    title: str
    description: str
    rulesets: tuple[Ruleset, ...]
    rounds: int
    max_op: int
    zones: tuple[MissionZone, ...] = ()
    markers: tuple[MissionMarker, ...] = ()
    objectives: tuple[Objective, ...] = ()
    classified_draw: int = 0
    """Classified Objectives each player draws (the CLASSIFIED part plays them)."""
    classified_op: int = 0
    """Objective Points per Classified Objective achieved."""
    special_rules: tuple[SpecialRule, ...] = ()
    tie_break: str = "vp"
    """What decides a game both sides end on equal OP: Victory Points."""

    def zone(self, zone_id: str) -> MissionZone:
        return next(z for z in self.zones if z.id == zone_id)

    def marker(self, marker_id: str) -> MissionMarker | None:
        return next((m for m in self.markers if m.id == marker_id), None)
