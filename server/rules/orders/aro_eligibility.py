"""ARO eligibility: which reactive troopers may react to an Order, and why (seed 000, "ARO:
Automatic Reaction Order"; DIGEST 6, 9, 12, 13); and what of it the opponent may know.

A reactive trooper is eligible if the active trooper, at any point of its path in this
Order, is in its Line of Fire, its Zone of Control or (for a Hacker) its Hacking Area, or
if a template weapon affects it, or it is the target of a Comms Attack (or, with Sixth
Sense, of any Attack). The window and the declarations: ``aro``.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..armies.skills import MOVEMENT_SKILLS, BsAttack, CautiousMove, CommsAttack
from ..combat.direct_templates import is_direct_template, template_area
from ..combat.hacking import in_hacking_area, path_in_hacking_area
from ..combat.mods import blocking_bodies_by_trooper, without
from ..combat.multispectral_visor import openly_sees_through_smoke
from ..ids import Side, TrooperId
from ..ruleset import options
from ..state import ActiveOrder, Eligibility, GameState, TrooperState
from ..table.geometry import Body
from ..table.line_of_fire import has_line_of_fire
from ..table.route_sight import RouteSight
from ..table.zone_of_control import RouteInZones, in_zone_of_control
from .declarations import acting_body, attacked_by
from .fireteams import grants_sixth_sense


def may_react(trooper: TrooperState) -> bool:
    """On the table (or hidden, able to reveal in ARO) and not in a Null state."""
    return trooper.position is not None and not trooper.is_null


def eligibility(state: GameState, order: ActiveOrder) -> dict[TrooperId, Eligibility]:
    """Reactive troopers eligible now that were not eligible at an earlier step.

    In a joint activation (a Controller with its Peripherals) a trooper is eligible through
    any activated trooper, each along its own path.
    """
    side = state.trooper(order.trooper).side
    found: dict[TrooperId, Eligibility] = {}
    for activated in order.activated:
        for reactor_id, why in _eligibility_through(state, order.for_trooper(activated)).items():
            known = found.get(reactor_id)
            if known is not None:
                why = Eligibility(
                    reactor_id,
                    known.line_of_fire or why.line_of_fire,
                    known.zone_of_control or why.zone_of_control,
                    known.template or why.template,
                    known.sixth_sense or why.sixth_sense,
                    known.comms_target or why.comms_target,
                    known.hacking_area or why.hacking_area,
                )
            found[reactor_id] = why
    # Keep the reactive side's roster order whatever trooper made each one eligible.
    roster = [t.id for t in state.troopers_of(side.other)]
    return {t: found[t] for t in roster if t in found}


def _eligibility_through(state: GameState, order: ActiveOrder) -> dict[TrooperId, Eligibility]:
    """Eligibility caused by one activated trooper (``order.trooper``) along its path."""
    active = state.trooper(order.trooper)
    mover = active.body()
    template_targets = _template_targets(state, order)
    attacked = attacked_by(order) if options(state.ruleset).sixth_sense else set()
    hacked = comms_targets(order)
    cautious = any(isinstance(s, CautiousMove) for s in order.skills)
    found: dict[TrooperId, Eligibility] = {}
    # Once for every reactive trooper: the route's samples and terrain, and the blocking
    # bodies if a sight line is ever needed. The viewer's own body may stay among the
    # blockers: ``has_line_of_fire`` ignores a blocker equal to the viewer, and the
    # viewer's entry is built alike (``TrooperState.body``).
    sight = RouteSight(mover, order.path, state.table,
                       lambda: without(blocking_bodies_by_trooper(state), active.id))
    zones = RouteInZones(mover, order.path)
    for trooper in state.troopers_of(active.side.other):
        if trooper.id in order.eligible or not may_react(trooper):
            continue
        if cautious and trooper.hidden:
            continue  # Hidden Deployment cannot react to Cautious Movement (DIGEST 9)
        viewer = trooper.body()
        lof = sight.seen_by(viewer, openly_sees_through_smoke(trooper))
        zoc = zones.entered_by(viewer)
        template = trooper.id in template_targets
        sixth_sense = ((trooper.profile.sixth_sense or grants_sixth_sense(state, trooper.id))
                       and trooper.id in attacked)  # a Level 5 Fireteam's members too
        comms_target = trooper.id in hacked
        if cautious:
            # N5: Cautious Movement starting or ending inside a Hacking Area is seen by
            # that Hacker (DIGEST 9); otherwise only its start and end points count.
            ends = (order.path[0], order.path[-1])
            area = trooper.profile.hacker and any(
                in_hacking_area(state, trooper, mover.moved_to(p)) for p in ends)
            if not _cautious_move_seen(state, order, viewer, mover, sight.blockers(),
                                       openly_sees_through_smoke(trooper)):
                lof = zoc = False
        else:
            area = trooper.profile.hacker and path_in_hacking_area(
                state, trooper, mover, order.path)
        if lof or zoc or template or sixth_sense or comms_target or area:
            found[trooper.id] = Eligibility(trooper.id, lof, zoc, template, sixth_sense,
                                            comms_target, area)
    return found


def seen_by_opponent(trooper: TrooperState) -> bool:
    """Whether the opponent may know that ``trooper`` is eligible: only when it stands on
    the table as a model. A trooper in Hidden Deployment is not there for the opponent, and
    a Camouflage Marker may be a Mine (combat/mines.py), which is never eligible for an ARO:
    listing the markers with Line of Fire or Zone of Control would single the Mines out, and
    a marker's eligibility through its private profile (Sixth Sense, Hacking Area) would say
    what it is. Such troopers' eligibility, passes and lost AROs are private; a declared ARO
    reveals its trooper as always (docs/fair-play.md)."""
    return not (trooper.hidden or trooper.marker)


def may_react_unseen(state: GameState, side: Side) -> bool:
    """Whether, as far as the opponent can tell, ``side`` could hold a trooper whose
    presence or ARO eligibility is private: a Camouflage Marker (its Sixth Sense or Hacking
    Area), or a trooper whose list entry may deploy hidden or by Combat Jump that is not on
    the table as a model (in Hidden Deployment, airborne -- or, for all the opponent knows,
    either). Only public facts decide it (the lists are public; markers and models on the
    table are seen), so the answer is the same whatever the private facts: uniform ARO
    windows (docs/fair-play.md) hold a window's close on it without telling anything."""
    mine_marker = any(d.side is side and not d.discovered  # a marker to the opponent too
                      for d in state.deployables.values())
    return mine_marker or any(trooper.marker
                              or ((trooper.profile.hidden_deployment or trooper.profile.combat_jump)
                                  and not trooper.on_table)
                              for trooper in state.troopers_of(side))


