"""The state ``engine.decide`` reaches is the replay of its events (``Accepted.state``).

The room commits an accepted command with the state its decision reached instead of
folding the events again, and a room loaded from its log folds them with ``apply_all``: the
two must never differ. Every decision of random legal games in both rulesets (with
Suppressive Fire, Command Tokens, AROs, Guts, Retreat!... as ``test_liveness`` shows they
reach), of the benchmark's scripted game, and of a game that ends on a chess clock (the
clocks' switch goes before ``game_ended``) is checked: its state equals ``apply_all`` of its
events, and its log names every Suppressive Fire change right after the event that made it
(``suppressive_fire_changed``, which ``decide`` makes as it folds each event).

Implementation test: no rule section."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from server.rooms.rules_engine import RulesCoreEngine
from server.rules import commands as c
from server.rules import engine
from server.rules.decision import Accepted, Decision
from server.rules.events import ClockSwitched, Event, GameEnded, SuppressiveFireChanged
from server.rules.state import GameState
from testkit.scripted_game import plan
from tests.support.liveness import play_random_game

_decide = engine.decide


class Checked:
    """``engine.decide`` with every accepted decision checked against its replay."""

    def __init__(self) -> None:
        self.decisions = 0
        self.sf_changes = 0

    def __call__(self, state: GameState, actor: Any, command: c.Command,
                 at_ms: int | None = None) -> Decision:
        decision = _decide(state, actor, command, at_ms)
        if isinstance(decision, Accepted):
            assert decision.state == engine.apply_all(state, decision.events), command
            self.sf_changes += assert_sf_changes_announced(state, decision.events)
            self.decisions += 1
        return decision


def assert_sf_changes_announced(start: GameState, events: tuple[Event, ...]) -> int:
    """Replaying ``events``: the ``suppressive_fire_changed`` events right after each other
    event are exactly the troopers whose State that event changed. Their count."""
    state = start
    at = 0
    count = 0
    while at < len(events):
        event = events[at]
        assert not isinstance(event, SuppressiveFireChanged), (at, events)
        after = engine.apply(state, event)
        changed = {t.id: t.suppressive_fire for t in after.troopers.values()
                   if t.suppressive_fire is not (t.id in state.troopers
                                                 and state.troopers[t.id].suppressive_fire)}
        at += 1
        said: dict[Any, bool] = {}
        while at < len(events) and isinstance(events[at], SuppressiveFireChanged):
            change = events[at]
            assert isinstance(change, SuppressiveFireChanged)
            said[change.trooper] = change.active
            after = engine.apply(after, change)
            at += 1
        assert said == changed, (event, said, changed)
        count += len(said)
        state = after
    return count


@pytest.fixture
def checked(monkeypatch: pytest.MonkeyPatch) -> Iterator[Checked]:
    check = Checked()
    monkeypatch.setattr(engine, "decide", check)
    yield check


@pytest.mark.slow  # whole random games (38 s)
def test_random_n5_games_decided_state_is_the_replay_with_suppressive_fire(
        checked: Checked) -> None:
    for seed in (0, 1, 2):
        assert play_random_game("n5", seed, orders_per_turn=5).state.result is not None
    assert checked.decisions > 300
    assert checked.sf_changes > 0  # (the games enter and leave the State)


def test_a_random_codeone_game_decided_state_is_the_replay(checked: Checked) -> None:
    assert play_random_game("codeone", 0, orders_per_turn=5).state.result is not None
    assert checked.decisions > 100


def test_the_bench_script_decided_state_is_the_replay_and_the_room_uses_it(
        checked: Checked) -> None:
    """Through the room's engine adapter: the verdict carries the state its events lead to,
    which the room commits (``Room._commit``) instead of folding them again."""
    adapter = RulesCoreEngine()
    moves = plan(7).commands(clock_closes_windows=True)  # (planned with decide: checked too)
    checked.decisions = 0
    state = adapter.new_game("codeone", 7)
    for side, body in moves:
        verdict = adapter.decide(state, side, adapter.parse_command(body))
        assert verdict.events is not None, body
        assert verdict.state is not None
        assert adapter.apply_all(state, verdict.events) == verdict.state
        state = verdict.state
    # Every command of the scripted game is decided once (its count: testkit/scripted_game.py).
    assert checked.decisions == len(moves)
    assert checked.decisions == 360


@pytest.mark.slow  # a whole game (12 s)
def test_a_game_on_chess_clocks_decided_state_is_the_replay(checked: Checked) -> None:
    """With clocks the last switch goes before ``game_ended``: that decision's events are
    folded again from the state decided on (``engine._with_clock_switches``)."""
    def on_clocks(state: GameState) -> GameState:
        return engine.start_clocks(state, 3_600_000, at_ms=0)

    log = play_random_game("n5", 3, orders_per_turn=5, prepare=on_clocks)
    assert log.state.result is not None and log.state.clocks is not None
    assert isinstance(log.last_events[-1], GameEnded)
    assert isinstance(log.last_events[-2], ClockSwitched)
    assert checked.decisions > 100
