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

The owner chooses where its trooper goes, within the rule (``guts_window.py``, a timed
window): ``guts_rule`` says which of (1)-(3) applies and which end points satisfy it, and
``guts_route_problem`` judges a route the owner draws by the same test. The default, applied
when the owner accepts it or lets the window's deadline pass, is the first satisfying point of
rings of 0.5, 1, 1.5 and 2 inches, 16 directions each, shortest first, each ring starting with
the direction straight away from the attackers and turning counter-clockwise, each ring
followed by the straight moves in those directions that end in contact with cover-giving
scenery within it (docs/rules-decisions/resolution.md). A legal end point is reached by a route
``routes.check_route`` accepts (at most 2 inches, through no terrain or model, on the table)
and leaves the base out of contact with every enemy. The movement causes no AROs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ..ids import TrooperId
from ..orders.difficult_terrain import reactive_move_problem
from ..ruleset import options
from ..state import GameState, GutsDue, TrooperState
from ..table.cover import in_partial_cover, touches_scenery
from ..table.engaged import is_engaged
from ..table.geometry import CONTACT_TOLERANCE, Body, Point, in_base_contact
from ..table.polygons import body_polygon_distance
from ..table.routes import check_route
from .courage import passes_by_courage
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
    """Every failure's reaction with its default movement (``guts_rule``)."""
    dice: Dice
    failed: tuple[GutsDue, ...] = ()
    """The troopers whose roll failed, in order: the reactions still to make when the owner
    chooses the movement (``guts_window.py``)."""


def guts_rolls(state: GameState, checks: Sequence[GutsCheck], dice: Dice) -> GutsResult:
    """Roll every Guts check in order; each failure's movement sees the earlier ones."""
    rolls: list[RollRecord] = []
    effects: list[Effect] = []
    failed: list[GutsDue] = []
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
        due = GutsDue(check.trooper, check.attackers, check.hackers)
        failed.append(due)
        effect = guts_reaction(state, due)
        if effect is not None:
            effects.append(effect)
            state = apply_effect(state, effect)
    return GutsResult(rolls=tuple(rolls), effects=tuple(effects), dice=dice, failed=tuple(failed))


def _roll(trooper: TrooperState, dice: Dice, state: GameState,
          stun_failure: bool = False) -> tuple[RollRecord, Dice]:
    base = trooper.profile.wip
    mods = stunned_mods(trooper)  # a Stunned trooper's Guts Roll takes -3 (DIGEST 8)
    sv = success_value(base, mods)
    if stun_failure and not passes_by_courage(trooper):
        # a failed save against Stun fails the Guts Roll (stunned.py), unless Courage: no die
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
    if passes_by_courage(trooper):  # Courage: passes without a die (courage.py)
        return RollRecord(
            trooper=trooper.id, skill="guts", target=None, weapon=None, attribute="WIP",
            base=base, mods=mods, success_value=sv, burst=1, dice=(), cancelled=(),
            successes=1, criticals=0, courage=True,
        ), dice
    faces, dice = roll_d20(dice, 1)
    roll = normal_roll(sv, faces, options(state.ruleset).crit_convention)
    record = RollRecord(
        trooper=trooper.id, skill="guts", target=None, weapon=None, attribute="WIP",
        base=base, mods=mods, success_value=sv, burst=1, dice=roll.dice, cancelled=(False,),
        successes=roll.successes, criticals=roll.criticals,
    )
    return record, dice


@dataclass(frozen=True, slots=True)
class GutsRule:
    """Which reaction a failed Guts Roll calls for, in the state it is made in.

    ``reason``: "guts_out_of_line_of_fire" or "guts_out_of_reach" (1, leave every attacker's
    LoF or Hacking Area), "guts_to_cover" (2, reach Partial Cover from every attacker that
    still sees it), or None: no movement does either (3, Prone, or nothing if already
    Prone). ``points``: the candidate end points that satisfy it, in the default's order."""

    trooper: TrooperId
    reason: str | None
    points: tuple[Point, ...]
    attackers: tuple[TrooperId, ...]
    hackers: tuple[TrooperId, ...]

    @property
    def moves(self) -> bool:
        return self.reason is not None

    @property
    def default(self) -> Point:
        assert self.points, "only a movement has a default point"
        return self.points[0]


