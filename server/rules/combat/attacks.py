"""Turning an Order's declarations into the rolls to make, and pairing them (DIGEST 5-7, 9, 13).

``plan_order`` reads ``state.order`` and returns a ``Plan``: every roll to make (with its
attribute, MODs and Burst), every Direct Template hit (no roll), and the effects that follow
from the declarations themselves (ARO Check failures and failed Requirements become Idle,
Disposable uses spent, Camouflage Markers revealed). ``face_to_face_opponents`` says which
rolls are Face to Face with which: only when the two actions affect each other (7.4).

The Plan's types are in ``plan``; what each skill makes, in ``skill_plans``; the AROs, in
``aro_plans``.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..armies.skills import (
    MOVEMENT_SKILLS,
    SUPPORT_SKILLS,
    ActivateObjective,
    Berserk,
    BsAttack,
    CcAttack,
    ClassifiedAction,
    CommsAttack,
    Discover,
    Dodge,
    ForwardObserver,
    PlaceDeployable,
    Reset,
    Skill,
)
from ..armies.weapons import Weapon, WeaponKind
from ..evolve import replace
from ..ids import TrooperId
from ..missions.classified_skill import planned_action
from ..missions.consoles import planned_activation
from ..orders import berserk
from ..orders.declarations import acting_body, required_burst
from ..ruleset import options
from ..state import ActiveOrder, GameState, TrooperState
from ..table.geometry import Body, Point
from . import dodge_skill_mods, martial_arts, mines
from .aro_plans import aro_skill
from .camouflage import REVEALING_SKILLS
from .direct_templates import is_direct_template, template_area
from .fireteam_bonuses import fireteam_mods, with_sustained_dice
from .forward_observer import FORWARD_OBSERVER, planned_forward_observer
from .mods import dodge_mods, sees
from .outcome import BecameIdle, Effect, Revealed, WeaponUsed
from .plan import ARO_BURST, Plan, PlannedRoll, order_to_resolve
from .skill_plans import (
    dodge_roll,
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
from .smoke import planned_zone_roll, screens, with_screens
from .stunned import stunned_mods
from .support_skills import planned_support


def plan_order(state: GameState) -> Plan:
    """Every roll, template hit and declaration effect of the Order, active trooper first,
    then the AROs in trooper id order (the order dice are rolled in)."""
    order = order_to_resolve(state)
    plan = Plan()
    for activated in order.activated:  # a Controller, then the Peripherals it activated
        active = state.trooper(activated)
        for index, skill in enumerate(order.for_trooper(activated).skills):
            plan += _declared(state, active, skill) + _active_skill(state, active, skill, index)
    for reactor_id in sorted(order.aros):
        reactor = state.trooper(reactor_id)
        skill = order.aros[reactor_id]
        plan += _declared(state, reactor, skill) + _as_aro(aro_skill(state, reactor, skill))
    plan += mines.plan(state)  # the enemy Mines the Order set off
    return _with_opponent_mods(state, _with_state_mods(state, with_screens(state, plan)))


def plan_declaration(state: GameState, trooper_id: TrooperId, skill: Skill) -> Plan:
    """What Resolution would make of one declaration of ``state.order`` if the Order were
    resolved as it stands: its roll (with every MOD), its template hit, or the Idle it
    becomes. ``skill`` is the activated trooper's last declared skill, or an ARO declared
    in the order (``options`` previews a declaration this way, with the code Resolution
    runs). The Discover rolls of the Order are not made here: an attack on a marker that
    needs one keeps ``against_marker``."""
    order = order_to_resolve(state)
    trooper = state.trooper(trooper_id)
    if trooper_id in order.activated:
        index = len(order.for_trooper(trooper_id).skills) - 1
        return _with_state_mods(state, _active_skill(state, trooper, skill, index))
    aro = _with_state_mods(state, _as_aro(aro_skill(state, reactor=trooper, skill=skill)))
    # The active troopers' CC Attacks on this reactor are declared by now: an ARO's preview
    # includes what they impose on it in the Face to Face Roll (Martial Arts' Opponent MOD).
    # Only those are planned again: options previews every ARO, so this stays cheap.
    declared = [roll for activated in order.activated
                for index, active_skill in enumerate(order.for_trooper(activated).skills)
                if isinstance(active_skill, CcAttack) and active_skill.target == trooper_id
                for roll in _active_skill(state, state.trooper(activated), active_skill, index).rolls]
    opposed = _with_opponent_mods(state, Plan(rolls=(*declared, *aro.rolls)))
    return replace(aro, rolls=opposed.rolls[len(declared):])


def _with_opponent_mods(state: GameState, plan: Plan) -> Plan:
    """The MODs a trooper's skill imposes on the enemy rolls Face to Face with it: Martial
    Arts' Opponent MOD (``martial_arts.py``), a negative Dodge MOD (``dodge_skill_mods.py``)."""
    profiles = {roll.trooper: state.trooper(roll.trooper).profile for roll in plan.rolls}
    rolls = martial_arts.with_opponent_mods(plan.rolls, profiles)
    return replace(plan, rolls=dodge_skill_mods.with_enemy_mods(rolls, profiles))


