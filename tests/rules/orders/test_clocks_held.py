"""Chess clocks held while the room's store refused its writes (``server/rules/orders/
clocks.py``, "Held"): the room's ``hold_clocks`` gives the running clock back the span, from
the later of the first refusal and the clock's start, to the store's return; a deadline met
meanwhile moves on by it; a clock already at 0 when the store failed gets nothing; only the
room may send it; the replayed log rebuilds the same clocks.

DIGEST 15 (tournament timing: a chess clock per player); the hold itself is our decision
(docs/rules-decisions/README.md, 2026-12-02)."""

from __future__ import annotations

from server.rules import commands as c
from server.rules import engine
from server.rules.decision import Accepted, Rejected
from server.rules.events import ClocksHeld, event_from_plain, event_to_plain
from server.rules.ids import Side
from server.rules.orders.clocks import deadline
from server.rules.state import GameState
from tests.rules.orders.test_chess_clocks import A1, MINUTE, board, left, move, timed

ACTIVATE = {"type": "activate", "trooper": A1, "order": "regular"}


def in_aro_window(clock_ms: int = 75 * MINUTE) -> GameState:
    """B's clock runs from room time 30 s (its ARO window), A's stopped at 75 min - 30 s."""
    state = engine.start_clocks(board(), clock_ms, at_ms=0)
    state, _ = timed(state, Side.A, ACTIVATE, 10_000)
    state, _ = timed(state, Side.A, move([[22.5, 4], [22.5, 6]]), 30_000)
    assert state.clocks is not None and state.clocks.running is Side.B
    return state


def test_the_span_the_store_refused_writes_is_given_back_to_the_running_clock() -> None:
    state = in_aro_window()
    state, events = timed(state, engine.SYSTEM, c.HoldClocks(from_ms=40_000, to_ms=52_000),
                          52_000)
    assert events == (ClocksHeld(40_000, 52_000, {Side.A: 75 * MINUTE - 30_000,
                                                  Side.B: 75 * MINUTE - 10_000}),)
    # B was charged 10 s (30 s to 40 s), not the 12 s the store was down.
    assert left(state, 60_000) == {Side.A: 75 * MINUTE - 30_000, Side.B: 75 * MINUTE - 18_000}
    assert deadline(state) == (Side.B, 52_000 + 75 * MINUTE - 10_000)
    # The log replayed rebuilds the same clocks; the event survives its plain form.
    [held] = events
    assert event_from_plain(event_to_plain(held)) == held
    assert engine.state_from_plain(engine.state_to_plain(state)) == state


def test_a_deadline_met_while_the_store_refused_writes_moves_on_and_is_not_run_out() -> None:
    state = in_aro_window(clock_ms=MINUTE)  # B's 60 s run out at room time 90 s
    assert deadline(state) == (Side.B, 90_000)
    state, _ = timed(state, engine.SYSTEM, c.HoldClocks(from_ms=80_000, to_ms=95_000), 95_000)
    assert deadline(state) == (Side.B, 105_000)  # the 10 s B had left when it failed
    expired = engine.decide(state, engine.SYSTEM, c.ClockExpired(Side.B, 90_000), at_ms=95_000)
    assert isinstance(expired, Rejected) and expired.code == "stale_clock"


def test_a_span_that_began_before_the_clock_started_counts_from_its_start() -> None:
    state = in_aro_window()  # B's clock started at 30 s
    _, events = timed(state, engine.SYSTEM, c.HoldClocks(from_ms=25_000, to_ms=35_000), 35_000)
    assert events == (ClocksHeld(30_000, 35_000, {Side.A: 75 * MINUTE - 30_000,
                                                  Side.B: 75 * MINUTE}),)


def test_a_clock_at_zero_when_the_store_failed_gets_nothing_back() -> None:
    state = in_aro_window(clock_ms=MINUTE)  # B out of time at 90 s
    decision = engine.decide(state, engine.SYSTEM, c.HoldClocks(from_ms=91_000, to_ms=99_000),
                             at_ms=99_000)
    assert decision == Accepted((), state)  # the time-out it met stands
    expired = engine.decide(state, engine.SYSTEM, c.ClockExpired(Side.B, 90_000), at_ms=99_000)
    assert isinstance(expired, Accepted) and expired.events[0].TYPE == "clock_ran_out"


def test_no_clock_running_nothing_to_hold() -> None:
    state = board()  # no chess clocks
    decision = engine.decide(state, engine.SYSTEM, c.HoldClocks(from_ms=1_000, to_ms=9_000),
                             at_ms=9_000)
    assert isinstance(decision, Accepted) and decision.events == ()


def test_only_the_room_holds_the_clocks_and_a_span_may_not_end_before_it_starts() -> None:
    state = in_aro_window()
    by_player = engine.decide(state, Side.B, c.HoldClocks(from_ms=40_000, to_ms=50_000),
                              at_ms=50_000)
    assert isinstance(by_player, Rejected) and by_player.code == "bad_command"
    backwards = engine.decide(state, engine.SYSTEM, c.HoldClocks(from_ms=50_000, to_ms=40_000),
                              at_ms=50_000)
    assert isinstance(backwards, Rejected) and backwards.code == "bad_command"
