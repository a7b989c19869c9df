"""Line of Fire between two bodies on a 2.5D table (DIGEST 10.1).

A sight line joins a point of the viewer's cylinder to a point of the target's cylinder.
LoF exists when the target is in the viewer's front arc and at least one sampled sight line
is unobstructed. Sampling (documented in docs/rules-decisions/geometry.md):

* plan view: the centre and rim points of each base, oriented on the line between the
  centres; the viewer's points are limited to the front half of its base and the target's to
  the part inside the viewer's front arc (the line must leave from, and land in, the arc);
* heights: nothing overhangs on this table, so a higher end point never makes a line more
  obstructed. The LoF test therefore only needs the top of the viewer and the highest point
  of the target that still shows the ~3 mm the rules ask for. Cover (``cover.py``) samples
  several target heights because it asks how much of the target is hidden.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Iterator, Sequence

from server.rules.table.geometry import EPSILON, Body, Point, facing_vector, in_front_arc
from server.rules.table.polygons import (
    bounding_box,
    convex_half_planes,
    inside_pieces,
    passes_with_room,
    segment_meets_interior,
    segment_passes_with_room,
    shadow_holds_disc,
)
from server.rules.table.routes import route_samples
from server.rules.table.shapes import HalfPlanes
from server.rules.table.terrain import Table, TerrainPiece

MIN_VISIBLE = 3.0 / 25.4
"""The smallest part of a target that counts as seen: about 3 mm (DIGEST 10.1)."""

_SQRT_HALF = math.sqrt(0.5)
# Rim directions as (along, across) the centre-to-centre line, most useful first.
_VIEWER_RIM = ((1.0, 0.0), (0.0, 1.0), (0.0, -1.0), (_SQRT_HALF, _SQRT_HALF),
               (_SQRT_HALF, -_SQRT_HALF))
_TARGET_RIM = ((-1.0, 0.0), (0.0, 1.0), (0.0, -1.0), (-_SQRT_HALF, _SQRT_HALF),
               (-_SQRT_HALF, -_SQRT_HALF), (_SQRT_HALF, _SQRT_HALF),
               (_SQRT_HALF, -_SQRT_HALF), (1.0, 0.0))

Box = tuple[float, float, float, float]
_BROAD_MARGIN = 0.01
"""Inches added to the reach of the sight lines in the broad phase, far above rounding: a
piece kept for nothing costs one exact test, a piece wrongly left out a wrong answer."""
_TALL_MARGIN = 1e-6
"""A piece this much taller than both ends of a sight line is taller than every point of
it, rounding included."""


def target_sight_height(target: Body) -> float:
    """The highest point of the target a sight line may aim at and still see ~3 mm of it."""
    return target.height - min(MIN_VISIBLE, target.height / 2.0)


def sight_line_ends(viewer: Body, target: Body) -> tuple[tuple[Point, ...], tuple[Point, ...]]:
    """Plan-view end points of the sampled sight lines: (viewer points, target points).

    Empty target points mean the target is outside the viewer's front arc.
    """
    (vx, vy), (tx, ty) = viewer.position, target.position
    dx, dy = tx - vx, ty - vy
    length = math.hypot(dx, dy)
    fx, fy = facing_vector(viewer.facing)
    ux, uy = (dx / length, dy / length) if length > EPSILON else (fx, fy)
    nx, ny = -uy, ux
    all_round = viewer.all_round_vision

    def in_front(x: float, y: float, strict: bool) -> bool:
        reach = (x - vx) * fx + (y - vy) * fy
        return reach > EPSILON if strict else reach >= -EPSILON

    rv, rt = viewer.radius, target.radius
    viewer_points = [(vx, vy)]
    for along, across in _VIEWER_RIM:
        x = vx + rv * (along * ux + across * nx)
        y = vy + rv * (along * uy + across * ny)
        if all_round or in_front(x, y, strict=False):
            viewer_points.append((x, y))
    if not in_front_arc(viewer, target):
        return tuple(viewer_points), ()
    candidates = [(tx, ty)]
    candidates += [
        (tx + rt * (along * ux + across * nx), ty + rt * (along * uy + across * ny))
        for along, across in _TARGET_RIM
    ]
    target_points = [(x, y) for x, y in candidates if all_round or in_front(x, y, strict=True)]
    if not all_round:
        # The target's point deepest into the arc, kept without re-testing so that a target
        # in the arc always has a sampled point there.
        target_points.append((tx + rt * fx, ty + rt * fy))
    return tuple(viewer_points), tuple(target_points)


def _box_of_discs(a: Body, b: Body) -> Box:
    (ax, ay), (bx, by) = a.position, b.position
    ra, rb = a.radius, b.radius
    return (min(ax - ra, bx - rb), min(ay - ra, by - rb),
            max(ax + ra, bx + rb), max(ay + ra, by + rb))


def _boxes_overlap(a: Box, b: Box) -> bool:
    return a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]


def _box_near_segment(box: Box, p: Point, q: Point, room: float) -> bool:
    """The segment p-q meets ``box`` grown by ``room`` on every side (a slab clip).

    The broad phase of ``has_line_of_fire``: every sampled sight line stays within the larger
    of the two radii of the line between the centres (see ``_hidden_along_centres``), so a
    piece whose box, grown by that much, the line between the centres misses is met by no
    sight line and can change no answer. On a dense table most pieces in the box of the two
    bases are far from the line between them (a diagonal pair's box covers a quarter of the
    table)."""
    t0, t1 = 0.0, 1.0
    px, py = p
    dx, dy = q[0] - px, q[1] - py
    lo, hi = box[0] - room, box[2] + room
    if dx == 0.0:
        if px < lo or px > hi:
            return False
    else:
        a, b = (lo - px) / dx, (hi - px) / dx
        if a > b:
            a, b = b, a
        t0, t1 = max(t0, a), min(t1, b)
        if t0 > t1:
            return False
    lo, hi = box[1] - room, box[3] + room
    if dy == 0.0:
        return lo <= py <= hi
    a, b = (lo - py) / dy, (hi - py) / dy
    if a > b:
        a, b = b, a
    return max(t0, a) <= min(t1, b)


_PIECE_BOXES: dict[int, tuple[tuple[TerrainPiece, ...], tuple[Box, ...]]] = {}
_PIECE_BOXES_LIMIT = 1024
"""Terrain tuples whose boxes are kept (about 3 kB each on a 30-piece table); when full, all
are dropped and made again when next asked for (a few µs per table)."""


def piece_boxes(terrain: tuple[TerrainPiece, ...]) -> tuple[Box, ...]:
    """The bounding box of each piece, made once per terrain tuple. A table's tuple lives as
    long as its room's states (each state carries it over), and asking ``bounding_box`` for
    every piece of every Line of Fire test cost more than the rest of the test on a dense
    table (its cache hashes the polygon on each call). Keyed by identity: the entry keeps the
    tuple alive, so its id cannot name another tuple while the entry is here."""
    known = _PIECE_BOXES.get(id(terrain))
    if known is not None and known[0] is terrain:
        return known[1]
    if len(_PIECE_BOXES) >= _PIECE_BOXES_LIMIT:
        _PIECE_BOXES.clear()
    boxes = tuple(bounding_box(piece.polygon) for piece in terrain)
    _PIECE_BOXES[id(terrain)] = (terrain, boxes)
    return boxes


def terrain_between(viewer: Body, target: Body, table: Table) -> tuple[TerrainPiece, ...]:
    """Terrain pieces that could stand between the two bodies (bounding-box filter)."""
    box = _box_of_discs(viewer, target)
    return tuple(piece for piece, piece_box in zip(table.terrain, piece_boxes(table.terrain),
                                                   strict=True)
                 if _boxes_overlap(box, piece_box))


def blocked_by_terrain(
    p: Point, q: Point, height_p: float, height_q: float, piece: TerrainPiece
) -> bool:
    """The sight line passes over the piece's footprint at or below the piece's height.

    The line's height is linear along it, so its lowest point over each stretch inside the
    footprint is at one end of that stretch. (Checking each piece of a stretch rather than
    the merged stretch gives the same answer: the lowest end of the pieces is the lowest end
    of the stretch; it lets the test stop at the first blocking piece.)
    """
    if _below_line(piece, height_p, height_q):
        return False
    if piece.height >= max(height_p, height_q) + _TALL_MARGIN:
        # Taller than the whole line: it blocks wherever the line gets inside at all.
        meets = segment_meets_interior(p, q, piece.polygon)
        if meets is not None:
            return meets
    rise = height_q - height_p
    for t0, t1 in inside_pieces(p, q, piece.polygon):
        if min(height_p + t0 * rise, height_p + t1 * rise) <= piece.height + EPSILON:
            return True
    return False


def _below_line(piece: TerrainPiece, height_p: float, height_q: float) -> bool:
    """The piece is lower than every point of the sight line by more than EPSILON: no
    stretch of the line over it is low enough to be blocked. (A height along the line,
    ``height_p + t * rise`` with t in [0, 1], is at least the lower end's, rounding aside;
    _TALL_MARGIN covers the rounding.)"""
    return piece.height + EPSILON + _TALL_MARGIN <= min(height_p, height_q)


def blocked_by_body(p: Point, q: Point, height_p: float, height_q: float, body: Body) -> bool:
    """The sight line passes through the body's cylinder below its top."""
    dx, dy = q[0] - p[0], q[1] - p[1]
    cx, cy = p[0] - body.position[0], p[1] - body.position[1]
    a = dx * dx + dy * dy
    if a <= EPSILON:
        return False
    b = 2.0 * (cx * dx + cy * dy)
    c = cx * cx + cy * cy - body.radius * body.radius
    disc = b * b - 4.0 * a * c
    if disc <= 0.0:
        return False
    root = math.sqrt(disc)
    t0 = max(0.0, (-b - root) / (2.0 * a))
    t1 = min(1.0, (-b + root) / (2.0 * a))
    if t1 - t0 <= EPSILON:
        return False
    rise = height_q - height_p
    return min(height_p + t0 * rise, height_p + t1 * rise) < body.height - EPSILON


