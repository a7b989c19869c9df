"""Declaring the active trooper's skills (Order Expenditure Sequence steps 1.2 and 3).

Everything is fixed at declaration (seed 000): a movement fixes its whole route and places
the trooper at its end; a BS Attack names weapon, targets, Burst split and firing point.
An impossible command (a skill or weapon the trooper lacks, a route it cannot take, a
Retreat! or Impetuous restriction...) is rejected here with a reason. A Requirement a
player learns only by trying at the table (Line of Fire to the target, a target inside the
Hacking Area or a Direct Template's reach, base contact for a CC Attack:
``unmet_requirement``) is accepted, and at resolution the skill becomes Idle
with the Order spent (seed 000, Resolution step); so is what depends on the other side's
simultaneous declarations (a Discover that must succeed first). ``options`` offers only
declarations whose Requirements hold. Classification: docs/rules-decisions/README.md.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..armies.skills import (
    DODGE_MOVE_LIMIT,
    MOVEMENT_SKILLS,
    SUPPORT_SKILLS,
    ActivateObjective,
    Berserk,
    BsAttack,
    CautiousMove,
    CcAttack,
    ClassifiedAction,
    Climb,
    CommsAttack,
    Discover,
    Dodge,
    ForwardObserver,
    Idle,
    Jump,
    Move,
    PeripheralSkill,
    PlaceDeployable,
    Reset,
    Skill,
    SuppressiveFire,
)
from ..armies.weapons import Weapon, WeaponKind
from ..combat.direct_templates import is_direct_template, template_area
from ..combat.forward_observer import check_forward_observer
from ..combat.hacking import check_hacker_and_program, in_hacking_area
from ..combat.immobilized import check_immobilized_may_declare
from ..combat.mines import placement_problem as mine_placement_problem
from ..combat.mines import target_or_mine
from ..combat.mods import blocking_bodies
from ..combat.multispectral_visor import sees_through_smoke, shoots_markers
from ..combat.smoke import check_zone_declaration, sees_point, zone_kind
from ..combat.stunned import check_stunned_may_declare
from ..combat.support_skills import check_support_declaration
from ..combat.suppressive_fire import check_may_enter as check_may_enter_suppressive_fire
from ..combat.wounds import Condition
from ..commands import DeclareSkill
from ..decision import Rejection, require
from ..events import Event, SkillDeclared
from ..evolve import replace
from ..ids import Side, TrooperId, WeaponId
from ..missions.classified_skill import check_action as check_classified_action
from ..missions.classified_skill import usable_while_engaged
from ..missions.consoles import check_activation
from ..reasons import Reason
from ..state import ActiveOrder, GameState, OrderStep, TrooperState
from ..table.engaged import check_engaged_may_declare
from ..table.geometry import Body, Point, in_base_contact
from ..table.line_of_fire import has_line_of_fire
from ..table.routes import check_route
from . import berserk
from .command_tokens import check_coordinated_skills
from .declarations import acting_body, coordinated, on_path, required_burst, supports_coordinated_cc
from .difficult_terrain import dodge_after_entering_problem, reactive_move_problem
from .fireteams import check_member_skills, fireteam_order, member_may_idle
from .impetuous import check_impetuous_route, check_impetuous_skill
from .movement_checks import check_movement, obstacles
from .order_structure import may_follow
from .retreat import check_retreat_may_declare
from .super_jump import follows_in_own_order, structure_name


def decide_declare_skill(state: GameState, side: Side, command: DeclareSkill) -> list[Event]:
    order = state.order
    require(state.active is side, Reason.NOT_YOUR_TURN, "Only the active player declares skills.")
    require(order is not None, Reason.WRONG_PHASE, "Activate a trooper first.")
    assert order is not None
    require(
        order.step in (OrderStep.FIRST_SKILL, OrderStep.SECOND_SKILL),
        Reason.WRONG_PHASE,
        "The reactive player is declaring AROs; wait for the window to close.",
    )
    skill = command.skill
    info = skill.info
    require(
        info.usable_in_active_turn, Reason.SKILL_NOT_ALLOWED, f"{info.name} cannot be declared in your turn."
    )
    profile = state.trooper(order.trooper).profile
    if order.skills:
        first = order.skills[0].TYPE
        require(
            may_follow(structure_name(profile, first), structure_name(profile, skill.TYPE)),
            Reason.ILLEGAL_SKILL_COMBINATION,
            f"{skill.TYPE} cannot follow {first} in the same Order: one Entire Order skill, two "
            "Short Movement skills, or one Short Movement skill and one Short Skill.",
        )
    check_impetuous_skill(order, skill)
    trooper = state.trooper(order.trooper)
    check_active_skill(state, order, trooper, skill)
    # The Peripherals' routes are judged with the Controller at the end of its own.
    moved, _ = _carried_out(state, trooper, order.path, skill)
    _check_peripheral_skills(state.with_trooper(moved), order, skill, command.peripherals)
    return [SkillDeclared(order.number, trooper.id, len(order.skills) + 1, skill, command.peripherals)]


def _check_peripheral_skills(
    state: GameState, order: ActiveOrder, skill: Skill, declared: Sequence[PeripheralSkill]
) -> None:
    """In a joint activation every Peripheral declares the Controller's skill with its own
    details (DIGEST 2: the same skills, targets may differ), checked like the Controller's.
    ``state`` has the Controller where its skill leaves it; each Peripheral's skill is
    checked with those declared before it carried out too, so that no two of them end a
    movement on one another (the General Movement Rules; docs/rules-decisions/README.md)."""
    table = state  # with the skills declared so far carried out
    named = [p.trooper for p in declared]
    require(
        sorted(named) == sorted(order.peripherals),
        Reason.ILLEGAL_SKILL_COMBINATION,
        "Declare the skill for each Peripheral activated with its Controller, and only for them"
        if order.peripherals
        else "Only a Controller activated with its Peripherals declares skills for them.",
    )
    check_member_skills(state, order, skill, declared)  # a Fireteam's Order (fireteams.py)
    for entry in declared:
        participant = state.trooper(entry.trooper)
        own = order.peripheral_skills.get(entry.trooper, ())
        if not follows_in_own_order(participant.profile, [s.TYPE for s in own], skill.TYPE):
            # Its own first skill took its whole Order (a Jump without Super-Jump beside a
            # Super-Jumping leader's): it declares nothing more, so Idle (wiki "Super-Jump").
            require(isinstance(entry.skill, Idle), Reason.ILLEGAL_SKILL_COMBINATION,
                    f"{participant.profile.name} cannot declare {skill.TYPE.replace('_', ' ')} after "
                    f"its {own[0].TYPE.replace('_', ' ')} in this Order (that took its whole Order): it "
                    "declares Idle.")
            continue
        if isinstance(entry.skill, Idle) and member_may_idle(state, order, skill):
            continue
        if isinstance(entry.skill, Idle) and not isinstance(skill, Idle) and (
                coordinated(state, order) or fireteam_order(state, order) is not None):
            # DIGEST 3.4: a participant that cannot perform the Spearhead's skill performs
            # Idle, the others act; only for what its own state forbids (Engaged, Stunned...).
            require(
                barred_by_state(state, state.trooper(entry.trooper), skill),
                Reason.ILLEGAL_SKILL_COMBINATION,
                f"{entry.trooper} must perform the Spearhead's (or Fireteam leader's) skill "
                f"({skill.TYPE}); it declares "
                "Idle instead only when its state forbids that skill (Engaged, Stunned, "
                "Immobilized, cannot move).",
            )
            continue
        require(
            entry.skill.TYPE == skill.TYPE,
            Reason.ILLEGAL_SKILL_COMBINATION,
            f"{entry.trooper} must perform the same skill as its Controller ({skill.TYPE}).",
        )
        peripheral_order = order.for_trooper(entry.trooper)
        peripheral = table.trooper(entry.trooper)
        check_active_skill(table, peripheral_order, peripheral, entry.skill)
        moved, _ = _carried_out(table, peripheral, peripheral_order.path, entry.skill)
        table = table.with_trooper(moved)
    check_coordinated_skills(state, order, skill, declared)


def barred_by_state(state: GameState, trooper: TrooperState, skill: Skill) -> bool:
    """Whether the trooper's own state forbids it ``skill`` in its Active Turn whatever its
    details: Retreat!, Immobilized-B, Stunned, Engaged, or a movement with no MOV. Only the
    skill's type is looked at, so a bare instance of it will do."""
    if isinstance(skill, MOVEMENT_SKILLS) and trooper.profile.mov[0] <= 0:
        return True
    try:
        check_retreat_may_declare(state, trooper, skill, in_aro=False)
        check_immobilized_may_declare(state, trooper, skill, in_aro=False)
        check_stunned_may_declare(trooper, skill)
        check_engaged_may_declare(state, trooper, skill, in_aro=False)
    except Rejection:
        return True
    return False


