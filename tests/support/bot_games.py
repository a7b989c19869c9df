"""Two practice bots (``server/bot``) play each other through the rules core, each fed only
its own seat's view (``server.rules.views.view_state``) and options (``seat_options``), as
the room sends them to the seat's socket (``tests/bot/test_bot_games.py``).

The driver knows the whole state only to be the referee: it asks the seat the game waits on
for its candidates and applies the first the rules core accepts. A game that is not over
after ``max_commands`` commands fails (``NeverEnds``); a seat whose every candidate is
refused is a soft-lock."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from server.bot.decide import candidates
from server.bot.fruitless import Fruitless
from server.bot.offers import close_window
from server.rules import commands as c
from server.rules import engine
from server.rules.decision import Accepted
from server.rules.events import Event
from server.rules.ids import Side
from server.rules.options import seat_options
from server.rules.plain import FormatError
from server.rules.state import GameState
from server.rules.views import view_state
from tests.support.liveness import NeverEnds, SoftLock, waited_on


@dataclass
class BotGame:
    state: GameState
    commands: Counter[str] = field(default_factory=Counter)
    refused: int = 0
    played: list[tuple[str, str]] = field(default_factory=list)
    """Each accepted command: the seat that sent it and its label (``_label``)."""


def play_bot_game(ruleset: str, seed: int, *, table: str = "", mission: str = "",
                  armies: tuple[str, str] | None = None,
                  levels: tuple[str, str] = ("sensible", "sensible"),
                  moves_per_turn: int = 3, max_commands: int = 4000,
                  ends_turns: Side | None = None,
                  stop: Callable[[GameState], bool] = lambda state: False,
                  on_accepted: Callable[[GameState, list[Event]], None] | None = None,
                  ) -> BotGame:
    """A whole game between two bots (or until ``stop(state)`` holds); ``armies``: the
    lists A and B choose (None: each bot's own choice among the options); ``ends_turns``: a
    seat that spends no Order and declares no ARO, ending each of its turns at once (as the
    browser test's human does; its other decisions, setup and deployment, are its bot's);
    ``on_accepted(state, events)``: after each accepted command, its events and the state
    after them."""
    state = engine.new_game(engine.GameSetup(ruleset=ruleset, seed=seed, table=table,
                                             mission=mission))
    rngs = {side: random.Random(f"bot {seed} {side.value}") for side in Side}
    game = BotGame(state)
    memories = {side: Fruitless() for side in Side}
    for _ in range(max_commands):
        side = waited_on(state) if state.armies.keys() >= set(Side) else _choosing(state)
        if side is None or stop(state):
            game.state = state
            return game
        view = view_state(state, side)
        options = seat_options(state, side)
        level = levels[0] if side is Side.A else levels[1]
        wanted: list[dict[str, object]] = []
        if side is ends_turns and options.get("end_turn"):
            wanted = [{"type": "end_turn"}]
        elif side is ends_turns and options.get("close_aro_window"):
            wanted = [close_window(options["close_aro_window"])]
        if armies is not None and options.get("choose_army"):
            wanted = [{"type": "choose_army", "army": armies[0 if side is Side.A else 1],
                       "entropy": rngs[side].randbytes(32).hex()}]
        # Tried lazily, in order, as the seat client does (the bot's memory relies on it).
        for body in itertools.chain(wanted, candidates(view, options, side.value, level,
                                                       rngs[side], moves_per_turn,
                                                       memories[side])):
            try:
                command = c.parse_command(body)
            except FormatError:
                game.refused += 1
                continue
            decision = engine.decide(state, side, command)
            if isinstance(decision, Accepted):
                game.commands[_label(body)] += 1
                game.played.append((side.value, _label(body)))
                state = engine.apply_all(state, decision.events)
                if on_accepted is not None:
                    on_accepted(state, list(decision.events))
                break
            game.refused += 1
        else:
            raise SoftLock(f"seed {seed}: every candidate of {side.value} refused")
    raise NeverEnds(f"seed {seed}: not over after {max_commands} commands "
                    f"(round {state.round}, turn {state.turn}, phase {state.phase}): {game.commands}")


def _choosing(state: GameState) -> Side:
    """Before both lists are chosen, the first seat without one."""
    return next(side for side in Side if side not in state.armies)


def _label(body: dict[str, object]) -> str:
    """A command's type, with the skill a declaration names (``declare_aro:dodge``)."""
    skill = body.get("skill")
    kind = str(body["type"])
    return f"{kind}:{skill['type']}" if isinstance(skill, dict) else kind
