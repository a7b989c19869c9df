"""How the rules' messages name a terrain piece: by what the players see on the table.

A piece's ``id`` ("office-s") is the table file's key, never shown to the players; the app
labels each piece with its ``name`` and its height, or its height alone where the name does
not fit, and its tooltip gives this same phrase (client-js/app/terrain-names.js, which
follows this module). Names repeat
on a table (the tournament layouts are the same for both sides: two "Refinery office"s),
so a message names the piece and says where it stands, as seen from above with north up:
"the Refinery office east of the centre". If that still fits two pieces (the Cargo
Terminus has two "Container stack"s west of the centre), the one meant is told from the
other by the side it is on: "the northern Container stack west of the centre"; if it fits
more (a table a player sent), by its middle, in inches from the south-west corner as the
route messages give points.
"""

from __future__ import annotations

import math

from server.rules.table.polygons import bounding_box
from server.rules.table.terrain import Table, TerrainKind, TerrainPiece

_NAMELESS = {
    TerrainKind.BUILDING: "building",
    TerrainKind.WALL: "wall",
    TerrainKind.CONTAINER: "container",
    TerrainKind.SCATTER: "scatter terrain",
    TerrainKind.VEHICLE: "vehicle",
    TerrainKind.SCENERY: "scenery",
}
"""What a piece without a name (stored before pieces had names) is called: its kind."""

MIDDLE = 2.0
"""Inches: a piece whose middle lies this close to the table's centre is "in the middle of
the table" rather than in some direction from it."""

_DIRECTIONS = ("east", "north-east", "north", "north-west",
               "west", "south-west", "south", "south-east")


def _middle(piece: TerrainPiece) -> tuple[float, float]:
    x0, y0, x1, y1 = bounding_box(piece.polygon)
    return ((x0 + x1) / 2.0, (y0 + y1) / 2.0)


def _where(piece: TerrainPiece, table: Table) -> str:
    x, y = _middle(piece)
    dx, dy = x - table.width / 2.0, y - table.depth / 2.0
    if math.hypot(dx, dy) <= MIDDLE:
        return "in the middle of the table"
    # The nearest of eight directions, a tie going anticlockwise (as the app computes it:
    # client-js/app/terrain-names.js).
    sector = math.floor(math.degrees(math.atan2(dy, dx)) / 45.0 + 0.5) % 8
    return f"{_DIRECTIONS[sector]} of the centre"


def _called(piece: TerrainPiece) -> str:
    return piece.name.strip() or _NAMELESS[piece.kind]


def _number(value: float) -> str:
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


def terrain_name(piece: TerrainPiece, table: Table) -> str:
    """The piece as a message names it: "the Refinery office east of the centre" (see the
    module docstring); "the building ..." for a piece without a name."""
    called, where = _called(piece), _where(piece, table)
    alike = [other for other in table.terrain
             if _called(other) == called and _where(other, table) == where]
    if len(alike) <= 1:
        return f"the {called} {where}"
    x, y = _middle(piece)
    if len(alike) == 2:
        ox, oy = _middle(alike[1] if alike[0] is piece else alike[0])
        if (ox, oy) != (x, y):
            if abs(y - oy) >= abs(x - ox):
                side = "northern" if y > oy else "southern"
            else:
                side = "eastern" if x > ox else "western"
            return f"the {side} {called} {where}"
    return f"the {called} {where} (its middle at ({_number(x)}, {_number(y)}))"
