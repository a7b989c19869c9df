"""Turning an Order's declarations into the rolls to make, and pairing them (DIGEST 5-7, 9, 13).

``plan_order`` reads ``state.order`` and returns a ``Plan``: every roll to make (with its
attribute, MODs and Burst), every Direct Template hit (no roll), and the effects that follow
from the declarations themselves (ARO Check failures and failed Requirements become Idle,
Disposable uses spent, Camouflage Markers revealed). ``face_to_face_opponents`` says which
rolls are Face to Face with which: only when the two actions affect each other (7.4).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..armies.skills import (
    MOVEMENT_SKILLS,
    BsAttack,
    CcAttack,
    CommsAttack,
    Discover,
    Dodge,
    Reset,
    Skill,
)
from ..armies.weapons import Weapon, WeaponKind
from ..evolve import replace
from ..ids import TrooperId, WeaponId
from ..orders.activation import acting_body, on_path
from ..orders.aro import allowed_without_line_of_fire, attacked_by
from ..orders.command_tokens import coordinated_cc_burst
from ..ruleset import options
from ..state import ActiveOrder, GameState, TrooperState
from ..table.geometry import Body, Point, distance, in_base_contact
from ..table.line_of_fire import points_of_route_in_lof
from .camouflage import REVEALING_SKILLS
from .camouflage import camouflaged as _camouflaged  # still a marker, all declarations made
from .direct_templates import TemplateArea, is_direct_template, template_area
from .hacking import PROGRAMS, comms_mods, in_hacking_area, path_in_hacking_area
from .mods import (
    RangeReading,
    blocking_bodies,
    bs_attack_mods,
    discover_mods,
    dodge_mods,
    reset_mods,
    sees,
)
from .outcome import BecameIdle, CoupDeGrace, Effect, Revealed, WeaponUsed, Wounded
from .rolls import Mod, needs_no_roll, success_value
from .stunned import stunned_mods
from .suppressive_fire import aro_burst, aro_weapon
from .wounds import Condition

ARO_BURST = 1
"""Burst in ARO (DIGEST 6.1)."""
ROLLED_ATTACKS = ("bs_attack", "cc_attack", "comms_attack")


@dataclass(frozen=True, slots=True)
class PlannedRoll:
    """One roll to make at resolution, with everything but the dice.

    ``against_marker`` is set for an attack on a Camouflaged trooper: it resolves only if
    the attacker Discovered that marker in this Order. ``partial_cover`` is the target's
    Partial Cover against this shot (it adds +3 to its saves against a BS Attack).
    ``range`` is the distance and range band of a BS Attack or Discover (None for others).
    """

    trooper: TrooperId
    active: bool
    skill: str
    target: TrooperId | None
    weapon: WeaponId | None
    attribute: str
    base: int
    mods: tuple[Mod, ...]
    burst: int
    out_of_range: bool = False
    partial_cover: bool = False
    against_marker: bool = False
    range: RangeReading | None = None

    @property
    def success_value(self) -> int:
        return success_value(self.base, self.mods)

    @property
    def is_attack(self) -> bool:
        return self.skill in ROLLED_ATTACKS

    @property
    def automatic_failure(self) -> bool:
        """No dice are rolled: out of range, or SV below 1 (DIGEST 7.1, 5.2)."""
        return self.out_of_range or needs_no_roll(self.success_value)

    @property
    def dice_count(self) -> int:
        return 0 if self.automatic_failure else self.burst


@dataclass(frozen=True, slots=True)
class TemplateHit:
    """A Direct Template weapon hitting one trooper: no attack roll (DIGEST 13).
    ``distance`` is measured between the shooter and the target's body hit."""

    attacker: TrooperId
    target: TrooperId
    weapon: WeaponId
    against_marker: bool = False
    distance: float | None = None


@dataclass(frozen=True, slots=True)
class Plan:
    rolls: tuple[PlannedRoll, ...] = ()
    templates: tuple[TemplateHit, ...] = ()
    effects: tuple[Effect, ...] = ()

    def __add__(self, other: Plan) -> Plan:
        return Plan(self.rolls + other.rolls, self.templates + other.templates,
                    self.effects + other.effects)


def plan_order(state: GameState) -> Plan:
    """Every roll, template hit and declaration effect of the Order, active trooper first,
    then the AROs in trooper id order (the order dice are rolled in)."""
    order = _order(state)
    plan = Plan()
    for activated in order.activated:  # a Controller, then the Peripherals it activated
        active = state.trooper(activated)
        for index, skill in enumerate(order.for_trooper(activated).skills):
            plan += _declared(state, active, skill) + _active_skill(state, active, skill, index)
    for reactor_id in sorted(order.aros):
        reactor = state.trooper(reactor_id)
        skill = order.aros[reactor_id]
        plan += _declared(state, reactor, skill) + _as_aro(_aro_skill(state, reactor, skill))
    return _with_state_mods(state, plan)


