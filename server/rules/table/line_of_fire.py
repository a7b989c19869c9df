"""Line of Fire between two bodies on a 2.5D table (DIGEST 10.1).

A sight line joins a point of one body's cylinder to a point of the other's. LoF exists when
the target is in the viewer's front arc and one of the pair's sampled sight lines is
unobstructed. Sampling (documented in docs/rules-decisions/geometry.md):

* plan view: the centre of each base, the five rim points of the half facing the other body
  (oriented on the line between the centres) and each base's point deepest into the other's
  front arc: the same points whichever body looks;
* a body that has the other in its front arc (or all-round vision) draws the lines that
  leave from the front half of its own base and land on the part of the other inside its
  arc (the N3 FAQ), from its top to the other's highest point that still shows the ~3 mm
  the rules ask for (``sight_height``). Nothing overhangs on this table, so a higher end
  point never makes a line more obstructed: these heights dominate every lower pair;
* reciprocity (DIGEST 10.1): the pair's lines are those either body draws, so when each has
  the other in its arc, A sees B exactly when B sees A -- a line one of them could draw,
  the other may fire back along. Every obstruction test takes the pair in one fixed order
  (``in_pair_order``), so even the rounding is the same both ways; only the front-arc test
  knows which body is the viewer. Cover (``cover.py``) samples several target heights
  because it asks how much of the target is hidden.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence

from server.rules.table.geometry import EPSILON, Body, Point, facing_vector
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
_RIM = ((1.0, 0.0), (0.0, 1.0), (0.0, -1.0), (_SQRT_HALF, _SQRT_HALF), (_SQRT_HALF, -_SQRT_HALF))
"""Rim points sampled on each base, as (along, across) the line from its centre towards the
other body's, the most useful first: the half of the rim facing the other body (a line from
the far half crosses the near half of the same base, which never blocks it, so the near
half's points see what it would)."""

Box = tuple[float, float, float, float]
Line = tuple[Point, Point]
Ends = tuple[tuple[float, float], ...]
"""One or two (height at the first body, height at the second) pairs."""
Sight = tuple[Point, Point, Ends]
"""A sampled sight line: its plan ends, and the height of each end as each body that draws
it draws it (one or two pairs)."""
_BROAD_MARGIN = 0.01
"""Inches added to the reach of the sight lines in the broad phase, far above rounding: a
piece kept for nothing costs one exact test, a piece wrongly left out a wrong answer."""
_TALL_MARGIN = 1e-6
"""A piece this much taller than both ends of a sight line is taller than every point of
it, rounding included."""


def sight_height(body: Body) -> float:
    """The highest point of a body a sight line may aim at and still see ~3 mm of it (half
    the height for a body lower than 6 mm)."""
    return body.height - min(MIN_VISIBLE, body.height / 2.0)


def in_pair_order(a: Body, b: Body) -> tuple[Body, Body]:
    """The two bodies in the order every obstruction test takes them, whichever looks: by
    position, then facing, Silhouette and vision (equal bodies in either order are one)."""
    (ax, ay), (bx, by) = a.position, b.position
    if ax != bx:
        return (a, b) if ax < bx else (b, a)
    if ay != by:
        return (a, b) if ay < by else (b, a)
    if a.facing != b.facing:
        return (a, b) if a.facing < b.facing else (b, a)
    if a.silhouette != b.silhouette:
        return (a, b) if a.silhouette < b.silhouette else (b, a)
    return (a, b) if b.all_round_vision or not a.all_round_vision else (b, a)


def _reach(origin: Point, facing: Point, point: Point) -> float:
    """How far ``point`` lies in front of the line through ``origin`` across the unit vector
    ``facing`` (negative behind it)."""
    return (point[0] - origin[0]) * facing[0] + (point[1] - origin[1]) * facing[1]


def _looks(viewer: Body, facing: Point, target: Body) -> bool:
    """``in_front_arc`` with ``front_reach`` computed alike, the viewer's facing vector
    given: some part of the target's base lies strictly in the viewer's front arc (always,
    with all-round vision)."""
    return (viewer.all_round_vision
            or _reach(viewer.position, facing, target.position) + target.radius > EPSILON)


