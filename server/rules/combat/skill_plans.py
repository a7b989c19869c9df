"""What one declared skill makes at Resolution, for an active trooper or a reacting one
(DIGEST 5-7, 13): a BS Attack's shot, a template going off, a CC or Comms Attack, a
Discover, Dodge or Reset roll, or the Idle a skill becomes when a Requirement fails.
``attacks`` takes the active trooper's skills here, ``aro_plans`` the AROs.
"""

from __future__ import annotations

from ..armies.skills import Berserk, BsAttack, CcAttack, CommsAttack, Discover, ForwardObserver, Skill
from ..armies.weapons import Weapon
from ..ids import TrooperId, WeaponId
from ..orders import berserk
from ..orders.declarations import coordinated_cc_burst
from ..orders.fireteams import grants_sixth_sense
from ..ruleset import options
from ..state import GameState, TrooperState
from ..table.geometry import Body, Point, distance, in_base_contact
from . import dodge_skill_mods, martial_arts
from .attack_attribute import bs_attack_attribute
from .camouflage import camouflaged as _camouflaged  # still a marker, all declarations made
from .direct_templates import TemplateArea
from .hacking import PROGRAMS, comms_mods, in_hacking_area, path_in_hacking_area
from .mines import target_or_mine
from .mods import bs_attack_mods, discover_mods, reset_mods, sees
from .multispectral_visor import shoots_markers
from .outcome import BecameIdle, CoupDeGrace, Effect, Revealed, Wounded
from .plan import ARO_BURST, Plan, PlannedRoll, TemplateHit, order_to_resolve
from .rolls import Mod
from .smoke import visor_through_smoke_mods
from .wounds import Condition


def idle(trooper: TrooperState, skill: Skill, reason: str) -> Plan:
    return Plan(effects=(BecameIdle(trooper.id, skill.TYPE, reason, skill_target(skill)),))


def skill_target(skill: Skill) -> TrooperId | None:
    """The trooper a skill is aimed at (a BS Attack's first target), None for Dodge..."""
    if isinstance(skill, BsAttack):
        return first_target(skill)
    if isinstance(skill, CcAttack | CommsAttack | Discover | ForwardObserver):
        return skill.target
    return None


