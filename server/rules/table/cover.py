"""Partial Cover from terrain (DIGEST 10.6).

Rule used (docs/rules-decisions/geometry.md): the target is in Partial Cover against an
attacker when

* the attacker has Line of Fire to it as far as terrain goes (otherwise there is no
  question of cover), and
* some sight line the attacker draws is blocked by a cover-giving terrain piece the
  target's Silhouette is in contact with (``touches_scenery``: base edge within
  ``CONTACT_TOLERANCE`` of the footprint; the N5 "Partial Cover" text asks for contact with
  the scenery that partly hides the target).

The attacker's sight lines are the plan lines it draws for Line of Fire
(``sight_lines.lines_drawn_by``), from its top to the target at three heights: top minus
3 mm, middle and foot, because cover is about how much of the target is hidden. A target
seen only because it sees the attacker (reciprocity) and hidden from the attacker's own
lines by the scenery it touches is in Partial Cover. Models never give cover, so only
terrain counts here.
"""

from __future__ import annotations

from server.rules.table.geometry import CONTACT_TOLERANCE, Body, in_front_arc
from server.rules.table.line_of_fire import blocked_by_terrain, has_line_of_fire
from server.rules.table.polygons import body_polygon_distance
from server.rules.table.sight_lines import MIN_VISIBLE, lines_drawn_by, sight_height
from server.rules.table.terrain import Table, TerrainPiece


def touches_scenery(body: Body, piece: TerrainPiece) -> bool:
    """The body's Silhouette is in contact with the piece: its base within
    ``CONTACT_TOLERANCE`` of the footprint, edge to edge (or overlapping it)."""
    return body_polygon_distance(body, piece.polygon) <= CONTACT_TOLERANCE


def _target_heights(target: Body) -> tuple[float, ...]:
    foot = min(MIN_VISIBLE, target.height / 2.0)
    return tuple(sorted({sight_height(target), target.height / 2.0, foot}, reverse=True))


def in_partial_cover(target: Body, attacker: Body, table: Table) -> bool:
    """Whether ``target`` has Partial Cover against ``attacker`` (see module docstring).

    Never True when terrain leaves the attacker no Line of Fire to the target.
    """
    if not in_front_arc(attacker, target):
        return False
    covering = tuple(piece for piece in table.terrain
                     if piece.gives_cover and touches_scenery(target, piece))
    # Zero Visibility Zones hide, they do not cover: only the terrain is asked here.
    terrain_only = Table(table.width, table.depth, table.terrain) if table.zones else table
    if not covering or not has_line_of_fire(attacker, target, terrain_only):
        return False
    eye = attacker.height
    heights = _target_heights(target)
    return any(blocked_by_terrain(p, q, eye, height, piece)
               for p, q in lines_drawn_by(attacker, target)
               for height in heights for piece in covering)