def _sample_points(a: Body, b: Body, fa: Point, fb: Point
                   ) -> tuple[tuple[Point, ...], tuple[Point, ...]]:
    """The sampled plan points of each base, (a's, b's): each centre, the rim points of
    ``_RIM`` (a's oriented towards b, b's towards a) and (unless the other has all-round
    vision) the rim point deepest into the other's front arc, last. Swapping a and b gives
    the same points, bit for bit (the directions are negated exactly)."""
    (ax, ay), (bx, by) = a.position, b.position
    dx, dy = bx - ax, by - ay
    length = math.hypot(dx, dy)
    ux, uy = (dx / length, dy / length) if length > EPSILON else (1.0, 0.0)
    nx, ny = -uy, ux
    ra, rb = a.radius, b.radius
    a_points = [(ax, ay)] + [(ax + ra * (along * ux + across * nx),
                              ay + ra * (along * uy + across * ny)) for along, across in _RIM]
    b_points = [(bx, by)] + [(bx - rb * (along * ux + across * nx),
                              by - rb * (along * uy + across * ny)) for along, across in _RIM]
    if not b.all_round_vision:
        a_points.append((ax + ra * fb[0], ay + ra * fb[1]))
    if not a.all_round_vision:
        b_points.append((bx + rb * fa[0], by + rb * fa[1]))
    return tuple(a_points), tuple(b_points)


def _drawable(viewer: Body, facing: Point, own: Sequence[Point], other: Sequence[Point]
              ) -> tuple[list[bool], list[bool]]:
    """Which of the viewer's points a line may leave from (the front half of its base, its
    edge included) and which of the other's points it may land on (strictly inside the
    arc; the other's last point, the one deepest into the arc, always: it is in the arc
    whenever any of the base is, and is kept without re-testing so that it stays so)."""
    if viewer.all_round_vision:
        return [True] * len(own), [True] * len(other)
    origin = viewer.position
    leave = [_reach(origin, facing, p) >= -EPSILON for p in own]
    land = [_reach(origin, facing, q) > EPSILON for q in other]
    land[-1] = True
    return leave, land


def lines_drawn_by(viewer: Body, target: Body) -> list[Line]:
    """The sampled plan lines the viewer itself draws to the target, as (point of the
    viewer, point of the target), the line between the centres first when it is one: none
    if the target is outside its front arc (see the module docstring). Cover asks these."""
    fv, ft = facing_vector(viewer.facing), facing_vector(target.facing)
    if not _looks(viewer, fv, target):
        return []
    own, other = _sample_points(viewer, target, fv, ft)
    leave, land = _drawable(viewer, fv, own, other)
    return [(p, q) for i, p in enumerate(own) if leave[i]
            for j, q in enumerate(other) if land[j]]


def sight_lines(a: Body, b: Body) -> list[Sight]:
    """The pair's sampled sight lines, as (point of a, point of b, ends): ``ends`` holds the
    (height at a, height at b) of each body that draws the line -- a from its top to b's
    ``sight_height`` if b is in a's arc, b the other way if a is in b's -- so a plan line
    both draw is sampled at both pairs of heights and measured against the terrain once.
    The same lines, reversed, for (b, a): Line of Fire asks them in ``in_pair_order``."""
    fa, fb = facing_vector(a.facing), facing_vector(b.facing)
    return _sight_lines(a, b, fa, fb, _looks(a, fa, b), _looks(b, fb, a))


def _sight_lines(a: Body, b: Body, fa: Point, fb: Point, a_looks: bool, b_looks: bool
                 ) -> list[Sight]:
    """``sight_lines`` with the facing vectors and who looks at whom given."""
    a_points, b_points = _sample_points(a, b, fa, fb)
    none_a, none_b = [False] * len(a_points), [False] * len(b_points)
    # a drawing: leaves from a's points, lands on b's; b drawing: the other way round.
    a_leaves, a_lands = _drawable(a, fa, a_points, b_points) if a_looks else (none_a, none_b)
    b_leaves, b_lands = _drawable(b, fb, b_points, a_points) if b_looks else (none_b, none_a)
    by_a = ((a.height, sight_height(b)),)
    by_b = ((sight_height(a), b.height),)
    by_both = by_a + by_b
    lines: list[Sight] = []
    for i, p in enumerate(a_points):
        for j, q in enumerate(b_points):
            a_draws = a_leaves[i] and a_lands[j]
            if a_draws or (b_lands[i] and b_leaves[j]):
                lines.append((p, q, (by_both if b_lands[i] and b_leaves[j] else by_a)
                              if a_draws else by_b))
    return lines


def _first_line(a: Body, b: Body, fa: Point, fb: Point, a_looks: bool, b_looks: bool
                ) -> Sight | None:
    """The line between the centres with the ends of each body that draws it (each centre is
    on the front half of its own base: a body draws it when it looks at the other and has
    the other's centre strictly in its arc, ``_drawable``); None if neither does. It is
    the first of ``_sight_lines`` then, made without the others."""
    a_draws = a_looks and (a.all_round_vision or _reach(a.position, fa, b.position) > EPSILON)
    b_draws = b_looks and (b.all_round_vision or _reach(b.position, fb, a.position) > EPSILON)
    ends: tuple[tuple[float, float], ...] = ()
    if a_draws:
        ends += ((a.height, sight_height(b)),)
    if b_draws:
        ends += ((sight_height(a), b.height),)
    return (a.position, b.position, ends) if ends else None


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
    return _low_over(inside_pieces(p, q, piece.polygon), height_p, height_q, piece.height)


