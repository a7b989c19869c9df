"""Guts Rolls in the Conclusion of an Order (DIGEST 7.8; N4/N5, not CodeOne).

A trooper that suffered at least one successful Attack causing a Saving Roll, and is neither
in a Null state nor Engaged afterwards, makes a Normal WIP roll, or fails it without a die
when its owner chose so in advance (``guts_choice.py``) or when it failed a save against Stun
in this Order; a Stunned trooper rolls at WIP -3 (``stunned.py``). On a failure it does the
first possible of:

1. move up to 2 inches to leave the LoF of every attacker (the Hacking Area of an attacker
   whose attack was a Comms Attack);
2. move up to 2 inches to be in Partial Cover from every attacker that still sees it;
3. go Prone (nothing if already Prone).

The server chooses the movement (docs/rules-decisions/resolution.md): it tries straight moves
to the points of rings of 0.5, 1, 1.5 and 2 inches, 16 directions each, shortest first, each
ring starting with the direction straight away from the attackers and turning
counter-clockwise; the first legal point that satisfies the rule wins. A legal point is
reached by a route ``routes.check_route`` accepts and leaves the base out of contact with
every enemy. The movement causes no AROs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ..ids import TrooperId
from ..ruleset import options
from ..state import GameState, TrooperState
from ..table.cover import in_partial_cover
from ..table.engaged import is_engaged
from ..table.geometry import Point, in_base_contact
from ..table.routes import check_route
from .dice import Dice, roll_d20
from .effects import apply_effect
from .hacking import in_hacking_area
from .mods import sees
from .outcome import Effect, Moved, RollRecord, WentProne
from .rolls import normal_roll, success_value
from .stunned import stunned_mods

GUTS_MOVE = 2.0
RINGS = (0.5, 1.0, 1.5, 2.0)
DIRECTIONS = 16


@dataclass(frozen=True, slots=True)
class GutsCheck:
    """A trooper that must make a Guts Roll, and the troopers whose attacks caused it."""

    trooper: TrooperId
    attackers: tuple[TrooperId, ...]
    hackers: tuple[TrooperId, ...] = ()
    """Those of ``attackers`` whose attack was a Comms Attack (no LoF needed)."""
    stun_failure: bool = False
    """It failed a save against Stun in this Order: the roll fails without a die
    (``stunned.fails_guts_by_stun``)."""


@dataclass(frozen=True, slots=True)
class GutsResult:
    rolls: tuple[RollRecord, ...]
    effects: tuple[Effect, ...]
    dice: Dice


def guts_rolls(state: GameState, checks: Sequence[GutsCheck], dice: Dice) -> GutsResult:
    """Roll every Guts check in order; each failure's movement sees the earlier ones."""
    rolls: list[RollRecord] = []
    effects: list[Effect] = []
    for check in checks:
        trooper = state.trooper(check.trooper)
        if not options(state.ruleset).guts_rolls or not trooper.can_act:
            continue
        if is_engaged(state, trooper) or trooper.immobilized_b:
            continue  # an Engaged or Immobilized trooper makes no Guts Roll (DIGEST 7.8)
        record, dice = _roll(trooper, dice, state, check.stun_failure)
        rolls.append(record)
        if record.successes + record.criticals:
            continue
        effect = guts_reaction(state, trooper, check.attackers, check.hackers)
        if effect is not None:
            effects.append(effect)
            state = apply_effect(state, effect)
    return GutsResult(rolls=tuple(rolls), effects=tuple(effects), dice=dice)


def _roll(trooper: TrooperState, dice: Dice, state: GameState,
          stun_failure: bool = False) -> tuple[RollRecord, Dice]:
    base = trooper.profile.wip
    mods = stunned_mods(trooper)  # a Stunned trooper's Guts Roll takes -3 (DIGEST 8)
    sv = success_value(base, mods)
    if stun_failure:  # a failed save against Stun fails the Guts Roll (stunned.py): no die
        return RollRecord(
            trooper=trooper.id, skill="guts", target=None, weapon=None, attribute="WIP",
            base=base, mods=mods, success_value=sv, burst=1, dice=(), cancelled=(),
            successes=0, criticals=0, stun_failure=True,
        ), dice
    if trooper.fails_guts:  # the owner's standing choice (guts_choice.py): no die
        return RollRecord(
            trooper=trooper.id, skill="guts", target=None, weapon=None, attribute="WIP",
            base=base, mods=mods, success_value=sv, burst=1, dice=(), cancelled=(),
            successes=0, criticals=0, chosen_failure=True,
        ), dice
    faces, dice = roll_d20(dice, 1)
    roll = normal_roll(sv, faces, options(state.ruleset).crit_convention)
    record = RollRecord(
        trooper=trooper.id, skill="guts", target=None, weapon=None, attribute="WIP",
        base=base, mods=mods, success_value=sv, burst=1, dice=roll.dice, cancelled=(False,),
        successes=roll.successes, criticals=roll.criticals,
    )
    return record, dice


