"""Chess clocks (ITS practice; ``server/rules/orders/clocks.py``), through the rules core with
explicit room times: whose clock runs (initiative choice, deployment, the active player's
turn, an ARO window waiting on the reactive player), the time-out (``clock_ran_out``) ending
the turn after the current Order, the out-of-time player still declaring AROs, its later
turns ending at once, and the game still reaching its end. No clock in a room without them.

DIGEST 15 (tournament timing: a chess clock per player)."""

from __future__ import annotations

import pytest

from server.rules import commands as c
from server.rules import engine
from server.rules.decision import Accepted, Rejected
from server.rules.events import (
    AroDeclared,
    ClockRanOut,
    ClockSwitched,
    Event,
    GameEnded,
    TurnEnded,
    TurnStarted,
)
from server.rules.ids import Side
from server.rules.orders.clocks import clocks_fields, deadline, remaining_at
from server.rules.plain import Plain
from server.rules.state import GameState, Phase
from tests.support.games import ARMIES, TEST_ENTROPY, CommandRejected, deploy_all
from tests.support.liveness import play_random_game
from tests.support.skirmish import skirmish

A1 = "A-t5"  # Lancer Line Trooper (line_rifle)
B_SHOOTER = "B-t3"
MINUTE = 60_000


def timed(state: GameState, actor: Side | engine.System, command: c.Command | Plain,
          at_ms: int) -> tuple[GameState, tuple[Event, ...]]:
    """Decide ``command`` at room time ``at_ms`` and apply it; fail on a rejection."""
    if not isinstance(command, c.Command):
        command = c.parse_command(command)
    decision = engine.decide(state, actor, command, at_ms=at_ms)
    if isinstance(decision, Rejected):
        raise CommandRejected(f"{command!r} rejected: {decision.code}: {decision.message}")
    assert isinstance(decision, Accepted)
    return engine.apply_all(state, decision.events), decision.events


def switches(events: tuple[Event, ...]) -> list[ClockSwitched]:
    return [e for e in events if isinstance(e, ClockSwitched)]


def left(state: GameState, at_ms: int) -> dict[Side, int]:
    assert state.clocks is not None
    return {side: remaining_at(state.clocks, side, at_ms) for side in (Side.A, Side.B)}


def board(first: Side = Side.A) -> GameState:
    """A's A1 and B's shooter face each other down the same column (each sees the other)."""
    return skirmish({
        A1: (22.5, 4.0, 90.0),
        B_SHOOTER: (22.5, 28.0, 270.0),
        "A-t1": (3.5, 1.5, 90.0),
        "B-t1": (3.5, 30.5, 90.0),
    }, first=first)


def move(route: list[list[float]]) -> Plain:
    return {"type": "declare_skill", "skill": {"type": "move", "route": route}}


def test_no_clocks_no_clock_events() -> None:
    state = board()
    assert state.clocks is None
    state, events = timed(state, Side.A, {"type": "activate", "trooper": A1, "order": "regular"}, 5_000)
    assert not switches(events)
    assert clocks_fields(state, 5_000) is None


