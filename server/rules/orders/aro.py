"""AROs: the reactive player's window and declarations (seed 000, "ARO: Automatic Reaction
Order"; DIGEST 6). Who may react, and what the opponent may know of it:
``aro_eligibility``.

A reactive trooper that is not eligible may still declare: its ARO fails the ARO Check at
resolution and is Idle (seed 000), a marker or hidden trooper revealed all the same.
One ARO per trooper per Order; a trooper that could declare and did not loses it; the ARO
must target a trooper activated by the Order; Burst 1; from ZoC without LoF only Dodge or
Reset (any other ARO is accepted and fails the ARO Check); troopers that became eligible
only through the second skill react at step 2.
"""

from __future__ import annotations

from ..armies.skills import (
    BsAttack,
    CautiousMove,
    CcAttack,
    CommsAttack,
    Discover,
    Dodge,
    ForwardObserver,
    PlaceDeployable,
    Skill,
)
from ..armies.weapons import WeaponKind
from ..combat.aro_plans import template_aro_problem
from ..combat.camouflage import ATTACKS, camouflaged
from ..combat.forward_observer import check_forward_observer
from ..combat.hacking import check_hacker_and_program, path_in_hacking_area
from ..combat.immobilized import check_immobilized_may_declare
from ..combat.mines import placement_problem
from ..combat.multispectral_visor import shoots_markers
from ..combat.smoke import check_zone_declaration, zone_kind
from ..combat.stunned import check_stunned_may_declare
from ..combat.suppressive_fire import aro_burst
from ..commands import CloseAroWindow, DeclareAro, PassAro
from ..decision import SYSTEM, System, require
from ..events import AroDeclared, AroPassed, AroWindowClosed, AroWindowOpened, Event
from ..evolve import replace
from ..ids import Side, TrooperId
from ..reasons import Reason
from ..state import ActiveOrder, GameState, OrderStep, TrooperState
from ..table.engaged import check_engaged_may_declare
from ..table.geometry import Point, in_base_contact
from .activation import check_dodge_route, enemy_target, weapon_of
from .aro_eligibility import eligibility, seen_by_opponent
from .declarations import allowed_without_line_of_fire, on_path
from .named_troopers import own_trooper
from .retreat import check_retreat_may_declare

NOT_ACTIVATED = "An ARO targets a trooper activated by this Order."
AT_A_MARKER = ("An Attack cannot be declared against a Camouflage Marker: it must be "
               "Discovered first, and an ARO is a single skill (react with Discover instead).")


def open_window(state: GameState) -> list[Event]:
    """Entering an ARO step: the window opens at every ARO step of every Order, whoever is
    eligible (hidden-information policy, docs/fair-play.md). Whether a window opens, and
    when it closes, then depends only on the reactive player's answer or the deadline,
    never on what only the reactive player may know (a trooper in Hidden Deployment, what a
    Camouflage Marker is): the reactive player's client answers at once when it has
    nothing to declare, and a room with uniform ARO windows holds that answer to a minimum
    time when the reactive side could react unseen (``may_react_unseen``)."""
    order = state.order
    assert order is not None
    found = eligibility(state, order)
    hidden = tuple(t for t in found if state.trooper(t).hidden)
    public = tuple(e for t, e in found.items() if seen_by_opponent(state.trooper(t)))
    return [AroWindowOpened(order.number, order.aro_step_number, tuple(found.values()), hidden,
                            public)]


def apply_aro_window_opened(state: GameState, event: AroWindowOpened) -> GameState:
    order = state.order
    assert order is not None
    eligible = {**order.eligible, **{e.trooper: e for e in event.eligible}}
    at_step = {**order.eligible_at_step, **{e.trooper: event.step for e in event.eligible}}
    order = replace(
        order,
        eligible=eligible,
        eligible_at_step=at_step,
        window_open=True,
    )
    return replace(state, order=order)