def guts_reaction(state: GameState, trooper: TrooperState, attackers: Sequence[TrooperId],
                  hackers: Sequence[TrooperId] = ()) -> Effect | None:
    """What a failed Guts Roll makes ``trooper`` do (see the module docstring). Against a
    Comms Attack (``hackers``) "out of reach" is outside that Hacker's Hacking Area (the
    area of effect of a no-LoF attack, DIGEST 7.8), and cover does not help."""
    enemies = [state.trooper(a) for a in attackers]
    shooters = [e for e in enemies if e.id not in hackers]
    points = candidate_points(state, trooper, enemies)
    for point in points:
        if not any(_reaches(state, enemy, enemy.id in hackers, trooper, point)
                   for enemy in enemies):
            reason = "guts_out_of_reach" if hackers else "guts_out_of_line_of_fire"
            return Moved(trooper.id, (_position(trooper), point), reason)
    assert trooper.position is not None
    if not _covered(state, trooper, shooters, trooper.position):
        for point in points:
            if _covered(state, trooper, shooters, point):
                return Moved(trooper.id, (trooper.position, point), "guts_to_cover")
    return None if trooper.prone else WentProne(trooper.id, "guts")


def candidate_points(state: GameState, trooper: TrooperState,
                     enemies: Sequence[TrooperState]) -> tuple[Point, ...]:
    """Legal end points of a Guts move, in the order they are tried."""
    x, y = _position(trooper)
    away = _away_angle(trooper, enemies)
    others = tuple(t.body() for t in state.troopers.values() if t.on_table and t.id != trooper.id)
    foes = tuple(t.body() for t in state.troopers.values()
                 if t.on_table and t.side is not trooper.side)
    points: list[Point] = []
    for radius in RINGS:
        for k in range(DIRECTIONS):
            angle = away + 2.0 * math.pi * k / DIRECTIONS
            point = (x + radius * math.cos(angle), y + radius * math.sin(angle))
            body = trooper.body(point)
            if check_route(((x, y), point), trooper.body(), GUTS_MOVE, state.table, others):
                continue
            if any(in_base_contact(body, foe) for foe in foes):
                continue
            points.append(point)
    return tuple(points)


def _position(trooper: TrooperState) -> Point:
    assert trooper.position is not None, f"{trooper.id} is not on the table"
    return trooper.position


def _away_angle(trooper: TrooperState, enemies: Sequence[TrooperState]) -> float:
    x, y = _position(trooper)
    placed = [_position(e) for e in enemies if e.position is not None]
    if not placed:
        return 0.0
    cx = sum(p[0] for p in placed) / len(placed)
    cy = sum(p[1] for p in placed) / len(placed)
    return math.atan2(y - cy, x - cx)


def _reaches(state: GameState, enemy: TrooperState, hacker: bool, trooper: TrooperState,
             point: Point) -> bool:
    """The attacker still reaches the trooper at ``point``: inside its Hacking Area for a
    Comms Attack, in its LoF otherwise."""
    if hacker:
        return in_hacking_area(state, enemy, trooper.body(point))
    return _sees(state, enemy, trooper, point)


def _sees(state: GameState, enemy: TrooperState, trooper: TrooperState, point: Point) -> bool:
    return enemy.on_table and sees(state, enemy, enemy.body(), trooper, trooper.body(point))


def _covered(state: GameState, trooper: TrooperState, enemies: Sequence[TrooperState],
             point: Point) -> bool:
    """Every attacker that sees the trooper at ``point`` sees it in Partial Cover."""
    body = trooper.body(point)
    return all(
        in_partial_cover(body, enemy.body(), state.table)
        for enemy in enemies
        if _sees(state, enemy, trooper, point)
    )
