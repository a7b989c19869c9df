"""Table layouts: the JSON format of docs/tables.md and its validation.

A layout is a JSON document: the table's id, title, rulesets and size, the two deployment
zones and the terrain pieces. ``parse_table`` turns one into the rules core's ``Table`` and
zones, or raises ``TableError`` naming the first problem and where it is. The same checks
run on the layouts shipped in ``data/tables/`` and on a table a player sends to the lobby,
so the limits below keep a hostile document from making the server slow: every Line of
Fire test looks at each piece whose box meets the sight line's, and the geometry costs
grow with the points of a footprint.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..document_fields import DocumentError, FieldReader
from ..document_fields import at as _at
from ..ids import TerrainId
from ..ruleset import Ruleset, options
from .polygons import convex_half_planes
from .special_terrain import Difficulty, SpecialTerrainArea, TerrainType
from .terrain import Table, TerrainKind, TerrainPiece, Zone

FORMAT = "infinity-referee-table/1"

MAX_PIECES = 48
MAX_POINTS = 12
"""Points of one footprint (an octagon has 8, a cross 12)."""
MAX_TOTAL_POINTS = 400
"""Points of all footprints together."""
MAX_CONCAVE = 8
"""Footprints that are not convex (an L, a U, a star). Line of Fire decides most hidden
targets with shortcuts that hold for convex pieces only; past a handful of concave ones it
tries every sampled sight line against every edge (docs/performance.md: a table at these
limits costs about twice a tournament layout)."""
MAX_HEIGHT = 12.0
"""Inches: taller than anything a sight line can pass over (the tallest Silhouette is under
3 inches)."""
MAX_SPECIAL_TERRAIN = 12
"""Special Terrain areas of one table (their points count towards ``MAX_TOTAL_POINTS``):
every movement looks at each one the route comes near."""
MIN_AREA = 0.05
"""Square inches: a footprint smaller than this is a mistake, not scenery."""
MAX_TEXT = 80
MAX_DESCRIPTION = 400
ZONE_NAMES = ("south", "north")
"""The rules core's zone names (``commands.ChooseDeployment``): south along y = 0, north
along y = depth."""

_DOCUMENT_FIELDS = frozenset({"format", "id", "title", "description", "rulesets", "width",
                              "depth", "zones", "terrain", "special_terrain"})
_PIECE_FIELDS = frozenset({"id", "name", "kind", "polygon", "height", "gives_cover"})
_ZONE_FIELDS = ("x0", "y0", "x1", "y1")
_AREA_FIELDS = frozenset({"id", "name", "difficulty", "type", "polygon"})


class TableError(DocumentError):
    """A table document that breaks the format: ``path`` says where (``terrain[3].height``),
    ``problem`` what is wrong."""


_fields = FieldReader(TableError)
_mapping, _identifier, _text = _fields.mapping, _fields.identifier, _fields.text
_number, _as_number, _rulesets = _fields.number, _fields.as_number, _fields.rulesets


@dataclass(frozen=True, slots=True)
class TableLayout:
    """A validated table: the ``Table`` the rules play on, its deployment zones by name, the
    rulesets it is made for, and a line for the players."""

    table: Table
    zones: Mapping[str, Zone]
    rulesets: tuple[Ruleset, ...]
    description: str = ""

    @property
    def id(self) -> str:
        return self.table.id

    def document(self) -> dict[str, Any]:
        """The layout in the JSON format it was read from (numbers as floats): what the
        lobby lists and what a room stores for a table sent inline."""
        out: dict[str, Any] = {"format": FORMAT, "id": self.table.id, "title": self.table.title}
        if self.description:
            out["description"] = self.description
        out.update(
            rulesets=[r.value for r in self.rulesets],
            width=self.table.width, depth=self.table.depth,
            zones={name: {f: getattr(zone, f) for f in _ZONE_FIELDS}
                   for name, zone in self.zones.items()},
            terrain=[{"id": p.id, "name": p.name, "kind": p.kind.value,
                      "polygon": [[x, y] for x, y in p.polygon], "height": p.height,
                      "gives_cover": p.gives_cover} for p in self.table.terrain],
        )
        if self.table.special_terrain:
            out["special_terrain"] = [
                {"id": a.id, "name": a.name, "difficulty": a.difficulty.value,
                 "type": a.terrain_type.value, "polygon": [[x, y] for x, y in a.polygon]}
                for a in self.table.special_terrain]
        return out


# --- parsing ---------------------------------------------------------------------------------


def parse_table(data: Any) -> TableLayout:
    """Validate a table document (plain JSON data) and build its layout."""
    doc = _mapping(data, "", _DOCUMENT_FIELDS)
    if doc.get("format") != FORMAT:
        raise TableError("format", f'must be "{FORMAT}"')
    table_id = _identifier(doc, "id", "")
    title = _text(doc, "title", "", MAX_TEXT)
    description = _text(doc, "description", "", MAX_DESCRIPTION, required=False)
    rulesets = _rulesets(doc.get("rulesets"))
    width, depth = _number(doc, "width", ""), _number(doc, "depth", "")
    for ruleset in rulesets:
        wanted = options(ruleset)
        if (width, depth) != (wanted.table_width, wanted.table_depth):
            raise TableError("width", f"a {ruleset.value} table is {wanted.table_width:g} wide "
                             f"and {wanted.table_depth:g} deep (inches), not {width:g} by "
                             f"{depth:g}")
    zones = _zones(doc.get("zones"), width, depth)
    terrain = _terrain(doc.get("terrain"), width, depth)
    areas = _special_terrain(doc.get("special_terrain", []), width, depth,
                             sum(len(p.polygon) for p in terrain))
    if areas and Ruleset.CODEONE in rulesets:
        # The wiki marks Special Terrain and Terrain as N5 rules that CodeOne does not use.
        raise TableError("special_terrain", "CodeOne plays without Special Terrain: only an "
                         "n5 table may have areas")
    table = Table(width, depth, terrain, id=table_id, title=title, special_terrain=areas)
    return TableLayout(table, zones, rulesets, description)


def _zones(value: Any, width: float, depth: float) -> dict[str, Zone]:
    found = _mapping(value, "zones", ZONE_NAMES)
    zones = {}
    for name in ZONE_NAMES:
        path = f"zones.{name}"
        if name not in found:
            raise TableError(path, "is missing")
        box = _mapping(found[name], path, _ZONE_FIELDS)
        x0, y0, x1, y1 = (_number(box, f, path) for f in _ZONE_FIELDS)
        if not (0.0 <= x0 < x1 <= width and 0.0 <= y0 < y1 <= depth):
            raise TableError(path, f"must be a rectangle of some area on the table "
                             f"(0 <= x0 < x1 <= {width:g}, 0 <= y0 < y1 <= {depth:g})")
        zones[name] = Zone(x0, y0, x1, y1)
    if zones["south"].y0 != 0.0:
        raise TableError("zones.south", "must run along the south edge (y0 = 0)")
    if zones["north"].y1 != depth:
        raise TableError("zones.north", f"must run along the north edge (y1 = {depth:g})")
    if zones["south"].y1 >= zones["north"].y0:
        raise TableError("zones", "the two deployment zones must not meet (south y1 < north y0)")
    return zones


def _terrain(value: Any, width: float, depth: float) -> tuple[TerrainPiece, ...]:
    if not isinstance(value, list):
        raise TableError("terrain", "must be a list of terrain pieces")
    if len(value) > MAX_PIECES:
        raise TableError("terrain", f"has {len(value)} pieces; at most {MAX_PIECES}")
    pieces: list[TerrainPiece] = []
    seen: set[str] = set()
    total = concave = 0
    for index, item in enumerate(value):
        piece = _piece(item, f"terrain[{index}]", width, depth)
        if piece.id in seen:
            raise TableError(f"terrain[{index}].id", f"'{piece.id}' is used by another piece")
        seen.add(piece.id)
        total += len(piece.polygon)
        if total > MAX_TOTAL_POINTS:
            raise TableError("terrain", f"the footprints have more than {MAX_TOTAL_POINTS} "
                             "points in all")
        concave += convex_half_planes(piece.polygon) is None
        if concave > MAX_CONCAVE:
            raise TableError(f"terrain[{index}].polygon", f"more than {MAX_CONCAVE} footprints "
                             "are not convex")
        pieces.append(piece)
    return tuple(pieces)


def _piece(item: Any, path: str, width: float, depth: float) -> TerrainPiece:
    data = _mapping(item, path, _PIECE_FIELDS)
    piece_id = _identifier(data, "id", path)
    name = _text(data, "name", path, MAX_TEXT)
    kinds = [k.value for k in TerrainKind]
    kind = data.get("kind")
    if kind not in kinds:
        raise TableError(_at(path, "kind"), f"must be one of {kinds}")
    polygon = _polygon(data.get("polygon"), _at(path, "polygon"), width, depth)
    height = _number(data, "height", path)
    if not 0.0 < height <= MAX_HEIGHT:
        raise TableError(_at(path, "height"), f"must be more than 0 and at most {MAX_HEIGHT:g} "
                         "inches")
    cover = data.get("gives_cover", True)
    if not isinstance(cover, bool):
        raise TableError(_at(path, "gives_cover"), "must be true or false")
    return TerrainPiece(TerrainId(piece_id), polygon, height, cover, name, TerrainKind(kind))


def _special_terrain(value: Any, width: float, depth: float,
                     points_so_far: int) -> tuple[SpecialTerrainArea, ...]:
    if not isinstance(value, list):
        raise TableError("special_terrain", "must be a list of Special Terrain areas")
    if len(value) > MAX_SPECIAL_TERRAIN:
        raise TableError("special_terrain", f"has {len(value)} areas; at most "
                         f"{MAX_SPECIAL_TERRAIN}")
    areas: list[SpecialTerrainArea] = []
    total = points_so_far
    for index, item in enumerate(value):
        path = f"special_terrain[{index}]"
        data = _mapping(item, path, _AREA_FIELDS)
        area_id = _identifier(data, "id", path)
        if any(area.id == area_id for area in areas):
            raise TableError(_at(path, "id"), f"'{area_id}' is used by another area")
        name = _text(data, "name", path, MAX_TEXT)
        difficulty, kind = data.get("difficulty"), data.get("type")
        if difficulty not in [d.value for d in Difficulty]:
            raise TableError(_at(path, "difficulty"),
                             f"must be one of {[d.value for d in Difficulty]}")
        if kind not in [t.value for t in TerrainType]:
            raise TableError(_at(path, "type"), f"must be one of {[t.value for t in TerrainType]}")
        polygon = _polygon(data.get("polygon"), _at(path, "polygon"), width, depth)
        total += len(polygon)
        if total > MAX_TOTAL_POINTS:
            raise TableError("special_terrain", f"the footprints and areas have more than "
                             f"{MAX_TOTAL_POINTS} points in all")
        areas.append(SpecialTerrainArea(area_id, name, polygon, Difficulty(difficulty),
                                        TerrainType(kind)))
    return tuple(areas)


def _polygon(value: Any, path: str, width: float, depth: float) -> tuple[tuple[float, float], ...]:
    if not isinstance(value, list) or not 3 <= len(value) <= MAX_POINTS:
        raise TableError(path, f"must be a list of 3 to {MAX_POINTS} points")
    points = []
    for index, point in enumerate(value):
        where = f"{path}[{index}]"
        if not isinstance(point, list) or len(point) != 2:
            raise TableError(where, "must be a point [x, y]")
        x, y = _as_number(point[0], where), _as_number(point[1], where)
        if not (0.0 <= x <= width and 0.0 <= y <= depth):
            raise TableError(where, f"({x:g}, {y:g}) is off the table (0..{width:g} by "
                             f"0..{depth:g})")
        points.append((x, y))
    problem = polygon_problem(points)
    if problem is not None:
        raise TableError(path, problem)
    return tuple(points)


def polygon_problem(points: Sequence[tuple[float, float]]) -> str | None:
    """Why a footprint is not a simple polygon of some area, or None. The geometry
    (``polygons.py``) assumes simple polygons: a crossing outline has no clear inside."""
    points = list(points)
    count = len(points)
    if len(set(points)) != count:
        repeated = next(p for p in points if points.count(p) > 1)
        return f"repeats the point ({repeated[0]:g}, {repeated[1]:g})"
    area = abs(sum(ax * by - bx * ay for (ax, ay), (bx, by)
                   in zip(points, points[1:] + points[:1], strict=True))) / 2.0
    if area < MIN_AREA:
        return f"must enclose at least {MIN_AREA:g} square inches"
    edges = list(zip(points, points[1:] + points[:1], strict=True))
    for (i, a), (j, b) in itertools.combinations(enumerate(edges), 2):
        neighbours = j == i + 1 or (i == 0 and j == count - 1)
        if _edges_meet(a, b, neighbours):
            return f"its edges {i} and {j} cross or touch: the outline must not cross itself"
    return None


def _edges_meet(a: tuple[tuple[float, float], tuple[float, float]],
                b: tuple[tuple[float, float], tuple[float, float]], neighbours: bool) -> bool:
    """Two edges of an outline meet anywhere but at the corner neighbours share (where a
    neighbour folding back over its edge counts as meeting)."""
    (p, q), (r, s) = a, b
    d1, d2 = _cross(r, s, p), _cross(r, s, q)
    d3, d4 = _cross(p, q, r), _cross(p, q, s)
    if neighbours:
        # They share a corner: they meet elsewhere only if collinear and overlapping.
        return d1 == d2 == d3 == d4 == 0.0 and _folds_back(p, q, r, s)
    if ((d1 > 0) != (d2 > 0) and d1 != 0 and d2 != 0
            and (d3 > 0) != (d4 > 0) and d3 != 0 and d4 != 0):
        return True
    return any(d == 0.0 and _on_segment(u, v, w) for d, u, v, w in
               ((d1, r, s, p), (d2, r, s, q), (d3, p, q, r), (d4, p, q, s)))


def _cross(o: tuple[float, float], a: tuple[float, float], b: tuple[float, float]) -> float:
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def _on_segment(a: tuple[float, float], b: tuple[float, float], p: tuple[float, float]) -> bool:
    return min(a[0], b[0]) <= p[0] <= max(a[0], b[0]) and min(a[1], b[1]) <= p[1] <= max(a[1], b[1])


def _folds_back(p: tuple[float, float], q: tuple[float, float], r: tuple[float, float],
                s: tuple[float, float]) -> bool:
    """Two collinear edges sharing a corner overlap (rather than continue each other)."""
    shared = next(c for c in (p, q) if c in (r, s))
    u = q if shared == p else p
    v = s if shared == r else r
    return (u[0] - shared[0]) * (v[0] - shared[0]) + (u[1] - shared[1]) * (v[1] - shared[1]) > 0