def _with_state_mods(state: GameState, plan: Plan) -> Plan:
    """A Stunned trooper's rolls take -3, whatever the skill (DIGEST 8; ``stunned.py``); a
    Fireteam member's get its team's Bonuses (DIGEST 3.5; ``fireteam_bonuses.py``)."""
    rolls = tuple(replace(r, mods=r.mods + mods)
                  if (mods := stunned_mods(state.trooper(r.trooper))
                      + fireteam_mods(state, r.trooper, r.skill))
                  else r for r in plan.rolls)
    return replace(plan, rolls=with_sustained_dice(state, rolls))


def face_to_face_opponents(rolls: Sequence[PlannedRoll]) -> tuple[tuple[int, ...], ...]:
    """For each roll, the indexes of the rolls it is Face to Face with (DIGEST 7.4, 6.3).

    Two rolls of opposite sides are Face to Face when one is a rolled attack on the other's
    trooper and the other is a rolled attack back at the attacker, a Dodge against a BS or
    CC Attack, or a Reset against a Comms Attack (DIGEST 6.3). Everything else is a Normal
    Roll (a Reset against a BS or CC Attack, a Dodge against a Comms Attack, a Discover, an
    attack on someone who is not attacking back, any roll against a Direct Template). A
    Dodge or a Reset is one roll opposed to every such attack against its trooper.
    """
    return tuple(
        tuple(j for j, b in enumerate(rolls)
              if a.active != b.active and (_contests(a, b) or _contests(b, a)))
        for a in rolls
    )


def _contests(attack: PlannedRoll, other: PlannedRoll) -> bool:
    if other.zone_at is not None or attack.zone_at is not None:
        return screens(other, attack)  # a Smoke or Eclipse roll: only the attacks it screens
    if not attack.is_attack or attack.target != other.trooper:
        return False
    if other.is_attack:
        return other.target == attack.trooper
    return other.skill == ("reset" if attack.skill == "comms_attack" else "dodge")


# --- declarations ------------------------------------------------------------------------


def _declared(state: GameState, trooper: TrooperState, skill: Skill) -> Plan:
    """Effects of the declaration itself: Disposable uses spent, a marker revealed."""
    effects: list[Effect] = []
    weapon = _declared_weapon(state, trooper, skill)
    if weapon is not None and weapon.is_disposable:
        effects.append(WeaponUsed(trooper.id, weapon.id, _uses(skill, weapon, trooper, state)))
    if trooper.marker and isinstance(skill, REVEALING_SKILLS):
        effects.append(Revealed(trooper.id, f"declared_{skill.TYPE}"))
    return Plan(effects=tuple(effects))


def _declared_weapon(state: GameState, trooper: TrooperState, skill: Skill) -> Weapon | None:
    if isinstance(skill, (BsAttack, CcAttack)):
        return state.armies[trooper.side].weapon(skill.weapon)
    return None


def _uses(skill: Skill, weapon: Weapon, trooper: TrooperState, state: GameState) -> int:
    """One use per die declared (one per template shot), DIGEST 7.5."""
    if weapon.kind is WeaponKind.DIRECT_TEMPLATE or not isinstance(skill, BsAttack):
        return 1
    if skill.zone_at is not None:
        return required_burst(state, trooper.id, weapon.burst)
    if _is_active(state, trooper):
        return sum(share.burst for share in skill.targets)
    return ARO_BURST


def _is_active(state: GameState, trooper: TrooperState) -> bool:
    return state.order is not None and trooper.id in state.order.activated


def _as_aro(plan: Plan) -> Plan:
    """``plan`` of an ARO: its Idle records say the ARO is what was lost."""
    effects = tuple(replace(e, aro=True) if isinstance(e, BecameIdle) else e
                    for e in plan.effects)
    return replace(plan, effects=effects)


# --- the active trooper ------------------------------------------------------------------


def position_at_declaration(order: ActiveOrder, index: int) -> Point:
    """Where the active trooper stood when it declared its ``index``-th skill: the end of
    the movement declared before it, else the Order's start (DIGEST 4.1, N4 errata)."""
    position = order.start
    for skill in order.skills[:index]:
        if isinstance(skill, MOVEMENT_SKILLS) and skill.route:
            position = skill.route[-1]
    return position


