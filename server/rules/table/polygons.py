"""The polygon tests that terrain and Line of Fire need: points, segments and discs against a
terrain piece's footprint (a simple polygon, convex or concave, either winding).

Kept apart from the table's data (``terrain``): this module is compiled by mypyc
(``setup.py``) and holds no dataclass that ``plain`` reads back.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence
from functools import lru_cache

from server.rules.table.geometry import EPSILON, Body, point_to_segment_distance
from server.rules.table.shapes import HalfPlanes, Point, Polygon


@lru_cache(maxsize=4096)
def bounding_box(polygon: Polygon) -> tuple[float, float, float, float]:
    """(min x, min y, max x, max y) of a polygon; cached because LoF asks for it often."""
    xs = [x for x, _ in polygon]
    ys = [y for _, y in polygon]
    return (min(xs), min(ys), max(xs), max(ys))


def point_in_polygon(p: Point, polygon: Sequence[Point]) -> bool:
    """Whether ``p`` is inside the polygon (even-odd rule).

    Points exactly on the boundary may go either way; callers that care about touching use
    distances instead.
    """
    x, y = p
    inside = False
    count = len(polygon)
    for i in range(count):
        ax, ay = polygon[i - 1]
        bx, by = polygon[i]
        if (ay > y) != (by > y):
            crossing_x = ax + (y - ay) * (bx - ax) / (by - ay)
            if x < crossing_x:
                inside = not inside
    return inside


_MARGIN = 1e-6
"""Far beyond EPSILON and any rounding error: a point farther than this outside a box is
outside anything the box bounds. Used only to skip work whose answer is already known, so
the answers stay exactly those of the full computation."""

# One polygon edge from vertex i-1 to vertex i: ax, ay, bx, by, bx-ax, by-ay, and its box
# (min x, min y, max x, max y).
_Edge = tuple[float, float, float, float, float, float, float, float, float, float]


@lru_cache(maxsize=4096)
def _edges(polygon: Polygon) -> tuple[_Edge, ...]:
    """The polygon's edges, in the order ``point_in_polygon`` walks them; cached because
    terrain is fixed for a game and Line of Fire walks the same footprints many times."""
    out = []
    for i in range(len(polygon)):
        (ax, ay), (bx, by) = polygon[i - 1], polygon[i]
        out.append((ax, ay, bx, by, bx - ax, by - ay,
                    min(ax, bx), min(ay, by), max(ax, bx), max(ay, by)))
    return tuple(out)


def _on_boundary(p: Point, polygon: Sequence[Point]) -> bool:
    return any(
        point_to_segment_distance(p, polygon[i - 1], polygon[i]) <= EPSILON
        for i in range(len(polygon))
    )


def _inside_strictly(x: float, y: float, edges: tuple[_Edge, ...]) -> bool:
    """``point_in_polygon((x, y)) and not _on_boundary((x, y))`` over precomputed edges,
    with the same arithmetic; an edge whose box is beyond _MARGIN cannot be within
    EPSILON of the point, so its distance is not computed."""
    inside = False
    for ax, ay, _bx, by, ex, ey, _x0, _y0, _x1, _y1 in edges:
        if (ay > y) != (by > y):
            crossing_x = ax + (y - ay) * ex / ey
            if x < crossing_x:
                inside = not inside
    if not inside:
        return False
    p = (x, y)
    for ax, ay, bx, by, _ex, _ey, x0, y0, x1, y1 in edges:
        if x < x0 - _MARGIN or x > x1 + _MARGIN or y < y0 - _MARGIN or y > y1 + _MARGIN:
            continue
        if point_to_segment_distance(p, (ax, ay), (bx, by)) <= EPSILON:
            return False
    return True


@lru_cache(maxsize=4096)
def _half_planes(polygon: Polygon) -> tuple[tuple[float, float, float], ...] | None:
    """A strictly convex footprint as half-planes ``nx*x + ny*y <= c`` with unit normals
    (the inside is where all hold); None for a footprint that is not strictly convex."""
    count = len(polygon)
    turns, turning = [], 0.0
    for i in range(count):
        (ax, ay), (bx, by), (cx, cy) = polygon[i - 2], polygon[i - 1], polygon[i]
        ux, uy, vx, vy = bx - ax, by - ay, cx - bx, cy - by
        turns.append(ux * vy - uy * vx)
        turning += math.atan2(ux * vy - uy * vx, ux * vx + uy * vy)
    if all(turn > _MARGIN for turn in turns):
        sign = 1.0  # counter-clockwise: the inside is on the left of each edge
    elif all(turn < -_MARGIN for turn in turns):
        sign = -1.0
    else:
        return None
    if abs(turning - sign * 2.0 * math.pi) > 1e-6:
        return None  # turns one way but winds more than once: a star, not convex
    planes = []
    for ax, ay, _bx, _by, ex, ey, *_ in _edges(polygon):
        length = math.hypot(ex, ey)
        nx, ny = sign * ey / length, -sign * ex / length  # outward normal
        planes.append((nx, ny, nx * ax + ny * ay))
    return tuple(planes)


def segment_meets_interior(p: Point, q: Point, polygon: Sequence[Point]) -> bool | None:
    """Whether ``inside_pieces(p, q, polygon)`` yields anything, when that is certain
    without cutting the segment: True when some point of it lies deeper than _MARGIN inside
    a strictly convex footprint (the inside piece around it then has its midpoint well
    inside: the distance to the boundary is concave along a chord of a convex polygon);
    False when every point of it lies farther than _MARGIN outside. None otherwise (near
    the boundary, or a footprint that is not convex): ask ``inside_pieces``."""
    planes = _half_planes(tuple(polygon))
    if planes is None:
        return None
    px, py = p
    dx, dy = q[0] - px, q[1] - py
    deep = _clip(px, py, dx, dy, planes, -_MARGIN)
    if deep:
        return True
    if not _clip(px, py, dx, dy, planes, _MARGIN):
        return False
    return None


def _clip(px: float, py: float, dx: float, dy: float,
          planes: tuple[tuple[float, float, float], ...], offset: float) -> bool:
    """Some point of p + t*d, t in [0, 1], satisfies every ``n.x < c + offset`` (Cyrus-Beck)."""
    enter, leave = 0.0, 1.0
    for nx, ny, c in planes:
        room = c + offset - (nx * px + ny * py)
        along = nx * dx + ny * dy
        if along == 0.0:
            if room <= 0.0:
                return False
            continue
        t = room / along
        if along > 0.0:
            if t < leave:
                leave = t
        elif t > enter:
            enter = t
        if enter >= leave:
            return False
    return True


_DEEP = 2.0 * _MARGIN
"""How far inside a footprint the shadow test takes its core: a sight line through the core
passes deeper than _MARGIN inside, which ``segment_meets_interior`` calls certain."""


@lru_cache(maxsize=4096)
def _core(polygon: Polygon) -> tuple[tuple[tuple[float, float, float], ...],
                                     tuple[Point, ...]] | None:
    """A strictly convex footprint shrunk by _DEEP: its half-planes and its corners (the
    meeting points of neighbouring shrunk edges); None if the footprint is not strictly
    convex or too thin to shrink."""
    planes = _half_planes(polygon)
    if planes is None:
        return None
    shrunk = tuple((nx, ny, c - _DEEP) for nx, ny, c in planes)
    corners = []
    for (ax, ay, ac), (bx, by, bc) in zip(shrunk[-1:] + shrunk[:-1], shrunk, strict=True):
        det = ax * by - ay * bx
        if abs(det) <= EPSILON:
            return None
        corners.append(((ac * by - ay * bc) / det, (ax * bc - ac * bx) / det))
    for x, y in corners:
        if any(nx * x + ny * y > c + _MARGIN for nx, ny, c in shrunk):
            return None  # shrinking turned it inside out
    return shrunk, tuple(corners)


def segment_passes_with_room(p: Point, q: Point, room: float,
                             polygon: Sequence[Point]) -> bool:
    """Some point of segment p->q lies deeper than ``room`` + _DEEP inside the footprint:
    then every segment whose every point lies within ``room`` of the point as far along
    p->q also passes deeper than _MARGIN inside, which ``segment_meets_interior`` calls
    certain. Only for strictly convex footprints: False for any other, meaning "not
    known", never "no"."""
    planes = _half_planes(tuple(polygon))
    return planes is not None and passes_with_room(p, q, room, planes)


