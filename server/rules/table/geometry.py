"""Bodies on the table and the plane geometry between them (DIGEST 10.1, 10.4).

Coordinates are inches: x in [0, table width], y in [0, table depth]. Facing is in degrees,
0 pointing to +x and counter-clockwise positive, normalised to [0, 360). Every body stands at
ground level; its volume is the cylinder of its silhouette (see ``silhouettes``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from server.rules.table.shapes import Point as Point  # re-exported: the rules import it from here
from server.rules.table.silhouettes import KNOWN_SIZES
from server.rules.table.silhouettes import silhouette as silhouette_of

# Numerical slack for "exactly on the line" comparisons: far below anything a player measures.
EPSILON = 1e-9

CONTACT_TOLERANCE = 0.05
"""Inches (about 1.3 mm): two things this close, edge to edge, touch. Base contact between
models and Silhouette contact with scenery (Partial Cover) both use it, so a trooper moved
up against a wall (routes allow touching, ``routes.OVERLAP_TOLERANCE``) is in contact."""


@dataclass(frozen=True, slots=True, init=False)
class Body:
    """A model or marker on the table.

    ``silhouette`` is the S value (a marker uses its trooper's S, DIGEST 12).
    ``all_round_vision`` gives a 360-degree LoF arc (camouflage markers, DIGEST 10.1).
    """

    position: Point
    facing: float
    silhouette: int
    all_round_vision: bool = False
    # The cylinder's measures, looked up once: Line of Fire asks for them thousands of
    # times per Order. Derived from ``silhouette``, so left out of init, repr and equality.
    radius: float = field(init=False, repr=False, compare=False)
    """Radius of the base, inches."""
    height: float = field(init=False, repr=False, compare=False)
    """Height of the silhouette cylinder, inches."""

    def __init__(self, position: Point, facing: float, silhouette: int,
                 all_round_vision: bool = False) -> None:
        # Written out rather than generated with a __post_init__: bodies are built dozens
        # of times per command, and this sets each field once (the module is compiled with
        # mypyc: native.py).
        try:
            radius, height = _MEASURES[silhouette]
        except (KeyError, TypeError):
            silhouette_of(silhouette)  # raises ValueError: a size the rules do not define
            raise
        x, y = position
        object.__setattr__(self, "position", (float(x), float(y)))
        angle = float(facing)
        object.__setattr__(self, "facing",
                           angle if 0.0 <= angle < 360.0 else normalise_facing(angle))
        object.__setattr__(self, "silhouette", silhouette)
        object.__setattr__(self, "all_round_vision", all_round_vision)
        object.__setattr__(self, "radius", radius)
        object.__setattr__(self, "height", height)

    def moved_to(self, position: Point) -> Body:
        """The same body standing at ``position`` (facing and silhouette kept)."""
        return Body(position, self.facing, self.silhouette, self.all_round_vision)


_MEASURES: dict[int, tuple[float, float]] = {
    size: (silhouette_of(size).base_diameter / 2.0, silhouette_of(size).height)
    for size in KNOWN_SIZES
}
"""Each defined Silhouette's (base radius, height), as ``Body`` stores them: one lookup per
body. Keyed by the sizes ``silhouette_of`` knows, so a size is taken or refused alike."""


def normalise_facing(degrees: float) -> float:
    """``degrees`` brought into [0, 360)."""
    value = float(degrees)
    if 0.0 <= value < 360.0:
        return value  # what fmod would return, without calling it
    value = math.fmod(value, 360.0)
    if value < 0.0:
        value += 360.0
    return 0.0 if value >= 360.0 else value  # fmod of a tiny negative can round up to 360


def facing_vector(degrees: float) -> Point:
    """Unit vector pointing along a facing."""
    radians = math.radians(degrees)
    return (math.cos(radians), math.sin(radians))


def point_distance(p: Point, q: Point) -> float:
    """Straight-line distance between two points, inches."""
    return math.hypot(q[0] - p[0], q[1] - p[1])


def distance(a: Body, b: Body) -> float:
    """Distance between the closest points of the two bases (DIGEST 10.4).

    Zero when the bases touch or overlap.
    """
    # Radii summed first so that the result is exactly symmetric in a and b.
    return max(0.0, point_distance(a.position, b.position) - (a.radius + b.radius))


def in_base_contact(a: Body, b: Body, tolerance: float = CONTACT_TOLERANCE) -> bool:
    """The bases touch, within ``tolerance`` inches (overlapping bases count as touching)."""
    return distance(a, b) <= tolerance


def front_reach(viewer: Body, target: Body) -> float:
    """How far (inches) the target's base reaches past the viewer's front line.

    The front line passes through the viewer's centre, perpendicular to its facing. Positive
    means some part of the target's base is in the front half-plane.
    """
    fx, fy = facing_vector(viewer.facing)
    dx = target.position[0] - viewer.position[0]
    dy = target.position[1] - viewer.position[1]
    return dx * fx + dy * fy + target.radius


def in_front_arc(viewer: Body, target: Body) -> bool:
    """Some part of the target's base lies in the viewer's 180-degree front arc (DIGEST 10.1).

    The boundary line itself does not count: a base that only touches it shows no area in
    the arc. Always True for a body with all-round vision.
    """
    if viewer.all_round_vision:
        return True
    return front_reach(viewer, target) > EPSILON


def point_to_segment_distance(p: Point, a: Point, b: Point) -> float:
    """Distance from ``p`` to the segment ``a``-``b``."""
    abx, aby = b[0] - a[0], b[1] - a[1]
    length_sq = abx * abx + aby * aby
    if length_sq <= 0.0:
        return point_distance(p, a)
    t = ((p[0] - a[0]) * abx + (p[1] - a[1]) * aby) / length_sq
    t = min(1.0, max(0.0, t))
    return math.hypot(p[0] - (a[0] + t * abx), p[1] - (a[1] + t * aby))
