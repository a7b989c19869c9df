"""Special Terrain areas: the zones of a table with their own movement rules (infinitythewiki
"Special Terrain", "Difficult Terrain", "Very Difficult Terrain", "Types of Terrain").

In our words: an area is a footprint on the ground of infinite height (it blocks neither
sight nor bases; a Jump does not pass over it). It has a MOV Difficulty (Difficult or Very
Difficult) and one Type of Terrain. A trooper is inside an area when its base touches or
overlaps the footprint ("Zones, Bases and Silhouettes": inside). What an area does to a
trooper's movement is ``orders/difficult_terrain.py``; this module is the shapes only.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from server.rules.table.geometry import CONTACT_TOLERANCE, Body, point_distance
from server.rules.table.polygons import body_polygon_distance, point_in_polygon
from server.rules.table.shapes import Point, Polygon


class TerrainType(StrEnum):
    """The Types of Terrain the rules name; Terrain (Total) masters all of them."""

    AQUATIC = "aquatic"
    DESERT = "desert"
    JUNGLE = "jungle"
    MOUNTAIN = "mountain"
    ZERO_G = "zero_g"


TERRAIN_TYPE_NAMES = {TerrainType.AQUATIC: "Aquatic", TerrainType.DESERT: "Desert",
                      TerrainType.JUNGLE: "Jungle", TerrainType.MOUNTAIN: "Mountain",
                      TerrainType.ZERO_G: "Zero-G"}
"""Each Type as the rules write it (messages, labels)."""


class Difficulty(StrEnum):
    """An area's MOV Difficulty."""

    DIFFICULT = "difficult"
    VERY_DIFFICULT = "very_difficult"


DIFFICULTY_NAMES = {Difficulty.DIFFICULT: "Difficult Terrain",
                    Difficulty.VERY_DIFFICULT: "Very Difficult Terrain"}


@dataclass(frozen=True, slots=True)
class SpecialTerrainArea:
    """One Special Terrain area of the table: open information, drawn for both players."""

    id: str
    name: str
    polygon: Polygon
    difficulty: Difficulty
    terrain_type: TerrainType

    def __post_init__(self) -> None:
        if len(self.polygon) < 3:
            raise ValueError(f"special terrain {self.id}: a footprint needs at least 3 points")
        object.__setattr__(self, "polygon", tuple((float(x), float(y)) for x, y in self.polygon))

    @property
    def label(self) -> str:
        """How a player names it: "Swamp (Very Difficult Terrain, Aquatic)"."""
        return (f"{self.name} ({DIFFICULTY_NAMES[self.difficulty]}, "
                f"{TERRAIN_TYPE_NAMES[self.terrain_type]})")


def touches_area(body: Body, area: SpecialTerrainArea) -> bool:
    """The base is inside the area: touching its edge or overlapping it."""
    return body_polygon_distance(body, area.polygon) <= CONTACT_TOLERANCE


def areas_touching(body: Body, areas: Sequence[SpecialTerrainArea]) -> tuple[SpecialTerrainArea, ...]:
    return tuple(area for area in areas if touches_area(body, area))


def _first_circle_hit(p: Point, d: Point, length: float, centre: Point, reach: float) -> float | None:
    """The least s in [0, length] where p + s*d (d a unit vector) is within ``reach`` of
    ``centre``, or None."""
    fx, fy = p[0] - centre[0], p[1] - centre[1]
    b = fx * d[0] + fy * d[1]
    c = fx * fx + fy * fy - reach * reach
    if c <= 0.0:
        return 0.0
    disc = b * b - c
    if disc < 0.0:
        return None
    s = -b - math.sqrt(disc)
    return s if 0.0 <= s <= length else None


def _first_band_hit(p: Point, d: Point, length: float, a: Point, b: Point,
                    reach: float) -> float | None:
    """The least s in [0, length] where p + s*d comes within ``reach`` of the edge a-b
    through its flat sides (the round ends are ``_first_circle_hit``'s)."""
    ex, ey = b[0] - a[0], b[1] - a[1]
    edge = math.hypot(ex, ey)
    if edge == 0.0:
        return None
    ux, uy = ex / edge, ey / edge
    nx, ny = -uy, ux
    best: float | None = None
    offset = (p[0] - a[0]) * nx + (p[1] - a[1]) * ny
    rate = d[0] * nx + d[1] * ny
    for side in (reach, -reach):
        if rate == 0.0:
            continue
        s = (side - offset) / rate
        if not 0.0 <= s <= length:
            continue
        x, y = p[0] + s * d[0], p[1] + s * d[1]
        along = (x - a[0]) * ux + (y - a[1]) * uy
        if 0.0 <= along <= edge and (best is None or s < best):
            best = s
    return best


def first_contact(route: Sequence[Point], radius: float, area: SpecialTerrainArea) -> float | None:
    """How far along ``route`` (inches) a base of ``radius`` first touches the area, or None
    if it never does. The base touches when its centre comes within radius (plus the contact
    tolerance) of the footprint: the footprint grown by that much, whose outline is the
    edges' flat bands and the corners' circles."""
    reach = radius + CONTACT_TOLERANCE
    travelled = 0.0
    polygon = area.polygon
    for p, q in itertools.pairwise(route):
        length = point_distance(p, q)
        if point_in_polygon(p, polygon):
            return travelled
        if length > 0.0:
            d = ((q[0] - p[0]) / length, (q[1] - p[1]) / length)
            hits = [hit for corner in polygon
                    if (hit := _first_circle_hit(p, d, length, corner, reach)) is not None]
            hits += [hit for a, b in zip(polygon, (*polygon[1:], polygon[0]), strict=True)
                     if (hit := _first_band_hit(p, d, length, a, b, reach)) is not None]
            if hits:
                return travelled + min(hits)
        travelled += length
    if route and point_in_polygon(route[-1], polygon):
        return travelled
    return None