def plan_declaration(state: GameState, trooper_id: TrooperId, skill: Skill) -> Plan:
    """What Resolution would make of one declaration of ``state.order`` if the Order were
    resolved as it stands: its roll (with every MOD), its template hit, or the Idle it
    becomes. ``skill`` is the activated trooper's last declared skill, or an ARO declared
    in the order (``options`` previews a declaration this way, with the code Resolution
    runs). The Discover rolls of the Order are not made here: an attack on a marker that
    needs one keeps ``against_marker``."""
    order = _order(state)
    trooper = state.trooper(trooper_id)
    if trooper_id in order.activated:
        index = len(order.for_trooper(trooper_id).skills) - 1
        return _with_state_mods(state, _active_skill(state, trooper, skill, index))
    return _with_state_mods(state, _as_aro(_aro_skill(state, reactor=trooper, skill=skill)))


def _with_state_mods(state: GameState, plan: Plan) -> Plan:
    """A Stunned trooper's rolls take -3, whatever the skill (DIGEST 8; ``stunned.py``)."""
    rolls = tuple(replace(r, mods=r.mods + mods) if (mods := stunned_mods(state.trooper(r.trooper)))
                  else r for r in plan.rolls)
    return replace(plan, rolls=rolls)


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
    if not attack.is_attack or attack.target != other.trooper:
        return False
    if other.is_attack:
        return other.target == attack.trooper
    return other.skill == ("reset" if attack.skill == "comms_attack" else "dodge")


def _order(state: GameState) -> ActiveOrder:
    if state.order is None:
        raise ValueError("there is no Order to resolve")
    return state.order


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
    if _is_active(state, trooper):
        return sum(share.burst for share in skill.targets)
    return ARO_BURST


def _is_active(state: GameState, trooper: TrooperState) -> bool:
    return state.order is not None and trooper.id in state.order.activated


def _idle(trooper: TrooperState, skill: Skill, reason: str) -> Plan:
    return Plan(effects=(BecameIdle(trooper.id, skill.TYPE, reason, _skill_target(skill)),))


def _skill_target(skill: Skill) -> TrooperId | None:
    """The trooper a skill is aimed at (a BS Attack's first target), None for Dodge..."""
    if isinstance(skill, BsAttack):
        return _first_target(skill)
    if isinstance(skill, CcAttack | CommsAttack | Discover):
        return skill.target
    return None


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
    order = _order(state).for_trooper(active.id)
    if isinstance(skill, BsAttack):
        at = skill.firing_point or position_at_declaration(order, index)
        # The same body the declaration was checked with: a trooper that moved may look
        # any way from a point of its route, whatever facing it ended the move with.
        return _active_bs_attack(state, active, skill, acting_body(order, active, at))
    if isinstance(skill, CcAttack):
        return _cc_attack(state, active, skill, active=True)
    if isinstance(skill, Discover):
        at = position_at_declaration(order, index)
        return _discover(state, active, skill, acting_body(order, active, at), None, active=True)
    if isinstance(skill, Dodge):
        return Plan(rolls=(_active_dodge(state, active),))
    if isinstance(skill, Reset):
        return Plan(rolls=(_reset(active, active=True),))
    if isinstance(skill, CommsAttack):
        return _comms_attack(state, active, skill, active=True)
    return Plan()  # Move, Idle and Long movement skills were carried out at declaration


def _active_bs_attack(state: GameState, active: TrooperState, skill: BsAttack,
                      shooter: Body) -> Plan:
    weapon = state.armies[active.side].weapon(skill.weapon)
    plan = Plan()
    lost: list[str] = []
    for share in skill.targets:
        problem = _target_problem(state, active, share.trooper, shooter)
        if problem is not None:
            lost.append(problem)  # N5: only the dice given to that target are lost
            continue
        target = state.trooper(share.trooper)
        if is_direct_template(weapon):
            # One template per target named: its Main Target (direct_templates.py).
            area = template_area(state, active, shooter, weapon, target)
            if area.problem is not None:
                lost.append(area.problem)  # measured at Resolution (seed 000 step 6)
                continue
            plan += _template_plan(state, active, weapon, area, shooter, target.body())
            continue
        plan += _shot(state, active, weapon, target, shooter, target.body(), share.burst, True)
    if lost and not plan.rolls and not plan.templates:
        return _idle(active, skill, lost[0])
    return plan


