"""The player's choice to fail a Guts Roll (DIGEST 7.8, N5): a standing per-trooper choice
set in advance, private to its owner until a Guts record shows it used, offered by
options, refused by CodeOne."""

from __future__ import annotations

import json
from typing import Any

from server.rules import commands as c
from server.rules import engine
from server.rules.decision import Accepted, Rejected
from server.rules.ids import SPECTATOR, Side
from server.rules.options import seat_options
from server.rules.state import GameState
from server.rules.views import view_event, view_state
from tests.support.games import close_aro_window, play
from tests.support.skirmish import skirmish

SHOOTER, TARGET = "A-t7", "B-t3"
PLACEMENTS: dict[str, Any] = {
    SHOOTER: (24, 16, 90.0),
    TARGET: (24.5, 30, 270.0),
    "A-t1": (1, 1, 270.0),
    "B-t1": (1, 47, 90.0),
    "B-t2": (40, 47, 90.0),  # on the table: no Hidden Deployment keeps ARO windows open
}


def _choose(state: GameState, fail: bool = True) -> tuple[GameState, tuple[Any, ...]]:
    return play(state, Side.B, {"type": "choose_guts_failure", "trooper": TARGET, "fail": fail})


def _text(plain: object) -> str:
    return json.dumps(plain, sort_keys=True)


def test_the_choice_is_never_shown_to_the_opponent_or_spectators_before_it_is_used() -> None:
    """DIGEST 11.2 (Private Information): the event and the trooper field reach the owner
    only; the others get a version placeholder and a trooper view without it."""
    state = skirmish(PLACEMENTS, ruleset="n5")
    state, events = _choose(state)
    (event,) = events
    assert view_event(event, Side.B, state) == {"type": "guts_failure_chosen", "trooper": TARGET,
                                                "fail": True}
    for viewer in (Side.A, SPECTATOR):
        assert view_event(event, viewer, state) is None
        view = view_state(state, viewer)
        assert '"fails_guts": true' not in _text(view)
        theirs = [t for t in view["troopers"] if t["side"] == "B"]
        assert theirs and "guts" not in _text(theirs)
    own = next(t for t in view_state(state, Side.B)["troopers"] if t["id"] == TARGET)
    assert own["fails_guts"] is True


def test_the_opponent_learns_the_choice_only_from_the_guts_record_once_it_is_used() -> None:
    """The resolution event shows the chosen failure to everyone (a Guts Roll is open)."""
    state = skirmish(PLACEMENTS, ruleset="n5", dice=[2, 16, 17, 5])
    state, _ = _choose(state)
    state, _ = play(state, Side.A, {"type": "activate", "trooper": SHOOTER, "order": "regular"})
    shot = {"type": "bs_attack", "weapon": "line_rifle", "targets": [{"trooper": TARGET, "burst": 3}]}
    state, _ = play(state, Side.A, {"type": "declare_skill", "skill": shot})
    state, _ = play(state, Side.B, {"type": "pass_aro", "trooper": TARGET})
    state, _ = close_aro_window(state)
    state, _ = play(state, Side.A, {"type": "declare_skill", "skill": {"type": "idle"}})
    state, events = close_aro_window(state)
    resolved = events[-1]
    for viewer in (Side.A, Side.B, SPECTATOR):
        seen = view_event(resolved, viewer, state)
        assert seen is not None
        (guts,) = [r for r in seen["outcome"]["rolls"] if r["skill"] == "guts"]
        assert guts["chosen_failure"] is True and guts["dice"] == []


def test_options_offer_the_choice_for_own_troopers_with_its_current_value() -> None:
    state = skirmish(PLACEMENTS, ruleset="n5")
    assert seat_options(state, Side.B)["guts_failure"][TARGET] is False
    assert TARGET not in seat_options(state, Side.A)["guts_failure"]
    state, _ = _choose(state)
    offered = seat_options(state, Side.B)["guts_failure"]
    assert offered[TARGET] is True
    for trooper, now in offered.items():  # each offer is the toggle the rules core accepts
        decision = engine.decide(state, Side.B, c.ChooseGutsFailure(trooper, not now))  # type: ignore[arg-type]
        assert isinstance(decision, Accepted)


def test_codeone_has_no_guts_choice() -> None:
    """DIGEST 14: CodeOne does not use Guts Rolls, so there is nothing to choose."""
    state = skirmish({"A-t5": (22.5, 4.0, 90.0), "B-t3": (22.5, 28.0, 270.0)})
    decision = engine.decide(state, Side.B, c.ChooseGutsFailure("B-t3", True))  # type: ignore[arg-type]
    assert isinstance(decision, Rejected) and decision.code == "not_allowed_by_ruleset"
    assert seat_options(state, Side.B)["guts_failure"] == {}
