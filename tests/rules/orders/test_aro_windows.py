"""Seed 000 OES steps 2 and 4 (ARO declaration) under the hidden-information policy
(docs/rules-decisions/README.md): an ARO window opens at every ARO step of every Order, whoever is
eligible, and closes only when the reactive player closes it or at the deadline (the room's
clock). Whether a window opens, and when it closes, never depends on what only the reactive
player knows.

Setups use ``skirmish``: A's troopers south facing north (90 degrees), B's troopers north
facing south (270 degrees) or away (90 degrees).
"""

from __future__ import annotations

import json
from collections.abc import Mapping

import pytest

from server.rules import commands as c
from server.rules import engine
from server.rules.decision import Accepted, Rejected
from server.rules.events import AroPassed, AroWindowClosed, AroWindowOpened, Event, OrderResolved
from server.rules.ids import SPECTATOR, Side
from server.rules.options import seat_options
from server.rules.state import GameState, OrderStep
from server.rules.views import view_event, view_state
from tests.support.games import close_aro_window, play
from tests.support.skirmish import Placement, skirmish

MOVER = "A-t5"  # Lancer Line Trooper
NOBODY_SEES: dict[str, Placement] = {
    MOVER: (22.5, 4.0, 90.0),
    "B-t4": (1.5, 30.0, 90.0),  # far, facing away: never eligible
    "A-t1": (3.5, 1.5, 90.0),  # Lieutenants, out of the way
    "B-t1": (3.5, 30.5, 90.0),
}


def _moved(state: GameState, to: float = 6.0) -> tuple[GameState, tuple[Event, ...]]:
    """A activates MOVER and declares a Move north to ``to``."""
    state, _ = play(state, Side.A, {"type": "activate", "trooper": MOVER, "order": "regular"})
    return play(state, Side.A, {"type": "declare_skill", "skill": {
        "type": "move", "route": [[22.5, 4.0], [22.5, to]]}})


def _refused(state: GameState, actor: Side | engine.System, body: Mapping[str, object]) -> str:
    decision = engine.decide(state, actor, c.parse_command(body))
    assert isinstance(decision, Rejected), decision
    return decision.code


def test_seed_000_a_window_opens_and_waits_at_an_aro_step_where_nobody_is_eligible() -> None:
    state, events = _moved(skirmish(NOBODY_SEES))
    (opened,) = [e for e in events if isinstance(e, AroWindowOpened)]
    assert opened.step == 1 and opened.eligible == () and opened.hidden == ()
    assert not any(isinstance(e, AroWindowClosed) for e in events)
    assert state.order is not None and state.order.step is OrderStep.ARO_1
    window = engine.pending_aro_window(state)
    assert window is not None and window.reactive is Side.B
    # The active player waits: no second skill until the window closes.
    second = {"type": "declare_skill", "skill": {"type": "move", "route": [[22.5, 6], [22.5, 8]]}}
    assert _refused(state, Side.A, second) == "wrong_phase"
    # The reactive player is offered the close; nothing to declare.
    assert seat_options(state, Side.B)["close_aro_window"] == {"order": opened.order, "step": 1}
    assert seat_options(state, Side.B)["aros"] == {}
    assert seat_options(state, Side.A)["close_aro_window"] is None
    state, events = close_aro_window(state)
    assert events == (AroWindowClosed(opened.order, 1, (), "closed_by_player", ()),)
    assert state.order is not None and state.order.step is OrderStep.SECOND_SKILL
    assert seat_options(state, Side.B)["close_aro_window"] is None


def test_seed_000_the_second_steps_window_opens_empty_too_and_its_close_resolves_the_order() -> None:
    state, _ = _moved(skirmish(NOBODY_SEES))
    state, _ = close_aro_window(state)
    state, events = play(state, Side.A, {"type": "declare_skill", "skill": {"type": "idle"}})
    (opened,) = [e for e in events if isinstance(e, AroWindowOpened)]
    assert opened.step == 2 and opened.eligible == ()
    assert state.order is not None and state.order.step is OrderStep.ARO_2
    state, events = close_aro_window(state)
    assert [type(e) for e in events] == [AroWindowClosed, OrderResolved]
    assert state.order is None