def _target_problem(state: GameState, attacker: TrooperState, target_id: TrooperId,
                    shooter: Body) -> str | None:
    target = state.troopers.get(target_id)
    if target is None or not target.on_table:
        return "target_not_on_table"
    if target.side is attacker.side:
        return "target_not_enemy"
    if target.is_null:
        return "target_null"
    if not sees(state, attacker, shooter, target, target.body()):
        return "no_line_of_fire"
    return None


def _template_plan(state: GameState, attacker: TrooperState, weapon: Weapon,
                   area: TemplateArea, shooter: Body, main_body: Body) -> Plan:
    """A template that goes off: one hit, with no roll, on each enemy it affects. The Main
    Target is attacked (as a marker, only once Discovered); a Camouflage Marker merely under
    it is affected all the same and revealed to make its save (resolution.md)."""
    hits: list[TemplateHit] = []
    revealed: list[Effect] = []
    for trooper_id in area.affected:
        marker = _camouflaged(state, trooper_id)
        main = trooper_id == area.main_target
        victim = main_body if main else state.trooper(trooper_id).body()
        hits.append(TemplateHit(attacker.id, trooper_id, weapon.id, marker and main,
                                distance(shooter, victim)))
        if marker and not main:
            revealed.append(Revealed(trooper_id, "affected_by_template"))
    return Plan(templates=tuple(hits), effects=tuple(revealed))


def _shot(state: GameState, attacker: TrooperState, weapon: Weapon, target: TrooperState,
          shooter: Body, victim: Body, burst: int, active: bool) -> Plan:
    marker = _camouflaged(state, target.id)
    shot = bs_attack_mods(weapon, target, shooter, victim, state.table)
    roll = PlannedRoll(
        trooper=attacker.id, active=active, skill="bs_attack", target=target.id,
        weapon=weapon.id, attribute="BS", base=attacker.profile.bs, mods=shot.mods,
        burst=burst, out_of_range=shot.out_of_range, partial_cover=shot.partial_cover,
        against_marker=marker, range=shot.range,
    )
    return Plan(rolls=(roll,))


def _cc_attack(state: GameState, attacker: TrooperState, skill: CcAttack, active: bool) -> Plan:
    if active and coordinated_cc_burst(state, attacker.id, 1) is None:
        return Plan()  # a Coordinated Order's CC: only the Spearhead attacks (DIGEST 3.4)
    target = state.troopers.get(skill.target)
    if target is None or not target.on_table or target.side is attacker.side:
        return _idle(attacker, skill, "target_not_enemy")
    if not in_base_contact(attacker.body(), target.body()):
        return _idle(attacker, skill, "not_in_base_contact")
    if target.condition is Condition.UNCONSCIOUS:
        return _coup_de_grace(attacker, target)
    if target.is_null:
        return _idle(attacker, skill, "target_null")
    weapon = state.armies[attacker.side].weapon(skill.weapon)
    burst = coordinated_cc_burst(state, attacker.id, weapon.burst) if active else ARO_BURST
    assert burst is not None
    roll = PlannedRoll(
        trooper=attacker.id, active=active, skill="cc_attack", target=target.id,
        weapon=weapon.id, attribute="CC", base=attacker.profile.cc, mods=(),
        burst=burst,
        against_marker=_camouflaged(state, target.id),
    )
    return Plan(rolls=(roll,))


def _coup_de_grace(attacker: TrooperState, target: TrooperState) -> Plan:
    """DIGEST 7.7: a CC Attack against an Unconscious enemy kills it: no roll, no save.
    Its wounds are set beyond its VITA/STR, where the wound track says Dead."""
    wounds = max(target.wounds, target.profile.vita + 1)
    return Plan(effects=(CoupDeGrace(attacker.id, target.id),
                         Wounded(target.id, wounds, Condition.DEAD)))


def _comms_attack(state: GameState, hacker: TrooperState, skill: CommsAttack,
                  active: bool) -> Plan:
    """A program run on one enemy in Model form inside the Hacking Area (hacking.py): for the
    active Hacker where it stands, for a reacting one at some point of the target's path."""
    target = state.troopers.get(skill.target)
    if target is None or not target.on_table or target.side is hacker.side:
        return _idle(hacker, skill, "target_not_enemy")
    if target.is_null:
        return _idle(hacker, skill, "target_null")
    if _camouflaged(state, target.id):
        return _idle(hacker, skill, "target_camouflaged")
    if active:
        reached = in_hacking_area(state, hacker, target.body())
    else:
        path = _order(state).for_trooper(target.id).path
        reached = path_in_hacking_area(state, hacker, target.body(), path)
    if not reached:
        return _idle(hacker, skill, "outside_hacking_area")
    program = PROGRAMS[skill.program]
    roll = PlannedRoll(
        trooper=hacker.id, active=active, skill="comms_attack", target=target.id,
        weapon=WeaponId(program.id), attribute="WIP", base=hacker.profile.wip,
        mods=comms_mods(program, target), burst=program.burst if active else ARO_BURST,
    )
    return Plan(rolls=(roll,))


