"""The table, its terrain pieces and zones (the polygon tests they need: ``polygons``).

The table is 2.5D: a terrain piece is a simple polygon (convex or concave, either winding)
extruded straight up to ``height`` inches. Nothing stands on top of terrain in this slice.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from server.rules.ids import TerrainId
from server.rules.table.geometry import EPSILON, Body
from server.rules.table.shapes import Polygon
from server.rules.table.special_terrain import SpecialTerrainArea
from server.rules.table.visibility_zones import VisibilityZone


class TerrainKind(StrEnum):
    """What a piece of scenery is, for the players (a legend, a label): the rules read only
    its footprint, height and ``gives_cover``."""

    BUILDING = "building"
    WALL = "wall"
    CONTAINER = "container"
    SCATTER = "scatter"
    VEHICLE = "vehicle"
    SCENERY = "scenery"
    """Anything else; also what a piece stored before pieces had a kind reads as."""


@dataclass(frozen=True, slots=True)
class TerrainPiece:
    """A piece of scenery: a footprint polygon and a height (inches).

    ``gives_cover`` is False for scenery that blocks sight but grants no Partial Cover.
    ``name`` ("Hab block") and ``kind`` are for the players; "" and ``SCENERY`` in states
    stored before pieces had them.
    """

    id: TerrainId
    polygon: Polygon
    height: float
    gives_cover: bool = True
    name: str = ""
    kind: TerrainKind = TerrainKind.SCENERY

    def __post_init__(self) -> None:
        if len(self.polygon) < 3:
            raise ValueError(f"terrain {self.id}: a footprint needs at least 3 points")
        if self.height < 0.0:
            raise ValueError(f"terrain {self.id}: height must not be negative")
        points = tuple((float(x), float(y)) for x, y in self.polygon)
        object.__setattr__(self, "polygon", points)


@dataclass(frozen=True, slots=True)
class Zone:
    """An axis-aligned rectangle on the table (deployment zone, objective area...)."""

    x0: float
    y0: float
    x1: float
    y1: float

    def __post_init__(self) -> None:
        if self.x1 < self.x0 or self.y1 < self.y0:
            raise ValueError("a zone needs x0 <= x1 and y0 <= y1")

    def contains_body(self, body: Body) -> bool:
        """The whole base is inside the zone ("totally inside", DIGEST 10.2)."""
        x, y = body.position
        r = body.radius
        return (
            self.x0 + r <= x + EPSILON
            and x - EPSILON <= self.x1 - r
            and self.y0 + r <= y + EPSILON
            and y - EPSILON <= self.y1 - r
        )

    def touches_body(self, body: Body) -> bool:
        """Some part of the base touches or overlaps the zone ("inside", DIGEST 10.2)."""
        x, y = body.position
        nearest = (min(max(x, self.x0), self.x1), min(max(y, self.y0), self.y1))
        return math.hypot(x - nearest[0], y - nearest[1]) <= body.radius + EPSILON


@dataclass(frozen=True, slots=True)
class Table:
    """The playing surface, ``width`` along x and ``depth`` along y, inches. ``id`` and
    ``title`` name its layout (``tables.py``); "" in states stored before tables had them."""

    width: float
    depth: float
    terrain: tuple[TerrainPiece, ...] = ()
    id: str = ""
    title: str = ""
    zones: tuple[VisibilityZone, ...] = ()
    """Zero Visibility Zones placed by Smoke or Eclipse this Player Turn
    (``visibility_zones``); they block Line of Fire, not movement."""
    special_terrain: tuple[SpecialTerrainArea, ...] = ()
    """Special Terrain areas of the layout (``special_terrain``): they hinder movement
    (``orders/difficult_terrain.py``), never sight."""

    def contains_body(self, body: Body) -> bool:
        """The whole base is on the table."""
        return Zone(0.0, 0.0, self.width, self.depth).contains_body(body)


def codeone_table(terrain: Sequence[TerrainPiece] = ()) -> Table:
    """An Infinity CodeOne table: 24 inches wide (x) by 32 deep (y)."""
    return Table(24.0, 32.0, tuple(terrain))


def standard_table(terrain: Sequence[TerrainPiece] = ()) -> Table:
    """A standard Infinity table: 48 by 48 inches."""
    return Table(48.0, 48.0, tuple(terrain))