SKILL_PROBES: dict[str, Skill] = {
    "move": Move(()), "cautious_move": CautiousMove(()), "jump": Jump(()), "climb": Climb(()),
    "bs_attack": BsAttack(WeaponId(""), ()), "cc_attack": CcAttack(WeaponId(""), TrooperId("")),
    "discover": Discover(TrooperId("")), "comms_attack": CommsAttack("", TrooperId("")),
    "dodge": Dodge(), "reset": Reset(),
}
"""A bare instance of each skill a Coordinated Order's troopers may share, for
``barred_by_state`` (options: which of them a participant would perform as Idle)."""


def unmet_requirement(state: GameState, order: ActiveOrder, trooper: TrooperState,
                      skill: Skill) -> str | None:
    """A Requirement of an accepted declaration that the table already shows unmet, or None.

    Seed 000: such a skill is still declared; at Resolution it "does not meet its
    Requirements" and is Idle, the Order (or its share of it) spent. ``decide`` therefore
    accepts it (a player learns Line of Fire and the Hacking Area only by trying, as at the
    table); ``options`` offers only declarations with none, so the client offers what will
    work. The reasons are ``BecameIdle`` reasons (attacks.py), which settles them: at
    Resolution a Direct Template beyond its reach loses that target alone, as a BS Attack
    without LoF to one of its targets does (DIGEST 5.2)."""
    if isinstance(skill, BsAttack):
        shooter = acting_body(order, trooper, skill.firing_point or order.path[-1])
        weapon = state.armies[trooper.side].weapon(skill.weapon)
        if skill.zone_at is not None and not sees_point(state, trooper, shooter, skill.zone_at):
            return "no_line_of_fire"
        for assignment in skill.targets:
            target = _named(state, assignment.trooper)
            if not sees(state, trooper.id, shooter, target):
                return "no_line_of_fire"
            if is_direct_template(weapon):  # reach, terrain, allies under it
                problem = template_area(state, trooper, shooter, weapon, target).problem
                if problem is not None:
                    return problem
    elif isinstance(skill, Berserk):  # judged where it stands, before it moves
        return berserk.out_of_reach(state, trooper, trooper.body(), skill)
    elif isinstance(skill, CcAttack) and not supports_coordinated_cc(state, order, trooper.id, skill):
        if not in_base_contact(trooper.body(), _named(state, skill.target).body()):
            return "not_in_base_contact"
    elif isinstance(skill, Discover):
        target = _named(state, skill.target)
        if not any(sees(state, trooper.id, acting_body(order, trooper, p), target)
                   for p in order.path):
            return "no_line_of_fire"
    elif isinstance(skill, CommsAttack) and not in_hacking_area(
            state, trooper, _named(state, skill.target).body()):
        return "outside_hacking_area"
    elif isinstance(skill, SUPPORT_SKILLS) and skill.target != trooper.id and not in_base_contact(
            trooper.body(), _named(state, skill.target).body()):
        return "not_in_silhouette_contact"
    elif isinstance(skill, ForwardObserver) and not sees(
            state, trooper.id, acting_body(order, trooper, order.path[-1]),
            _named(state, skill.target)):
        return "no_line_of_fire"
    return None


