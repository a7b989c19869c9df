"""Resolution, Effects and Conclusion of an Order (seed 000 steps 5-6; DIGEST 5-7, 9, 12, 13).

``resolve_order`` takes a state whose Order is at its Resolution step and returns what
happened, as an ``Outcome`` (every roll, every save, every effect in the order they apply),
with the dice generator after the last roll. Dice are rolled in a fixed order so that a
replay, or a test with injected faces, gets the same result:

1. Discover rolls (an attack on a Camouflage Marker only resolves if its Discover succeeded);
2. every other roll: the active trooper's first, then the AROs by trooper id; a BS Attack
   whose Burst is split rolls one set of dice per target, in declared order;
3. Saving Rolls, hit by hit in the same order, rolled attacks before Direct Templates,
   then the BTS saves against Comms Attacks in the same order;
4. Guts Rolls, by trooper in the order they were first hit.

``resolve_order_step`` is the engine's: when a failed Guts Roll leaves its owner a movement
to choose (``guts_window.py``), the Guts reactions and the Alert! turns are not in the
outcome but left to the Conclusion (``Resolved.conclusion``), which follows the owners'
choices. ``resolve_order`` gives the whole outcome with every Guts movement at its default.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ..armies.skills import DODGE_MOVE_LIMIT, Dodge, Skill
from ..ids import TrooperId
from ..orders.movement_checks import obstacles
from ..ruleset import options
from ..state import ActiveOrder, Conclusion, GameState, OrderStep
from ..table.geometry import Point, normalise_facing, point_distance
from ..table.routes import START_TOLERANCE, route_length
from ..table.zone_of_control import in_zone_of_control
from .attacks import face_to_face_opponents, plan_order
from .damage import Hit, resolve_hits
from .dice import Dice, roll_d20
from .dodge_movement import clear_part_of_route
from .effects import apply_effect
from .face_to_face import face_to_face
from .forward_observer import marks
from .guts import GutsCheck, guts_rolls
from .hacking import CommsHit, resolve_comms_hits
from .outcome import (
    BecameIdle,
    DiscoverFailed,
    Effect,
    Moved,
    Outcome,
    Revealed,
    RollRecord,
    SaveRecord,
    Turned,
)
from .plan import Plan, PlannedRoll, TemplateHit
from .rolls import CritConvention, judge
from .smoke import zones_placed
from .stunned import fails_guts_by_stun
from .support_skills import states_cleared, support_effects
from .suppressive_fire import with_f2f_mods
from .sustained_dice import discarded, kept_faces


@dataclass(frozen=True, slots=True)
class _Rolled:
    """A planned roll with its faces and its index in ``Outcome.rolls``."""

    plan: PlannedRoll
    record: RollRecord


@dataclass(frozen=True, slots=True)
class Resolved:
    outcome: Outcome
    dice: Dice
    """The generator after the last roll (the Guts Rolls included)."""
    conclusion: Conclusion | None = None
    """The Guts reactions and Alert! turns left to the Conclusion, or None: the outcome
    holds them (no Guts movement to choose)."""


def resolve_order(state: GameState) -> tuple[Outcome, Dice]:
    """Resolve ``state.order`` (at ``OrderStep.RESOLUTION``), every Guts movement at its
    default. Pure and deterministic."""
    resolved = _resolve(state, pause_for_guts=False)
    return resolved.outcome, resolved.dice


def resolve_order_step(state: GameState) -> Resolved:
    """Resolve ``state.order`` as the engine does: like ``resolve_order``, but the
    Conclusion waits when a failed Guts Roll gives its owner a movement to choose."""
    return _resolve(state, pause_for_guts=True)


def _resolve(state: GameState, pause_for_guts: bool) -> Resolved:
    if state.order is None or state.order.step is not OrderStep.RESOLUTION:
        raise ValueError("resolve_order needs an Order at its Resolution step")
    plan = plan_order(state)
    convention = options(state.ruleset).crit_convention
    discovers, dice = _roll_discovers(plan, state.dice, convention)
    found = {(r.plan.trooper, r.plan.target) for r in discovers if _scored(r.record)}
    effects: list[Effect] = [*plan.effects, *_discover_effects(discovers)]
    rolls, templates, idle = _drop_undiscovered(plan, found, set(state.order.activated))
    effects.extend(idle)
    rolls = with_f2f_mods(state, rolls, face_to_face_opponents(rolls))  # Suppressive Fire -3
    rolled, dice = _roll_all(rolls, dice, convention, offset=len(discovers))
    effects.extend(_resets(state, rolled))
    effects.extend(_support(state, rolled))
    effects.extend(zones_placed(state, [(r.plan, r.record) for r in rolled]))
    damage = resolve_hits(state, _hits(rolled) + _template_hits(templates, rolled), dice)
    effects.extend(damage.effects)
    after = _fold(state, effects)
    comms = resolve_comms_hits(after, _comms_hits(rolled), damage.dice)
    effects.extend(comms.effects)
    after = _fold(after, comms.effects)
    marked = marks(after, [(r.plan, r.record) for r in rolled])  # Forward Observer: no save
    effects.extend(marked)
    after = _fold(after, marked)
    saves = damage.saves + comms.saves
    moves = _dodge_moves(after, rolled)
    effects.extend(moves)
    after = _fold(after, moves)
    # A Mine is gone once it went off: no Guts Roll for its hit; a Mine hit makes none
    # either, nor turns by Alert! (combat/mines.py).
    guts = guts_rolls(after, _guts_checks([s for s in saves if s.attacker not in state.deployables
                                           and s.trooper not in state.deployables],
                                          _comms_hits(rolled)), comms.dice)
    records = tuple(r.record for r in discovers) + tuple(r.record for r in rolled) + guts.rolls
    attacked = tuple(pair for pair in _attacked(state.order, rolled, templates)
                     if pair[0] not in state.deployables)
    if pause_for_guts and any(isinstance(e, Moved) for e in guts.effects):
        return Resolved(Outcome(rolls=records, saves=saves, effects=tuple(effects)), guts.dice,
                        Conclusion(guts.failed, attacked))
    after = _fold(after, guts.effects)
    effects.extend(guts.effects)
    effects.extend(alert_turns(after, state.order, attacked))
    return Resolved(Outcome(rolls=records, saves=saves, effects=tuple(effects)), guts.dice)


def _fold(state: GameState, effects: Sequence[Effect]) -> GameState:
    for effect in effects:
        state = apply_effect(state, effect)
    return state


def _scored(record: RollRecord) -> bool:
    return record.successes + record.criticals > 0


# --- rolling -------------------------------------------------------------------------------


def _roll_discovers(plan: Plan, dice: Dice,
                    convention: CritConvention) -> tuple[tuple[_Rolled, ...], Dice]:
    discovers = tuple(r for r in plan.rolls if r.skill == "discover")
    return _roll_all(discovers, dice, convention, offset=0)


def _roll_all(rolls: Sequence[PlannedRoll], dice: Dice, convention: CritConvention,
              offset: int) -> tuple[tuple[_Rolled, ...], Dice]:
    """Roll every planned roll in order, set aside each roll's discarded Sustained Dice,
    then settle Face to Face pairs with the dice kept (DIGEST 7.4)."""
    faces: list[tuple[int, ...]] = []
    dropped: list[tuple[bool, ...]] = []
    for roll in rolls:
        rolled, dice = roll_d20(dice, roll.dice_count)
        faces.append(rolled)
        dropped.append(_discarded(roll, rolled, convention))
    kept = [kept_faces(f, d) for f, d in zip(faces, dropped, strict=True)]
    opponents = face_to_face_opponents(rolls)
    results = tuple(
        _Rolled(roll, _record(roll, faces[i], dropped[i],
                              [(rolls[j], kept[j]) for j in opponents[i]],
                              tuple(offset + j for j in opponents[i]), convention))
        for i, roll in enumerate(rolls)
    )
    return results, dice


def _discarded(roll: PlannedRoll, faces: tuple[int, ...],
               convention: CritConvention) -> tuple[bool, ...]:
    """Which of ``faces`` the roll's Sustained Dice discard (all False without any)."""
    if not roll.sustained_dice or not faces:
        return (False,) * len(faces)
    sv = roll.success_value
    return discarded([judge(face, sv, convention) for face in faces], roll.sustained_dice)