def test_clocks_run_for_the_initiative_choice_and_each_deployment_step() -> None:
    state = engine.new_game(engine.GameSetup(ruleset="codeone", seed=7))
    state = engine.start_clocks(state, 75 * MINUTE, at_ms=0)
    # Army selection: both choose at once, before the game: no clock runs.
    state, events = timed(state, Side.A, c.ChooseArmy(ARMIES["codeone"][Side.A], TEST_ENTROPY), 4_000)
    assert not switches(events)
    state, events = timed(state, Side.B, c.ChooseArmy(ARMIES["codeone"][Side.B], TEST_ENTROPY), 9_000)
    winner = state.initiative.winner
    assert winner is not None
    # The roll-off is automatic; then the game waits on the winner's choice.
    assert switches(events) == [ClockSwitched(9_000, winner, {Side.A: 75 * MINUTE, Side.B: 75 * MINUTE})]
    state, events = timed(state, winner, {"type": "choose_initiative", "keep": "initiative",
                                          "first": True}, 29_000)
    assert switches(events)[-1].running is winner.other
    assert left(state, 29_000) == {winner: 75 * MINUTE - 20_000, winner.other: 75 * MINUTE}
    state, events = timed(state, winner.other, {"type": "choose_remaining", "first": True,
                                                "zone": "north"}, 39_000)
    deployer = state.initiative.deploys_first
    assert state.phase is Phase.DEPLOYMENT and deployer is winner.other
    # The loser deploys first: its clock keeps running from its choice into its step.
    assert state.clocks is not None and state.clocks.running is deployer
    for step, side in enumerate([deployer, deployer.other, deployer, deployer.other], 1):
        facing = 90.0 if state.initiative.zones[side] == "south" else 270.0
        waiting = [t for t in state.troopers_of(side) if t.position is None]
        if step <= 2:
            reserve = [t for t in waiting if not t.entry.is_peripheral][-1]
            waiting = [t for t in waiting
                       if t.id != reserve.id and t.entry.controller != reserve.entry.id]
        state = deploy_all(state, side, [t.id for t in waiting], facing)
        at = 39_000 + step * MINUTE
        before = left(state, at)
        state, events = timed(state, side, c.EndDeploymentStep(), at)
        assert before[side] == left(state, at)[side]
        if step < 4:
            assert switches(events) == [ClockSwitched(at, side.other, before)]
        else:  # the last deployer plays first: its clock runs on into its turn
            assert side is winner and not switches(events)
    # Deployment over: the first player's turn, on its clock.
    assert state.phase is Phase.ORDERS and state.clocks is not None
    assert state.clocks.running is state.active is winner
    assert left(state, 39_000 + 4 * MINUTE) == {
        winner: 75 * MINUTE - 20_000 - 2 * MINUTE,
        winner.other: 75 * MINUTE - 10_000 - 2 * MINUTE,
    }


def test_own_turn_runs_the_active_clock_and_an_aro_window_the_reactive_one() -> None:
    state = engine.start_clocks(board(), 75 * MINUTE, at_ms=0)
    assert state.clocks is not None and state.clocks.running is Side.A
    state, events = timed(state, Side.A, {"type": "activate", "trooper": A1, "order": "regular"}, 10_000)
    assert not switches(events)  # still A's to play
    state, events = timed(state, Side.A, move([[22.5, 4], [22.5, 6]]), 30_000)
    # The ARO window waits only on B: B's clock runs, A's stops.
    assert switches(events) == [ClockSwitched(30_000, Side.B, {Side.A: 75 * MINUTE - 30_000,
                                                               Side.B: 75 * MINUTE})]
    assert clocks_fields(state, 45_000) == {
        "A": {"remaining_ms": 75 * MINUTE - 30_000, "running": False, "out_of_time": False},
        "B": {"remaining_ms": 75 * MINUTE - 15_000, "running": True, "out_of_time": False},
    }
    window = engine.pending_aro_window(state)
    assert window is not None
    state, events = timed(state, Side.B, c.CloseAroWindow(window.order, window.step), 50_000)
    assert switches(events)[-1].running is Side.A
    assert left(state, 50_000) == {Side.A: 75 * MINUTE - 30_000, Side.B: 75 * MINUTE - 20_000}
    assert deadline(state) == (Side.A, 50_000 + 75 * MINUTE - 30_000)


