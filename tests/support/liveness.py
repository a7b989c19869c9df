"""Random whole games through the rules core, checking at every step that the game waits
on exactly one seat and that this seat has a legal option (``tests/rules/test_liveness.py``),
and the properties of ``tests/support/invariants.py`` (no Attack at a Camouflage Marker
offered or accepted; no two bases overlapping after any event).

``play_random_game`` chooses each seat's army at random among the lists of the game's
format (or the lists it is given), then lets two ``RandomPlayer`` seats play from their own
view and options until the game is over. A state in which the seat the game waits on has no
option the rules core accepts is a soft-lock (``SoftLock``); a game that is not over after
``max_commands`` commands, or that goes past its last Game Round, is a loop
(``NeverEnds``). A concession is never sent.

Every BS Attack and Discover declared (``Declared``) is followed to its Resolution: an
offered one must not become Idle for a reason known when it was declared
(``GameLog.idle_offers``), and its roll must have the Success Value and MODs the options
showed (``GameLog.changed_previews``), except where docs/rules-decisions/README.md says what may
still change after the declaration (``MAY_CHANGE``, a sight line another declaration
blocked, an ARO's default point a later movement moved).
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from server.rules import commands as c
from server.rules import engine
from server.rules.armies.army_catalogue import sample_armies
from server.rules.armies.army_list import ArmyList
from server.rules.armies.army_selection import list_format_for, random_ids
from server.rules.combat.mods import blocking_bodies_by_trooper
from server.rules.combat.outcome import BecameIdle
from server.rules.decision import Accepted
from server.rules.events import (
    ArmyChosen,
    ClassifiedAchieved,
    Event,
    ObjectivePointsScored,
    OrderResolved,
)
from server.rules.ids import Side
from server.rules.options import seat_options
from server.rules.orders.deployment import deployer
from server.rules.orders.difficult_terrain import area_effect
from server.rules.orders.sequence import automatic_events
from server.rules.ruleset import Ruleset, options
from server.rules.state import GameState, OrderStep, Phase
from server.rules.views import view_state
from tests.support.invariants import (
    attack_accepted_at_marker,
    attacks_offered_at_markers,
    overlapping_bases,
)
from tests.support.random_player import RandomPlayer, drawn, waits_on


class SoftLock(AssertionError):
    """The seat the game waits on has no option the rules core accepts."""


class NeverEnds(AssertionError):
    """The game did not end by itself."""


MAY_CHANGE = {
    "target_not_discovered": "the Discover roll of the same Order failed",
    "target_not_a_marker": "the marker revealed itself by its own declaration",
}
"""Idle reasons of a BS Attack or Discover that only what follows its declaration decides
(docs/rules-decisions/README.md, "What options shows of a shot"). ``no_line_of_fire`` is one only
when the bodies that block Line of Fire changed after the declaration (a Camouflage Marker
or a hidden trooper revealed by its own declaration, a Peripheral's movement)."""


@dataclass(frozen=True)
class Declared:
    """A BS Attack or Discover declared in the current Order, as it was offered."""

    trooper: str
    skill: dict[str, Any]
    blockers: object
    """The bodies that blocked Line of Fire at the declaration."""
    path: object
    """The targeted activated trooper's path at the declaration (an ARO's default point)."""
    preview: dict[str, Any] | None
    """What the options showed of it (None: a declaration the options did not name as it is,
    a Burst split between targets)."""


@dataclass
class GameLog:
    """What a random game did: its end, and how often each command and event occurred."""

    state: GameState
    commands: Counter[str] = field(default_factory=Counter)
    events: Counter[str] = field(default_factory=Counter)
    rejected: Counter[str] = field(default_factory=Counter)
    """Refused bodies that held a drawn point, route or Burst split, by type and reason."""
    refused_offers: list[str] = field(default_factory=list)
    """Bodies made only of what the options named that the rules core still refused: each
    one is an options bug (a choice offered that the server refuses)."""
    armies: dict[Side, str] = field(default_factory=dict)
    last_events: tuple[Event, ...] = ()
    declared: list[Declared] = field(default_factory=list)
    """The current Order's BS Attacks and Discovers, until it is resolved."""
    idle_offers: list[str] = field(default_factory=list)
    """Offered BS Attacks and Discovers that became Idle for a reason known when they were
    declared: each one is an options bug."""
    changed_previews: list[str] = field(default_factory=list)
    """Offered shots whose roll differed from the Success Value or MODs the options showed
    though nothing that may change it did."""
    checked_previews: int = 0
    """Rolls compared with their preview."""
    aros_at_points: int = 0
    """AROs declared at a point of the route the options listed (``target_point``)."""
    effects: Counter[str] = field(default_factory=Counter)
    """How often each effect of a Resolution occurred (``zone_placed``, ``deployable_placed``...)."""
    special_terrain_moves: int = 0
    """Movements declared by a trooper touching a Special Terrain area (its allowance changed
    by the area's MOD or its Terrain skill: ``orders/difficult_terrain.py``)."""
    awarded: Counter[Side] = field(default_factory=Counter)
    """The Objective Points the scoring events and the achieved Classified Objectives
    awarded each side (a game on a mission)."""


def waited_on(state: GameState) -> Side | None:
    """The seat the game waits on, read from the state alone (None once it is over).

    Between two commands the game never rests in an automatic step (the Tactical or States
    Phase, an ARO step whose window is not open yet, the Resolution)."""
    phase = state.phase
    if phase is Phase.GAME_OVER:
        return None
    if phase is Phase.INITIATIVE:
        winner = state.initiative.winner
        assert winner is not None, "the roll-off is automatic"
        return winner if state.initiative.winner_kept is None else winner.other
    if phase is Phase.DEPLOYMENT:
        side = deployer(state)
        assert side is not None, "deployment rests only while someone deploys"
        return side
    assert phase in (Phase.IMPETUOUS, Phase.ORDERS), f"the game rests in {phase}"
    order = state.order
    if order is not None and order.step is OrderStep.CONCLUSION:
        assert order.guts_window and order.conclusion, "a Conclusion rests only in a Guts window"
        return state.trooper(order.conclusion.guts[0].trooper).side
    if order is not None and order.step in (OrderStep.ARO_1, OrderStep.ARO_2):
        assert order.window_open, "an ARO step rests only with its window open"
        return state.reactive
    assert order is None or order.step in (OrderStep.FIRST_SKILL, OrderStep.SECOND_SKILL), order
    return state.active


def entropy(seed: int, side: Side) -> str:
    return hashlib.sha256(f"liveness {seed} {side.value}".encode()).hexdigest()


def choose_armies(state: GameState, seed: int, rng: random.Random,
                  lists: dict[Side, ArmyList] | None) -> tuple[GameState, list[Event]]:
    """Each side's list: the one given, or a random list of the game's format."""
    wanted = list_format_for(state.ruleset)
    catalogue = sorted(a.id for a in sample_armies().values() if a.format is wanted)
    produced: list[Event] = []
    for side in Side:
        if lists is not None and side in lists:
            # A list the catalogue does not ship (tests/support/feature_armies.py): the same
            # event ``choose_army`` makes for a shipped list, then the automatic steps.
            army = lists[side]
            chosen = ArmyChosen(side, army, random_ids(army, side, state.id_key), entropy(seed, side))
            state, more = automatic_events(engine.apply(state, chosen), engine.apply)
            produced += [chosen, *more]
            continue
        decision = engine.decide(state, side, c.ChooseArmy(rng.choice(catalogue), entropy(seed, side)))
        assert isinstance(decision, Accepted), decision
        state = engine.apply_all(state, decision.events)
        produced += decision.events
    return state, produced


def play_random_game(ruleset: str, seed: int, *, orders_per_turn: int = 3,
                     lists: dict[Side, ArmyList] | None = None,
                     greedy_deployment: bool = False,
                     stop: Callable[[GameState], bool] = lambda state: False,
                     prepare: Callable[[GameState], GameState] | None = None,
                     table: str = "",
                     mission: str = "",
                     max_commands: int = 3000) -> GameLog:
    """A whole random game (or until ``stop(state)`` holds); see the module docstring.
    ``prepare`` changes the state once, when the first Player Turn waits for its player
    (a test's shortcut to a late-game situation, e.g. an army nearly wiped out). ``table``
    names a shipped table layout ("" for the ruleset's sample layout), ``mission`` a shipped
    mission ("" for none)."""
    rng = random.Random(seed)
    state = engine.new_game(engine.GameSetup(ruleset=ruleset, seed=seed, table=table,
                                             mission=mission))
    state, produced = choose_armies(state, seed, rng, lists)
    log = GameLog(state, armies={side: state.armies[side].id for side in Side})
    players = {side: RandomPlayer(side.value, rng.randrange(2**32), orders_per_turn, greedy_deployment)
               for side in Side}
    last_round = state.mission.rounds if state.mission else options(Ruleset(ruleset)).rounds
    observe(players, produced, log)
    for _ in range(max_commands):
        if prepare is not None and state.phase in (Phase.IMPETUOUS, Phase.ORDERS):
            state, prepare = prepare(state), None
        side = waited_on(state)
        if side is None or stop(state):
            log.state = state
            return log
        if state.round > last_round:
            raise NeverEnds(f"seed {seed}: round {state.round} of a {last_round}-round game")
        state = step(state, side, players[side], log, seed)
        observe(players, log.last_events, log)
    raise NeverEnds(f"seed {seed}: not over after {max_commands} commands "
                    f"(round {state.round}, turn {state.turn}, phase {state.phase})")


def observe(players: dict[Side, RandomPlayer], events: list[Event] | tuple[Event, ...],
            log: GameLog) -> None:
    for event in events:
        log.events[event.TYPE] += 1
        if isinstance(event, ObjectivePointsScored):
            for award in event.awards:
                log.awarded[award.side] += award.op
        if isinstance(event, ClassifiedAchieved):
            log.awarded[event.side] += event.op
        for player in players.values():
            player.observe(event.TYPE)


def step(state: GameState, side: Side, player: RandomPlayer, log: GameLog, seed: int) -> GameState:
    """One command of the seat the game waits on; the property is checked first."""
    choices = seat_options(state, side)
    other = seat_options(state, side.other)
    if not waits_on(choices):
        raise SoftLock(f"seed {seed}: the game waits on {side.value} ({describe(state)}), whose "
                       f"options offer nothing: {choices}")
    if waits_on(other):
        raise AssertionError(f"seed {seed}: the game waits on {side.value} ({describe(state)}) "
                             f"but {side.other.value} is offered moves too: {other}")
    check(attacks_offered_at_markers(state, choices), seed, state)
    seen: dict[str, object] = {}

    def view() -> dict[str, object]:
        if "view" not in seen:
            seen["view"] = view_state(state, side)
        return seen["view"]  # type: ignore[return-value]

    for body in player.candidates(choices, view):  # type: ignore[arg-type]
        command = c.parse_command(body)
        decision = engine.decide(state, side, command)
        if isinstance(decision, Accepted):
            player.accepted(body)
            log.commands[label(body)] += 1
            log.last_events = decision.events
            log.declared += declared_shots(state, body, choices)
            if body["type"] == "declare_aro" and body["skill"].get("target_point"):
                log.aros_at_points += 1
            if body["type"] == "declare_skill" and "route" in body["skill"] and state.order \
                    and area_effect(state.table, state.trooper(state.order.trooper)).mov \
                    != state.trooper(state.order.trooper).profile.mov:
                log.special_terrain_moves += 1
            check(attack_accepted_at_marker(state, command), seed, state)
            for event in decision.events:
                if isinstance(event, OrderResolved):
                    check_resolved_as_offered(state, event, log, seed)
                    log.effects.update(effect.TYPE for effect in event.outcome.effects)
                state = engine.apply(state, event)
                check(overlapping_bases(state), seed, state, f"after {event.TYPE}")
            return state
        if drawn(body):
            log.rejected[f"{body['type']}:{decision.code}"] += 1
        else:
            log.refused_offers.append(f"seed {seed}, {describe(state)}: {body} refused: "
                                      f"{decision.code} {decision.message}")
    raise SoftLock(f"seed {seed}: {side.value} has options but the rules core refuses every one "
                   f"({describe(state)}): {choices}")


SHOT_SKILLS = ("bs_attack", "discover")


def declared_shots(state: GameState, body: dict[str, Any], choices: dict[str, Any]) -> list[Declared]:
    """The BS Attacks and Discovers ``body`` declares, with what the options showed of each."""
    if body["type"] == "declare_aro":
        found = [(str(body["trooper"]), body["skill"])]
    elif body["type"] == "declare_skill" and state.order is not None:
        found = [(state.order.trooper, body["skill"])]
        found += [(p["trooper"], p["skill"]) for p in body.get("peripherals") or []]
    else:
        return []
    blockers = blocking_bodies_by_trooper(state)
    order = state.order
    assert order is not None
    return [Declared(trooper, skill, blockers, _target_path(state, skill),
                     offered_preview(choices, body, trooper, skill))
            for trooper, skill in found
            if skill["type"] in SHOT_SKILLS and skill.get("zone_at") is None]  # no target: no preview


def _target_path(state: GameState, skill: dict[str, Any]) -> object:
    order = state.order
    assert order is not None
    target = _first_target(skill)
    return order.for_trooper(target).path if target in order.activated else None


def _first_target(skill: dict[str, Any]) -> Any:
    return skill["targets"][0]["trooper"] if "targets" in skill else skill.get("target")


def offered_preview(choices: dict[str, Any], body: dict[str, Any], trooper: str,
                    skill: dict[str, Any]) -> dict[str, Any] | None:
    """The preview the options gave of exactly this declaration, if they named it."""
    if skill["type"] == "bs_attack" and len(skill["targets"]) != 1:
        return None
    target = _first_target(skill)
    if body["type"] == "declare_aro":
        aro = (choices.get("aros") or {}).get(trooper) or {}
        entries = (aro.get("shots", {}).get(skill.get("weapon"), {}) if skill["type"] == "bs_attack"
                   else {"discover": aro.get("discover_rolls", {})}.get("discover", {}))
        return next((e for e in entries.get(target, []) if e["point"] == skill.get("target_point")),
                    None)
    if skill["type"] != "bs_attack":
        return None
    if body.get("peripherals"):
        return None  # a joint declaration: each trooper's preview is of it alone
    own = choices.get("skills") or {}
    if skill.get("firing_point") is None:
        weapons = own.get("bs_attack") or {}
    else:
        weapons = next((e["bs_attack"] for e in own.get("firing_points") or []
                        if e["point"] == skill["firing_point"]), {})
    shot: dict[str, Any] | None = (weapons.get(skill["weapon"]) or {}).get("shots", {}).get(target)
    return shot


def check_resolved_as_offered(state: GameState, event: OrderResolved, log: GameLog,
                              seed: int) -> None:
    """The property on the Order's BS Attacks and Discovers (module docstring); ``state`` is
    the state Resolution started from."""
    blockers = blocking_bodies_by_trooper(state)
    idle = {(str(e.trooper), e.skill): e for e in event.outcome.effects
            if isinstance(e, BecameIdle)}
    for declared in log.declared:
        where = f"seed {seed}, {describe(state)}: {declared.trooper} {declared.skill}"
        lost = idle.get((declared.trooper, declared.skill["type"]))
        if lost is not None:
            excused = lost.reason in MAY_CHANGE or (
                lost.reason == "no_line_of_fire" and blockers != declared.blockers)
            if not excused:
                log.idle_offers.append(f"{where} became Idle: {lost.reason}")
            continue
        if declared.preview is None or declared.preview["template"]:
            continue
        if _target_path(state, declared.skill) != declared.path and \
                declared.skill.get("target_point") is None:
            continue  # an ARO's default point moved with a later movement
        roll = next((r for r in event.outcome.rolls if r.trooper == declared.trooper
                     and r.skill == declared.skill["type"]
                     and r.target == _first_target(declared.skill)), None)
        if roll is None:
            continue
        log.checked_previews += 1
        shown = (declared.preview["sv"], declared.preview["mods"],
                 declared.preview["automatic_failure"] is not None)
        rolled = (roll.success_value, [{"source": m.source, "value": m.value} for m in roll.mods],
                  roll.automatic_failure)
        if shown != rolled:
            log.changed_previews.append(f"{where} was shown {shown}, rolled {rolled}")
    log.declared = []


def check(broken: list[str], seed: int, state: GameState, when: str = "") -> None:
    """Fail the game on a broken property (``tests/support/invariants.py``)."""
    if broken:
        raise AssertionError(f"seed {seed} ({describe(state)}) {when}: " + "; ".join(broken))


def label(body: dict[str, object]) -> str:
    """A command's type, with what makes it special for coverage: a hidden deployment and
    one with Mines, the kind of Order and a joint activation with Peripherals, the skill
    declared (``:zone`` for Smoke or Eclipse aimed at a point)."""
    kind = str(body["type"])
    if kind == "deploy":
        return kind + (":hidden" if body.get("hidden") else "") + (":mines" if body.get("mines") else "")
    if kind == "activate":
        return f"activate:{body['order']}" + (":joint" if body.get("peripherals") else "")
    if kind in ("declare_skill", "declare_aro"):
        skill: dict[str, Any] = body["skill"]  # type: ignore[assignment]
        return f"{kind}:{skill['type']}" + (":zone" if skill.get("zone_at") is not None else "")
    if kind == "spend_command_token":
        return f"{kind}:{body['use']}"
    if kind == "choose_guts_move":
        return f"{kind}:" + ("point" if body.get("route") else "default")
    return kind


def describe(state: GameState) -> str:
    order = state.order
    where = f"round {state.round} turn {state.turn} phase {state.phase.value}"
    if order is not None:
        where += f", Order {order.number} of {order.trooper} at {order.step.value}"
    return where