def _line_clear(
    p: Point, q: Point, hp: float, hq: float,
    pieces: Iterable[TerrainPiece], bodies: Iterable[Body],
) -> bool:
    return not any(blocked_by_terrain(p, q, hp, hq, piece) for piece in pieces) and not any(
        blocked_by_body(p, q, hp, hq, body) for body in bodies
    )


def _hides(piece: TerrainPiece, viewer_points: Sequence[Point], target: Body,
           height_v: float, height_t: float) -> bool:
    """A convex piece taller than every sight line that every sight line passes through:
    each ``blocked_by_terrain`` would say so (every target point lies on the target's base
    disc, inside the piece's shadow from each viewer point), so no line is clear."""
    if piece.height < max(height_v, height_t) + _TALL_MARGIN:
        return False
    return all(shadow_holds_disc(p, target.position, target.radius, piece.polygon)
               for p in viewer_points)


def _hidden_along_centres(viewer: Body, target: Body, piece: TerrainPiece) -> bool:
    """A convex piece taller than every sight line, crossed by the line between the two
    centres with room for the larger radius: each sampled sight line then passes deep
    inside it too, so ``blocked_by_terrain`` says every line is blocked. (The point a
    fraction s along a sight line from p to q lies within (1 - s)|p - viewer| +
    s|q - target| <= the larger radius of the point s along the line between the centres:
    every sampled end lies on its base's rim or at its centre.) One clip, where ``_hides``
    takes a shadow test per viewer point; it decides most hidden targets alone."""
    room = max(viewer.radius, target.radius)
    return segment_passes_with_room(viewer.position, target.position, room, piece.polygon)


