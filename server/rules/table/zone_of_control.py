"""Zone of Control: 8 inches around a silhouette's edge (DIGEST 10.3).

Everything stands at ground level in this slice, so the vertical extent of the ZoC cylinder
(8 inches above and below the silhouette) never matters and only plan distances are used.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from server.rules.table.geometry import Body, Point, distance, point_to_segment_distance

ZONE_OF_CONTROL = 8.0
"""Radius of the Zone of Control, inches from the edge of the owner's base."""

_FAR_MARGIN = 1e-6
"""Far beyond the rounding of a distance on the table: a centre farther than a reach plus
this from a route's box (along x or y) is farther than the reach from every point of it."""


def in_zone_of_control(owner: Body, other: Body) -> bool:
    """``other``'s base is within 8 inches of ``owner``'s base (edge to edge, inclusive)."""
    return distance(owner, other) <= ZONE_OF_CONTROL


class RouteInZones:
    """One mover's route, prepared once for asking many owners whether it enters their
    Zone of Control (an ARO window asks for each reactive trooper). An owner far from the
    route's box along x or y is told by that alone; any other is measured segment by
    segment, exactly as ``route_enters_zone_of_control`` does."""

    __slots__ = ("box", "mover_radius", "segments")

    def __init__(self, mover: Body, route: Sequence[Point]) -> None:
        self.mover_radius = mover.radius
        if len(route) == 1:
            self.segments: tuple[tuple[Point, Point], ...] = ((route[0], route[0]),)
        else:
            self.segments = tuple(itertools.pairwise(route))
        xs = [x for x, _ in route]
        ys = [y for _, y in route]
        self.box = (min(xs), min(ys), max(xs), max(ys)) if route else None

    def entered_by(self, owner: Body) -> bool:
        """At some point of the route (exact, not sampled) the mover's base is within the
        owner's ZoC."""
        if self.box is None:
            return False
        reach = ZONE_OF_CONTROL + owner.radius + self.mover_radius
        x, y = centre = owner.position
        x0, y0, x1, y1 = self.box
        far = reach + _FAR_MARGIN
        if x0 - x > far or x - x1 > far or y0 - y > far or y - y1 > far:
            # Every point of a segment lies in the box (to rounding far below the
            # margin), and a distance is at least its x or y difference.
            return False
        return any(point_to_segment_distance(centre, a, b) <= reach for a, b in self.segments)


def route_enters_zone_of_control(owner: Body, mover: Body, route: Sequence[Point]) -> bool:
    """At some point of the route (exact, not sampled) the mover's base is within the ZoC.
    For many owners of one route, build one ``RouteInZones`` and ask its ``entered_by``."""
    return RouteInZones(mover, route).entered_by(owner)