def guts_rule(state: GameState, due: GutsDue) -> GutsRule:
    """The reaction ``due``'s failed Guts Roll calls for now (see the module docstring).
    Against a Comms Attack (``hackers``) "out of reach" is outside that Hacker's Hacking Area
    (the area of effect of a no-LoF attack, DIGEST 7.8), and cover does not help."""
    trooper = state.trooper(due.trooper)
    enemies = [state.trooper(a) for a in due.attackers]
    points = candidate_points(state, trooper, enemies)
    away = tuple(p for p in points if _out_of_reach(state, trooper, enemies, due.hackers, p))
    if away:
        reason = "guts_out_of_reach" if due.hackers else "guts_out_of_line_of_fire"
        return GutsRule(trooper.id, reason, away, due.attackers, due.hackers)
    shooters = [e for e in enemies if e.id not in due.hackers]
    if not _covered(state, trooper, shooters, _position(trooper)):
        cover = tuple(p for p in points if _covered(state, trooper, shooters, p))
        if cover:
            return GutsRule(trooper.id, "guts_to_cover", cover, due.attackers, due.hackers)
    return GutsRule(trooper.id, None, (), due.attackers, due.hackers)


def guts_reaction(state: GameState, due: GutsDue, route: Sequence[Point] = ()) -> Effect | None:
    """What a failed Guts Roll makes the trooper do: move along ``route`` (one
    ``guts_route_problem`` accepts; empty: to the default point), or go Prone when no
    movement satisfies the rule (nothing if already Prone)."""
    return rule_reaction(state, guts_rule(state, due), route)


def rule_reaction(state: GameState, rule: GutsRule, route: Sequence[Point] = ()) -> Effect | None:
    """``guts_reaction`` for a ``rule`` already worked out in ``state`` (it costs a Line of
    Fire test per candidate point, so a caller holding it need not make it again)."""
    trooper = state.trooper(rule.trooper)
    if rule.reason is None:
        return None if trooper.prone else WentProne(trooper.id, "guts")
    path = tuple(route) if route else (_position(trooper), rule.default)
    return Moved(trooper.id, path, rule.reason)


@dataclass(frozen=True, slots=True)
class GutsProblem:
    """Why a Guts route is refused: ``code`` is stable (``reasons.Reason`` values)."""

    code: str
    message: str


def guts_route_problem(state: GameState, rule: GutsRule,
                       route: Sequence[Point]) -> GutsProblem | None:
    """Whether the trooper may take ``route`` (its position first) for ``rule``'s movement:
    the test the candidate points pass, so the default always passes it. Only for a rule
    that ``moves`` (a Guts window opens for no other). A point no ring holds is judged the
    same way; one that leaves every attacker's reach also satisfies "gain cover" (it is the
    better reaction the rule asks for first)."""
    assert rule.moves, "a failure that calls for no movement has no route to judge"
    trooper = state.trooper(rule.trooper)
    name = trooper.profile.name
    problem = check_route(route, trooper.body(), GUTS_MOVE, state.table, _others(state, trooper))
    if problem is not None:
        code = "route_too_long" if problem.code == "route_too_long" else "bad_route"
        return GutsProblem(code, f"Guts movement: {problem.message}")
    area = reactive_move_problem(state.table, trooper, route)  # Special Terrain: stops there
    if area is not None:
        return GutsProblem("bad_route", f"Guts movement: {area}")
    end = route[-1]
    if _touches(trooper.body(end), _foes(state, trooper)):
        return GutsProblem("guts_base_contact",
                           f"A Guts movement may not end in base contact with an enemy ({name}).")
    enemies = [state.trooper(a) for a in rule.attackers]
    reaching = [e for e in enemies if _reaches(state, e, e.id in rule.hackers, trooper, end)]
    if not reaching:
        return None
    if rule.reason != "guts_to_cover":
        enemy = reaching[0]
        where = "Hacking Area" if enemy.id in rule.hackers else "Line of Fire"
        return GutsProblem("guts_still_in_reach",
                           f"There {name} would still be in the {where} of {enemy.profile.name}: "
                           "it must leave the reach of every attacker, and it can within 2 inches.")
    shooters = [e for e in enemies if e.id not in rule.hackers]
    if _covered(state, trooper, shooters, end):  # (cover does not help against a Hacker)
        return None
    enemy = next(e for e in shooters if _sees(state, e, trooper, end)
                 and not in_partial_cover(trooper.body(end), e.body(), state.table))
    return GutsProblem("guts_not_in_cover",
                       f"There {name} would not be in Partial Cover from {enemy.profile.name}: it "
                       "must reach cover from every attacker that still sees it.")


