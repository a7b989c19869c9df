"""The practice bot decides from its own seat's projection only (issue 39).

Two proofs: statically, ``server.bot`` imports nothing of the room, the store or the rules
state, only the rules core's pure functions on public values (the dice judge, the ruleset's
options, the Silhouette table); and dynamically, two games that differ only in the
opponent's private facts (its Lieutenant, its Classified Objectives) give the bot
byte-identical inputs (its view and options) and so the same decisions.

Implementation test: no rule section (the bot is the server's own player)."""

from __future__ import annotations

import ast
import json
import random
from dataclasses import replace
from itertools import islice
from pathlib import Path

from server.bot.decide import candidates
from server.rules.ids import Side
from server.rules.missions.classified_deck import shipped_deck
from server.rules.options import seat_options
from server.rules.state import ClassifiedCard, GameState, OrderStep, Phase
from server.rules.views import view_state
from tests.support.bot_games import play_bot_game
from tests.support.liveness import waited_on

BOT = Path(__file__).resolve().parents[2] / "server" / "bot"
PURE_HELPERS = {"server.rules.combat.rolls", "server.rules.ruleset",
                "server.rules.table.silhouettes"}
"""What the bot may use of the rules core: functions of public numbers only."""
ALLOWED_SERVER = ("server.bot", "server.config")


def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
    return found


def test_the_bot_imports_no_room_store_or_rules_state() -> None:
    crossing = sorted(f"{path.name}: {module}" for path in BOT.glob("*.py")
                      for module in _imports(path)
                      if module.split(".")[0] == "server" and module not in PURE_HELPERS
                      and not module.startswith(ALLOWED_SERVER))
    assert crossing == []


def _bot_inputs(state: GameState, seat: Side) -> tuple[str, str]:
    return (json.dumps(view_state(state, seat), sort_keys=True, default=str),
            json.dumps(seat_options(state, seat), sort_keys=True, default=str))


def _decisions(state: GameState, seat: Side) -> list[dict[str, object]]:
    view, options = view_state(state, seat), seat_options(state, seat)
    return list(islice(candidates(view, options, seat.value, "sensible", random.Random(7)), 60))


def _b_reacts(state: GameState) -> bool:
    order = state.order
    return (state.phase is Phase.ORDERS and state.active is Side.A and order is not None
            and order.step in (OrderStep.ARO_1, OrderStep.ARO_2) and waited_on(state) is Side.B)


def test_the_opponents_private_facts_change_nothing_the_bot_holds() -> None:
    state = play_bot_game("codeone", 5, table="codeone-orbital-medlab",
                          mission="codeone-cold-storage",
                          armies=("helion-c1-patrol", "orrery-c1-veil"), stop=_b_reacts).state
    assert _b_reacts(state)
    others = sorted(t.id for t in state.troopers.values()
                    if t.side is Side.A and t.id != state.orders.lieutenant)
    held = {card.id for card in state.classified.get(Side.A, ())}
    other_card = next(card.id for card in shipped_deck(state.ruleset) if card.id not in held)
    elsewhere = replace(state, orders=replace(state.orders, lieutenant=others[0]),
                        classified={**state.classified, Side.A: (ClassifiedCard(other_card),)})
    assert _bot_inputs(state, Side.A) != _bot_inputs(elsewhere, Side.A)  # A's facts differ
    assert _bot_inputs(state, Side.B) == _bot_inputs(elsewhere, Side.B)
    assert _decisions(state, Side.B) == _decisions(elsewhere, Side.B)
    assert _decisions(state, Side.B)  # the bot had something to do