def _discover(state: GameState, seer: TrooperState, skill: Discover, seer_body: Body,
              seen_at: Point | None, active: bool) -> Plan:
    target = state.troopers.get(skill.target)
    if target is None or not target.on_table or not target.marker:
        return _idle(seer, skill, "target_not_a_marker")
    if target.id in seer.failed_discover:
        return _idle(seer, skill, "discover_already_failed")
    seen = target.body(seen_at)
    if not sees(state, seer, seer_body, target, seen):
        return _idle(seer, skill, "no_line_of_fire")
    shot = discover_mods(target, seer_body, seen, state.table)
    roll = PlannedRoll(
        trooper=seer.id, active=active, skill="discover", target=target.id, weapon=None,
        attribute="WIP", base=seer.profile.wip, mods=shot.mods, burst=1,
        out_of_range=shot.out_of_range, range=shot.range,
    )
    return Plan(rolls=(roll,))


def _active_dodge(state: GameState, active: TrooperState) -> PlannedRoll:
    """The active trooper's Dodge: -3 [N5] if some trooper attacking it is outside its LoF."""
    order = _order(state)
    blind = any(
        _aro_target(skill) == active.id
        and not isinstance(skill, CommsAttack)  # a Dodge does not oppose a Comms Attack
        and not sees(state, active, active.body(), state.trooper(r), state.trooper(r).body())
        for r, skill in order.aros.items()
    )
    penalty = options(state.ruleset).zoc_dodge_penalty
    if _has_sixth_sense(state, active):
        blind = False  # Sixth Sense: no penalty for attackers outside LoF (DIGEST 13)
    return _dodge_roll(active, True, dodge_mods(blind, penalty))


def _has_sixth_sense(state: GameState, trooper: TrooperState) -> bool:
    return trooper.profile.sixth_sense and options(state.ruleset).sixth_sense


def _dodge_roll(trooper: TrooperState, active: bool, mods: tuple[Mod, ...]) -> PlannedRoll:
    return PlannedRoll(
        trooper=trooper.id, active=active, skill="dodge", target=None, weapon=None,
        attribute="PH", base=trooper.profile.ph, mods=mods, burst=1,
    )


def _reset(trooper: TrooperState, active: bool) -> PlannedRoll:
    return PlannedRoll(
        trooper=trooper.id, active=active, skill="reset", target=None, weapon=None,
        attribute="WIP", base=trooper.profile.wip, mods=reset_mods(trooper), burst=1,
    )


# --- AROs ----------------------------------------------------------------------------------


def _aro_skill(state: GameState, reactor: TrooperState, skill: Skill) -> Plan:
    problem = _aro_check(state, reactor, skill)
    if problem is not None:
        return _idle(reactor, skill, problem)
    order = _order(state)
    if isinstance(skill, Dodge):
        eligibility = order.eligible.get(reactor.id)
        blind = (eligibility is not None and not eligibility.line_of_fire
                 and not eligibility.sixth_sense)  # Sixth Sense: no no-LoF penalty (13)
        penalty = options(state.ruleset).zoc_dodge_penalty
        return Plan(rolls=(_dodge_roll(reactor, False, dodge_mods(blind, penalty)),))
    if isinstance(skill, Reset):
        return Plan(rolls=(_reset(reactor, active=False),))
    target_id = _aro_target(skill)
    if target_id is None or target_id not in order.activated:
        return _idle(reactor, skill, "aro_must_target_active_trooper")
    active = state.trooper(target_id)
    if isinstance(skill, CcAttack):
        return _cc_attack(state, reactor, skill, active=False)
    if isinstance(skill, CommsAttack):
        return _comms_attack(state, reactor, skill, active=False)
    if isinstance(skill, (BsAttack, Discover)):
        return _aro_at_path_point(state, reactor, skill, active)
    return _idle(reactor, skill, "not_usable_in_aro")


