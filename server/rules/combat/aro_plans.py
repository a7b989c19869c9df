"""The AROs of an Order at Resolution (DIGEST 6, 13; seed 000): the ARO Check, and each ARO
taken against the active trooper at one point of its path (the chosen one, else the last
where the reactor has Line of Fire), with the reactor's Sixth Sense.
"""

from __future__ import annotations

from ..armies.skills import (
    BsAttack,
    CcAttack,
    CommsAttack,
    Discover,
    Dodge,
    ForwardObserver,
    PlaceDeployable,
    Reset,
    Skill,
)
from ..armies.weapons import Weapon
from ..evolve import replace
from ..orders.declarations import allowed_without_line_of_fire, attacked_by, on_path
from ..ruleset import options
from ..state import GameState, TrooperState
from ..table.geometry import Body, Point
from ..table.route_sight import points_of_route_in_lof
from . import mines
from .camouflage import camouflaged as _camouflaged  # still a marker, all declarations made
from .direct_templates import is_direct_template, template_area
from .forward_observer import planned_forward_observer
from .mods import blocking_bodies, dodge_mods, sees
from .multispectral_visor import sees_through_smoke, shoots_markers
from .plan import ARO_BURST, Plan, order_to_resolve
from .skill_plans import (
    dodge_roll,
    first_target,
    has_sixth_sense,
    idle,
    planned_cc_attack,
    planned_comms_attack,
    planned_discover,
    planned_shot,
    reset_roll,
    skill_target,
    template_plan,
)
from .smoke import planned_zone_roll
from .suppressive_fire import aro_burst, aro_weapon


def aro_skill(state: GameState, reactor: TrooperState, skill: Skill) -> Plan:
    problem = _aro_check(state, reactor, skill)
    if problem is not None:
        return idle(reactor, skill, problem)
    order = order_to_resolve(state)
    if isinstance(skill, Dodge):
        eligibility = order.eligible.get(reactor.id)
        blind = (eligibility is not None and not eligibility.line_of_fire
                 and not eligibility.sixth_sense)  # Sixth Sense: no no-LoF penalty (13)
        penalty = options(state.ruleset).zoc_dodge_penalty
        mods = dodge_mods(blind, penalty)  # and PH -3 if a Mine went off at it (mines.py)
        return Plan(rolls=(dodge_roll(reactor, False, mods + mines.dodge_mods(state, reactor.id, mods)),))
    if isinstance(skill, Reset):
        return Plan(rolls=(reset_roll(reactor, active=False),))
    if isinstance(skill, PlaceDeployable):  # no roll: the Mine appears at the Conclusion
        return mines.planned_placement(state, reactor, skill)
    if isinstance(skill, BsAttack) and skill.zone_at is not None:  # Smoke or Eclipse
        weapon = state.armies[reactor.side].weapon(skill.weapon)
        zone = planned_zone_roll(state, reactor, weapon, skill.zone_at, reactor.body(),
                                 ARO_BURST, active=False)
        return idle(reactor, skill, "no_line_of_fire") if zone is None else zone
    target_id = skill_target(skill)
    if target_id is None or target_id not in order.activated:
        return idle(reactor, skill, "aro_must_target_active_trooper")
    active = state.trooper(target_id)
    if isinstance(skill, CcAttack):
        return planned_cc_attack(state, reactor, skill, active=False)
    if isinstance(skill, CommsAttack):
        return planned_comms_attack(state, reactor, skill, active=False)
    if isinstance(skill, ForwardObserver):
        return _aro_forward_observer(state, reactor, skill, active)
    if isinstance(skill, (BsAttack, Discover)):
        return _aro_at_path_point(state, reactor, skill, active)
    return idle(reactor, skill, "not_usable_in_aro")


def _aro_check(state: GameState, reactor: TrooperState, skill: Skill) -> str | None:
    """[N5.2] ARO Check: the trooper must have been eligible, and one eligible through its
    Zone of Control (or Hacking Area) alone may only Dodge or Reset (or, from its Hacking
    Area, make a Comms Attack) unless the activated trooper came into its LoF at some point
    of the Order, which makes the declaration valid after all ("has been", seed 000 step 5;
    DIGEST 5.1, 6.1). Both are accepted at declaration (aro.py) and Idle here, in every
    ruleset: without the ARO Check step (CodeOne) the ARO fails its Requirements at
    Resolution (seed 001 step 5)."""
    if not skill.info.usable_in_aro:
        return "not_usable_in_aro"
    eligibility = order_to_resolve(state).eligible.get(reactor.id)
    if eligibility is None:
        return "aro_not_valid"
    if (eligibility.zoc_only and not allowed_without_line_of_fire(eligibility, skill)
            and not _ever_in_line_of_fire(state, reactor)):
        return "zone_of_control_only" if eligibility.zone_of_control else "no_line_of_fire"
    return None


def _ever_in_line_of_fire(state: GameState, reactor: TrooperState) -> bool:
    """Whether some activated trooper was in ``reactor``'s LoF at a point of its path."""
    return any(aro_target_point(state, reactor, state.trooper(t), None) is not None
               for t in order_to_resolve(state).activated)


