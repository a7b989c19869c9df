"""The sensible level's Fireteams (N5), read from ``options.fireteams``
(``server/rules/options/fireteams.py``) and the view alone:

- at deployment, a trooper that may be in a team is deployed within Coherency of an
  already deployed trooper that may be in the same type of team (same Combat Group), and
  the seat forms the largest team the options offer before it ends its deployment step
  (and in its turn for a Command Token, when the options offer a team at that cost);
- in its turn, a trooper that leads a team (``fireteams.activate``) is activated with its
  team (``activate_fireteam``), and when the leader moves each member follows it with the
  same movement, shifted by the same step (or by another clear way into the leader's Zone
  of Control), so the team keeps its Coherency.

The referee judges every body: a team the Fireteams Chart does not allow, or a member's
route it refuses, is refused and the next candidate follows (smaller teams, other routes)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

from server.bot import ground
from server.bot.offers import Body

View = dict[str, Any]
Options = dict[str, Any]
KINDS = ("core", "haris", "duo")
"""Team types, the most valuable first (a Core's bonuses grow with its size)."""
COHERENT = 5.0
"""Inches between base edges under which a trooper deploys next to a teammate (inside the
8" Zone of Control with room to spare)."""
COHESION = 7.5
"""Inches between base edges at most from the leader where a member ends a move (inside the
8" Zone of Control, with room for rounding)."""


def _flags(profile: dict[str, Any]) -> set[str]:
    return {kind for kind in KINDS if profile.get(f"fireteam_{kind}")}


def teammates(view: View, seat: str, trooper: dict[str, Any]) -> list[ground.Point]:
    """Where the deployed troopers stand that may be in a team with ``trooper`` (a type of
    team in common, the same Combat Group), nearest the zone's middle first."""
    kinds = _flags(trooper.get("profile") or {})
    group = (trooper.get("entry") or {}).get("combat_group")
    if not kinds:
        return []
    return [t["position"] for t in view["troopers"]
            if t["side"] == seat and t["id"] != trooper["id"] and t.get("position") is not None
            and not t.get("marker") and not t.get("hidden")
            and (t.get("entry") or {}).get("combat_group") == group
            and kinds & _flags(t.get("profile") or {})]


def near_teammates(view: View, seat: str, trooper: dict[str, Any],
                   spots: list[ground.Point]) -> list[ground.Point]:
    """``spots`` with those in Coherency of a teammate first (and spots beside the nearest
    teammate, behind it, added), so the team can be formed."""
    anchors = teammates(view, seat, trooper)
    if not anchors:
        return spots
    size = int(trooper["profile"]["silhouette"])
    reach = COHERENT + 2 * ground.radius(size)
    close = [s for s in spots if any(math.dist(s, a) <= reach for a in anchors)]
    _, facing = ground.own_zone(view, seat)
    back = -ground.forward(facing)
    gap = 2 * ground.radius(size) + 0.6
    beside = [[round(a[0] + dx, 2), round(a[1] + dy, 2)] for a in anchors
              for dx, dy in ((gap, 0.0), (-gap, 0.0), (0.0, back * gap), (gap, back * gap),
                             (-gap, back * gap), (2 * gap, 0.0), (-2 * gap, 0.0))]
    return close + beside + [s for s in spots if s not in close]


def formations(options: Options) -> Iterator[Body]:
    """``form_fireteam`` bodies for the teams the options offer now, largest first: each
    leader with as many of its listed troopers as the type allows, then fewer."""
    form = (options.get("fireteams") or {}).get("form") or {}
    found: list[tuple[int, int, Body]] = []
    for rank, kind in enumerate(KINDS):
        offer = form.get(kind)
        if not offer:
            continue
        fewest, most = (int(n) for n in offer["sizes"])
        for leader, joining in offer["leaders"].items():
            for size in range(min(most, len(joining) + 1), fewest - 1, -1):
                found.append((-size, rank, {"type": "form_fireteam", "kind": kind,
                                            "leader": leader, "members": joining[:size - 1]}))
    found.sort(key=lambda item: (item[0], item[1]))
    yield from (body for _, _, body in found)


def leads(options: Options) -> set[str]:
    """The troopers that may declare their team's Order now."""
    return set((options.get("fireteams") or {}).get("activate") or [])


def team_activation(trooper: str) -> Body:
    return {"type": "activate_fireteam", "leader": trooper}


def followers(view: View, skills: dict[str, Any], name: str,
              route: list[ground.Point]) -> list[Body] | None:
    """In a team's Order, each member's ``name`` movement (``_follow``), or Idle when it may
    not move; None outside a team's Order."""
    if not skills.get("fireteam"):
        return None
    order = view.get("order") or {}
    leader = _trooper(view, str(order.get("trooper", "")))
    members = skills.get("peripherals") or {}
    moving = set(members) | {leader.get("id")}
    taken: list[tuple[ground.Point, float]] = [  # the bases that stay where they are
        (t["position"], ground.radius(_size(t))) for t in view["troopers"]
        if t.get("position") is not None and t["id"] not in moving and _size(t)]
    taken.append((route[-1], ground.radius(_size(leader))))
    declared: list[Body] = []
    for member, own in members.items():
        trooper = _trooper(view, member)
        allowance = float((own.get("allowances") or {}).get(name) or 0.0)
        if (trooper.get("position") is None or name not in (own.get("route_skills") or [])
                or allowance <= 0):
            declared.append({"trooper": member, "skill": {"type": "idle"}})
            continue
        end = _follow(view, trooper, route, allowance, taken)
        taken.append((end, ground.radius(_size(trooper))))
        declared.append({"trooper": member,
                         "skill": {"type": name, "route": [list(trooper["position"]), end]}})
    return declared


def _follow(view: View, member: dict[str, Any], route: list[ground.Point], allowance: float,
            taken: list[tuple[ground.Point, float]]) -> ground.Point:
    """Where a member ends its movement: its own position shifted by the leader's step
    (within its allowance) when that way is clear and ends in the leader's Zone of Control,
    else the end of a clear straight route towards the leader's end that does; else the
    shifted point (the referee says why not)."""
    at, own = member["position"], ground.radius(_size(member))
    step = (route[-1][0] - route[0][0], route[-1][1] - route[0][1])
    shifted = ground.towards(at, [at[0] + step[0], at[1] + step[1]], allowance - 0.02)
    leader_end, leader_own = route[-1], ground.radius(2)

    standing = [(t["position"], ground.radius(_size(t))) for t in view["troopers"]
                if t.get("position") is not None and t["id"] != member["id"] and _size(t)]

    def fits(point: ground.Point) -> bool:
        """In the leader's Zone of Control, reached without crossing a base where it stands
        before the Order."""
        return (math.dist(point, leader_end) - own - leader_own <= COHESION
                and not _crosses(at, point, own, standing))

    if fits(shifted) and ground.clear_path(view, at, shifted, own, taken):
        return shifted
    for way in ground.routes(view, at, leader_end, allowance, own, taken,
                             own + leader_own + 0.3):
        if fits(way[-1]):
            return way[-1]
    return shifted


def _crosses(start: ground.Point, end: ground.Point, own: float,
             bases: list[tuple[ground.Point, float]]) -> bool:
    """Whether a base of radius ``own`` going straight from ``start`` to ``end`` passes
    through one of ``bases`` (models may not move through each other)."""
    steps = max(1, int(math.dist(start, end) / 0.25))
    for i in range(1, steps + 1):
        point = [start[0] + (end[0] - start[0]) * i / steps,
                 start[1] + (end[1] - start[1]) * i / steps]
        if any(math.dist(point, at) < own + size - 0.01 for at, size in bases):
            return True
    return False


def _trooper(view: View, trooper_id: str) -> dict[str, Any]:
    return next((t for t in view["troopers"] if t["id"] == trooper_id), {})


def _size(trooper: dict[str, Any]) -> int:
    """A base's Silhouette (a marker carries it itself); 0 when the view shows none."""
    return int((trooper.get("profile") or trooper).get("silhouette") or 0)