def comms_targets(order: ActiveOrder) -> set[TrooperId]:
    """Troopers named by a Comms Attack declared so far by ``order.trooper``."""
    return {s.target for s in order.skills if isinstance(s, CommsAttack)}


def _cautious_move_seen(
    state: GameState, order: ActiveOrder, viewer: Body, mover: Body, blockers: Sequence[Body],
    through_smoke: bool = False,
) -> bool:
    """Cautious Movement gives AROs only if it starts or ends in LoF or ZoC (DIGEST 9)."""
    ends = (order.path[0], order.path[-1])
    return any(
        has_line_of_fire(viewer, mover.moved_to(p), state.table, blockers, through_smoke)
        or in_zone_of_control(viewer, mover.moved_to(p))
        for p in ends
    )


def _template_targets(state: GameState, order: ActiveOrder) -> set[TrooperId]:
    """Troopers affected by a Direct Template declared in this Order (placed at declaration,
    aimed at the Main Target named for it from the firing point): every enemy under the
    teardrop, named or not, Camouflage Markers too (combat/direct_templates.py). A template
    that fails (its Main Target beyond its reach) or is cancelled (an ally under it) affects
    no one, so it makes no one eligible."""
    active = state.trooper(order.trooper)
    army = state.armies[active.side]
    found: set[TrooperId] = set()
    standing = order.start
    for skill in order.skills:
        if isinstance(skill, MOVEMENT_SKILLS) and skill.route:
            standing = skill.route[-1]
        if not isinstance(skill, BsAttack):
            continue
        weapon = army.weapon(skill.weapon)
        if not is_direct_template(weapon):
            continue
        shooter = acting_body(order, active, skill.firing_point or standing)
        for share in skill.targets:
            target = state.troopers.get(share.trooper)
            if target is not None and target.on_table and target.side is not active.side:
                found.update(template_area(state, active, shooter, weapon, target).affected)
    return found