def test_time_out_mid_order_ends_the_turn_after_the_order_aros_still_declared_game_ends() -> None:
    state = engine.start_clocks(board(), MINUTE, at_ms=0)
    state, _ = timed(state, Side.A, {"type": "activate", "trooper": A1, "order": "regular"}, 10_000)
    # A stale expiry (too early, or for the side not running) is refused.
    early = engine.decide(state, engine.SYSTEM, c.ClockExpired(Side.A, 59_999), at_ms=59_999)
    assert isinstance(early, Rejected) and early.code == "stale_clock"
    wrong = engine.decide(state, engine.SYSTEM, c.ClockExpired(Side.B, 70_000), at_ms=70_000)
    assert isinstance(wrong, Rejected) and wrong.code == "stale_clock"
    by_a_player = engine.decide(state, Side.B, c.ClockExpired(Side.A, MINUTE), at_ms=MINUTE)
    assert isinstance(by_a_player, Rejected) and by_a_player.code == "bad_command"
    # The room's timer at A's deadline.
    state, events = timed(state, engine.SYSTEM, c.ClockExpired(Side.A, MINUTE), MINUTE)
    assert events == (ClockRanOut(Side.A, MINUTE),)
    assert clocks_fields(state, 70_000) == {
        "A": {"remaining_ms": 0, "running": False, "out_of_time": True},
        "B": {"remaining_ms": MINUTE, "running": False, "out_of_time": False},
    }
    # A finishes the Order in progress (no clock runs while it does)...
    state, events = timed(state, Side.A, move([[22.5, 4], [22.5, 6]]), 61_000)
    assert switches(events)[-1].running is Side.B  # the ARO window waits on B
    window = engine.pending_aro_window(state)
    assert window is not None
    state, events = timed(state, Side.B, c.CloseAroWindow(window.order, window.step), 66_000)
    assert switches(events)[-1].running is None  # A's second skill: A is out of time
    state, events = timed(state, Side.A, move([[22.5, 6], [22.5, 8]]), 70_000)
    window = engine.pending_aro_window(state)
    assert window is not None
    state, events = timed(state, Side.B, c.CloseAroWindow(window.order, window.step), 71_000)
    # ...and its turn ends as soon as the Order is resolved, Orders unused.
    ended = next(e for e in events if isinstance(e, TurnEnded))
    assert ended.side is Side.A and ended.unused_orders > 0
    assert state.active is Side.B and state.phase is Phase.ORDERS
    # B's clock ran in the window and runs on into its own turn.
    assert not switches(events) and state.clocks is not None and state.clocks.running is Side.B
    assert left(state, 71_000) == {Side.A: 0, Side.B: MINUTE - 6_000}

    # B's turn: an ARO window waiting on the out-of-time A runs no clock, and A still
    # declares its ARO.
    state, _ = timed(state, Side.B, {"type": "activate", "trooper": B_SHOOTER, "order": "regular"}, 72_000)
    state, events = timed(state, Side.B, move([[22.5, 28], [22.5, 27]]), 73_000)
    assert switches(events) == [ClockSwitched(73_000, None, {Side.A: 0, Side.B: MINUTE - 8_000})]
    state, events = timed(state, Side.A, {"type": "declare_aro", "trooper": A1, "skill": {
        "type": "bs_attack", "weapon": "line_rifle",
        "targets": [{"trooper": B_SHOOTER, "burst": 1}]}}, 80_000)
    assert any(isinstance(e, AroDeclared) for e in events)
    window = engine.pending_aro_window(state)
    assert window is not None
    state, events = timed(state, Side.A, c.CloseAroWindow(window.order, window.step), 81_000)
    assert state.clocks is not None and (state.phase is Phase.GAME_OVER
                                         or state.clocks.running in (Side.B, None))

    # Every later turn of A ends right after its automatic steps, and the game ends.
    at = 81_000
    a_turns_ended_at_once = 0
    while state.phase is not Phase.GAME_OVER:
        at += 1_000
        assert state.active is Side.B
        if state.order is not None:  # (B's Order from above, if it is still going)
            if engine.pending_aro_window(state) is not None:
                window = engine.pending_aro_window(state)
                assert window is not None
                state, events = timed(state, Side.A, c.CloseAroWindow(window.order, window.step), at)
            else:
                state, events = timed(state, Side.B, {"type": "declare_skill",
                                                      "skill": {"type": "idle"}}, at)
            continue
        state, events = timed(state, Side.B, c.EndTurn(), at)
        kinds = [(type(e).__name__, getattr(e, "active", getattr(e, "side", None)))
                 for e in events]
        if ("TurnStarted", Side.A) in kinds:
            start = kinds.index(("TurnStarted", Side.A))
            assert ("TurnEnded", Side.A) in kinds[start:]
            a_turns_ended_at_once += 1
    assert a_turns_ended_at_once >= 1
    # The clocks stop just before the end: nothing follows game_ended (the game record and
    # a tournament's results read the end of a game as its last event).
    assert isinstance(events[-1], GameEnded) and events[-2] == ClockSwitched(
        at, None, {Side.A: 0, Side.B: left(state, at)[Side.B]})
    assert clocks_fields(state, at + 10_000) == clocks_fields(state, at)