def has_line_of_fire(
    viewer: Body, target: Body, table: Table, blockers: Sequence[Body] = ()
) -> bool:
    """Whether ``viewer`` has LoF to ``target`` (DIGEST 10.1).

    Requires the target in the viewer's front arc (unless all-round vision) and one sampled
    sight line clear of terrain and of the bodies in ``blockers``. The caller decides which
    bodies block (markers and the moving trooper do not); the viewer and target themselves
    are ignored if present.
    """
    (vx, vy), (tx, ty) = viewer.position, target.position
    fx, fy = facing_vector(viewer.facing)
    centre_in_arc = (tx - vx) * fx + (ty - vy) * fy  # as ``sight_line_ends`` computes it
    all_round = viewer.all_round_vision
    if not all_round and centre_in_arc + target.radius <= EPSILON:
        return False  # ``in_front_arc`` is False: ``front_reach`` computed alike
    box = _box_of_discs(viewer, target)
    hv, ht = viewer.height, target_sight_height(target)
    # Pieces lower than both ends block no sight line (``blocked_by_terrain`` says so), hide
    # nothing and are not tall: left out once rather than for each line. So are pieces no
    # sight line comes near (``_box_near_segment``; the margin only keeps a few more).
    room = max(viewer.radius, target.radius) + _BROAD_MARGIN
    pieces = [piece for piece, piece_box in zip(table.terrain, piece_boxes(table.terrain),
                                                strict=True)
              if _boxes_overlap(box, piece_box) and not _below_line(piece, hv, ht)
              and _box_near_segment(piece_box, viewer.position, target.position, room)]
    tall = max(hv, ht) + _TALL_MARGIN
    if any(piece.height >= tall and _hidden_along_centres(viewer, target, piece)
           for piece in pieces):
        return False
    # The first sampled line, usually between the centres (the target's centre is its
    # first point when it lies strictly in the arc), tried before sampling the others.
    ends = None
    if all_round or centre_in_arc > EPSILON:
        p, q = viewer.position, target.position
    else:
        ends = sight_line_ends(viewer, target)
        p, q = ends[0][0], ends[1][0]
    # Only a piece that blocks the first line may hide the target (``_hides`` holds only
    # if the piece blocks every line): with none, a target in plain sight takes one line.
    across = [piece for piece in pieces if blocked_by_terrain(p, q, hv, ht, piece)]
    bodies = _bodies_between(viewer, target, box, blockers) if not across else None
    if bodies is not None and not any(blocked_by_body(p, q, hv, ht, b) for b in bodies):
        return True
    viewer_points, target_points = ends or sight_line_ends(viewer, target)
    if any(_hides(piece, viewer_points, target, hv, ht) for piece in across):
        return False
    if bodies is None:
        bodies = _bodies_between(viewer, target, box, blockers)
    lines = itertools.islice(((p, q) for p in viewer_points for q in target_points), 1, None)
    return any(_line_clear(p, q, hv, ht, pieces, bodies) for p, q in lines)


