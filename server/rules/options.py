"""What a seat may do now: the legal choices a client offers its player.

``seat_options(state, side)`` answers by asking the rules core itself: every candidate
command is put through the same validation ``engine.decide`` uses (the command handlers,
without the automatic follow-ups), and only the accepted ones are listed. So the client
never duplicates a rule, and a choice it offers is one the server accepts (movement routes
aside: a route's legality depends on the points the player draws; the skills that take a
route are offered when the Order's structure allows them and the trooper may move at all
(it has a MOV value, it is not Engaged), and the route is judged on declaration).

The answer is the seat's own information plus open information: sight lines are listed
only towards troopers the seat can see on the table (never towards Hidden Deployment).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import commands as c
from .armies.army_catalogue import sample_armies
from .armies.army_selection import decide_choose_army
from .armies.skills import (
    SKILLS,
    BsAttack,
    BurstAssignment,
    CcAttack,
    CommsAttack,
    Discover,
    Dodge,
    Idle,
    Reset,
    Skill,
    SuppressiveFire,
)
from .armies.weapons import WeaponKind
from .combat.guts import GUTS_MOVE
from .combat.guts_choice import decide_choose_guts_failure
from .combat.guts_window import decide_choose_guts_move, open_guts_window, window_rule
from .combat.hacking import PROGRAMS
from .combat.suppressive_fire import aro_burst
from .combat.wounds import Condition
from .decision import Rejection
from .evolve import replace
from .ids import Side, TrooperId, WeaponId
from .orders.activation import (
    SKILL_PROBES,
    barred_by_state,
    decide_declare_skill,
    sees,
    unmet_requirement,
)
from .orders.airborne import combat_jumps, decide_keep_airborne
from .orders.aro import decide_declare_aro, decide_pass_aro, unmet_aro_requirement
from .orders.command_tokens import (
    LIMIT_TOKENS,
    REMOVE_ORDERS,
    SUPPRESSIVE_FIRE,
    TRANSFER_TROOPER,
    decide_coordinate_order,
    decide_spend_command_token,
    may_coordinate,
)
from .orders.declarations import coordinated, required_burst
from .orders.deployment import HOLD_BACK, decide_end_deployment_step, deployer, placed, reserves_of
from .orders.game_sequence import decide_end_impetuous_phase, decide_end_turn
from .orders.hidden_deployment import decide_reveal
from .orders.impetuous import describe as describe_impetuous
from .orders.impetuous import impetuous
from .orders.impetuous import may_declare as may_declare_impetuous
from .orders.initiative import decide_choose_initiative, decide_choose_remaining
from .orders.lieutenant import decide_appoint_lieutenant
from .orders.order_pool import decide_activate
from .orders.order_structure import may_follow
from .plain import Plain
from .previews import preview, shown
from .state import ActiveOrder, GameState, OrderStep, OrderType, Phase, TrooperState
from .table.geometry import Point, in_base_contact

ROUTE_SKILLS = ("move", "cautious_move", "jump", "climb")
"""Skills whose legality depends on the route the player draws (judged on declaration)."""


def _accepted(handler: Callable[[GameState, Any, Any], object], state: GameState,
              side: Side, command: c.Command) -> bool:
    try:
        handler(state, side, command)
    except Rejection:
        return False
    return True


_ANY_ENTROPY = "0" * 64
"""A well-formed contribution to try each army with: only the army decides the answer."""


def _armies(state: GameState, side: Side) -> list[str]:
    """The army lists the seat may choose: those of the game's format, or only its
    registered army at a table that holds it to one."""
    if state.phase is not Phase.ARMY_SELECTION:
        return []
    return [army for army in sorted(sample_armies()) if _accepted(
        decide_choose_army, state, side, c.ChooseArmy(army, _ANY_ENTROPY))]


def seat_options(state: GameState, side: Side) -> dict[str, Plain]:
    """The seat's legal choices now.

    ``{"choose_army": [army list id], "initiative": [command body], "deploy": [trooper],
    "deploy_hidden": [trooper], "reserve": trooper | None, "reserves": [trooper], "end_deployment_step": bool,
    "activate": {trooper: [order types]}, "peripherals": {controller: [its Peripherals that may
    activate on the same Order]}, "reveal": [trooper], "keep_airborne": [trooper],
    "combat_jump": {trooper: {"ph", "fallback": [x, y], "fallback_facing"}}, "end_turn": bool,
    "end_impetuous_phase": bool, "skills": {...} | None, "aros": {trooper: [...]},
    "sight": {trooper: [enemy ids it has Line of Fire to]},
    "guts_failure": {trooper: whether it now fails its Guts Rolls},
    "close_aro_window": {"order", "step"} | None, "guts_move": {"order", "trooper", "reason",
    "default", "points", "max_move"} | None, "appoint_lieutenant": [trooper],
    "command_tokens": [spend_command_token body], "coordinate": {spearhead: [troopers that
    may join its Coordinated Order]}}`` (shapes in docs/client.md). Empty lists/maps when the
    seat has nothing to do.
    """
    order = state.order
    deploying = deployer(state) is side
    reserves = reserves_of(state, side) if deploying else ()
    waiting = [t for t in state.troopers_of(side)
               if deploying and not placed(t) and t not in reserves]
    activations = _activations(state, side) if order is None else {}
    return {
        "choose_army": _armies(state, side),
        "initiative": _initiative(state, side),
        "deploy": [t.id for t in waiting],
        "deploy_hidden": [t.id for t in waiting if t.profile.hidden_deployment],
        "reserve": reserves[0].id if reserves else None,
        "reserves": [t.id for t in reserves],
        "end_deployment_step": deploying and _accepted(
            decide_end_deployment_step, state, side, c.EndDeploymentStep()),
        "activate": activations,
        "peripherals": _peripherals(state, side, activations) if order is None else {},
        "reveal": _reveals(state, side) if order is None else [],
        "keep_airborne": [t.id for t in state.troopers_of(side) if deploying and _accepted(
            decide_keep_airborne, state, side, c.KeepAirborne(t.id))],
        "combat_jump": combat_jumps(state, side) if order is None else {},
        "end_turn": order is None and _accepted(decide_end_turn, state, side, c.EndTurn()),
        "end_impetuous_phase": order is None and _accepted(
            decide_end_impetuous_phase, state, side, c.EndImpetuousPhase()),
        "skills": _skills(state, side, order) if order is not None else None,
        "aros": _aros(state, side, order) if order is not None else {},
        "sight": _sight(state, side) if state.phase not in _SETUP_PHASES else {},
        "guts_failure": _guts_failure(state, side),
        "close_aro_window": _close_aro_window(state, side, order),
        "guts_move": _guts_move(state, side),
        "appoint_lieutenant": [
            t.id for t in state.troopers_of(side)
            if _accepted(decide_appoint_lieutenant, state, side, c.AppointLieutenant(t.id))],
        "command_tokens": _command_tokens(state, side) if order is None else [],
        "coordinate": _coordinate(state, side) if order is None else {},
    }


def _coordinate(state: GameState, side: Side) -> dict[str, Plain]:
    """Per trooper that may be the Spearhead of a Coordinated Order now, the troopers that
    may join it (its Combat Group's; any 1 to 3 of them). Each pair is judged by the rules
    core; a larger set of these is accepted too (the same checks, per trooper)."""
    if state.active is not side or state.phase is not Phase.ORDERS:
        return {}
    able = [t for t in state.troopers_of(side) if may_coordinate(state, t)]
    found: dict[str, Plain] = {}
    for spearhead in able:
        joining = [t.id for t in able if t is not spearhead
                   and t.entry.combat_group == spearhead.entry.combat_group
                   and _accepted(decide_coordinate_order, state, side,
                                 c.CoordinateOrder(spearhead.id, (t.id,)))]
        if joining:
            found[spearhead.id] = joining
    return found


def _command_tokens(state: GameState, side: Side) -> list[Plain]:
    """The complete ``spend_command_token`` bodies the seat may send now (the Strategic
    uses, each pair of the opponent's pools to remove Regular Orders from, each trooper
    and Combat Group of the Executive transfer, each own trooper that may enter Suppressive
    Fire, the first player's deployment hold-back); none while it holds no token."""
    tokens = state.command_tokens
    if tokens.held.get(side, 0) <= 0:
        return []
    if state.phase is Phase.DEPLOYMENT:
        hold_back = {"type": "spend_command_token", "use": HOLD_BACK}
        return [hold_back] if _accepted(decide_spend_command_token, state, side,
                                        c.parse_command(hold_back)) else []
    if state.phase not in (Phase.IMPETUOUS, Phase.ORDERS):
        return []
    candidates: list[dict[str, Plain]] = [{"type": "spend_command_token", "use": LIMIT_TOKENS}]
    if state.active is not side:
        candidates += [{"type": "spend_command_token", "use": SUPPRESSIVE_FIRE, "trooper": t.id}
                       for t in state.troopers_of(side) if t.on_table and not t.marker]
    groups = sorted(g for g, n in state.orders.pools.items() if n > 0)
    candidates += [{"type": "spend_command_token", "use": REMOVE_ORDERS, "combat_groups": [a, b]}
                   for i, a in enumerate(groups) for b in groups[i:]]
    candidates += [{"type": "spend_command_token", "use": REMOVE_ORDERS, "combat_groups": [g]}
                   for g in groups]
    if state.active is side:
        candidates += [{"type": "spend_command_token", "use": TRANSFER_TROOPER,
                        "trooper": t.id, "combat_group": group}
                       for t in state.troopers_of(side) if t.on_table and not t.marker
                       for group in state.armies[side].combat_groups()
                       if group != t.entry.combat_group]
    return [body for body in candidates
            if _accepted(decide_spend_command_token, state, side, c.parse_command(body))]


def _close_aro_window(state: GameState, side: Side, order: ActiveOrder | None) -> Plain:
    """The open ARO window the seat must close when it is done declaring (the window never
    closes by itself before its deadline), or None."""
    if order is None or not order.window_open or state.reactive is not side:
        return None
    return {"order": order.number, "step": order.aro_step_number}


def _guts_move(state: GameState, side: Side) -> Plain:
    """The Guts movement the seat must choose now (``combat/guts_window.py``), or None:
    the Order and trooper, the rule the movement must satisfy (``reason``), the ``default``
    route (taken by a ``choose_guts_move`` with no route, and at the deadline), and the
    candidate end points that satisfy the rule (``points``, the default's first), each
    reached by a straight route from the trooper. Any other route of at most ``max_move``
    inches is judged by the same test on ``choose_guts_move``."""
    due = open_guts_window(state)
    rule = window_rule(state)
    order = state.order
    if due is None or rule is None or order is None or state.trooper(due.trooper).side is not side:
        return None
    default = c.ChooseGutsMove(order.number, due.trooper)
    if not _accepted(decide_choose_guts_move, state, side, default):
        return None
    start = state.trooper(due.trooper).position
    assert start is not None
    return {
        "order": order.number,
        "trooper": due.trooper,
        "reason": rule.reason,
        "default": [list(start), list(rule.default)],
        "points": [list(p) for p in rule.points],
        "max_move": GUTS_MOVE,
    }


_SETUP_PHASES = (Phase.ARMY_SELECTION, Phase.INITIATIVE, Phase.GAME_OVER)

_ZONES = ("north", "south")
_INITIATIVE_CANDIDATES: tuple[dict[str, Plain], ...] = (
    *({"type": "choose_initiative", "keep": "initiative", "first": first} for first in (True, False)),
    *({"type": "choose_initiative", "keep": "deployment", "first": first, "zone": zone}
      for zone in _ZONES for first in (True, False)),
    *({"type": "choose_remaining", "first": first} for first in (True, False)),
    *({"type": "choose_remaining", "first": first, "zone": zone}
      for zone in _ZONES for first in (True, False)),
)
"""Every shape of the roll-off choices (DIGEST 11.1); the rules core says which fit now."""
_INITIATIVE_HANDLERS: dict[str, Callable[[GameState, Any, Any], object]] = {
    "choose_initiative": decide_choose_initiative,
    "choose_remaining": decide_choose_remaining,
}


def _initiative(state: GameState, side: Side) -> list[Plain]:
    """The complete ``choose_initiative`` / ``choose_remaining`` command bodies the seat may
    send now: the roll-off winner's six (keep Initiative playing first or second; keep
    Deployment in either zone, deploying first or second), then the loser's four (after
    Initiative: zone and deployment order) or two (after Deployment: play first or
    second). Each is a fresh dict the client may send as it is."""
    if state.phase is not Phase.INITIATIVE:
        return []
    return [dict(body) for body in _INITIATIVE_CANDIDATES
            if _accepted(_INITIATIVE_HANDLERS[str(body["type"])], state, side,
                         c.parse_command(body))]


def _activations(state: GameState, side: Side) -> dict[str, Plain]:
    if state.active is not side:
        return {}
    found: dict[str, Plain] = {}
    for trooper in state.troopers_of(side):
        kinds = [kind.value for kind in OrderType
                 if _accepted(decide_activate, state, side, c.Activate(trooper.id, kind))]
        if kinds:
            found[trooper.id] = kinds
    return found


def _peripherals(state: GameState, side: Side, activations: dict[str, Plain]) -> dict[str, Plain]:
    """Per Controller the player may activate now (``activations``), the Peripherals that
    may act on the same Order (a joint activation: ``activate.peripherals``)."""
    found: dict[str, Plain] = {}
    for controller_id, kinds in activations.items():
        controller = state.trooper(TrooperId(controller_id))
        kind = OrderType(kinds[0])  # which Peripherals may join does not depend on the Order type
        joining = [t.id for t in state.troopers_of(side)
                   if t.entry.controller is not None and t.entry.controller == controller.entry.id
                   and _accepted(decide_activate, state, side,
                                 c.Activate(controller.id, kind, peripherals=(t.id,)))]
        if joining:
            found[controller_id] = joining
    return found


def _reveals(state: GameState, side: Side) -> list[Plain]:
    return [t.id for t in state.troopers_of(side)
            if t.hidden and _accepted(decide_reveal, state, side, c.Reveal(t.id))]


def _weapons(state: GameState, trooper: TrooperState, kinds: tuple[WeaponKind, ...]) -> list[Any]:
    army = state.armies[trooper.side]
    return [army.weapon(WeaponId(w)) for w in trooper.profile.weapons
            if army.weapon(WeaponId(w)).kind in kinds]


_SHOOTING = (WeaponKind.BALLISTIC, WeaponKind.DIRECT_TEMPLATE)


def _skills(state: GameState, side: Side, order: ActiveOrder) -> Plain:
    """The active trooper's next declaration: which skills, and for each attack which
    weapon may hit which target (a shooting weapon's full Burst on one target is the
    check; any split of that Burst between listed targets is legal).

    In a joint activation (a Controller with its Peripherals) each activated trooper's
    choices are judged on its own projection of the Order, as the rules core judges each
    Peripheral's declaration (``ActiveOrder.for_trooper``); the Controller's are the main
    answer and each Peripheral's are under ``peripherals``. The declaration then gives
    every Peripheral a skill of the Controller's type."""
    if state.active is not side or order.step not in (OrderStep.FIRST_SKILL, OrderStep.SECOND_SKILL):
        return None
    solo = replace(order, peripherals=(), peripheral_skills={}, peripheral_paths={})
    result = _trooper_skills(replace(state, order=solo), side, solo)
    if order.peripherals:
        result["peripherals"] = {
            p: _trooper_skills(replace(state, order=order.for_trooper(p)), side, order.for_trooper(p))
            for p in order.peripherals}
        if coordinated(state, order):  # DIGEST 3.4: the skills its state makes it perform as Idle
            for p in order.peripherals:
                result["peripherals"][p]["idle_for"] = [
                    name for name, probe in SKILL_PROBES.items()
                    if barred_by_state(state, state.trooper(p), probe)]
                result["peripherals"][p]["cc_attack"] = _coordinated_cc_support(
                    state, state.trooper(p), result["peripherals"][p]["cc_attack"])
    return result


def _coordinated_cc_support(state: GameState, trooper: TrooperState,
                            offered: dict[str, Plain]) -> dict[str, Plain]:
    """A Coordinated Order's trooper other than the Spearhead: its CC Attack only adds +1 B to
    the Spearhead's when it is in base contact with the target (DIGEST 3.4; the rules core
    accepts it anywhere, as support that rolls nothing), so it is offered against the enemies
    it touches only: an enemy across the table is no CC target a player would be shown."""
    touching = {t.id for t in state.troopers_of(trooper.side.other)
                if t.on_table and in_base_contact(trooper.body(), t.body())}
    return {weapon: kept for weapon, targets in offered.items()
            if (kept := [t for t in targets if t in touching])}


def _trooper_skills(state: GameState, side: Side, order: ActiveOrder) -> dict[str, Plain]:
    """One activated trooper's choices (``state.order`` is ``order``, its own projection)."""
    trooper = state.trooper(order.trooper)
    first = order.skills[0].TYPE if order.skills else None
    allowed = [name for name, info in SKILLS.items()
               if info.usable_in_active_turn and (first is None or may_follow(first, name))
               and (not impetuous(order) or may_declare_impetuous(first, name))]

    def legal(skill: Skill) -> bool:
        # decide also accepts a declaration whose Requirements fail (it becomes Idle, seed
        # 000); only those that hold are offered.
        return (_accepted(decide_declare_skill, state, side, c.DeclareSkill(skill))
                and unmet_requirement(state, order, trooper, skill) is None)

    enemies = [t for t in state.troopers_of(side.other) if t.on_table and not t.is_null]
    result: dict[str, Plain] = {"index": len(order.skills) + 1,
                                "coordinated": coordinated(state, order),
                                "route_skills": [s for s in ROUTE_SKILLS if s in allowed
                                                 and _may_move(state, side, trooper, s)],
                                "impetuous": describe_impetuous(state, order, trooper)
                                if impetuous(order) else None}
    result["idle"] = "idle" in allowed and legal(Idle())
    result["dodge"] = "dodge" in allowed and legal(Dodge())
    result["reset"] = "reset" in allowed and legal(Reset())
    result["suppressive_fire"] = "suppressive_fire" in allowed and legal(SuppressiveFire())
    result["bs_attack"] = _shots(state, trooper, enemies, legal, None) if "bs_attack" in allowed else {}
    # A BS Attack after a move may be fired from an earlier point of the path (its corners:
    # the points the player drew); the default firing point is where the trooper stands.
    corners = list(dict.fromkeys(order.path[:-1]))
    result["firing_points"] = [
        {"point": list(point), "bs_attack": found}
        for point in corners
        if "bs_attack" in allowed and (found := _shots(state, trooper, enemies, legal, point))
    ]
    # Unconscious enemies too: a CC Attack on one is a Coup de Grâce (DIGEST 7.7).
    in_reach = [t for t in state.troopers_of(side.other)
                if t.on_table and t.condition is not Condition.DEAD]
    result["cc_attack"] = _by_weapon(
        state, trooper, in_reach, (WeaponKind.CLOSE_COMBAT,),
        lambda w, t: "cc_attack" in allowed and legal(CcAttack(w, t)))
    result["discover"] = [t.id for t in enemies
                          if "discover" in allowed and legal(Discover(t.id))]
    result["comms_attack"] = {
        program: targets for program in (PROGRAMS if trooper.profile.hacker else ())
        if (targets := [t.id for t in enemies
                        if "comms_attack" in allowed and legal(CommsAttack(program, t.id))])
    }
    return result


def _shots(state: GameState, trooper: TrooperState, enemies: list[TrooperState],
           legal: Callable[[Skill], bool], point: Point | None) -> dict[str, Plain]:
    """Shooting weapons and the targets each may hit from ``point`` of the path (None: the
    default firing point), each with what Resolution would make of the full Burst on it
    (``previews``: the MODs and Success Value, or the template hit). A shot Resolution
    would make Idle as things stand (no LoF, a template out of reach...) is not offered; one
    that would fail automatically (beyond its longest range band, SV below 1) is a legal
    declaration and is offered, flagged ``automatic_failure``."""
    found: dict[str, Plain] = {}
    side = trooper.side
    for weapon in _weapons(state, trooper, _SHOOTING):
        full = required_burst(state, trooper.id, weapon.burst)  # less in a Coordinated Order
        burst = 1 if weapon.kind is WeaponKind.DIRECT_TEMPLATE else full
        shots: dict[str, Plain] = {}
        for target in enemies:
            skill = BsAttack(weapon.id, (BurstAssignment(target.id, burst),), firing_point=point)
            if not legal(skill):
                continue
            plan = preview(state, side, c.DeclareSkill(skill))
            if plan is not None and (seen := shown(state, side, plan)) is not None:
                shots[target.id] = seen
        if shots:
            found[weapon.id] = {"burst": full, "template": weapon.kind is WeaponKind.DIRECT_TEMPLATE,
                                "targets": list(shots), "shots": shots}
    return found


def _may_move(state: GameState, side: Side, trooper: TrooperState, skill: str) -> bool:
    """Whether the trooper may declare this movement skill at all (it can move, it is not
    Engaged...): the rules core is asked with a route that stays where the trooper stands;
    the route the player then draws is judged on declaration (in an Impetuous activation
    against DIGEST 3.6's priorities, which ``skills.impetuous`` states)."""
    assert trooper.position is not None
    if state.order is not None and impetuous(state.order):
        state = replace(state, order=replace(state.order, order_type=OrderType.REGULAR))
    route = (trooper.position,)
    candidate = c.parse_command(
        {"type": "declare_skill", "skill": {"type": skill, "route": [list(route[0])]}})
    return _accepted(decide_declare_skill, state, side, candidate)


def _by_weapon(state: GameState, trooper: TrooperState, enemies: list[TrooperState],
               kinds: tuple[WeaponKind, ...],
               legal: Callable[[WeaponId, TrooperId], bool]) -> dict[str, Plain]:
    found: dict[str, Plain] = {}
    for weapon in _weapons(state, trooper, kinds):
        targets = [t.id for t in enemies if legal(weapon.id, t.id)]
        if targets:
            found[weapon.id] = targets
    return found


def _aros(state: GameState, side: Side, order: ActiveOrder) -> dict[str, Plain]:
    """Per trooper that must answer the open ARO window: what it may declare."""
    if not order.window_open or state.reactive is not side:
        return {}
    activated = order.activated
    found: dict[str, Plain] = {}
    for trooper_id in order.unanswered():
        trooper = state.trooper(trooper_id)
        if not _accepted(decide_pass_aro, state, side, c.PassAro(trooper_id)):
            continue

        def legal(skill: Skill, who: TrooperId = trooper_id) -> bool:
            return (_accepted(decide_declare_aro, state, side, c.DeclareAro(who, skill))
                    and unmet_aro_requirement(state, order, state.trooper(who), skill) is None)

        def each(names: Any, make: Callable[[Any, TrooperId], Skill]) -> dict[str, Plain]:
            found_targets = {name: [t for t in activated if legal(make(name, t))] for name in names}
            return {name: targets for name, targets in found_targets.items() if targets}

        def at_points(make: Callable[[Any, TrooperId], BsAttack | Discover], names: Any,
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
                                  for w in _weapons(state, trooper, _SHOOTING)}

        def shot(w: Any, t: TrooperId, bursts: dict[str, int] = bursts) -> BsAttack:
            return BsAttack(w, (BurstAssignment(t, bursts[w]),))

        shot_points = at_points(shot, list(bursts))
        shots = {w: list(per_target) for w, per_target in shot_points.items()}
        blows = each([w.id for w in _weapons(state, trooper, (WeaponKind.CLOSE_COMBAT,))], CcAttack)
        hacks = each(list(PROGRAMS) if trooper.profile.hacker else [], CommsAttack)
        discover_points = at_points(lambda _, t: Discover(t), ["discover"]).get("discover", {})
        spotted = list(discover_points)
        found[trooper_id] = {
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
        }
    return found


def _aro_points(state: GameState, side: Side, reactor: TrooperId,
                skill: BsAttack | Discover) -> list[Plain]:
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


def _guts_failure(state: GameState, side: Side) -> dict[str, Plain]:
    """Each own trooper whose standing Guts choice may be changed now (N5: any not Dead),
    with its current value (True: its Guts Rolls are chosen failures)."""
    return {t.id: t.fails_guts for t in state.troopers_of(side)
            if _accepted(decide_choose_guts_failure, state, side,
                         c.ChooseGutsFailure(t.id, not t.fails_guts))}


def _sight(state: GameState, side: Side) -> dict[str, Plain]:
    """Line of Fire from each of the seat's troopers on the table to each enemy it sees."""
    enemies = [t for t in state.troopers_of(side.other) if t.on_table]
    found: dict[str, Plain] = {}
    for trooper in state.troopers_of(side):
        if not trooper.on_table:
            continue
        body = trooper.body()
        found[trooper.id] = [t.id for t in enemies if sees(state, trooper.id, body, t)]
    return found
