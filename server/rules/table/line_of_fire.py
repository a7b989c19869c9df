"""Line of Fire between two bodies on a 2.5D table (DIGEST 10.1): whether one of the pair's
sampled sight lines (``sight_lines``) is clear of terrain and of the bodies that block.

A sight line joins a point of one body's cylinder to a point of the other's. LoF exists when
the target is in the viewer's front arc and one of the pair's sampled sight lines is
unobstructed. How the lines are sampled, and why either body's lines count (reciprocity):
``sight_lines`` (documented in docs/rules-decisions/geometry.md). Every obstruction test
takes the pair in one fixed order (``in_pair_order``), so even the rounding is the same
both ways. Along a whole route, for many viewers: ``route_sight``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from server.rules.table.geometry import EPSILON, Body, Point, facing_vector
from server.rules.table.polygons import (
    bounding_box,
    inside_pieces,
    segment_meets_interior,
    segment_passes_with_room,
    shadow_holds_disc,
)
from server.rules.table.sight_lines import (
    Ends,
    Sight,
    first_line,
    in_pair_order,
    looks,
    sight_height,
    sight_lines_facing,
)
from server.rules.table.terrain import Table, TerrainPiece
from server.rules.table.visibility_zones import VisibilityZone, segment_meets_zone, zones_that_block

Box = tuple[float, float, float, float]
_BROAD_MARGIN = 0.01
"""Inches added to the reach of the sight lines in the broad phase, far above rounding: a
piece kept for nothing costs one exact test, a piece wrongly left out a wrong answer."""
TALL_MARGIN = 1e-6
"""A piece this much taller than both ends of a sight line is taller than every point of
it, rounding included."""


def _box_of_discs(a: Body, b: Body) -> Box:
    (ax, ay), (bx, by) = a.position, b.position
    ra, rb = a.radius, b.radius
    return (min(ax - ra, bx - rb), min(ay - ra, by - rb),
            max(ax + ra, bx + rb), max(ay + ra, by + rb))


def boxes_overlap(a: Box, b: Box) -> bool:
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
                 if boxes_overlap(box, piece_box))


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
    if piece.height >= max(height_p, height_q) + TALL_MARGIN:
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
    top = piece.height - TALL_MARGIN
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
    TALL_MARGIN covers the rounding.)"""
    return piece.height + EPSILON + TALL_MARGIN <= min(height_p, height_q)


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
    if piece.height < highest + TALL_MARGIN:
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
    viewer: Body, target: Body, table: Table, blockers: Sequence[Body] = (),
    through_smoke: bool = False,
) -> bool:
    """Whether ``viewer`` has LoF to ``target`` (DIGEST 10.1).

    Requires the target in the viewer's front arc (unless all-round vision) and one of the
    pair's sampled sight lines (``sight_lines``) clear of terrain and of the bodies in
    ``blockers``. The caller decides which bodies block (markers and the moving trooper do
    not); the viewer and target themselves are ignored if present. Whenever each body has
    the other in its arc the answer is the same whichever looks: only the arc test knows
    which body is the viewer.

    The table's Zero Visibility Zones (``visibility_zones``) block every sight line that
    meets them, but a Smoke zone for a viewer that sees ``through_smoke`` (a Multispectral
    Visor): then the answer may differ with the pair's order, which only this flag tells.
    """
    facing = facing_vector(viewer.facing)
    if not looks(viewer, facing, target):
        return False
    first, second = in_pair_order(viewer, target)
    zones = zones_that_block(table.zones, through_smoke) if table.zones else ()
    if first is viewer:
        return _unobstructed(first, second, facing, facing_vector(second.facing), table,
                             blockers, zones)
    return _unobstructed(first, second, facing_vector(first.facing), facing, table, blockers,
                         zones)


def _unobstructed(a: Body, b: Body, fa: Point, fb: Point, table: Table,
                  blockers: Sequence[Body], zones: tuple[VisibilityZone, ...] = ()) -> bool:
    """Some line of ``sight_lines(a, b)`` is clear of terrain and of the blockers: the
    obstruction half of ``has_line_of_fire``, for the pair in ``in_pair_order`` (``fa`` and
    ``fb`` their facing vectors; one of them looks at the other)."""
    box = _box_of_discs(a, b)
    a_looks, b_looks = looks(a, fa, b), looks(b, fb, a)
    # The lowest and the highest end of the pair's sight lines (``sight_lines_facing``).
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
              if boxes_overlap(box, piece_box) and not _below_line(piece, lowest, lowest)
              and _box_near_segment(piece_box, a.position, b.position, room)]
    tall = highest + TALL_MARGIN
    if any(piece.height >= tall and _hidden_along_centres(a, b, piece) for piece in pieces):
        return False
    if zones:  # the lines a zone blocks are out whatever their ends: test the others alone
        clear = [line for line in sight_lines_facing(a, b, fa, fb, a_looks, b_looks)
                 if not any(segment_meets_zone(line[0], line[1], zone) for zone in zones)]
        between = _bodies_between(a, b, box, blockers)
        return any(_line_clear(line, pieces, between) for line in clear)
    # The first line, usually the one between the centres, tried before sampling the others.
    lines = None
    first = first_line(a, b, fa, fb, a_looks, b_looks)
    if first is None:
        lines = sight_lines_facing(a, b, fa, fb, a_looks, b_looks)
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
        lines = sight_lines_facing(a, b, fa, fb, a_looks, b_looks)
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
    # The first line is ``lines[0]`` (``first_line``), tried already.
    return any(_line_clear(lines[k], pieces, bodies) for k in range(1, len(lines)))


def _bodies_between(viewer: Body, target: Body, box: Box,
                    blockers: Sequence[Body]) -> tuple[Body, ...]:
    """The blockers whose base meets ``box``, but the two bodies of the pair."""
    x0, y0, x1, y1 = box
    return tuple(  # boxes_overlap(box, _box_of_discs(b, b)) written out, then equality
        b for b in blockers
        if (x0 <= b.position[0] + b.radius and b.position[0] - b.radius <= x1
            and y0 <= b.position[1] + b.radius and b.position[1] - b.radius <= y1)
        and (b.position != viewer.position or b != viewer)
        and (b.position != target.position or b != target)
    )  # the cheap tests first: most blockers are far away, and bodies apart are unequal