def _record(roll: PlannedRoll, faces: tuple[int, ...], dropped: tuple[bool, ...],
            opponents: Sequence[tuple[PlannedRoll, tuple[int, ...]]],
            opposed_by: tuple[int, ...], convention: CritConvention) -> RollRecord:
    """One side's record. Against several opponents (a Dodge against every attack on its
    trooper) a die is cancelled when any one of the Face to Face pairings cancels it. A
    discarded die (Sustained Dice) is shown but takes no part."""
    sv = roll.success_value
    dice = tuple(judge(face, sv, convention) for face in faces)
    in_play = kept_faces(faces, dropped)
    lost = [False] * len(in_play)
    for other, other_faces in opponents:
        pairing = face_to_face(sv, in_play, other.success_value, other_faces, convention)
        lost = [a or b for a, b in zip(lost, pairing.first.cancelled, strict=True)]
    playing = iter(lost)
    cancelled = tuple(False if out else next(playing) for out in dropped)
    kept = [die for die, out, gone in zip(dice, dropped, cancelled, strict=True)
            if die.success and not out and not gone]
    criticals = sum(1 for die in kept if die.critical)
    return RollRecord(
        trooper=roll.trooper, skill=roll.skill, target=roll.target, weapon=roll.weapon,
        attribute=roll.attribute, base=roll.base, mods=roll.mods, success_value=sv,
        burst=roll.burst, dice=dice, cancelled=cancelled,
        successes=len(kept) - criticals, criticals=criticals, opposed_by=opposed_by,
        automatic_failure=roll.automatic_failure, zone_at=roll.zone_at,
        discarded=dropped if any(dropped) else (),
    )