def template_plan(state: GameState, attacker: TrooperState, weapon: Weapon,
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
        visor = shoots_markers(attacker)  # a Multispectral Visor L3 needs no Discover
        hits.append(TemplateHit(attacker.id, trooper_id, weapon.id, marker and main and not visor,
                                distance(shooter, victim)))
        if marker and not main:
            revealed.append(Revealed(trooper_id, "affected_by_template"))
        elif marker and visor:
            revealed.append(Revealed(trooper_id, "shot_by_visor_l3"))
    return Plan(templates=tuple(hits), effects=tuple(revealed))


def planned_shot(state: GameState, attacker: TrooperState, weapon: Weapon, target: TrooperState,
          shooter: Body, victim: Body, burst: int, active: bool) -> Plan:
    marker = _camouflaged(state, target.id)
    # A Multispectral Visor L3 shoots a marker without Discovering it; the shot reveals it.
    revealed = (Revealed(target.id, "shot_by_visor_l3"),) if marker and shoots_markers(attacker) else ()
    marker = marker and not revealed
    shot = bs_attack_mods(weapon, target, shooter, victim, state.table,
                          attacker.profile.multispectral_visor)
    haze = visor_through_smoke_mods(state, attacker, shooter, target, victim)
    attribute, base = bs_attack_attribute(attacker.profile, weapon)
    roll = PlannedRoll(
        trooper=attacker.id, active=active, skill="bs_attack", target=target.id,
        weapon=weapon.id, attribute=attribute, base=base, mods=shot.mods + haze,
        burst=burst, out_of_range=shot.out_of_range, partial_cover=shot.partial_cover,
        against_marker=marker, range=shot.range, sight=(shooter, victim),
    )
    return Plan(rolls=(roll,), effects=revealed)


def planned_cc_attack(state: GameState, attacker: TrooperState, skill: CcAttack, active: bool) -> Plan:
    if active and coordinated_cc_burst(state, attacker.id, 1) is None:
        return Plan()  # a Coordinated Order's CC: only the Spearhead attacks (DIGEST 3.4)
    target = state.troopers.get(skill.target)
    if target is None or not target.on_table or target.side is attacker.side:
        return idle(attacker, skill, "target_not_enemy")
    if not in_base_contact(attacker.body(), target.body()):
        return idle(attacker, skill, "not_in_base_contact")
    if target.condition is Condition.UNCONSCIOUS:
        return _coup_de_grace(attacker, target)
    if target.is_null:
        return idle(attacker, skill, "target_null")
    weapon = state.armies[attacker.side].weapon(skill.weapon)
    burst = coordinated_cc_burst(state, attacker.id, weapon.burst) if active else ARO_BURST
    assert burst is not None
    roll = PlannedRoll(
        trooper=attacker.id, active=active, skill="cc_attack", target=target.id,
        weapon=weapon.id, attribute="CC", base=attacker.profile.cc,
        mods=martial_arts.attack_mods(attacker.profile)  # its Opponent MOD: attacks.py
        + (berserk.attack_mods(skill, attacker) if isinstance(skill, Berserk) else ()),
        burst=burst + martial_arts.burst_bonus(attacker.profile),
        against_marker=_camouflaged(state, target.id),
    )
    return Plan(rolls=(roll,))


def _coup_de_grace(attacker: TrooperState, target: TrooperState) -> Plan:
    """DIGEST 7.7: a CC Attack against an Unconscious enemy kills it: no roll, no save.
    Its wounds are set beyond its VITA/STR, where the wound track says Dead."""
    wounds = max(target.wounds, target.profile.vita + 1)
    return Plan(effects=(CoupDeGrace(attacker.id, target.id),
                         Wounded(target.id, wounds, Condition.DEAD)))


def planned_comms_attack(state: GameState, hacker: TrooperState, skill: CommsAttack,
                  active: bool) -> Plan:
    """A program run on one enemy in Model form inside the Hacking Area (hacking.py): for the
    active Hacker where it stands, for a reacting one at some point of the target's path."""
    target = state.troopers.get(skill.target)
    if target is None or not target.on_table or target.side is hacker.side:
        return idle(hacker, skill, "target_not_enemy")
    if target.is_null:
        return idle(hacker, skill, "target_null")
    if _camouflaged(state, target.id):
        return idle(hacker, skill, "target_camouflaged")
    if active:
        reached = in_hacking_area(state, hacker, target.body())
    else:
        path = order_to_resolve(state).for_trooper(target.id).path
        reached = path_in_hacking_area(state, hacker, target.body(), path)
    if not reached:
        return idle(hacker, skill, "outside_hacking_area")
    program = PROGRAMS[skill.program]
    roll = PlannedRoll(
        trooper=hacker.id, active=active, skill="comms_attack", target=target.id,
        weapon=WeaponId(program.id), attribute="WIP", base=hacker.profile.wip,
        mods=comms_mods(program, target), burst=program.burst if active else ARO_BURST,
    )
    return Plan(rolls=(roll,))


def planned_discover(state: GameState, seer: TrooperState, skill: Discover, seer_body: Body,
              seen_at: Point | None, active: bool) -> Plan:
    target = target_or_mine(state, skill.target)  # a Mine's marker too (mines.py)
    if target is None or not target.on_table or not target.marker:
        return idle(seer, skill, "target_not_a_marker")
    if target.id in seer.failed_discover:
        return idle(seer, skill, "discover_already_failed")
    seen = target.body(seen_at)
    if not sees(state, seer, seer_body, target, seen):
        return idle(seer, skill, "no_line_of_fire")
    shot = discover_mods(target, seer_body, seen, state.table, seer.profile.multispectral_visor)
    haze = visor_through_smoke_mods(state, seer, seer_body, target, seen)
    roll = PlannedRoll(
        trooper=seer.id, active=active, skill="discover", target=target.id, weapon=None,
        attribute="WIP", base=seer.profile.wip, mods=shot.mods + haze, burst=1,
        out_of_range=shot.out_of_range, range=shot.range,
    )
    return Plan(rolls=(roll,))


def has_sixth_sense(state: GameState, trooper: TrooperState) -> bool:
    """Its profile's, or a Level 5 Fireteam's (``orders/fireteams.py``)."""
    return ((trooper.profile.sixth_sense or grants_sixth_sense(state, trooper.id))
            and options(state.ruleset).sixth_sense)


def dodge_roll(trooper: TrooperState, active: bool, mods: tuple[Mod, ...]) -> PlannedRoll:
    return PlannedRoll(
        trooper=trooper.id, active=active, skill="dodge", target=None, weapon=None,
        attribute="PH", base=trooper.profile.ph,
        mods=mods + dodge_skill_mods.own_mods(trooper.profile), burst=1,  # "Dodge (+3)"
    )


def reset_roll(trooper: TrooperState, active: bool) -> PlannedRoll:
    return PlannedRoll(
        trooper=trooper.id, active=active, skill="reset", target=None, weapon=None,
        attribute="WIP", base=trooper.profile.wip, mods=reset_mods(trooper), burst=1,
    )


def first_target(skill: BsAttack) -> TrooperId | None:
    return skill.targets[0].trooper if skill.targets else None