def _others(state: GameState, trooper: TrooperState) -> tuple[Body, ...]:
    """The bases a Guts movement may not pass through."""
    return tuple(t.body() for t in state.troopers.values() if t.on_table and t.id != trooper.id)


def _foes(state: GameState, trooper: TrooperState) -> tuple[Body, ...]:
    return tuple(t.body() for t in state.troopers.values()
                 if t.on_table and t.side is not trooper.side)


def _touches(body: Body, foes: Sequence[Body]) -> bool:
    return any(in_base_contact(body, foe) for foe in foes)


def _out_of_reach(state: GameState, trooper: TrooperState, enemies: Sequence[TrooperState],
                  hackers: Sequence[TrooperId], point: Point) -> bool:
    return not any(_reaches(state, enemy, enemy.id in hackers, trooper, point)
                   for enemy in enemies)


def candidate_points(state: GameState, trooper: TrooperState,
                     enemies: Sequence[TrooperState]) -> tuple[Point, ...]:
    """Legal end points of a Guts move, in the order they are tried: each ring's points,
    then the points of the straight moves that end in contact with cover-giving scenery
    within that ring (Partial Cover needs contact, which a ring point rarely makes)."""
    x, y = _position(trooper)
    away = _away_angle(trooper, enemies)
    others, foes = _others(state, trooper), _foes(state, trooper)
    contacts = _scenery_contacts(state, trooper, away)
    points: list[Point] = []
    inner = 0.0
    for radius in RINGS:
        ring = [(x + radius * math.cos(a), y + radius * math.sin(a)) for a in _directions(away)]
        ring += [point for reach, point in contacts if inner < reach <= radius]
        inner = radius
        for point in ring:
            if check_route(((x, y), point), trooper.body(), GUTS_MOVE, state.table, others):
                continue
            if reactive_move_problem(state.table, trooper, ((x, y), point)):
                continue
            if _touches(trooper.body(point), foes):
                continue
            points.append(point)
    return tuple(points)


def _directions(away: float) -> list[float]:
    return [away + 2.0 * math.pi * k / DIRECTIONS for k in range(DIRECTIONS)]


_CONTACT_STEP = 0.1
"""Inches between the trials of a straight move looking for scenery contact; the first trial
in contact is then narrowed down by halving."""


def _scenery_contacts(state: GameState, trooper: TrooperState,
                      away: float) -> list[tuple[float, Point]]:
    """For each of the ring directions, the shortest straight move (at most 2 inches) that
    puts the base in contact with a piece of cover-giving scenery, as (its length, its end).
    The route's legality is judged afterwards, like a ring point's."""
    pieces = [p for p in state.table.terrain if p.gives_cover
              and body_polygon_distance(trooper.body(), p.polygon) <= GUTS_MOVE + CONTACT_TOLERANCE]
    if not pieces:
        return []
    if any(touches_scenery(trooper.body(), piece) for piece in pieces):
        return []  # already in contact: no move starts out of it
    x, y = _position(trooper)

    def touching(reach: float, angle: float) -> bool:
        body = trooper.body((x + reach * math.cos(angle), y + reach * math.sin(angle)))
        return any(touches_scenery(body, piece) for piece in pieces)

    found: list[tuple[float, Point]] = []
    steps = int(GUTS_MOVE / _CONTACT_STEP)
    for angle in _directions(away):
        hit = next((k * _CONTACT_STEP for k in range(1, steps + 1)
                    if touching(k * _CONTACT_STEP, angle)), None)
        if hit is None:
            continue
        low, high = hit - _CONTACT_STEP, hit
        for _ in range(12):  # to well under the contact tolerance
            middle = (low + high) / 2.0
            low, high = (low, middle) if touching(middle, angle) else (middle, high)
        found.append((high, (x + high * math.cos(angle), y + high * math.sin(angle))))
    return sorted(found)


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