def _named(state: GameState, target_id: TrooperId) -> TrooperState:
    """The trooper a declaration names, or the Mine (combat/mines.py)."""
    found = target_or_mine(state, target_id)
    assert found is not None, f"{target_id} is not on the table"
    return found


def check_active_skill(state: GameState, order: ActiveOrder, trooper: TrooperState, skill: Skill) -> None:
    check_retreat_may_declare(state, trooper, skill, in_aro=False)
    check_immobilized_may_declare(state, trooper, skill, in_aro=False)
    check_stunned_may_declare(trooper, skill)
    if not usable_while_engaged(state, skill):  # Classified Objectives: a card that says so
        check_engaged_may_declare(state, trooper, skill, in_aro=False)
    if isinstance(skill, Berserk):  # a movement and a CC Attack (orders/berserk.py)
        berserk.check_declaration(state, trooper, skill, obstacles(state, trooper.id, mover=trooper.side))
        _check_cc_attack(state, order, trooper, skill.weapon, skill.target)
    elif isinstance(skill, MOVEMENT_SKILLS):
        check_movement(state, order, trooper, skill.route, skill)
        check_impetuous_route(state, order, trooper, skill, skill.route)
    elif isinstance(skill, BsAttack):
        _check_bs_attack(state, order, trooper, skill)
    elif isinstance(skill, CcAttack):
        _check_cc_attack(state, order, trooper, skill.weapon, skill.target)
    elif isinstance(skill, Discover):
        _check_discover(state, order, trooper, skill)
    elif isinstance(skill, Dodge):
        check_dodge_route(state, trooper, skill.route)
        entered = dodge_after_entering_problem(state.table, order, trooper, skill.route)
        require(entered is None, Reason.BAD_ROUTE, entered or "")
    elif isinstance(skill, CommsAttack):
        _check_comms_attack(state, trooper, skill)
    elif isinstance(skill, SUPPORT_SKILLS):
        check_support_declaration(state, trooper, skill)
    elif isinstance(skill, ForwardObserver):
        check_forward_observer(trooper)
        _check_discovered_first(order, enemy_target(state, trooper, skill.target))
    elif isinstance(skill, SuppressiveFire):
        check_may_enter_suppressive_fire(state, trooper)
    elif isinstance(skill, PlaceDeployable):
        problem = mine_placement_problem(state, trooper, order.for_trooper(trooper.id).path, skill)
        require(problem is None, Reason.BAD_POSITION, problem or "")
    elif isinstance(skill, ActivateObjective):  # a mission marker (missions/consoles.py)
        check_activation(state, trooper, skill)
    elif isinstance(skill, ClassifiedAction):  # Classified Objectives (missions/classified_skill.py)
        check_classified_action(state, trooper, skill)