def _low_over(inside: Iterable[tuple[float, float]], height_p: float, height_q: float,
              top: float) -> bool:
    """Over some stretch ``inside`` the footprint (parameter ranges along the line) the line
    is at or below ``top``."""
    rise = height_q - height_p
    return any(min(height_p + t0 * rise, height_p + t1 * rise) <= top + EPSILON
               for t0, t1 in inside)


def _blocked_ends(p: Point, q: Point, ends: Ends, piece: TerrainPiece) -> tuple[bool, bool]:
    """For the first end of the plan line p-q and its second (False if it has one end),
    whether the piece blocks the line drawn with it: ``blocked_by_terrain`` for each, with
    what does not depend on the heights (whether the line gets inside the footprint, the
    stretches inside it) found once."""
    h1p, h1q = ends[0]
    if len(ends) == 1:
        return blocked_by_terrain(p, q, h1p, h1q, piece), False
    h2p, h2q = ends[1]
    below1, below2 = _below_line(piece, h1p, h1q), _below_line(piece, h2p, h2q)
    if below1 and below2:
        return False, False
    top = piece.height - _TALL_MARGIN
    if top >= max(h1p, h1q) and top >= max(h2p, h2q):
        # Taller than both lines: it blocks both wherever the line gets inside at all.
        meets = segment_meets_interior(p, q, piece.polygon)
        if meets is not None:
            return meets, meets
    inside = list(inside_pieces(p, q, piece.polygon))
    return (not below1 and _low_over(inside, h1p, h1q, piece.height),
            not below2 and _low_over(inside, h2p, h2q, piece.height))


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


def _line_clear(line: Sight, pieces: Iterable[TerrainPiece], bodies: Iterable[Body]) -> bool:
    """At some of its ends the line is clear of every piece and every body."""
    p, q, ends = line
    if len(ends) == 1:  # one body draws it
        hp, hq = ends[0]
        return not any(blocked_by_terrain(p, q, hp, hq, piece) for piece in pieces) and not any(
            blocked_by_body(p, q, hp, hq, body) for body in bodies)
    first_open = second_open = True
    for piece in pieces:
        first_shut, second_shut = _blocked_ends(p, q, ends, piece)
        first_open = first_open and not first_shut
        second_open = second_open and not second_shut
        if not (first_open or second_open):
            return False
    return (first_open and _clear_of_bodies(p, q, ends[0], bodies)) or (
        second_open and _clear_of_bodies(p, q, ends[1], bodies))


def _clear_of_bodies(p: Point, q: Point, end: tuple[float, float],
                     bodies: Iterable[Body]) -> bool:
    hp, hq = end
    return not any(blocked_by_body(p, q, hp, hq, body) for body in bodies)


def _hides(piece: TerrainPiece, first_points: Iterable[Point], second: Body,
           highest: float) -> bool:
    """A convex piece taller than every sight line (``highest`` is the highest end) that
    every sight line passes through: each ``blocked_by_terrain`` would say so (every point
    of the second body lies on its base disc, inside the piece's shadow from each of the
    first body's points), so no line is clear."""
    if piece.height < highest + _TALL_MARGIN:
        return False
    return all(shadow_holds_disc(p, second.position, second.radius, piece.polygon)
               for p in first_points)


def _hidden_along_centres(a: Body, b: Body, piece: TerrainPiece) -> bool:
    """A convex piece taller than every sight line, crossed by the line between the two
    centres with room for the larger radius: each sampled sight line then passes deep
    inside it too, so ``blocked_by_terrain`` says every line is blocked. (The point a
    fraction s along a sight line from p to q lies within (1 - s)|p - a| + s|q - b| <= the
    larger radius of the point s along the line between the centres: every sampled end
    lies on its base's rim or at its centre.) One clip, where ``_hides`` takes a shadow
    test per point; it decides most hidden targets alone."""
    room = max(a.radius, b.radius)
    return segment_passes_with_room(a.position, b.position, room, piece.polygon)


def has_line_of_fire(
    viewer: Body, target: Body, table: Table, blockers: Sequence[Body] = ()
) -> bool:
    """Whether ``viewer`` has LoF to ``target`` (DIGEST 10.1).

    Requires the target in the viewer's front arc (unless all-round vision) and one of the
    pair's sampled sight lines (``sight_lines``) clear of terrain and of the bodies in
    ``blockers``. The caller decides which bodies block (markers and the moving trooper do
    not); the viewer and target themselves are ignored if present. Whenever each body has
    the other in its arc the answer is the same whichever looks: only the arc test knows
    which body is the viewer.
    """
    facing = facing_vector(viewer.facing)
    if not _looks(viewer, facing, target):
        return False
    first, second = in_pair_order(viewer, target)
    if first is viewer:
        return _unobstructed(first, second, facing, facing_vector(second.facing), table,
                             blockers)
    return _unobstructed(first, second, facing_vector(first.facing), facing, table, blockers)


