"""The active trooper's next declaration (``options.skills``): which skills, and for each
attack which weapon may hit which target, with what Resolution would make of it; in a joint
activation each Peripheral's choices too."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from .. import commands as c
from ..armies.skills import (
    SKILLS,
    ActivateObjective,
    BsAttack,
    BurstAssignment,
    CcAttack,
    CommsAttack,
    Discover,
    Doctor,
    Dodge,
    Engineer,
    ForwardObserver,
    Idle,
    Paramedic,
    Reset,
    Skill,
    SuppressiveFire,
)
from ..armies.weapons import WeaponKind
from ..combat.hacking import PROGRAMS
from ..combat.mines import mine_targets, placement_offer
from ..combat.smoke import zone_kind, zone_offer
from ..combat.wounds import Condition
from ..evolve import replace
from ..ids import Side, TrooperId, WeaponId
from ..orders.activation import (
    SKILL_PROBES,
    barred_by_state,
    decide_declare_skill,
    unmet_requirement,
)
from ..orders.declarations import coordinated, required_burst
from ..orders.impetuous import describe as describe_impetuous
from ..orders.impetuous import impetuous
from ..orders.impetuous import may_declare as may_declare_impetuous
from ..orders.movement_checks import movement_allowance
from ..orders.order_structure import may_follow
from ..orders.super_jump import follows_in_own_order, structure_name
from ..plain import Plain
from ..previews import preview, shown
from ..state import ActiveOrder, GameState, OrderStep, OrderType, TrooperState
from ..table.geometry import Point, in_base_contact
from .accepted import SHOOTING, accepted, carried_weapons
from .berserk import berserk_offers
from .fireteams import restrict_members

ROUTE_SKILLS = ("move", "cautious_move", "jump", "climb")
"""Skills whose legality depends on the route the player draws (judged on declaration)."""


def skill_options(state: GameState, side: Side, order: ActiveOrder) -> Plain:
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
        for p in order.peripherals:
            result["peripherals"][p]["idle_for"] = _idle_for(state, order, state.trooper(p))
            if not follows_in_own_order(state.trooper(p).profile,
                                        [s.TYPE for s in order.peripheral_skills.get(p, ())], "idle"):
                result["peripherals"][p]["idle"] = True  # its whole Order is taken: Idle only
        if coordinated(state, order):
            for p in order.peripherals:
                result["peripherals"][p]["cc_attack"] = _coordinated_cc_support(
                    state, state.trooper(p), result["peripherals"][p]["cc_attack"])
        restrict_members(state, order, result)  # a Fireteam's members follow or stay Idle
    return result


def _idle_for(state: GameState, order: ActiveOrder, trooper: TrooperState) -> list[str]:
    """The leader's skills a participant of a joint activation performs as Idle, as the rules
    core has it declare them (``activation._check_peripheral_skills``): in a Coordinated
    Order those its state forbids (DIGEST 3.4); in any joint activation those that cannot
    follow its own skills in its Order (after a Jump without Super-Jump beside a
    Super-Jumping leader's: every skill, wiki "Super-Jump")."""
    own = [s.TYPE for s in order.peripheral_skills.get(trooper.id, ())]
    barred = {name for name, probe in SKILL_PROBES.items()
              if coordinated(state, order) and barred_by_state(state, trooper, probe)}
    barred |= {name for name, info in SKILLS.items()
               if info.usable_in_active_turn and not follows_in_own_order(trooper.profile, own, name)}
    return sorted(barred)


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
    profile = trooper.profile
    allowed = [name for name, info in SKILLS.items()
               if info.usable_in_active_turn and (first is None or may_follow(
                   structure_name(profile, first), structure_name(profile, name)))
               and (not impetuous(order) or may_declare_impetuous(first, name))]

    def legal(skill: Skill) -> bool:
        # decide also accepts a declaration whose Requirements fail (it becomes Idle, seed
        # 000); only those that hold are offered.
        return (accepted(decide_declare_skill, state, side, c.DeclareSkill(skill))
                and unmet_requirement(state, order, trooper, skill) is None)

    # The enemy's Mines as targets too, as markers until Discovered (combat/mines.py), all
    # in id order so that a Mine's place in a list tells nothing.
    enemies = sorted([*(t for t in state.troopers_of(side.other) if t.on_table and not t.is_null),
                      *mine_targets(state, side.other)], key=lambda t: t.id)
    route_skills = [s for s in ROUTE_SKILLS if s in allowed and _may_move(state, side, trooper, s)]
    result: dict[str, Plain] = {"index": len(order.skills) + 1,
                                "coordinated": coordinated(state, order),
                                "route_skills": list(route_skills),
                                # How far each movement may go, Special Terrain included
                                # (orders/difficult_terrain.py); entering an area stops it.
                                "allowances": {s: movement_allowance(order, trooper, SKILL_PROBES[s],
                                                                     state.table)
                                               for s in route_skills},
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
    # Smoke and Eclipse are aimed at a point the player picks: offered per weapon with the
    # Success Value of each range band (combat/smoke.py), when such a declaration is legal.
    result["zones"] = {
        weapon.id: zone_offer(trooper, weapon, required_burst(state, trooper.id, weapon.burst))
        for weapon in carried_weapons(state, trooper, SHOOTING)
        if zone_kind(weapon) is not None and "bs_attack" in allowed and trooper.position
        and accepted(decide_declare_skill, state, side, c.DeclareSkill(
            BsAttack(weapon.id, (), zone_at=trooper.position)))}
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
    # Berserk (orders/berserk.py): a route straight into contact, with the CC roll's preview.
    result["berserk"] = berserk_offers(state, side, trooper, allowed, legal)
    result.update(_treatments(state, side, trooper, allowed, legal))
    result["forward_observer"] = _marks(state, side, trooper, enemies, allowed, legal)
    # Place Deployable: each Mine with a use left, to place touching the trooper at a point
    # of its path (combat/mines.py); empty when the skill cannot follow the first one.
    result["place_deployable"] = (placement_offer(state, trooper, order.for_trooper(trooper.id).path)
                                  if "place_deployable" in allowed else {})
    result["activate"] = _activations(state, side, trooper, allowed, legal)
    return result


def _activations(state: GameState, side: Side, trooper: TrooperState, allowed: list[str],
                 legal: Callable[[Skill], bool]) -> dict[str, Plain]:
    """Activate (missions/consoles.py): the mission markers the trooper may activate now
    (in base contact, its side's to activate, a Specialist where the objective asks), each
    with the WIP Roll's preview (its MODs and final Success Value)."""
    if state.mission is None or "activate" not in allowed:
        return {}
    return _previewed(state, side, ((m.id, ActivateObjective(m.id)) for m in state.mission.markers),
                      legal)


def _treatments(state: GameState, side: Side, trooper: TrooperState, allowed: list[str],
                legal: Callable[[Skill], bool]) -> dict[str, Plain]:
    """Doctor, Paramedic and Engineer (combat/support_skills.py): for each skill the trooper
    has, the allies it may treat now (in Silhouette contact, treatable), each with the roll's
    preview (attribute, MODs, final Success Value; a Paramedic's patient rolls PH). An
    Engineer's ``engineer`` repairs a Wound, its ``engineer_states`` cancels States."""
    allies = [t for t in state.troopers_of(side) if t.on_table and not t.marker]
    candidates: dict[str, Callable[[TrooperId], Skill]] = {}
    if trooper.profile.doctor:
        candidates["doctor"] = Doctor
    if trooper.profile.paramedic:
        candidates["paramedic"] = Paramedic
    if trooper.profile.engineer:
        candidates["engineer"] = Engineer
        candidates["engineer_states"] = lambda t: Engineer(t, cancel_states=True)
    found: dict[str, Plain] = {"doctor": {}, "paramedic": {}, "engineer": {}, "engineer_states": {}}
    for name, make in candidates.items():
        if name.split("_")[0] not in allowed:
            continue
        found[name] = _previewed(state, side, ((a.id, make(a.id)) for a in allies), legal)
    return found


def _marks(state: GameState, side: Side, trooper: TrooperState, enemies: list[TrooperState],
           allowed: list[str], legal: Callable[[Skill], bool]) -> dict[str, Plain]:
    """Forward Observer (combat/forward_observer.py): the enemies it may mark now (in LoF),
    each with the roll's preview (WIP, range band, MODs, final Success Value, Burst)."""
    if not trooper.profile.forward_observer or "forward_observer" not in allowed:
        return {}
    return _previewed(state, side, ((e.id, ForwardObserver(e.id)) for e in enemies), legal)


def _previewed(state: GameState, side: Side, skills: Iterable[tuple[str, Skill]],
               legal: Callable[[Skill], bool]) -> dict[str, Plain]:
    """Each legal skill of ``skills`` (keyed by what it is declared at: a marker, an ally,
    an enemy) with the preview of its roll as the player may see it."""
    offered: dict[str, Plain] = {}
    for key, skill in skills:
        if not legal(skill):
            continue
        plan = preview(state, side, c.DeclareSkill(skill))
        if plan is not None and (seen := shown(state, side, plan)) is not None:
            offered[key] = seen
    return offered


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
    for weapon in carried_weapons(state, trooper, SHOOTING):
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
    return accepted(decide_declare_skill, state, side, candidate)


def _by_weapon(state: GameState, trooper: TrooperState, enemies: list[TrooperState],
               kinds: tuple[WeaponKind, ...],
               legal: Callable[[WeaponId, TrooperId], bool]) -> dict[str, Plain]:
    found: dict[str, Plain] = {}
    for weapon in carried_weapons(state, trooper, kinds):
        targets = [t.id for t in enemies if legal(weapon.id, t.id)]
        if targets:
            found[weapon.id] = targets
    return found
