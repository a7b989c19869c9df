"""Zone of Control: 8 inches around a silhouette's edge (DIGEST 10.3).

Everything stands at ground level in this slice, so the vertical extent of the ZoC cylinder
(8 inches above and below the silhouette) never matters and only plan distances are used.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from server.rules.geometry import Body, Point, distance, point_to_segment_distance

ZONE_OF_CONTROL = 8.0
"""Radius of the Zone of Control, inches from the edge of the owner's base."""


def in_zone_of_control(owner: Body, other: Body) -> bool:
    """``other``'s base is within 8 inches of ``owner``'s base (edge to edge, inclusive)."""
    return distance(owner, other) <= ZONE_OF_CONTROL


def route_enters_zone_of_control(owner: Body, mover: Body, route: Sequence[Point]) -> bool:
    """At some point of the route (exact, not sampled) the mover's base is within the ZoC."""
    if not route:
        return False
    reach = ZONE_OF_CONTROL + owner.radius + mover.radius
    centre = owner.position
    if len(route) == 1:
        return point_to_segment_distance(centre, route[0], route[0]) <= reach
    return any(
        point_to_segment_distance(centre, a, b) <= reach
        for a, b in itertools.pairwise(route)
    )
