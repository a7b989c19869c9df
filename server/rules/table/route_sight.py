"""Line of Fire along a mover's route (DIGEST 9, Move; 10.1): the sampled points of the
route where a viewer sees the mover, the route prepared once for every viewer that asks (an
ARO window asks for each reactive trooper)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

from server.rules.table.geometry import EPSILON, Body, Point, facing_vector
from server.rules.table.line_of_fire import TALL_MARGIN, Box, boxes_overlap, has_line_of_fire
from server.rules.table.polygons import bounding_box, convex_half_planes, passes_with_room
from server.rules.table.routes import route_samples
from server.rules.table.shapes import HalfPlanes
from server.rules.table.terrain import Table


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
    than every sight line (``line_of_fire._hidden_along_centres``). Everything else goes to
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
        tall = max(viewer.height, self.mover.height) + TALL_MARGIN
        assert self.box is not None
        vx, vy = viewer.position
        x0, y0, x1, y1 = self.box
        box = (min(x0, vx) - room, min(y0, vy) - room, max(x1, vx) + room, max(y1, vy) + room)
        return [planes for height, piece_box, planes in self.convex
                if height >= tall and boxes_overlap(box, piece_box)]

    def points_in_lof(self, viewer: Body, through_smoke: bool = False) -> Iterator[Point]:
        """The sampled points, in route order, where the viewer has LoF to the mover standing
        there; lazily, so that a caller asking for any stops at the first. ``through_smoke``:
        the viewer sees through Smoke zones (``has_line_of_fire``)."""
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
                                self.blockers(), through_smoke):
                yield point

    def seen_by(self, viewer: Body, through_smoke: bool = False) -> bool:
        """The viewer has LoF to the mover at some sampled point of the route."""
        return next(self.points_in_lof(viewer, through_smoke), None) is not None


def points_of_route_in_lof(
    viewer: Body, mover: Body, route: Sequence[Point], table: Table,
    blockers: Sequence[Body] = (), step: float = 0.25, through_smoke: bool = False,
) -> tuple[Point, ...]:
    """The sampled points of ``route`` where the viewer has LoF to the mover standing there.

    Samples every ``step`` inches and at every vertex (see ``routes.route_samples``).
    """
    sight = RouteSight(mover, route, table, lambda: blockers, step)
    return tuple(sight.points_in_lof(viewer, through_smoke))


def sees_any_point_of_route(
    viewer: Body, mover: Body, route: Sequence[Point], table: Table,
    blockers: Sequence[Body] = (), step: float = 0.25,
) -> bool:
    """The viewer has LoF to the mover at some sampled point of its route (DIGEST 9 Move).
    For many viewers of one route, build one ``RouteSight`` and ask its ``seen_by``."""
    return RouteSight(mover, route, table, lambda: blockers, step).seen_by(viewer)