def convex_half_planes(polygon: Sequence[Point]) -> HalfPlanes | None:
    """A strictly convex footprint's half-planes (None for any other), for callers that
    ask ``passes_with_room`` of one footprint many times."""
    return _half_planes(tuple(polygon))


def passes_with_room(p: Point, q: Point, room: float, planes: HalfPlanes) -> bool:
    """``segment_passes_with_room`` over the footprint's ``convex_half_planes``."""
    px, py = p
    return _clip(px, py, q[0] - px, q[1] - py, planes, -(room + _DEEP))


def shadow_holds_disc(viewer: Point, centre: Point, radius: float,
                      polygon: Sequence[Point]) -> bool:
    """Every segment from ``viewer`` to a point of the disc (``centre``, ``radius``) passes
    deeper than _MARGIN inside the (strictly convex) footprint: the disc lies, with room to
    spare, in the footprint's shadow seen from ``viewer`` -- inside the cone of sight lines
    through the footprint's core and beyond every core edge that faces the viewer (for a
    convex footprint that is exactly the set of points whose sight line crosses the core).
    False means "not certain", never "some segment misses it"."""
    core = _core(tuple(polygon))
    if core is None:
        return False
    planes, corners = core
    vx, vy = viewer
    cx, cy = centre
    need = radius + _MARGIN
    facing = False
    for nx, ny, c in planes:
        if nx * vx + ny * vy > c:
            facing = True
            if c - (nx * cx + ny * cy) < need:
                return False
    if not facing:
        return True  # the viewer stands in the core: every segment from it starts there
    # The two corners bounding the cone, as seen from the viewer (the core is convex and
    # the viewer outside it, so the cone spans less than half a turn).
    rays = [(x - vx, y - vy) for x, y in corners]
    dx, dy = cx - vx, cy - vy
    for side in (1.0, -1.0):
        extreme = cone_extreme(rays, side)
        if extreme is None:
            return False
        rx, ry = extreme
        length = math.hypot(rx, ry)
        if length <= EPSILON or side * (rx * dy - ry * dx) / length < need:
            return False
    return True


