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
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from server.rules import commands as c
from server.rules import engine
from server.rules.armies.army_catalogue import sample_armies
from server.rules.armies.army_list import ArmyList
from server.rules.armies.army_selection import list_format_for, random_ids
from server.rules.decision import Accepted
from server.rules.events import ArmyChosen, Event
from server.rules.ids import Side
from server.rules.options import seat_options
from server.rules.orders.deployment import deployer
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
                     max_commands: int = 3000) -> GameLog:
    """A whole random game (or until ``stop(state)`` holds); see the module docstring.
    ``prepare`` changes the state once, when the first Player Turn waits for its player
    (a test's shortcut to a late-game situation, e.g. an army nearly wiped out). ``table``
    names a shipped table layout ("" for the ruleset's sample layout)."""
    rng = random.Random(seed)
    state = engine.new_game(engine.GameSetup(ruleset=ruleset, seed=seed, table=table))
    state, produced = choose_armies(state, seed, rng, lists)
    log = GameLog(state, armies={side: state.armies[side].id for side in Side})
    players = {side: RandomPlayer(side.value, rng.randrange(2**32), orders_per_turn, greedy_deployment)
               for side in Side}
    last_round = options(Ruleset(ruleset)).rounds
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
            check(attack_accepted_at_marker(state, command), seed, state)
            return apply_checked(state, decision.events, seed)
        if drawn(body):
            log.rejected[f"{body['type']}:{decision.code}"] += 1
        else:
            log.refused_offers.append(f"seed {seed}, {describe(state)}: {body} refused: "
                                      f"{decision.code} {decision.message}")
    raise SoftLock(f"seed {seed}: {side.value} has options but the rules core refuses every one "
                   f"({describe(state)}): {choices}")


def apply_checked(state: GameState, events: tuple[Event, ...], seed: int) -> GameState:
    """Apply the events one by one; no two bases may overlap after any of them."""
    for event in events:
        state = engine.apply(state, event)
        check(overlapping_bases(state), seed, state, f"after {event.TYPE}")
    return state


def check(broken: list[str], seed: int, state: GameState, when: str = "") -> None:
    """Fail the game on a broken property (``tests/support/invariants.py``)."""
    if broken:
        raise AssertionError(f"seed {seed} ({describe(state)}) {when}: " + "; ".join(broken))


def label(body: dict[str, object]) -> str:
    """A command's type, with what makes it special for coverage: a hidden deployment, the
    kind of Order and a joint activation with Peripherals, the skill declared."""
    kind = str(body["type"])
    if kind == "deploy" and body.get("hidden"):
        return "deploy:hidden"
    if kind == "activate":
        return f"activate:{body['order']}" + (":joint" if body.get("peripherals") else "")
    if kind in ("declare_skill", "declare_aro"):
        return f"{kind}:{body['skill']['type']}"  # type: ignore[index]
    if kind == "spend_command_token":
        return f"{kind}:{body['use']}"
    return kind


def describe(state: GameState) -> str:
    order = state.order
    where = f"round {state.round} turn {state.turn} phase {state.phase.value}"
    if order is not None:
        where += f", Order {order.number} of {order.trooper} at {order.step.value}"
    return where