def check_dodge_route(state: GameState, trooper: TrooperState, route: Sequence[Point]) -> None:
    if not route:
        return
    problem = check_route(route, trooper.body(), DODGE_MOVE_LIMIT, state.table,
                          obstacles(state, trooper.id, mover=trooper.side))
    if problem is not None:
        require(False, Reason.BAD_ROUTE, f"Dodge movement: {problem.message}")
    area = reactive_move_problem(state.table, trooper, route)  # Special Terrain: stops there
    require(area is None, Reason.BAD_ROUTE, f"Dodge movement: {area}")


def weapon_of(state: GameState, trooper: TrooperState, weapon_id: str) -> Weapon:
    profile = trooper.profile
    require(
        weapon_id in profile.weapons,
        Reason.UNKNOWN_WEAPON,
        f"{profile.name} does not carry {weapon_id}.",
    )
    weapon = state.armies[trooper.side].weapon(WeaponId(weapon_id))
    if weapon.disposable is not None:
        used = trooper.weapon_uses.get(weapon.id, 0)
        require(used < weapon.disposable, Reason.NO_AMMUNITION, f"{weapon.name} has no uses left.")
    return weapon


def enemy_target(state: GameState, trooper: TrooperState, target_id: TrooperId) -> TrooperState:
    target = target_or_mine(state, target_id)  # a Mine too (combat/mines.py)
    require(
        target is not None and target.side is not trooper.side and target.on_table,
        Reason.BAD_TARGET,
        f"{target_id} is not an enemy on the table.",
    )
    assert target is not None
    require(not target.is_null, Reason.BAD_TARGET, "That trooper is already out of the fight.")
    return target