def _open_order(state: GameState, side: Side | System) -> ActiveOrder:
    order = state.order
    require(
        order is not None and order.step in (OrderStep.ARO_1, OrderStep.ARO_2) and order.window_open,
        Reason.WRONG_PHASE,
        "No ARO window is open.",
    )
    assert order is not None
    if side is not SYSTEM:
        require(side is state.reactive, Reason.NOT_YOUR_TURN, "Only the reactive player declares AROs.")
    return order


def _eligible_trooper(state: GameState, order: ActiveOrder, trooper_id: TrooperId) -> TrooperState:
    trooper = own_trooper(state, state.reactive, trooper_id)
    require(
        order.eligible_at_step.get(trooper_id) == order.aro_step_number,
        Reason.NOT_ELIGIBLE_FOR_ARO,
        "That trooper cannot react to this Order now: no Line of Fire, Zone of Control, "
        "template, Comms Attack, Hacking Area or Sixth Sense puts it in a valid situation "
        "at this step.",
    )
    require(
        trooper_id not in order.aros and trooper_id not in order.passed,
        Reason.ARO_ALREADY_DECLARED,
        "That trooper already answered this Order: one ARO per trooper per Order.",
    )
    return trooper


def _declaring_trooper(state: GameState, order: ActiveOrder, trooper_id: TrooperId) -> TrooperState:
    """The reactive trooper declaring an ARO. One the window did not list as eligible may
    still declare (seed 000: its declaration fails the ARO Check and it is Idle, its ARO
    lost; aro_plans._aro_check), since the player learns Line of Fire and Zone of Control
    only by trying. Refused: one eligible at an earlier step (its chance is gone), one that
    already answered, one that cannot act (not on the table, Null), and one in Hidden
    Deployment against Cautious Movement (DIGEST 12: it cannot react to it at all)."""
    if trooper_id in order.eligible:
        return _eligible_trooper(state, order, trooper_id)
    trooper = own_trooper(state, state.reactive, trooper_id)
    require(
        trooper_id not in order.aros,
        Reason.ARO_ALREADY_DECLARED,
        "That trooper already answered this Order: one ARO per trooper per Order.",
    )
    require(trooper.position is not None, Reason.TROOPER_NOT_ON_TABLE,
            "That trooper is not on the table.")
    require(not trooper.is_null, Reason.TROOPER_NULL,
            "That trooper is in a Null state and cannot act.")
    require(
        not (trooper.hidden and any(isinstance(s, CautiousMove) for s in order.skills)),
        Reason.NOT_ELIGIBLE_FOR_ARO,
        "A trooper in Hidden Deployment cannot react to Cautious Movement.",
    )
    return trooper


def decide_declare_aro(state: GameState, side: Side, command: DeclareAro) -> list[Event]:
    order = _open_order(state, side)
    trooper = _declaring_trooper(state, order, command.trooper)
    skill = command.skill
    require(
        skill.info.usable_in_aro,
        Reason.SKILL_NOT_ALLOWED,
        f"{skill.TYPE} cannot be declared as an ARO.",
    )
    check_retreat_may_declare(state, trooper, skill, in_aro=True)
    check_immobilized_may_declare(state, trooper, skill, in_aro=True)
    check_stunned_may_declare(trooper, skill)
    # Eligible through its Zone of Control alone, a trooper may declare any ARO: one that
    # needs LoF fails the ARO Check and is Idle (aro_plans._aro_check), as at the table.
    check_engaged_may_declare(state, trooper, skill, in_aro=True)
    _check_aro_skill(state, order, trooper, skill)
    revealed = trooper.marker or trooper.hidden
    position = trooper.position if trooper.hidden else None
    return [AroDeclared(order.number, order.aro_step_number, trooper.id, skill, revealed, position)]