# --- Discover and Camouflage ---------------------------------------------------------------


def _discover_effects(discovers: Sequence[_Rolled]) -> tuple[Effect, ...]:
    effects: list[Effect] = []
    revealed: set[TrooperId] = set()
    for rolled in discovers:
        marker = rolled.plan.target
        assert marker is not None
        if not _scored(rolled.record):
            effects.append(DiscoverFailed(rolled.plan.trooper, marker))
        elif marker not in revealed:
            revealed.add(marker)
            effects.append(Revealed(marker, "discovered"))
    return tuple(effects)


def _drop_undiscovered(
    plan: Plan, found: set[tuple[TrooperId, TrooperId | None]], activated: set[TrooperId]
) -> tuple[tuple[PlannedRoll, ...], tuple[TemplateHit, ...], tuple[Effect, ...]]:
    """Attacks on a Camouflaged trooper the attacker did not Discover become Idle (DIGEST 12)."""
    idle: list[Effect] = []
    rolls: list[PlannedRoll] = []
    for roll in plan.rolls:
        if roll.skill == "discover":
            continue
        if roll.against_marker and (roll.trooper, roll.target) not in found:
            idle.append(BecameIdle(roll.trooper, roll.skill, "target_not_discovered",
                                   roll.target, not roll.active))
        else:
            rolls.append(roll)
    templates: list[TemplateHit] = []
    for hit in plan.templates:
        if hit.against_marker and (hit.attacker, hit.target) not in found:
            idle.append(BecameIdle(hit.attacker, "bs_attack", "target_not_discovered",
                                   hit.target, hit.attacker not in activated))
        else:
            templates.append(hit)
    return tuple(rolls), tuple(templates), tuple(idle)


# --- hits ---------------------------------------------------------------------------------


