"""The table as the seat's view shows it (``view["table"]``, ``view["deployment_zones"]``,
``view["mission"]``): the seat's zone and forward direction, spots behind cover, and the
mission's zones and markers. Geometry on public data only; the referee still judges every
point (a spot refused is followed by the next)."""

from __future__ import annotations

import math
from typing import Any

from server.rules.table.silhouettes import silhouette

Point = list[float]
View = dict[str, Any]
CLEARANCE = 0.15
"""Inches left between a base and the scenery it hides behind."""


def radius(size: int) -> float:
    return float(silhouette(size).base_diameter) / 2


def own_zone(view: View, seat: str) -> tuple[dict[str, float], float]:
    """The seat's deployment zone and its forward facing (90: towards +y, 270: towards -y)."""
    name = view["initiative"]["zones"][seat]
    zone = view["deployment_zones"][name]
    middle = (zone["y0"] + zone["y1"]) / 2
    return zone, 90.0 if middle < view["table"]["depth"] / 2 else 270.0


def forward(facing: float) -> float:
    return 1.0 if facing == 90.0 else -1.0


def cover_pieces(view: View) -> list[dict[str, Any]]:
    return [piece for piece in view["table"].get("terrain") or [] if piece.get("gives_cover")]


def _bounds(polygon: list[Point]) -> tuple[float, float, float, float]:
    xs, ys = [p[0] for p in polygon], [p[1] for p in polygon]
    return min(xs), min(ys), max(xs), max(ys)


def behind(piece: dict[str, Any], ahead: float, own: float, across: int = 3) -> list[Point]:
    """Spots in base contact with ``piece``'s side away from the enemy (``ahead``: the
    enemy's direction along y), spread along it."""
    x0, y0, x1, y1 = _bounds(piece["polygon"])
    y = y0 - own - CLEARANCE if ahead > 0 else y1 + own + CLEARANCE
    if x1 - x0 <= 2 * own:
        xs = [(x0 + x1) / 2]
    else:
        xs = [x0 + own + (x1 - x0 - 2 * own) * i / max(1, across - 1) for i in range(across)]
    return [[round(x, 2), round(y, 2)] for x in xs]


def deployment_spots(view: View, seat: str, size: int) -> list[Point]:
    """Spots of the seat's zone behind cover, best first: in contact with a piece of cover
    inside the zone, then behind cover standing in front of the zone (on the zone's front
    edge, so the scenery is between the trooper and the enemy), then the zone's back edge."""
    zone, facing = own_zone(view, seat)
    ahead, own = forward(facing), radius(size)
    margin = own + 0.05
    inside: list[Point] = []
    in_front: list[tuple[float, Point]] = []
    for piece in cover_pieces(view):
        for x, y in behind(piece, ahead, own):
            if not zone["x0"] + margin <= x <= zone["x1"] - margin:
                continue
            if zone["y0"] + margin <= y <= zone["y1"] - margin:
                inside.append([x, y])
            else:
                edge = zone["y1"] - margin if ahead > 0 else zone["y0"] + margin
                if (y - edge) * ahead > 0:  # the cover stands ahead of the zone
                    in_front.append((abs(y - edge), [x, round(edge, 2)]))
    back = zone["y0"] + margin if ahead > 0 else zone["y1"] - margin
    width = zone["x1"] - zone["x0"] - 2 * margin
    rear = [[round(zone["x0"] + margin + width * i / 8, 2), round(back, 2)] for i in range(9)]
    return inside + [p for _, p in sorted(in_front, key=lambda item: item[0])] + rear


def cover_ahead(view: View, seat: str, start: Point, size: int) -> list[Point]:
    """Spots behind cover nearer the enemy than ``start``, nearest first."""
    _, facing = own_zone(view, seat)
    ahead = forward(facing)
    spots = [spot for piece in cover_pieces(view) for spot in behind(piece, ahead, radius(size))
             if (spot[1] - start[1]) * ahead > 0.5]
    return sorted(spots, key=lambda spot: math.dist(start, spot))