def _bodies_between(viewer: Body, target: Body, box: Box,
                    blockers: Sequence[Body]) -> tuple[Body, ...]:
    """The blockers whose base meets ``box``, but the viewer and the target."""
    x0, y0, x1, y1 = box
    return tuple(  # _boxes_overlap(box, _box_of_discs(b, b)) written out, then equality
        b for b in blockers
        if (x0 <= b.position[0] + b.radius and b.position[0] - b.radius <= x1
            and y0 <= b.position[1] + b.radius and b.position[1] - b.radius <= y1)
        and (b.position != viewer.position or b != viewer)
        and (b.position != target.position or b != target)
    )  # the cheap tests first: most blockers are far away, and bodies apart are unequal


class RouteSight:
    """One mover's route, prepared once for every viewer that asks whether it sees the mover
    at some point of it (an ARO window asks for each reactive trooper): the sampled points,
    the route's box and the strictly convex terrain pieces. The bodies that may block a
    sight line come from ``blockers``, called the first time a sight line is needed (most
    viewers are decided without one); the viewer among them is ignored (see
    ``has_line_of_fire``).

    For each viewer, points where it surely has no LoF to the mover are told without
    building the mover's body or any sight line: outside the viewer's front arc (the same
    arithmetic as ``in_front_arc``), or hidden along the centres by a convex piece taller
    than every sight line (``_hidden_along_centres``). Everything else goes to
    ``has_line_of_fire``, so the answers are exactly those of asking it at every sampled
    point.
    """

    __slots__ = (
        "_blockers",
        "_blocking",
        "box",
        "convex",
        "mover",
        "points",
        "sight_height",
        "table",
    )

    def __init__(self, mover: Body, route: Sequence[Point], table: Table,
                 blockers: Callable[[], Sequence[Body]] = tuple, step: float = 0.25) -> None:
        self.mover = mover
        self.table = table
        self._blockers = blockers
        self._blocking: Sequence[Body] | None = None
        self.points = tuple(route_samples(route, step))
        self.sight_height = target_sight_height(mover)
        xs = [x for x, _ in route]
        ys = [y for _, y in route]
        self.box = (min(xs), min(ys), max(xs), max(ys)) if route else None
        pieces = ((piece.height, bounding_box(piece.polygon),
                   convex_half_planes(piece.polygon)) for piece in table.terrain)
        self.convex: tuple[tuple[float, Box, HalfPlanes], ...] = tuple(
            (height, box, planes) for height, box, planes in pieces if planes is not None)

    def blockers(self) -> Sequence[Body]:
        """The bodies that may block a sight line, asked for once."""
        if self._blocking is None:
            self._blocking = self._blockers()
        return self._blocking

    def _in_arc(self, viewer: Body) -> Sequence[Point]:
        """The sampled points where the mover's base is in the viewer's front arc (all of
        them for all-round vision): ``in_front_arc`` with ``front_reach`` computed alike."""
        if viewer.all_round_vision:
            return self.points
        vx, vy = viewer.position
        fx, fy = facing_vector(viewer.facing)
        reach = self.mover.radius
        return [p for p in self.points if (p[0] - vx) * fx + (p[1] - vy) * fy + reach > EPSILON]

    def _walls(self, viewer: Body, room: float) -> list[HalfPlanes]:
        """Convex pieces taller than every sight line that can meet the line between the
        viewer's centre and a point of the route (it stays in the box of the viewer's and
        the route's discs): only these can hide a point along the centres."""
        tall = max(viewer.height, self.sight_height) + _TALL_MARGIN
        assert self.box is not None
        vx, vy = viewer.position
        x0, y0, x1, y1 = self.box
        box = (min(x0, vx) - room, min(y0, vy) - room, max(x1, vx) + room, max(y1, vy) + room)
        return [planes for height, piece_box, planes in self.convex
                if height >= tall and _boxes_overlap(box, piece_box)]

    def points_in_lof(self, viewer: Body) -> Iterator[Point]:
        """The sampled points, in route order, where the viewer has LoF to the mover standing
        there; lazily, so that a caller asking for any stops at the first."""
        candidates = self._in_arc(viewer)
        if not candidates:
            return
        room = max(viewer.radius, self.mover.radius)
        walls = self._walls(viewer, room)
        position = viewer.position
        for point in candidates:
            if walls and any(passes_with_room(position, point, room, w) for w in walls):
                continue
            if has_line_of_fire(viewer, self.mover.moved_to(point), self.table,
                                self.blockers()):
                yield point

    def seen_by(self, viewer: Body) -> bool:
        """The viewer has LoF to the mover at some sampled point of the route."""
        return next(self.points_in_lof(viewer), None) is not None


def points_of_route_in_lof(
    viewer: Body, mover: Body, route: Sequence[Point], table: Table,
    blockers: Sequence[Body] = (), step: float = 0.25,
) -> tuple[Point, ...]:
    """The sampled points of ``route`` where the viewer has LoF to the mover standing there.

    Samples every ``step`` inches and at every vertex (see ``routes.route_samples``).
    """
    sight = RouteSight(mover, route, table, lambda: blockers, step)
    return tuple(sight.points_in_lof(viewer))


def sees_any_point_of_route(
    viewer: Body, mover: Body, route: Sequence[Point], table: Table,
    blockers: Sequence[Body] = (), step: float = 0.25,
) -> bool:
    """The viewer has LoF to the mover at some sampled point of its route (DIGEST 9 Move).
    For many viewers of one route, build one ``RouteSight`` and ask its ``seen_by``."""
    return RouteSight(mover, route, table, lambda: blockers, step).seen_by(viewer)