def _hits(rolled: Sequence[_Rolled]) -> tuple[Hit, ...]:
    hits: list[Hit] = []
    for r in rolled:
        if (not r.plan.is_attack or r.plan.skill in ("comms_attack", "forward_observer")
                or not _scored(r.record)
                or r.plan.zone_at is not None):  # Smoke and Eclipse hit no one
            continue
        assert r.plan.target is not None and r.plan.weapon is not None
        cover = r.plan.partial_cover and r.plan.skill == "bs_attack"
        hits.append(Hit(r.plan.trooper, r.plan.target, r.plan.weapon, r.record.successes,
                        r.record.criticals, cover))
    return tuple(hits)


def _comms_hits(rolled: Sequence[_Rolled]) -> tuple[CommsHit, ...]:
    """Comms Attacks with surviving successes: their saves are on BTS (hacking.py)."""
    return tuple(
        CommsHit(r.plan.trooper, r.plan.target, r.plan.weapon, r.record.successes,
                 r.record.criticals)
        for r in rolled
        if r.plan.skill == "comms_attack" and _scored(r.record)
        and r.plan.target is not None and r.plan.weapon is not None
    )


def _template_hits(templates: Sequence[TemplateHit],
                   rolled: Sequence[_Rolled]) -> tuple[Hit, ...]:
    """Each template hits automatically, no cover bonus, unless its target Dodged: a Dodge
    against a template is a Normal PH roll, judged on its own dice (DIGEST 13)."""
    dodged = {
        r.plan.trooper for r in rolled
        if r.plan.skill == "dodge" and any(die.success for die in r.record.dice)
    }
    return tuple(
        Hit(t.attacker, t.target, t.weapon, hits=1, criticals=0)
        for t in templates if t.target not in dodged
    )


# --- effects --------------------------------------------------------------------------------


def _resets(state: GameState, rolled: Sequence[_Rolled]) -> tuple[Effect, ...]:
    """A successful Reset cancels Targeted, Isolated and Immobilized-B (DIGEST 6.3, 8)."""
    effects: list[Effect] = []
    for r in rolled:
        if r.plan.skill == "reset" and _scored(r.record):
            effects.extend(states_cleared(state.trooper(r.plan.trooper)))
    return tuple(effects)


def _support(state: GameState, rolled: Sequence[_Rolled]) -> tuple[Effect, ...]:
    """Doctor, Paramedic and Engineer rolls: a Wound removed or dealt, States cancelled
    (support_skills.py)."""
    order = state.order
    assert order is not None
    skills = [s for t in order.activated for s in order.for_trooper(t).skills]
    return support_effects(state, [(r.plan, r.record) for r in rolled], skills)


def _dodge_moves(after: GameState, rolled: Sequence[_Rolled]) -> tuple[Effect, ...]:
    """Successful Dodges move along their declared route, the active side first, each side's
    in the order their rolls were made (the activated troopers, then the reacting ones by
    trooper id); each stops where its base would meet a base standing on its route then
    (dodge_movement.py; DIGEST 6.3, the wiki's "Dodge").

    A trooper left in a Null state by the simultaneous attacks does not move; a route that
    does not start at the trooper or is longer than 2 inches is not followed.
    """
    moves = [r for r in rolled if r.plan.skill == "dodge" and _scored(r.record)]
    moves.sort(key=lambda r: not r.plan.active)
    effects: list[Effect] = []
    for r in moves:
        trooper = after.trooper(r.plan.trooper)
        route = _dodge_route(after, r.plan)
        if not (trooper.can_act and _followable(route, trooper.position)):
            continue
        assert route is not None
        clear = clear_part_of_route(route, trooper.body(), obstacles(after, trooper.id))
        if len(clear) < 2:
            continue  # blocked from the start: it Dodged, but has no room to move
        moved = Moved(trooper.id, clear, "dodge" if clear == route else "dodge_stopped_at_a_base")
        effects.append(moved)
        after = apply_effect(after, moved)  # the next Dodge meets this base where it ends
    return tuple(effects)