def sees(state: GameState, viewer_id: TrooperId, viewer: Body, target: TrooperState) -> bool:
    """Line of Fire from ``viewer`` (trooper ``viewer_id`` standing there) to ``target``."""
    blockers = blocking_bodies(state, viewer_id, target.id)
    return has_line_of_fire(viewer, target.body(), state.table, blockers,
                            sees_through_smoke(state.trooper(viewer_id)))


def _check_bs_attack(state: GameState, order: ActiveOrder, trooper: TrooperState, skill: BsAttack) -> None:
    weapon = weapon_of(state, trooper, skill.weapon)
    require(
        weapon.kind in (WeaponKind.BALLISTIC, WeaponKind.DIRECT_TEMPLATE),
        Reason.UNKNOWN_WEAPON,
        f"{weapon.name} is not a shooting weapon.",
    )
    check_zone_declaration(state, weapon, skill)
    if zone_kind(weapon) is not None:  # Smoke or Eclipse: aimed at a point, no target
        require(on_path(order.path, skill.firing_point or order.path[-1]), Reason.BAD_ROUTE,
                "The firing point must be a point the trooper has already occupied in this Order.")
        return
    require(bool(skill.targets), Reason.BAD_TARGET, "Name at least one target.")
    ids = [a.trooper for a in skill.targets]
    require(len(set(ids)) == len(ids), Reason.BAD_TARGET, "Name each target once.")
    firing_point = skill.firing_point or order.path[-1]
    require(
        on_path(order.path, firing_point),
        Reason.BAD_ROUTE,
        "The firing point must be a point the trooper has already occupied in this Order.",
    )
    if weapon.kind is WeaponKind.DIRECT_TEMPLATE:
        templates = required_burst(state, trooper.id, weapon.burst)
        require(
            all(a.burst == 1 for a in skill.targets) and len(skill.targets) == templates,
            Reason.BAD_BURST,
            f"{weapon.name} places {templates} template{'s' if templates > 1 else ''}: name "
            f"{'one Main Target' if templates == 1 else 'a Main Target for each'} (Burst 1 "
            "each); it points at that target and hits every trooper under it.",
        )
    else:
        burst = sum(a.burst for a in skill.targets)
        full = required_burst(state, trooper.id, weapon.burst)  # a Coordinated Order's is less
        require(
            all(a.burst >= 1 for a in skill.targets) and burst == full,
            Reason.BAD_BURST,
            f"Split the full Burst of {weapon.name} ({full}) between the targets.",
        )
    for assignment in skill.targets:
        target = enemy_target(state, trooper, assignment.trooper)
        if not shoots_markers(trooper):  # a Multispectral Visor L3 needs no Discover
            _check_discovered_first(order, target)


def _check_discovered_first(order: ActiveOrder, target: TrooperState) -> None:
    """An Attack on a Camouflage Marker is declared only after Discover on it in the same
    Order: the wiki's Discover + Attack manoeuvre ("Discover"; DIGEST 12). At Resolution the
    Attack is Idle unless that Discover succeeded or the marker revealed itself by an ARO
    (resolution._drop_undiscovered). ``target.marker`` is what the active player sees: a
    reactive marker that declared an ARO is already a model (aro.apply_aro_declared)."""
    discovering = {s.target for s in order.skills if isinstance(s, Discover)}
    require(
        not target.marker or target.id in discovering,
        Reason.BAD_TARGET,
        "A Camouflage Marker cannot be attacked until it is Discovered (declare Discover first).",
    )