def _unobstructed(a: Body, b: Body, fa: Point, fb: Point, table: Table,
                  blockers: Sequence[Body]) -> bool:
    """Some line of ``sight_lines(a, b)`` is clear of terrain and of the blockers: the
    obstruction half of ``has_line_of_fire``, for the pair in ``in_pair_order`` (``fa`` and
    ``fb`` their facing vectors; one of them looks at the other)."""
    box = _box_of_discs(a, b)
    a_looks, b_looks = _looks(a, fa, b), _looks(b, fb, a)
    # The lowest and the highest end of the pair's sight lines (``_sight_lines``).
    if a_looks and b_looks:
        lowest = min(sight_height(a), sight_height(b))
        highest = max(a.height, b.height)
    elif a_looks:
        lowest, highest = min(a.height, sight_height(b)), max(a.height, sight_height(b))
    else:
        lowest, highest = min(sight_height(a), b.height), max(sight_height(a), b.height)
    # Pieces lower than every end block no sight line (``blocked_by_terrain`` says so), hide
    # nothing and are not tall: left out once rather than for each line. So are pieces no
    # sight line comes near (``_box_near_segment``; the margin only keeps a few more).
    room = max(a.radius, b.radius) + _BROAD_MARGIN
    pieces = [piece for piece, piece_box in zip(table.terrain, piece_boxes(table.terrain),
                                                strict=True)
              if _boxes_overlap(box, piece_box) and not _below_line(piece, lowest, lowest)
              and _box_near_segment(piece_box, a.position, b.position, room)]
    tall = highest + _TALL_MARGIN
    if any(piece.height >= tall and _hidden_along_centres(a, b, piece) for piece in pieces):
        return False
    # The first line, usually the one between the centres, tried before sampling the others.
    lines = None
    first = _first_line(a, b, fa, fb, a_looks, b_looks)
    if first is None:
        lines = _sight_lines(a, b, fa, fb, a_looks, b_looks)
        if not lines:
            return False
        first = lines[0]
    # Only a piece that blocks the first line (at each of its ends) may hide the target
    # (``_hides`` holds only if the piece blocks every line): a target in plain sight takes
    # one line.
    p, q, ends = first
    two = len(ends) == 2
    across: list[TerrainPiece] = []
    first_open, second_open = True, two  # each end: clear of every piece so far
    for piece in pieces:
        first_shut, second_shut = _blocked_ends(p, q, ends, piece)
        if first_shut and (second_shut or not two):
            across.append(piece)
        first_open = first_open and not first_shut
        second_open = second_open and not second_shut
    bodies = _bodies_between(a, b, box, blockers) if first_open or second_open else None
    if bodies is not None and (
            (first_open and _clear_of_bodies(p, q, ends[0], bodies))
            or (second_open and _clear_of_bodies(p, q, ends[1], bodies))):
        return True
    if lines is None:
        lines = _sight_lines(a, b, fa, fb, a_looks, b_looks)
    if across:
        # Each of a's points once (lines from one point follow each other). Compared by
        # value: compiled with mypyc, a point taken out of a line is a new object each time.
        starts: list[Point] = []
        for line in lines:
            if not starts or starts[-1] != line[0]:
                starts.append(line[0])
        if any(_hides(piece, starts, b, highest) for piece in across):
            return False
    if bodies is None:
        bodies = _bodies_between(a, b, box, blockers)
    # The first line is ``lines[0]`` (``_first_line``), tried already.
    return any(_line_clear(lines[k], pieces, bodies) for k in range(1, len(lines)))


def _bodies_between(viewer: Body, target: Body, box: Box,
                    blockers: Sequence[Body]) -> tuple[Body, ...]:
    """The blockers whose base meets ``box``, but the two bodies of the pair."""
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
        "table",
    )

    def __init__(self, mover: Body, route: Sequence[Point], table: Table,
                 blockers: Callable[[], Sequence[Body]] = tuple, step: float = 0.25) -> None:
        self.mover = mover
        self.table = table
        self._blockers = blockers
        self._blocking: Sequence[Body] | None = None
        self.points = tuple(route_samples(route, step))
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
        """Convex pieces taller than every sight line (taller than both bodies: no end of a
        line is higher than its body's top) that can meet the line between the viewer's
        centre and a point of the route (it stays in the box of the viewer's and the
        route's discs): only these can hide a point along the centres."""
        tall = max(viewer.height, self.mover.height) + _TALL_MARGIN
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
