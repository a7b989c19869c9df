"""Zero Visibility Zones placed during the game: the circles Smoke and Eclipse Ammunition
leave on the table (wiki "Visibility Conditions", "Zero Visibility Zone", "Smoke Ammunition",
"Eclipse Ammunition").

In our words: a zone is a Circular Template of infinite height; no Line of Fire is drawn
into, out of or through it. A Smoke zone lets a trooper with a Multispectral Visor (any level)
see through it; an Eclipse zone stops every visor. Only the 2D footprint matters: a sight line
is blocked by a zone when its ground projection meets the zone's disc
(docs/rules-decisions/geometry.md, "Smoke and Eclipse zones").
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum

from server.rules.table.shapes import Point

CIRCULAR_TEMPLATE_RADIUS = 1.5
"""Inches: half the Circular Template's 3-inch diameter (geometry.md: uncertain)."""


class ZoneKind(StrEnum):
    SMOKE = "smoke"
    """Multispectral Visors see through it."""
    ECLIPSE = "eclipse"
    """Nothing sees through it."""


@dataclass(frozen=True, slots=True)
class VisibilityZone:
    """A Zero Visibility Zone on the table: a disc of ``radius`` inches around ``centre``,
    placed by the trooper ``placed_by`` (its id: open information, the zone is on the
    table) and removed in the States Phase of the Player Turn it was placed in."""

    kind: ZoneKind
    centre: Point
    radius: float
    placed_by: str


def zones_that_block(zones: tuple[VisibilityZone, ...],
                     through_smoke: bool) -> tuple[VisibilityZone, ...]:
    """The zones that block a viewer's sight lines: every Eclipse zone, and the Smoke zones
    unless the viewer sees through smoke (a Multispectral Visor)."""
    if not through_smoke:
        return zones
    return tuple(zone for zone in zones if zone.kind is ZoneKind.ECLIPSE)


def segment_meets_zone(p: Point, q: Point, zone: VisibilityZone) -> bool:
    """Whether the segment from ``p`` to ``q`` (on the ground) enters the zone's disc; a line
    that only grazes its rim does not."""
    cx, cy = zone.centre
    dx, dy = q[0] - p[0], q[1] - p[1]
    length2 = dx * dx + dy * dy
    t = 0.0 if length2 == 0.0 else max(0.0, min(1.0, ((cx - p[0]) * dx + (cy - p[1]) * dy) / length2))
    nearest = (p[0] + t * dx, p[1] + t * dy)
    return math.hypot(nearest[0] - cx, nearest[1] - cy) < zone.radius


def in_zone(point: Point, zone: VisibilityZone) -> bool:
    return math.hypot(point[0] - zone.centre[0], point[1] - zone.centre[1]) < zone.radius