def _active_skill(state: GameState, active: TrooperState, skill: Skill, index: int) -> Plan:
    order = order_to_resolve(state).for_trooper(active.id)
    if isinstance(skill, BsAttack):
        at = skill.firing_point or position_at_declaration(order, index)
        # The same body the declaration was checked with: a trooper that moved may look
        # any way from a point of its route, whatever facing it ended the move with.
        return _active_bs_attack(state, active, skill, acting_body(order, active, at))
    if isinstance(skill, Berserk):  # Idle when it could not reach (orders/berserk.py)
        reason = berserk.out_of_reach(state, active, berserk.start_body(order, active), skill)
        if reason is not None:
            return idle(active, skill, reason)
    if isinstance(skill, CcAttack):
        return planned_cc_attack(state, active, skill, active=True)
    if isinstance(skill, Discover):
        at = position_at_declaration(order, index)
        return planned_discover(state, active, skill, acting_body(order, active, at), None, active=True)
    if isinstance(skill, Dodge):
        return Plan(rolls=(_active_dodge(state, active),))
    if isinstance(skill, Reset):
        return Plan(rolls=(reset_roll(active, active=True),))
    if isinstance(skill, CommsAttack):
        return planned_comms_attack(state, active, skill, active=True)
    if isinstance(skill, SUPPORT_SKILLS):
        return planned_support(state, active, skill)
    if isinstance(skill, PlaceDeployable):
        return mines.planned_placement(state, active, skill)
    if isinstance(skill, ActivateObjective):  # a mission marker (missions/consoles.py)
        return planned_activation(state, active, skill)
    if isinstance(skill, ClassifiedAction):  # Classified Objectives (missions/classified_skill.py)
        return planned_action(state, active, skill)
    if isinstance(skill, ForwardObserver):
        shooter = acting_body(order, active, position_at_declaration(order, index))
        target = state.troopers.get(skill.target)
        victim = target.body() if target is not None and target.on_table else shooter
        burst = required_burst(state, active.id, FORWARD_OBSERVER.burst)
        return planned_forward_observer(state, active, skill, shooter, victim, burst, True)
    return Plan()  # Move, Idle and Long movement skills were carried out at declaration


def _active_bs_attack(state: GameState, active: TrooperState, skill: BsAttack,
                      shooter: Body) -> Plan:
    weapon = state.armies[active.side].weapon(skill.weapon)
    if skill.zone_at is not None:  # Smoke or Eclipse (smoke.py)
        burst = required_burst(state, active.id, weapon.burst)
        zone = planned_zone_roll(state, active, weapon, skill.zone_at, shooter, burst, True)
        return idle(active, skill, "no_line_of_fire") if zone is None else zone
    plan = Plan()
    lost: list[str] = []
    for share in skill.targets:
        problem = _target_problem(state, active, share.trooper, shooter)
        if problem is not None:
            lost.append(problem)  # N5: only the dice given to that target are lost
            continue
        target = mines.target_or_mine(state, share.trooper)  # a Discovered Mine too
        assert target is not None
        if is_direct_template(weapon):
            # One template per target named: its Main Target (direct_templates.py).
            area = template_area(state, active, shooter, weapon, target)
            if area.problem is not None:
                lost.append(area.problem)  # measured at Resolution (seed 000 step 6)
                continue
            plan += template_plan(state, active, weapon, area, shooter, target.body())
            continue
        plan += planned_shot(state, active, weapon, target, shooter, target.body(), share.burst, True)
    if lost and not plan.rolls and not plan.templates:
        return idle(active, skill, lost[0])
    return plan


def _target_problem(state: GameState, attacker: TrooperState, target_id: TrooperId,
                    shooter: Body) -> str | None:
    target = mines.target_or_mine(state, target_id)
    if target is None or not target.on_table:
        return "target_not_on_table"
    if target.side is attacker.side:
        return "target_not_enemy"
    if target.is_null:
        return "target_null"
    if not sees(state, attacker, shooter, target, target.body()):
        return "no_line_of_fire"
    return None


def _active_dodge(state: GameState, active: TrooperState) -> PlannedRoll:
    """The active trooper's Dodge: -3 [N5] if some trooper attacking it is outside its LoF."""
    order = order_to_resolve(state)
    blind = any(
        skill_target(skill) == active.id
        and not isinstance(skill, CommsAttack)  # a Dodge does not oppose a Comms Attack
        and not sees(state, active, active.body(), state.trooper(r), state.trooper(r).body())
        for r, skill in order.aros.items()
    )
    penalty = options(state.ruleset).zoc_dodge_penalty
    if has_sixth_sense(state, active):
        blind = False  # Sixth Sense: no penalty for attackers outside LoF (DIGEST 13)
    mods = dodge_mods(blind, penalty)
    return dodge_roll(active, True, mods + mines.dodge_mods(state, active.id, mods))