def cone_extreme(rays: Sequence[Point], side: float) -> Point | None:
    """The first of ``rays`` with every ray on its left (``side`` 1.0: cross >= 0) or on its
    right (``side`` -1.0: cross <= 0); None if rounding leaves no such ray.

    Equal to ``next((r for r in rays if all(side * cross(r, o) >= 0 for o in rays)), None)``
    in O(k) instead of O(k^2): one pass keeps the most extreme ray so far, one pass checks
    it. If it passes, a ray before it that also passes has cross exactly 0 with it (the
    cross product is exactly antisymmetric in floating point), so only those are checked in
    full; if it fails (rounding broke the order), the plain search decides."""
    index = 0
    bx, by = rays[0]
    for i, (ox, oy) in enumerate(rays):
        if side * (bx * oy - by * ox) < 0.0:
            index, bx, by = i, ox, oy
    if not _all_on_one_side(rays[index], rays, side):
        return next((r for r in rays if _all_on_one_side(r, rays, side)), None)
    for ray in rays[:index]:
        if bx * ray[1] - by * ray[0] == 0.0 and _all_on_one_side(ray, rays, side):
            return ray
    return rays[index]


def _all_on_one_side(ray: Point, rays: Sequence[Point], side: float) -> bool:
    rx, ry = ray
    # all(...) over a generator written out as a loop, a third of its cost for four rays:
    # the shadow test asks this thousands of times per Order.
    for ox, oy in rays:  # noqa: SIM110
        if not side * (rx * oy - ry * ox) >= 0.0:
            return False
    return True