def test_a_command_after_the_deadline_finds_the_time_out_first() -> None:
    state = engine.start_clocks(board(), MINUTE, at_ms=0)
    state, _ = timed(state, Side.A, {"type": "activate", "trooper": A1, "order": "regular"}, 1_000)
    state, _ = timed(state, Side.A, move([[22.5, 4], [22.5, 6]]), 2_000)  # B runs from here
    window = engine.pending_aro_window(state)
    assert window is not None
    # B closes its window after its own clock ran out, before the room's timer said so.
    state, events = timed(state, Side.B, c.CloseAroWindow(window.order, window.step), 70_000)
    assert events[0] == ClockRanOut(Side.B, 62_000)
    assert state.clocks is not None and state.clocks.out_of_time == {Side.B}
    assert state.clocks.running is Side.A  # A's second skill
    # Replaying the log rebuilds the same clocks; the state survives its plain form.
    assert engine.state_from_plain(engine.state_to_plain(state)) == state


def test_out_of_time_player_turn_ends_at_once_when_no_order_is_in_progress() -> None:
    state = engine.start_clocks(board(), MINUTE, at_ms=0)
    state, events = timed(state, engine.SYSTEM, c.ClockExpired(Side.A, MINUTE), MINUTE)
    assert events[0] == ClockRanOut(Side.A, MINUTE)
    assert any(isinstance(e, TurnEnded) and e.side is Side.A for e in events)
    assert any(isinstance(e, TurnStarted) and e.active is Side.B for e in events)
    assert switches(events)[-1] == ClockSwitched(MINUTE, Side.B, {Side.A: 0, Side.B: MINUTE})


@pytest.mark.slow  # whole random games (21 s, 6 s)
@pytest.mark.parametrize("ruleset", ["n5", "codeone"])
def test_random_games_with_a_player_out_of_time_still_end(ruleset: str) -> None:
    """Random legal play (``tests/support/liveness.py``: the game always waits on exactly
    one seat, which has a legal option) where the first player runs out of time in its
    first turn: its turns end at once, it still answers the other's ARO windows, and the
    game reaches its end."""

    def out_of_time(state: GameState) -> GameState:
        state = engine.start_clocks(state, MINUTE, at_ms=0)
        assert state.active is not None
        decision = engine.decide(state, engine.SYSTEM, c.ClockExpired(state.active, MINUTE),
                                 at_ms=MINUTE)
        assert isinstance(decision, Accepted)
        return engine.apply_all(state, decision.events)

    for seed in (11, 12):
        log = play_random_game(ruleset, seed, prepare=out_of_time)
        assert log.state.phase is Phase.GAME_OVER
        assert log.state.clocks is not None and len(log.state.clocks.out_of_time) == 1
        assert log.commands["declare_aro"] + log.commands["pass_aro"] + log.commands[
            "close_aro_window"] > 0
