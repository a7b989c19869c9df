"""Seed 002 "Game Sequence", the Tactical Phase (rows 002.4, 002.6): "Executive Use of Command
Tokens - Retreat! Check - Loss of Lieutenant check - Order Count".

The game never waits for a Command Token (docs/rules-decisions/README.md "Command Tokens: the game
never waits for one"): the Retreat! and Loss of Lieutenant checks and the Order Count are
automatic, and the Executive use is offered from the Order Count until the turn's first
Order. These tests check that order of steps and why it changes nothing the rules decide:
the Executive use built (a trooper joining another Combat Group) made after the checks and
the count leaves the same Retreat!, the same Loss of Lieutenant and the same pools as if it
had been made first, as the seed orders it.
"""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from typing import Any

from server.rules import engine
from server.rules.combat.wounds import Condition
from server.rules.commands import parse_command
from server.rules.decision import Accepted
from server.rules.events import (
    CommandTokenSpent,
    Event,
    LossOfLieutenant,
    OrdersCounted,
    PhaseStarted,
    RetreatDeclared,
    TurnStarted,
)
from server.rules.ids import Side, TrooperId
from server.rules.options import seat_options
from server.rules.orders.command_tokens import executive_window
from server.rules.orders.game_sequence import tactical_phase
from server.rules.orders.order_pool import count_orders
from server.rules.state import GameState, Phase
from tests.support.games import play
from tests.support.scenarios import SCENARIO_DIR, build_state

A, B = Side.A, Side.B
T = TrooperId
LIEUTENANT, MOVED = T("A-t1"), T("A-t3")


def _w6() -> GameState:
    """DIGEST W6's Combat Group for A plus a second group of two Lancers (pools {1: 7, 2: 2});
    A's first Orders Phase, right after its Order Count."""
    setup: dict[str, Any] = copy.deepcopy(json.loads((SCENARIO_DIR / "w6_order_count.json").read_text())["setup"])
    setup["armies"]["A"]["entries"] += [
        {"id": "t11", "unit": "lancer", "combat_group": 2},
        {"id": "t12", "unit": "lancer", "combat_group": 2},
    ]
    setup["placements"] |= {"A-t11": [2, 4, 90], "A-t12": [4, 4, 90]}
    return build_state(setup)


def _dead(state: GameState, *ids: TrooperId) -> GameState:
    for tid in ids:
        trooper = state.trooper(tid)
        state = state.with_trooper(replace(trooper, condition=Condition.DEAD,
                                           wounds=trooper.profile.vita + 1))
    return state


def _next_turn_of_a(state: GameState) -> tuple[GameState, list[Event], list[bool]]:
    """A ends its turn, B ends its own: the state before A's next turn starts, the events
    from A's turn_started on, and whether A's Executive window is open after each of them."""
    state, _ = play(state, A, {"type": "end_turn"})
    decision = engine.decide(state, B, parse_command({"type": "end_turn"}))
    assert isinstance(decision, Accepted)
    events = list(decision.events)
    start = next(i for i, e in enumerate(events) if isinstance(e, TurnStarted) and e.active is A)
    for event in events[:start]:
        state = engine.apply(state, event)
    windows = []
    for event in events[start:]:
        state = engine.apply(state, event)
        windows.append(executive_window(state, A))
    return state, events[start:], windows


def _in_group(state: GameState, trooper: TrooperId, group: int) -> GameState:
    t = state.trooper(trooper)
    return state.with_trooper(replace(t, entry=replace(t.entry, combat_group=group)))


def test_seed_002_tactical_phase_checks_run_in_the_seed_order_then_the_executive_window_opens() -> None:
    """A's Lieutenant is Dead and its army down to a few points: its turn starts with the
    Retreat! check, then Loss of Lieutenant, then the Order Count, in that order, all
    automatic; the Executive window is closed in every state on the way and opens with the
    count (the first state the Active Player can act in)."""
    state = _w6()
    survivors = {T("A-t2"), MOVED, T("A-t11")}
    state = _dead(state, *(t.id for t in state.troopers_of(A) if t.id not in survivors))
    at, events, windows = _next_turn_of_a(state)
    assert [type(e) for e in events] == [TurnStarted, RetreatDeclared, LossOfLieutenant,
                                         OrdersCounted, PhaseStarted]
    assert windows == [False, False, False, False, True]
    assert at.phase is Phase.ORDERS
    offered = [b["use"] for b in seat_options(at, A)["command_tokens"]]
    assert "transfer_trooper" in offered


def test_seed_002_executive_use_after_the_count_gives_the_pools_of_a_use_made_first() -> None:
    """A Lancer joins Combat Group 2 after the Order Count: the pools are those an Order
    Count makes with it already in group 2, as when the use comes first (seed 002)."""
    state = _w6()
    assert state.orders.pools == {1: 7, 2: 2}
    after, events = play(state, A, {"type": "spend_command_token", "use": "transfer_trooper",
                                     "trooper": MOVED, "combat_group": 2})
    assert isinstance(events[0], CommandTokenSpent)
    first = _in_group(replace(state, phase=Phase.TACTICAL), MOVED, 2)
    assert count_orders(first, A).pools == after.orders.pools == {1: 6, 2: 3}


def test_seed_002_executive_use_changes_neither_retreat_nor_loss_of_lieutenant() -> None:
    """The checks read no Combat Group: moving a trooper, the Lieutenant itself included,
    leaves the Retreat! and Loss of Lieutenant checks' events the same, with the army in
    Retreat! and without its Lieutenant, and with neither (control)."""
    healthy = replace(_w6(), phase=Phase.TACTICAL, loss_of_lieutenant=frozenset(), retreat=frozenset())
    survivors = {T("A-t2"), MOVED, T("A-t11")}
    broken = _dead(healthy, *(t.id for t in healthy.troopers_of(A) if t.id not in survivors))
    assert [type(e) for e in tactical_phase(broken)] == [RetreatDeclared, LossOfLieutenant]
    assert tactical_phase(healthy) == []
    for state in (healthy, broken):
        for trooper in (MOVED, LIEUTENANT):
            assert tactical_phase(_in_group(state, trooper, 2)) == tactical_phase(state)