def _check_aro_skill(
    state: GameState, order: ActiveOrder, trooper: TrooperState, skill: Skill
) -> None:
    activated = order.activated
    if not (isinstance(skill, BsAttack) and shoots_markers(trooper)):  # Visor L3: no Discover
        _check_not_at_a_marker(state, skill)
    if isinstance(skill, BsAttack):
        weapon = weapon_of(state, trooper, skill.weapon)
        require(
            weapon.kind in (WeaponKind.BALLISTIC, WeaponKind.DIRECT_TEMPLATE),
            Reason.UNKNOWN_WEAPON,
            f"{weapon.name} is not a shooting weapon.",
        )
        check_zone_declaration(state, weapon, skill)
        if zone_kind(weapon) is not None:  # Smoke or Eclipse: at a point, Burst 1 (smoke.py)
            return
        require(
            len(skill.targets) == 1 and skill.targets[0].trooper in activated,
            Reason.BAD_TARGET,
            "An ARO targets one trooper activated by this Order (Burst is never split in ARO).",
        )
        burst = aro_burst(trooper, weapon)  # 3 in Suppressive Fire with an SF weapon
        require(skill.targets[0].burst == burst, Reason.BAD_BURST,
                "In Suppressive Fire this weapon's ARO fires the SF Mode's Burst 3 at one target."
                if burst > 1 and trooper.suppressive_fire else
                f"With Total Reaction this ARO fires the weapon's full Burst {burst} at one target."
                if burst > 1 else "AROs have Burst 1.")
        _check_target_point(order, skill.targets[0].trooper, skill.target_point)
    elif isinstance(skill, CcAttack):
        weapon = weapon_of(state, trooper, skill.weapon)
        require(
            weapon.kind is WeaponKind.CLOSE_COMBAT, Reason.UNKNOWN_WEAPON,
            f"{weapon.name} is not a CC weapon.",
        )
        require(skill.target in activated, Reason.BAD_TARGET, NOT_ACTIVATED)
        enemy_target(state, trooper, skill.target)
        # Base contact is checked at Resolution (seed 000 step 6): Idle without it.
    elif isinstance(skill, Discover):
        require(skill.target in activated, Reason.BAD_TARGET, NOT_ACTIVATED)
        require(
            state.trooper(skill.target).marker,
            Reason.BAD_TARGET,
            "Discover targets a Camouflage Marker.",
        )
        _check_target_point(order, skill.target, skill.target_point)
    elif isinstance(skill, Dodge):
        check_dodge_route(state, trooper, skill.route)
    elif isinstance(skill, CommsAttack):
        check_hacker_and_program(trooper, skill)
        require(skill.target in activated, Reason.BAD_TARGET, NOT_ACTIVATED)
        enemy_target(state, trooper, skill.target)
    elif isinstance(skill, ForwardObserver):
        check_forward_observer(trooper)
        require(skill.target in activated, Reason.BAD_TARGET, NOT_ACTIVATED)
        enemy_target(state, trooper, skill.target)
        _check_target_point(order, skill.target, skill.target_point)
    elif isinstance(skill, PlaceDeployable):  # in Silhouette contact where it stands (mines.py)
        assert trooper.position is not None
        problem = placement_problem(state, trooper, (trooper.position,), skill)
        require(problem is None, Reason.BAD_POSITION, problem or "")


def _check_not_at_a_marker(state: GameState, skill: Skill) -> None:
    """An Attack ARO may not be declared at a trooper that is a Camouflage Marker now (seeds
    000.22 / 003.11; DIGEST 12). Judged at declaration, on what the target is at this ARO
    step: a marker that reveals itself later in the Order (by declaring an Attack as its
    second skill) does not make an ARO declared at the marker legal. Only what the reactive
    player sees is read (a marker, and the skills declared so far), and the refusal is the
    same whatever the marker hides."""
    if not isinstance(skill, ATTACKS):
        return
    targets = ([a.trooper for a in skill.targets] if isinstance(skill, BsAttack)
               else [skill.target])
    require(
        not any(t in state.troopers and camouflaged(state, t) for t in targets),
        Reason.BAD_TARGET,
        AT_A_MARKER,
    )


def _check_target_point(order: ActiveOrder, target: TrooperId, point: Point | None) -> None:
    """An ARO's chosen point (``target_point``) must lie on the route its target has declared
    so far in this Order: the route is open information, so another point is impossible,
    not a Requirement that fails at Resolution. Whether the reactor sees it there is one
    (aro_plans._aro_at_path_point: Idle without LoF at that point)."""
    if point is None or target not in order.activated:
        return
    require(
        on_path(order.for_trooper(target).path, point),
        Reason.BAD_ROUTE,
        "An ARO is taken against a point of the route the trooper has declared in this Order.",
    )