def inside_pieces(p: Point, q: Point, polygon: Sequence[Point]) -> Iterator[tuple[float, float]]:
    """The pieces of segment p->q strictly inside the polygon, in order, as parameter ranges
    in [0, 1], produced lazily (a caller that only needs the first stops early).

    The segment is cut wherever it meets an edge; each piece lies wholly inside or wholly
    outside, which its midpoint decides. Pieces of zero length (grazing a vertex) and pieces
    running along an edge are not inside. Touching pieces are not merged (see
    ``inside_intervals``).
    """
    px, py = p
    qx, qy = q
    x0, y0, x1, y1 = bounding_box(tuple(polygon))
    if (max(px, qx) < x0 - _MARGIN or min(px, qx) > x1 + _MARGIN
            or max(py, qy) < y0 - _MARGIN or min(py, qy) > y1 + _MARGIN):
        return  # wholly outside the footprint's box: no crossing, no midpoint inside
    edges = _edges(tuple(polygon))
    dx, dy = qx - px, qy - py
    cuts = [0.0, 1.0]
    for ax, ay, _bx, _by, ex, ey, _x0, _y0, _x1, _y1 in edges:
        denom = dx * ey - dy * ex
        apx, apy = ax - px, ay - py
        if abs(denom) <= EPSILON:
            continue  # parallel: a collinear edge is only touched, never crossed
        t = (apx * ey - apy * ex) / denom
        u = (apx * dy - apy * dx) / denom
        if 0.0 <= t <= 1.0 and -EPSILON <= u <= 1.0 + EPSILON:
            cuts.append(t)
    cuts.sort()
    for t0, t1 in itertools.pairwise(cuts):
        if t1 - t0 <= EPSILON:
            continue
        mid = (t0 + t1) / 2.0
        if _inside_strictly(px + mid * dx, py + mid * dy, edges):
            yield t0, t1


def inside_intervals(p: Point, q: Point, polygon: Sequence[Point]) -> list[tuple[float, float]]:
    """The parts of segment p->q strictly inside the polygon, as parameter ranges in [0, 1]:
    the ``inside_pieces``, with pieces that touch (within EPSILON) merged into one."""
    intervals: list[tuple[float, float]] = []
    for t0, t1 in inside_pieces(p, q, polygon):
        if intervals and abs(intervals[-1][1] - t0) <= EPSILON:
            intervals[-1] = (intervals[-1][0], t1)
        else:
            intervals.append((t0, t1))
    return intervals


def segment_crosses_polygon(p: Point, q: Point, polygon: Sequence[Point]) -> bool:
    """Some stretch of the segment p->q (of non-zero length) lies inside the polygon.

    A segment that only grazes a vertex or runs along an edge does not cross it.
    """
    if p == q:
        return point_in_polygon(p, polygon)
    return bool(inside_intervals(p, q, tuple(polygon)))


def _segments_intersect(p: Point, q: Point, a: Point, b: Point) -> bool:
    def orient(o: Point, s: Point, t: Point) -> float:
        return (s[0] - o[0]) * (t[1] - o[1]) - (s[1] - o[1]) * (t[0] - o[0])

    d1, d2 = orient(a, b, p), orient(a, b, q)
    d3, d4 = orient(p, q, a), orient(p, q, b)
    return ((d1 > 0) != (d2 > 0)) and ((d3 > 0) != (d4 > 0))


def segment_polygon_distance(p: Point, q: Point, polygon: Sequence[Point]) -> float:
    """Shortest distance between the segment p->q and the polygon's area (0 if they meet)."""
    if point_in_polygon(p, polygon) or point_in_polygon(q, polygon):
        return 0.0
    best = math.inf
    count = len(polygon)
    for i in range(count):
        a, b = polygon[i - 1], polygon[i]
        if _segments_intersect(p, q, a, b):
            return 0.0
        best = min(
            best,
            point_to_segment_distance(p, a, b),
            point_to_segment_distance(q, a, b),
            point_to_segment_distance(a, p, q),
            point_to_segment_distance(b, p, q),
        )
    return best


def body_polygon_distance(body: Body, polygon: Sequence[Point]) -> float:
    """Gap between a body's base and a polygon's area (0 if they touch or overlap)."""
    centre = body.position
    return max(0.0, segment_polygon_distance(centre, centre, polygon) - body.radius)