@pytest.mark.parametrize(("actor", "reason"), [(Side.B, "closed_by_player"), (engine.SYSTEM, "deadline")])
def test_seed_000_only_the_reactive_player_or_the_rooms_clock_closes_a_window(
    actor: Side | engine.System, reason: str
) -> None:
    state, _ = _moved(skirmish(NOBODY_SEES))
    window = engine.pending_aro_window(state)
    assert window is not None
    close = {"type": "close_aro_window", "order": window.order, "step": window.step}
    assert _refused(state, Side.A, close) == "not_your_turn"
    decision = engine.decide(state, actor, c.parse_command(close))
    assert isinstance(decision, Accepted)
    (closed,) = decision.events
    assert isinstance(closed, AroWindowClosed) and closed.reason == reason


def test_seed_000_the_active_players_close_is_refused_even_when_every_eligible_trooper_answered() -> None:
    state, _ = _moved(skirmish({**NOBODY_SEES, "B-t3": (22.5, 28.0, 270.0)}))
    state, events = play(state, Side.B, {"type": "pass_aro", "trooper": "B-t3"})
    assert [type(e) for e in events] == [AroPassed]
    window = engine.pending_aro_window(state)
    assert window is not None
    close = {"type": "close_aro_window", "order": window.order, "step": window.step}
    assert _refused(state, Side.A, close) == "not_your_turn"
    state, events = play(state, Side.B, close)
    assert events == (AroWindowClosed(window.order, 1, (), "closed_by_player", ()),)


# --- Hidden Deployment: the window is the same whether or not the hidden trooper may react ---


HIDDEN = "B-t2"  # the Ghost Infiltrator of vesper-raiders (N5): Hidden Deployment
SEES: dict[str, Placement] = {
    "A-t7": (16.0, 8.0, 90.0), "B-t3": (20.0, 40.0, 270.0),  # B-t3 sees A-t7's Move
    "A-t1": (1.0, 1.0, 270.0), "B-t1": (1.0, 47.0, 90.0),
}
HIDDEN_AT: dict[str, Placement] = {"in_line_of_fire": (24.0, 20.0, 270.0, "hidden"),
                                   "far_facing_away": (46.0, 46.0, 90.0, "hidden")}


def _order_seen_by(where: str, viewer: Side | object) -> tuple[list[object], object, object]:
    """A's Move in front of B-t3, B passing every trooper it may and closing the window:
    the viewer's events, its state view with the window open, and A's options then."""
    state = skirmish({**SEES, HIDDEN: HIDDEN_AT[where]}, ruleset="n5")
    log: list[Event] = []
    for actor, body in ((Side.A, {"type": "activate", "trooper": "A-t7", "order": "regular"}),
                        (Side.A, {"type": "declare_skill", "skill": {"type": "move", "route": [[16, 8], [16, 10]]}})):
        state, events = play(state, actor, body)
        log += events
    window_view = view_state(state, viewer)  # type: ignore[arg-type]
    options = seat_options(state, Side.A)
    order = state.order
    assert order is not None
    for trooper in order.unanswered():
        state, events = play(state, Side.B, {"type": "pass_aro", "trooper": trooper})
        log += events
    state, events = close_aro_window(state)
    log += events
    seen = [view_event(e, viewer, state) for e in log]  # type: ignore[arg-type]
    return [plain for plain in seen if plain is not None], window_view, options


def test_digest_12_a_hidden_trooper_changes_nothing_the_opponent_or_spectators_see_of_a_window() -> None:
    mine, _, _ = _order_seen_by("in_line_of_fire", Side.B)
    assert HIDDEN in json.dumps(mine), "the hidden trooper is eligible in one game, and B sees it"
    for viewer in (Side.A, SPECTATOR):
        near = _order_seen_by("in_line_of_fire", viewer)
        far = _order_seen_by("far_facing_away", viewer)
        assert near == far
        assert HIDDEN not in json.dumps(near)