def unmet_aro_requirement(state: GameState, order: ActiveOrder, trooper: TrooperState,
                          skill: Skill) -> str | None:
    """A Requirement of an accepted ARO that the table already shows unmet, or None: a skill
    that needs LoF from a trooper eligible through its Zone of Control (or Hacking Area)
    alone, a CC Attack out of base contact, a Comms Attack on a trooper that has not been
    inside the Hacker's Hacking Area in this Order, a Direct Template whose Main Target is out
    of its teardrop or with an ally under it. Accepted, it is Idle at Resolution (seed 000;
    aro_plans._aro_check, skill_plans.planned_cc_attack, planned_comms_attack,
    aro_plans._aro_at_path_point); ``options`` offers
    only AROs with none. (A trooper not eligible at all is the ARO Check too:
    aro_plans._aro_check.)"""
    eligibility = order.eligible.get(trooper.id)
    if (eligibility is not None and eligibility.zoc_only
            and not allowed_without_line_of_fire(eligibility, skill)):
        return "zone_of_control_only" if eligibility.zone_of_control else "no_line_of_fire"
    if isinstance(skill, CcAttack) and skill.target in order.activated and not in_base_contact(
            trooper.body(), state.trooper(skill.target).body()):
        return "not_in_base_contact"
    if isinstance(skill, CommsAttack) and skill.target in order.activated:
        active = state.trooper(skill.target)
        if not path_in_hacking_area(state, trooper, active.body(),
                                    order.for_trooper(active.id).path):
            return "outside_hacking_area"
    if isinstance(skill, BsAttack):
        return template_aro_problem(state, trooper, skill)
    return None


def apply_aro_declared(state: GameState, event: AroDeclared) -> GameState:
    order = state.order
    assert order is not None
    trooper = state.trooper(event.trooper)
    if event.revealed:
        trooper = replace(trooper, marker=False, hidden=False)
    order = replace(
        order,
        aros={**order.aros, event.trooper: event.skill},
        aro_step={**order.aro_step, event.trooper: event.step},
    )
    return replace(state.with_trooper(trooper), order=order)


def decide_pass_aro(state: GameState, side: Side, command: PassAro) -> list[Event]:
    order = _open_order(state, side)
    trooper = _eligible_trooper(state, order, command.trooper)
    private = not seen_by_opponent(trooper)
    return [AroPassed(order.number, order.aro_step_number, trooper.id, private)]


def apply_aro_passed(state: GameState, event: AroPassed) -> GameState:
    order = state.order
    assert order is not None
    return replace(state, order=replace(order, passed=order.passed | {event.trooper}))


def decide_close_aro_window(
    state: GameState, side: Side | System, command: CloseAroWindow
) -> list[Event]:
    order = state.order
    current = (
        order is not None
        and order.window_open
        and order.number == command.order
        and order.aro_step_number == command.step
    )
    require(current, Reason.STALE_WINDOW, "That ARO window is already closed.")
    assert order is not None
    _open_order(state, side)
    reason = "deadline" if side is SYSTEM else "closed_by_player"
    lost = order.unanswered()
    private = tuple(t for t in lost if not seen_by_opponent(state.trooper(t)))
    public = tuple(t for t in lost if t not in private)
    return [AroWindowClosed(order.number, order.aro_step_number, public, reason, private)]


def apply_aro_window_closed(state: GameState, event: AroWindowClosed) -> GameState:
    order = state.order
    assert order is not None
    ends_here = event.step == 2 or _entire_order(state, order)
    step = OrderStep.RESOLUTION if ends_here else OrderStep.SECOND_SKILL
    return replace(state, order=replace(order, step=step, window_open=False))


def _entire_order(state: GameState, order: ActiveOrder) -> bool:
    from .order_structure import ends_order
    from .super_jump import structure_name

    profile = state.trooper(order.trooper).profile
    return bool(order.skills) and ends_order(structure_name(profile, order.skills[0].TYPE))
