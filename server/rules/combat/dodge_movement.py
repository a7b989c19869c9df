"""How far a successful Dodge follows its declared route in the Effects step (DIGEST 6.3).

The route is declared with the Dodge and judged then against the table as it stood; the
trooper moves only in the Effects step, the active player's Dodges first, then the reactive
player's (the wiki's "Dodge"). Meanwhile other bases may have come to stand on the route: a
Move the active trooper declared later in the Order, a Dodge moved before this one. The
General Movement Rules still hold, so the Dodge follows its route up to the first point
where its base would press into another base and stops there, touching it
(docs/rules-decisions/resolution.md, "Dodge movement that meets another base"). Terrain and
the table's edges do not move, so what was judged at declaration still holds for them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import pairwise

from ..table.geometry import Body, Point
from ..table.routes import OVERLAP_TOLERANCE


def clear_part_of_route(route: Sequence[Point], mover: Body,
                        others: Sequence[Body]) -> tuple[Point, ...]:
    """The route up to where ``mover``'s base first meets one of ``others`` (the whole route
    when it meets none). A base it only grazes (pressing in no deeper than the routes'
    ``OVERLAP_TOLERANCE``) does not stop it; one it meets stops it touching, not inside."""
    kept: list[Point] = [route[0]]
    for a, b in pairwise(route):
        contacts = [t for other in others
                    if (t := _first_contact(a, b, mover.radius, other)) is not None]
        if contacts:
            stop = min(contacts)
            end = (a[0] + stop * (b[0] - a[0]), a[1] + stop * (b[1] - a[1]))
            if stop > 0.0:
                kept.append(end)
            return tuple(kept)
        kept.append(b)
    return tuple(kept)


def _first_contact(a: Point, b: Point, radius: float, other: Body) -> float | None:
    """Along the segment a→b (t from 0 to 1), the t at which the moving base touches
    ``other``'s, if the move would then press into it beyond the tolerance; else None."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    fx, fy = a[0] - other.position[0], a[1] - other.position[1]
    length2 = dx * dx + dy * dy
    if length2 == 0.0:
        return None
    half_b = fx * dx + fy * dy
    pressing = radius + other.radius - OVERLAP_TOLERANCE
    inside = _entry(length2, half_b, fx * fx + fy * fy - pressing * pressing)
    if inside is None or inside > 1.0:
        return None  # never presses in along this segment
    touching = radius + other.radius
    contact = _entry(length2, half_b, fx * fx + fy * fy - touching * touching)
    return max(0.0, contact if contact is not None else 0.0)


def _entry(a: float, half_b: float, c: float) -> float | None:
    """The first t >= 0 (or the start, 0, when already within) at which a·t² + 2·half_b·t + c
    becomes negative, i.e. the moving centre comes within the distance; None if never."""
    disc = half_b * half_b - a * c
    if disc <= 0.0:
        return None
    root = math.sqrt(disc)
    leave = (-half_b + root) / a
    if leave <= 0.0:
        return None  # the whole time within lies behind the start
    return max(0.0, (-half_b - root) / a)