def _check_cc_attack(state: GameState, order: ActiveOrder, trooper: TrooperState, weapon_id: str,
                     target_id: TrooperId) -> None:
    weapon = weapon_of(state, trooper, weapon_id)
    require(
        weapon.kind is WeaponKind.CLOSE_COMBAT, Reason.UNKNOWN_WEAPON, f"{weapon.name} is not a CC weapon."
    )
    target = state.troopers.get(target_id)
    if target is not None and target.on_table and target.condition is Condition.UNCONSCIOUS:
        require(target.side is not trooper.side, Reason.BAD_TARGET, f"{target_id} is not an enemy.")
    else:  # an Unconscious enemy may be finished off (Coup de Grâce, DIGEST 7.7)
        target = enemy_target(state, trooper, target_id)
    _check_discovered_first(order, target)
    # Base contact is a Requirement checked at Resolution (seed 000 step 6; DIGEST 5.2): a
    # CC Attack declared out of contact is accepted and Idle (``unmet_requirement``).


def _check_discover(state: GameState, order: ActiveOrder, trooper: TrooperState, skill: Discover) -> None:
    target = enemy_target(state, trooper, skill.target)
    require(target.marker, Reason.BAD_TARGET, "Discover targets a Camouflage Marker.")
    require(
        target.id not in trooper.failed_discover,
        Reason.BAD_TARGET,
        "This trooper failed to Discover that Marker this turn and cannot try again.",
    )


def _check_comms_attack(state: GameState, trooper: TrooperState, skill: CommsAttack) -> None:
    """A Hacker runs a program it has on an enemy trooper in Model form inside its Hacking
    Area where it stands now; no LoF needed (hacking.py, DIGEST 13)."""
    check_hacker_and_program(trooper, skill)
    target = enemy_target(state, trooper, skill.target)
    require(
        not target.marker and target.id in state.troopers,  # not a Mine (combat/mines.py)
        Reason.BAD_TARGET,
        "Hacking Programs target troopers in Model form only, not Camouflage Markers.",
    )


def apply_skill_declared(state: GameState, event: SkillDeclared) -> GameState:
    order = state.order
    assert order is not None
    trooper, path = _carried_out(state, state.trooper(event.trooper), order.path, event.skill)
    state = state.with_trooper(trooper)
    skills = dict(order.peripheral_skills)
    paths = dict(order.peripheral_paths)
    for entry in event.peripherals:
        peripheral, paths[entry.trooper] = _carried_out(
            state, state.trooper(entry.trooper), paths[entry.trooper], entry.skill
        )
        state = state.with_trooper(peripheral)
        skills[entry.trooper] = (*skills.get(entry.trooper, ()), entry.skill)
    step = OrderStep.ARO_1 if event.index == 1 else OrderStep.ARO_2
    order = replace(
        order,
        skills=(*order.skills, event.skill),
        path=path,
        peripheral_skills=skills,
        peripheral_paths=paths,
        step=step,
        window_open=False,
    )
    return replace(state, order=order)


def _carried_out(
    state: GameState, trooper: TrooperState, path: tuple[Point, ...], skill: Skill
) -> tuple[TrooperState, tuple[Point, ...]]:
    """A movement places the trooper at the end of its route and extends its path; a Berserk
    that cannot reach its target is an Idle, and the trooper stays (orders/berserk.py)."""
    if isinstance(skill, Berserk) and berserk.out_of_reach(state, trooper, trooper.body(), skill):
        return trooper, path
    if isinstance(skill, MOVEMENT_SKILLS) and len(skill.route) > 1:
        route = skill.route
        facing = skill.facing if skill.facing is not None else _heading(route[-2], route[-1])
        moved = replace(trooper, position=route[-1], facing=facing, prone=False)
        return moved, path + tuple(route[1:])
    return trooper, path


def _heading(a: Point, b: Point) -> float:
    return math.degrees(math.atan2(b[1] - a[1], b[0] - a[0])) % 360.0