def _followable(route: tuple[Point, ...] | None, position: Point | None) -> bool:
    """A Dodge route of at most 2 inches starting where the trooper stands."""
    if route is None or position is None or len(route) < 2:
        return False
    starts_here = point_distance(route[0], position) <= START_TOLERANCE
    return starts_here and route_length(route) <= DODGE_MOVE_LIMIT + 1e-6


def _dodge_route(state: GameState, roll: PlannedRoll) -> tuple[Point, ...] | None:
    order = state.order
    assert order is not None
    skills: Sequence[Skill] = (
        order.for_trooper(roll.trooper).skills if roll.active else (order.aros[roll.trooper],)
    )
    dodge = next((s for s in skills if isinstance(s, Dodge)), None)
    return dodge.route if dodge is not None else None


def _guts_checks(saves: Sequence[SaveRecord],
                 comms: Sequence[CommsHit]) -> tuple[GutsCheck, ...]:
    """Troopers that suffered a successful Attack causing a Saving Roll (DIGEST 7.8), with
    the attackers that hit them by a Comms Attack named apart (no LoF needed: a Guts move
    leaves their Hacking Area rather than their LoF)."""
    attackers: dict[TrooperId, list[TrooperId]] = {}
    for save in saves:
        listed = attackers.setdefault(save.trooper, [])
        if save.attacker not in listed:
            listed.append(save.attacker)
    hackers = {(hit.target, hit.attacker) for hit in comms}
    return tuple(
        GutsCheck(t, tuple(a), tuple(x for x in a if (t, x) in hackers),
                  stun_failure=fails_guts_by_stun(t, saves))
        for t, a in attackers.items()
    )


def _attacked(order: ActiveOrder, rolled: Sequence[_Rolled],
              templates: Sequence[TemplateHit]) -> tuple[tuple[TrooperId, TrooperId], ...]:
    """(target, attacker) of every Attack the activated troopers made, in order."""
    attacked = [(r.plan.target, r.plan.trooper) for r in rolled if r.plan.is_attack and r.plan.active]
    attacked += [(t.target, t.attacker) for t in templates if t.attacker in order.activated]
    return tuple((target, attacker) for target, attacker in attacked if target is not None)


def alert_turns(after: GameState, order: ActiveOrder,
                attacked: Sequence[tuple[TrooperId, TrooperId]]) -> tuple[Effect, ...]:
    """Alert!: a trooper not activated this Order (no ARO declared) that was the target of
    an Attack, or has an attacked ally in its Zone of Control, turns to face the attacker
    in the Conclusion (DIGEST 9), from where it stands then (after its Guts movement)."""
    first_attacker: dict[TrooperId, TrooperId] = {}
    for target_id, attacker_id in attacked:
        first_attacker.setdefault(target_id, attacker_id)
    # Whom each trooper turns to: its own first attacker, else the first attacker of an
    # attacked ally in its Zone of Control (DIGEST 9, "which (or an ally in its ZoC) was
    # targeted by an Attack").
    turn_to = dict(first_attacker)
    for trooper in after.troopers.values():
        if trooper.id in turn_to or trooper.marker or trooper.position is None:
            continue
        for ally_id, attacker_id in first_attacker.items():
            ally = after.trooper(ally_id)
            if (ally.side is trooper.side and ally.position is not None
                    and in_zone_of_control(trooper.body(), ally.body())):
                turn_to[trooper.id] = attacker_id
                break
    effects: list[Effect] = []
    for target_id, attacker_id in turn_to.items():
        target = after.trooper(target_id)
        if target_id in order.aros or target_id in order.activated or not target.can_act:
            continue
        attacker = after.trooper(attacker_id)
        facing = _facing_towards(target.position, attacker.position)
        if facing is not None and not math.isclose(facing, target.facing):
            effects.append(Turned(target_id, facing, "alert"))
    return tuple(effects)


def _facing_towards(source: Point | None,
                    goal: Point | None) -> float | None:
    if source is None or goal is None or source == goal:
        return None
    return normalise_facing(math.degrees(math.atan2(goal[1] - source[1], goal[0] - source[0])))
