"""The sensible level's Fireteams (N5), read from ``options.fireteams``
(``server/rules/options/fireteams.py``) and the view alone:

- at deployment, a trooper that may be in a team is deployed within Coherency of an
  already deployed trooper that may be in the same type of team (same Combat Group), and
  the seat forms the largest team the options offer before it ends its deployment step;
- in its turn, a trooper that leads a team (``fireteams.activate``) is activated with its
  team (``activate_fireteam``), and when the leader moves each member follows it with the
  same movement, shifted by the same step, so the team keeps its shape and Coherency.

The referee judges every body: a team the Fireteams Chart does not allow, or a member's
route that hits scenery, is refused and the next candidate follows (smaller teams, Idle
members)."""

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
    """In a team's Order, each member's ``name`` movement: its own position shifted by the
    leader's step (cut to its allowance), or Idle when it may not move; None outside a
    team's Order."""
    if not skills.get("fireteam"):
        return None
    step = (route[-1][0] - route[0][0], route[-1][1] - route[0][1])
    declared: list[Body] = []
    for member, own in (skills.get("peripherals") or {}).items():
        at = next((t.get("position") for t in view["troopers"] if t["id"] == member), None)
        allowance = float((own.get("allowances") or {}).get(name) or 0.0)
        if at is None or name not in (own.get("route_skills") or []) or allowance <= 0:
            declared.append({"trooper": member, "skill": {"type": "idle"}})
            continue
        end = [at[0] + step[0], at[1] + step[1]]
        end = ground.towards(at, end, allowance - 0.02)
        declared.append({"trooper": member, "skill": {"type": name, "route": [list(at), end]}})
    return declared
