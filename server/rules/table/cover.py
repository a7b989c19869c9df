"""Partial Cover from terrain (DIGEST 10.6).

Rule used (docs/rules-decisions/geometry.md): the target is in Partial Cover against an
attacker when

* the attacker has at least one sight line to it that no terrain blocks (otherwise there is
  no LoF at all, and no question of cover), and
* some sight line is blocked by a cover-giving terrain piece whose footprint is within
  ``COVER_REACH`` (1 inch) of the target's base.

Sight lines run from the attacker's eye (top of its silhouette, from the sampled points of
its base) to sampled points of the target at three heights: top, middle and foot, because
cover is about how much of the target is hidden. Models never give cover, so only terrain
counts here.
"""

from __future__ import annotations

from server.rules.table.geometry import Body
from server.rules.table.line_of_fire import (
    MIN_VISIBLE,
    blocked_by_terrain,
    sight_line_ends,
    target_sight_height,
    terrain_between,
)
from server.rules.table.polygons import body_polygon_distance
from server.rules.table.terrain import Table

COVER_REACH = 1.0
"""How close (inches, base edge to footprint) scenery must be to cover a target."""


def _target_heights(target: Body) -> tuple[float, ...]:
    foot = min(MIN_VISIBLE, target.height / 2.0)
    return tuple(sorted({target_sight_height(target), target.height / 2.0, foot}, reverse=True))


def in_partial_cover(target: Body, attacker: Body, table: Table) -> bool:
    """Whether ``target`` has Partial Cover against ``attacker`` (see module docstring).

    Never True when terrain blocks every sampled sight line: then there is no LoF.
    """
    attacker_points, target_points = sight_line_ends(attacker, target)
    pieces = terrain_between(attacker, target, table)
    covering = tuple(
        piece for piece in pieces
        if piece.gives_cover and body_polygon_distance(target, piece.polygon) <= COVER_REACH
    )
    if not covering or not target_points:
        return False
    eye = attacker.height
    some_clear = some_covered = False
    for p in attacker_points:
        for q in target_points:
            for height in _target_heights(target):
                blockers = [
                    piece for piece in pieces if blocked_by_terrain(p, q, eye, height, piece)
                ]
                if not blockers:
                    some_clear = True
                elif any(piece in covering for piece in blockers):
                    some_covered = True
                if some_clear and some_covered:
                    return True
    return False
