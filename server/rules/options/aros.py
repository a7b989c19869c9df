"""What each reactive trooper may declare in the open ARO window (``options.aros``): per
skill and target, and for a BS Attack or Discover the points of the target's path it may
be taken at, each with what Resolution would make of it."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from .. import commands as c
from ..armies.skills import (
    BsAttack,
    BurstAssignment,
    CcAttack,
    CommsAttack,
    Discover,
    Dodge,
    ForwardObserver,
    PlaceDeployable,
    Reset,
    Skill,
)
from ..armies.weapons import WeaponKind
from ..combat.hacking import PROGRAMS
from ..combat.mines import placement_offer
from ..combat.plan import ARO_BURST
from ..combat.smoke import screening_point, zone_kind, zone_offer
from ..combat.suppressive_fire import aro_burst
from ..evolve import replace
from ..ids import Side, TrooperId, WeaponId
from ..orders.aro import decide_declare_aro, decide_pass_aro, unmet_aro_requirement
from ..plain import Plain
from ..previews import preview, shown
from ..state import ActiveOrder, GameState, TrooperState
from .accepted import SHOOTING, accepted, carried_weapons


def aro_options(state: GameState, side: Side, order: ActiveOrder) -> dict[str, Plain]:
    """Per trooper that must answer the open ARO window: what it may declare."""
    if not order.window_open or state.reactive is not side:
        return {}
    activated = order.activated
    found: dict[str, Plain] = {}
    for trooper_id in order.unanswered():
        trooper = state.trooper(trooper_id)
        if not accepted(decide_pass_aro, state, side, c.PassAro(trooper_id)):
            continue

        def legal(skill: Skill, who: TrooperId = trooper_id) -> bool:
            return (accepted(decide_declare_aro, state, side, c.DeclareAro(who, skill))
                    and unmet_aro_requirement(state, order, state.trooper(who), skill) is None)

        def each(names: Any, make: Callable[[Any, TrooperId], Skill]) -> dict[str, Plain]:
            found_targets = {name: [t for t in activated if legal(make(name, t))] for name in names}
            return {name: targets for name, targets in found_targets.items() if targets}

        def at_points(make: Callable[[Any, TrooperId], BsAttack | Discover | ForwardObserver],
                      names: Any,
                      who: TrooperId = trooper_id) -> dict[str, dict[str, Plain]]:
            """Per name and target, the points of the target's path the ARO may be taken at,
            each with its preview (``_aro_points``); only those with one."""
            found_points: dict[str, dict[str, Plain]] = {}
            for name in names:
                per_target: dict[str, Plain] = {
                    t: points for t in activated
                    if legal(make(name, t), who)
                    and (points := _aro_points(state, side, who, make(name, t)))}
                if per_target:
                    found_points[name] = per_target
            return found_points

        eligibility = order.eligible[trooper_id]
        # Burst 3 for a Suppressive Fire weapon in Suppressive Fire State, else 1.
        bursts: dict[str, int] = {w.id: aro_burst(trooper, w)
                                  for w in carried_weapons(state, trooper, SHOOTING)}

        def shot(w: Any, t: TrooperId, bursts: dict[str, int] = bursts) -> BsAttack:
            return BsAttack(w, (BurstAssignment(t, bursts[w]),))

        shot_points = at_points(shot, list(bursts))
        shots = {w: list(per_target) for w, per_target in shot_points.items()}
        blows = each([w.id for w in carried_weapons(state, trooper, (WeaponKind.CLOSE_COMBAT,))], CcAttack)
        hacks = each(list(PROGRAMS) if trooper.profile.hacker else [], CommsAttack)
        discover_points = at_points(lambda _, t: Discover(t), ["discover"]).get("discover", {})
        spotted = list(discover_points)
        # Forward Observer (combat/forward_observer.py): the points it may mark the target at.
        mark_points = (at_points(lambda _, t: ForwardObserver(t), ["forward_observer"])
                       .get("forward_observer", {}) if trooper.profile.forward_observer else {})
        # Smoke and Eclipse at a point of the table (combat/smoke.py), Burst 1 in ARO, with
        # the point that screens the reactor from each activated trooper (``screens``).
        def aimable(w: Any, point: Any, who: TrooperId = trooper_id) -> bool:
            return accepted(decide_declare_aro, state, side, c.DeclareAro(
                who, BsAttack(w.id, (), zone_at=(point[0], point[1]))))

        zones = {w.id: zone_offer(trooper, w, ARO_BURST) | {"screens": {
                     t: screen for t in activated
                     if (screen := screening_point(trooper, w, state.trooper(t))) is not None
                     and aimable(w, screen["point"])}}
                 for w in carried_weapons(state, trooper, SHOOTING)
                 if zone_kind(w) is not None and trooper.position is not None
                 and aimable(w, trooper.position)}
        found[trooper_id] = {
            "zones": zones,
            "line_of_fire": eligibility.line_of_fire,
            "zone_of_control": eligibility.zone_of_control,
            "template": eligibility.template,
            "sixth_sense": eligibility.sixth_sense,
            "comms_target": eligibility.comms_target,
            "hacking_area": eligibility.hacking_area,
            "bs_attack": list(shots),
            "bs_burst": {w: bursts[w] for w in shots},
            "suppressive_fire": trooper.suppressive_fire,
            "cc_attack": list(blows),
            "discover": bool(spotted),
            "comms_attack": list(hacks),
            "dodge": legal(Dodge()),
            "reset": legal(Reset()),
            "targets": {"bs_attack": shots, "cc_attack": blows, "comms_attack": hacks,
                        "discover": spotted},
            "shots": shot_points,
            "discover_rolls": discover_points,
            "forward_observer": list(mark_points),
            "forward_observer_rolls": mark_points,
            "place_deployable": _placements(state, trooper, legal),
        }
    return found


CONTACT_DIRECTIONS = 8
"""Spots around a reactor tried before Place Deployable is offered in ARO."""


def _placements(state: GameState, trooper: TrooperState,
                legal: Callable[[Skill], bool]) -> dict[str, Plain]:
    """Place Deployable in ARO (combat/mines.py): per Mine with a use left, ``{name,
    uses_left, path: [where it stands], contact}`` as in the Active Turn and ``spots``: those
    of eight spots in Silhouette contact all round it that are accepted with their
    Requirements met (LoF to the active trooper among them); offered when there is one."""
    if trooper.position is None:
        return {}
    x, y = trooper.position
    found: dict[str, Plain] = {}
    for weapon, offer in placement_offer(state, trooper, (trooper.position,)).items():
        assert isinstance(offer, dict)
        reach = float(offer["contact"]) + 0.01  # just clear of the base, within contact
        spots = ((x + reach * math.cos(2 * math.pi * i / CONTACT_DIRECTIONS),
                  y + reach * math.sin(2 * math.pi * i / CONTACT_DIRECTIONS))
                 for i in range(CONTACT_DIRECTIONS))
        legal_spots = [[round(sx, 3), round(sy, 3)] for sx, sy in spots
                       if legal(PlaceDeployable(WeaponId(weapon), (round(sx, 3), round(sy, 3))))]
        if legal_spots:
            found[weapon] = {**offer, "spots": legal_spots}
    return found


def _aro_points(state: GameState, side: Side, reactor: TrooperId,
                skill: BsAttack | Discover | ForwardObserver) -> list[Plain]:
    """The points of the targeted trooper's path this BS Attack or Discover ARO may be taken
    at, each with its preview (``previews.shown``): first the default (``point`` None: the
    last point where the reactor sees it, which a second movement of the active trooper may
    still move), then each corner of the route the active player drew (start and end
    included, as the app lists them). Points where Resolution would make it Idle (no Line
    of Fire there, a template out of reach) are left out; none at all when the default is
    Idle (then no corner resolves either)."""
    order = state.order
    assert order is not None
    target = skill.targets[0].trooper if isinstance(skill, BsAttack) else skill.target
    path = order.for_trooper(target).path
    corners = list(dict.fromkeys(path)) if len(set(path)) > 1 else []
    found: list[Plain] = []
    for point in (None, *corners):
        plan = preview(state, side, c.DeclareAro(reactor, replace(skill, target_point=point)))
        seen = shown(state, side, plan) if plan is not None else None
        if seen is None:
            if point is None:
                return []
            continue
        found.append({"point": list(point) if point is not None else None, **seen})
    return found