def _aro_target(skill: Skill) -> TrooperId | None:
    """The trooper an ARO's Attack or Discover is aimed at (None for Dodge, Reset...)."""
    return _skill_target(skill)


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
    eligibility = _order(state).eligible.get(reactor.id)
    if eligibility is None:
        return "aro_not_valid"
    if (eligibility.zoc_only and not allowed_without_line_of_fire(eligibility, skill)
            and not _ever_in_line_of_fire(state, reactor)):
        return "zone_of_control_only" if eligibility.zone_of_control else "no_line_of_fire"
    return None


def _ever_in_line_of_fire(state: GameState, reactor: TrooperState) -> bool:
    """Whether some activated trooper was in ``reactor``'s LoF at a point of its path."""
    return any(aro_target_point(state, reactor, state.trooper(t), None) is not None
               for t in _order(state).activated)


def _aro_at_path_point(state: GameState, reactor: TrooperState, skill: BsAttack | Discover,
                       active: TrooperState) -> Plan:
    """A BS Attack or Discover ARO, taken against the active trooper at one point of its
    path: the point the reactive player chose (seed 000 "All at Once": "choosing to shoot at
    the end of the Movement"), else the last one where it has LoF (and, for a Direct
    Template, that it reaches). The range, cover and MODs are those of that point."""
    path = _order(state).for_trooper(active.id).path
    if skill.target_point is not None and not on_path(path, skill.target_point):
        return _idle(reactor, skill, "not_on_route")  # refused at declaration (aro.py)
    weapon = (state.armies[reactor.side].weapon(skill.weapon)
              if isinstance(skill, BsAttack) else None)
    point = aro_target_point(state, reactor, active, skill.target_point, weapon)
    if point is None:
        return _idle(reactor, skill, "no_line_of_fire")
    body = reacting_body(state, reactor, active)
    if isinstance(skill, Discover):
        return _discover(state, reactor, skill, body, point, active=False)
    if _camouflaged(state, active.id):
        return _idle(reactor, skill, "target_camouflaged")
    assert weapon is not None
    if is_direct_template(weapon):
        area = template_area(state, reactor, body, weapon, active, active.body(point))
        if area.problem is not None:
            return _idle(reactor, skill, area.problem)
        return _template_plan(state, reactor, weapon, area, body, active.body(point))
    # In Suppressive Fire an SF weapon shoots with the SF Mode profile, Burst 3 (DIGEST 9).
    return _shot(state, reactor, aro_weapon(reactor, weapon), active, body, active.body(point),
                 aro_burst(reactor, weapon), active=False)


def template_aro_problem(state: GameState, reactor: TrooperState, skill: BsAttack) -> str | None:
    """Why a Direct Template ARO would be Idle though the reactor sees the active trooper
    (its Main Target beyond the teardrop, an ally under it: ``_aro_at_path_point``), taken
    at the point it would be taken at; None for any other ARO, or when there is none."""
    weapon = state.armies[reactor.side].weapon(skill.weapon)
    target_id = _first_target(skill)
    order = _order(state)
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
    order = _order(state)
    eligibility = order.eligible.get(reactor.id)
    if (eligibility is not None and eligibility.sixth_sense and _has_sixth_sense(state, reactor)
            and reactor.id in attacked_by(order.for_trooper(active.id))):
        return replace(body, all_round_vision=True)
    return body


def _first_target(skill: BsAttack) -> TrooperId | None:
    return skill.targets[0].trooper if skill.targets else None


def aro_target_point(state: GameState, reactor: TrooperState, active: TrooperState,
                     chosen: Point | None, weapon: Weapon | None = None) -> Point | None:
    """The point of the active trooper's path an ARO is taken against (DIGEST 6.3).

    The chosen point if the reactor has LoF there; by default the last sampled point of the
    path where it has LoF (with a Direct Template ``weapon``, the last one where its template
    goes off: reaching the active trooper, no ally under it; if any); None when it never
    has LoF. ``active`` is the activated trooper the ARO targets (a Controller or one of its
    Peripherals), along its own path.
    """
    order = _order(state).for_trooper(active.id)
    blockers = blocking_bodies(state, reactor.id, active.id)
    body = reacting_body(state, reactor, active)
    if chosen is not None:
        visible = sees(state, reactor, body, active, active.body(chosen))
        return chosen if visible else None
    points = points_of_route_in_lof(body, active.body(), order.path or (order.start,),
                                    state.table, blockers)
    if weapon is not None and is_direct_template(weapon):
        reached = [p for p in points
                   if template_area(state, reactor, body, weapon, active, active.body(p)).problem
                   is None]
        points = tuple(reached) or points
    return points[-1] if points else None