def objectives(view: View, seat: str) -> list[Point]:
    """Where the mission wants troopers: its markers this seat has not activated yet, and
    the middle of its zones (none without a mission)."""
    mission = view.get("mission") or {}
    done = {a.get("marker") for a in view.get("objective_activations") or []
            if a.get("side") == seat}
    spots = [[float(m["x"]), float(m["y"])] for m in mission.get("markers") or []
             if m["id"] not in done]
    spots += [[(z["x0"] + z["x1"]) / 2, (z["y0"] + z["y1"]) / 2] for z in mission.get("zones") or []
              if "x0" in z]
    return spots


def towards(start: Point, end: Point, length: float, stop_short: float = 0.0) -> Point:
    """The point ``length`` inches from ``start`` on the way to ``end`` (at most up to
    ``stop_short`` inches before it)."""
    gap = math.dist(start, end) - stop_short
    if gap <= 0:
        return list(start)
    step = min(gap, length)
    angle = math.atan2(end[1] - start[1], end[0] - start[0])
    return [round(start[0] + step * math.cos(angle), 3), round(start[1] + step * math.sin(angle), 3)]


def _inside(point: Point, polygon: list[Point]) -> bool:
    x, y = point
    inside = False
    for (ax, ay), (bx, by) in zip(polygon, polygon[1:] + polygon[:1], strict=True):
        if (ay > y) != (by > y) and x < ax + (y - ay) * (bx - ax) / (by - ay):
            inside = not inside
    return inside


def _to_segment(p: Point, a: Point, b: Point) -> float:
    (px, py), (ax, ay), (bx, by) = p, a, b
    length = (bx - ax) ** 2 + (by - ay) ** 2
    t = 0.0 if length == 0 else max(0.0, min(1.0, ((px - ax) * (bx - ax) + (py - ay) * (by - ay))
                                             / length))
    return math.dist(p, (ax + t * (bx - ax), ay + t * (by - ay)))


def clearance(point: Point, polygon: list[Point]) -> float:
    """How far ``point`` is from ``polygon`` (0 inside it)."""
    if _inside(point, polygon):
        return 0.0
    return min(_to_segment(point, a, b) for a, b in zip(polygon, polygon[1:] + polygon[:1],
                                                          strict=True))


def clear_path(view: View, start: Point, end: Point, own: float, others: list[tuple[Point, float]]
               ) -> bool:
    """Whether a base of radius ``own`` may go straight from ``start`` to ``end``: it stays on
    the table, off every piece of scenery (the referee refuses routes through it; climbing
    is not tried) and ends clear of the other bases the view shows."""
    table = view["table"]
    if not (own <= end[0] <= table["width"] - own and own <= end[1] <= table["depth"] - own):
        return False
    if any(math.dist(end, at) < own + size + 0.05 for at, size in others):
        return False
    steps = max(1, int(math.dist(start, end) / 0.25))
    for i in range(1, steps + 1):
        point = [start[0] + (end[0] - start[0]) * i / steps, start[1] + (end[1] - start[1]) * i / steps]
        if any(clearance(point, piece["polygon"]) < own + 0.02
               for piece in view["table"].get("terrain") or []):
            return False
    return True


TURNS = (0, 20, -20, 40, -40, 60, -60, 90, -90, 130, -130)
"""Headings tried off the straight line to a goal (degrees), nearest first."""


def routes(view: View, start: Point, end: Point, allowance: float, own: float,
           others: list[tuple[Point, float]], stop_short: float = 0.0) -> list[list[Point]]:
    """Straight routes towards ``end`` within ``allowance`` that clear the scenery (the
    straight line, else turned off it, full length then half), those ending nearest
    ``end`` first."""
    heading = math.atan2(end[1] - start[1], end[0] - start[0])
    reach = min(allowance - 0.02, max(0.0, math.dist(start, end) - stop_short))
    found: list[tuple[float, list[Point]]] = []
    for turn in TURNS:
        angle = heading + math.radians(turn)
        for length in (reach, reach / 2):
            if length < 0.3:
                continue
            stop = [round(start[0] + length * math.cos(angle), 3),
                    round(start[1] + length * math.sin(angle), 3)]
            if clear_path(view, start, stop, own, others):
                found.append((math.dist(stop, end), [list(start), stop]))
    found.sort(key=lambda item: item[0])
    return [route for _, route in found[:6]]
