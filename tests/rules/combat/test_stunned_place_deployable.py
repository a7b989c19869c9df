"""DIGEST 8 (Stunned: no Attacks) with Place Deployable (infinitythewiki "Place Deployable"
(N5): a Common Skill with the Attack label; "Stunned State"): a Stunned Minelayer may not
place its Mine, in its Active Turn nor in ARO, and options do not offer it."""

from __future__ import annotations

from dataclasses import replace

from server.rules.ids import Side, TrooperId
from server.rules.options import seat_options
from server.rules.state import GameState
from tests.support.games import close_aro_window, decide
from tests.support.scenarios import build_state

from .test_mines import ARO_PLACEMENTS, GUARD, MINES, PLACEMENTS, RUNNER, move, with_mines

A, B = Side.A, Side.B


def _stunned(state: GameState, trooper: str) -> GameState:
    found = state.trooper(TrooperId(trooper))
    return state.with_trooper(replace(found, stunned_in=(state.round, state.turn)))


def test_digest_8_a_stunned_trooper_may_not_place_a_deployable_an_attack() -> None:
    """Having moved, the Stunned runner is refused ``stunned`` and offered no Mine to place;
    the same runner not Stunned is offered it (the test's control)."""
    base = with_mines(build_state({"ruleset": "n5", "terrain": [], "placements": PLACEMENTS,
                                   "dice": []}), RUNNER)
    free, _ = move(base, (10, 14))
    free, _ = close_aro_window(free)
    offer = seat_options(free, A)["skills"]["place_deployable"]
    assert MINES in offer
    spot = [10 + offer[MINES]["contact"], 11.0]
    state, _ = move(_stunned(base, RUNNER), (10, 14))
    state, _ = close_aro_window(state)
    assert not seat_options(state, A)["skills"].get("place_deployable")
    refused = decide(state, A, {"type": "declare_skill", "skill": {
        "type": "place_deployable", "weapon": MINES, "position": spot}})
    assert getattr(refused, "code", None) == "stunned"


def test_digest_8_a_stunned_guard_may_not_place_a_deployable_in_aro() -> None:
    """In the Reactive Turn too: the Stunned guard, watching A's runner, is offered no Mine
    and its Place Deployable ARO is refused ``stunned``."""
    base = with_mines(build_state({"ruleset": "n5", "terrain": [], "placements": ARO_PLACEMENTS,
                                   "dice": []}), GUARD, minelayer=0)
    free, _ = move(base, (9, 12))
    spot = seat_options(free, B)["aros"][GUARD]["place_deployable"][MINES]["spots"][0]
    state, _ = move(_stunned(base, GUARD), (9, 12))
    assert seat_options(state, B)["aros"][GUARD]["place_deployable"] == {}
    refused = decide(state, B, {"type": "declare_aro", "trooper": GUARD, "skill": {
        "type": "place_deployable", "weapon": MINES, "position": spot}})
    assert getattr(refused, "code", None) == "stunned"