def _aro_at_path_point(state: GameState, reactor: TrooperState, skill: BsAttack | Discover,
                       active: TrooperState) -> Plan:
    """A BS Attack or Discover ARO, taken against the active trooper at one point of its
    path: the point the reactive player chose (seed 000 "All at Once": "choosing to shoot at
    the end of the Movement"), else the last one where it has LoF (and, for a Direct
    Template, that it reaches). The range, cover and MODs are those of that point."""
    path = order_to_resolve(state).for_trooper(active.id).path
    if skill.target_point is not None and not on_path(path, skill.target_point):
        return idle(reactor, skill, "not_on_route")  # refused at declaration (aro.py)
    weapon = (state.armies[reactor.side].weapon(skill.weapon)
              if isinstance(skill, BsAttack) else None)
    point = aro_target_point(state, reactor, active, skill.target_point, weapon)
    if point is None:
        return idle(reactor, skill, "no_line_of_fire")
    body = reacting_body(state, reactor, active)
    if isinstance(skill, Discover):
        return planned_discover(state, reactor, skill, body, point, active=False)
    if _camouflaged(state, active.id) and not shoots_markers(reactor):
        return idle(reactor, skill, "target_camouflaged")
    assert weapon is not None
    if is_direct_template(weapon):
        area = template_area(state, reactor, body, weapon, active, active.body(point))
        if area.problem is not None:
            return idle(reactor, skill, area.problem)
        return template_plan(state, reactor, weapon, area, body, active.body(point))
    # In Suppressive Fire an SF weapon shoots with the SF Mode profile, Burst 3 (DIGEST 9).
    return planned_shot(state, reactor, aro_weapon(reactor, weapon), active, body, active.body(point),
                 aro_burst(reactor, weapon), active=False)


def _aro_forward_observer(state: GameState, reactor: TrooperState, skill: ForwardObserver,
                          active: TrooperState) -> Plan:
    """A Forward Observer ARO: like a BS Attack ARO, at the chosen point of the active
    trooper's path (else the last one in LoF), Burst 1 (forward_observer.py)."""
    path = order_to_resolve(state).for_trooper(active.id).path
    if skill.target_point is not None and not on_path(path, skill.target_point):
        return idle(reactor, skill, "not_on_route")
    point = aro_target_point(state, reactor, active, skill.target_point)
    if point is None:
        return idle(reactor, skill, "no_line_of_fire")
    if _camouflaged(state, active.id):
        return idle(reactor, skill, "target_camouflaged")
    body = reacting_body(state, reactor, active)
    return planned_forward_observer(state, reactor, skill, body, active.body(point), ARO_BURST,
                                    active=False)


def template_aro_problem(state: GameState, reactor: TrooperState, skill: BsAttack) -> str | None:
    """Why a Direct Template ARO would be Idle though the reactor sees the active trooper
    (its Main Target beyond the teardrop, an ally under it: ``_aro_at_path_point``), taken
    at the point it would be taken at; None for any other ARO, or when there is none."""
    weapon = state.armies[reactor.side].weapon(skill.weapon)
    target_id = first_target(skill)
    order = order_to_resolve(state)
    if not is_direct_template(weapon) or target_id not in order.activated:
        return None
    active = state.trooper(target_id)
    if skill.target_point is not None and not on_path(order.for_trooper(active.id).path,
                                                      skill.target_point):
        return None
    point = aro_target_point(state, reactor, active, skill.target_point, weapon)
    if point is None:
        return None
    body = reacting_body(state, reactor, active)
    return template_area(state, reactor, body, weapon, active, active.body(point)).problem


def reacting_body(state: GameState, reactor: TrooperState, active: TrooperState) -> Body:
    """The reactor as it looks at ``active``: with Sixth Sense (N5) it sees 360 degrees when
    ``active`` declared an Attack on it in this Order (DIGEST 13); otherwise its front arc.
    Terrain and models still block."""
    body = reactor.body()
    order = order_to_resolve(state)
    eligibility = order.eligible.get(reactor.id)
    if (eligibility is not None and eligibility.sixth_sense and has_sixth_sense(state, reactor)
            and reactor.id in attacked_by(order.for_trooper(active.id))):
        return replace(body, all_round_vision=True)
    return body


def aro_target_point(state: GameState, reactor: TrooperState, active: TrooperState,
                     chosen: Point | None, weapon: Weapon | None = None) -> Point | None:
    """The point of the active trooper's path an ARO is taken against (DIGEST 6.3).

    The chosen point if the reactor has LoF there; by default the last sampled point of the
    path where it has LoF (with a Direct Template ``weapon``, the last one where its template
    goes off: reaching the active trooper, no ally under it; if any); None when it never
    has LoF. ``active`` is the activated trooper the ARO targets (a Controller or one of its
    Peripherals), along its own path.
    """
    order = order_to_resolve(state).for_trooper(active.id)
    blockers = blocking_bodies(state, reactor.id, active.id)
    body = reacting_body(state, reactor, active)
    if chosen is not None:
        visible = sees(state, reactor, body, active, active.body(chosen))
        return chosen if visible else None
    points = points_of_route_in_lof(body, active.body(), order.path or (order.start,),
                                    state.table, blockers,
                                    through_smoke=sees_through_smoke(reactor))
    if weapon is not None and is_direct_template(weapon):
        reached = [p for p in points
                   if template_area(state, reactor, body, weapon, active, active.body(p)).problem
                   is None]
        points = tuple(reached) or points
    return points[-1] if points else None
