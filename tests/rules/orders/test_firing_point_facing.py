"""Which way an active trooper looks from a point of its path (``declarations.acting_body``).

Before it moves, the trooper stands at its Order's starting point with the facing it had
when activated: its front arc decides its Line of Fire there, as if it had not moved. From
the points after the start it has been moving, turning as it goes, so it may look any way
from them (docs/rules-decisions/README.md, "Firing point"). A Move does not give the starting
point all-round sight.

DIGEST 4.1 (a skill is declared from a point already reached in the Order) and DIGEST 10.1
(the 180 degree front arc)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from server.rules.armies.skills import BsAttack, BurstAssignment
from server.rules.combat.outcome import BecameIdle
from server.rules.events import OrderResolved
from server.rules.ids import Side, TrooperId, WeaponId
from server.rules.options import seat_options
from server.rules.orders.activation import unmet_requirement
from server.rules.orders.declarations import acting_body
from server.rules.state import GameState
from tests.support.games import close_aro_window, play
from tests.support.scenarios import build_state

A, B = Side.A, Side.B
T = TrooperId
SHOOTER = "A-t7"  # Lancer (line_rifle B3), facing north
BEHIND = "B-t3"  # an Enforcer 6 inches south of it, behind its back
START = (22.0, 20.0)


def _table(dice: tuple[int, ...] = ()) -> GameState:
    placements: Mapping[str, list[float]] = {SHOOTER: [*START, 90], BEHIND: [22, 14, 90],
                                             "A-t1": [1, 1, 270], "B-t1": [47, 47, 90]}
    return build_state({"ruleset": "n5", "terrain": [], "dice": list(dice), "placements": placements})


def _shot(firing_point: tuple[float, float] | None) -> dict[str, Any]:
    skill: dict[str, Any] = {"type": "bs_attack", "weapon": "line_rifle",
                             "targets": [{"trooper": BEHIND, "burst": 3}]}
    if firing_point is not None:
        skill["firing_point"] = list(firing_point)
    return {"type": "declare_skill", "skill": skill}


def _resolved(events: tuple[object, ...]) -> OrderResolved:
    (resolved,) = [e for e in events if isinstance(e, OrderResolved)]
    return resolved


def test_regression_a_shot_from_the_start_of_the_order_keeps_the_troopers_facing() -> None:
    """The player's report: a BS Attack at a trooper right behind, declared first, then a
    half-inch Move, used to see all round from the start and shoot; it is Idle for no Line
    of Fire, as the same shot with Idle for the second skill is."""
    for second in ({"type": "move", "route": [list(START), [22.0, 20.5]]}, {"type": "idle"}):
        state = _table(dice=(1, 1, 1, 20, 20, 20))
        state, _ = play(state, A, {"type": "activate", "trooper": SHOOTER, "order": "regular"})
        state, _ = play(state, A, _shot(None))
        state, _ = close_aro_window(state)
        state, _ = play(state, A, {"type": "declare_skill", "skill": second})
        state, events = close_aro_window(state)
        resolved = _resolved(events)
        assert resolved.outcome.rolls == (), second
        assert [e for e in resolved.outcome.effects if isinstance(e, BecameIdle)] == [
            BecameIdle(T(SHOOTER), "bs_attack", "no_line_of_fire", T(BEHIND))], second


def test_regression_a_shot_after_a_move_fired_from_its_start_is_judged_with_the_start_facing() -> None:
    """Move first, then a BS Attack naming the starting point as its firing point: not
    offered there, and Idle when declared."""
    state = _table()
    state, _ = play(state, A, {"type": "activate", "trooper": SHOOTER, "order": "regular"})
    state, _ = play(state, A, {"type": "declare_skill", "skill": {
        "type": "move", "route": [list(START), [22.0, 22.0]]}})
    state, _ = close_aro_window(state)
    order = state.order
    assert order is not None
    shooter = state.trooper(T(SHOOTER))
    skill = BsAttack(WeaponId("line_rifle"), (BurstAssignment(T(BEHIND), 3),), firing_point=START)
    assert unmet_requirement(state, order, shooter, skill) == "no_line_of_fire"
    offers = seat_options(state, A)["skills"]
    assert all(BEHIND not in w["targets"]
               for point in offers["firing_points"] if tuple(point["point"]) == START
               for w in point["bs_attack"].values())
    # From the end of the Move, the trooper may have turned: it may shoot behind.
    assert BEHIND in offers["bs_attack"]["line_rifle"]["targets"]


def test_points_after_the_start_look_any_way_the_start_keeps_the_facing() -> None:
    state = _table()
    state, _ = play(state, A, {"type": "activate", "trooper": SHOOTER, "order": "regular"})
    state, _ = play(state, A, {"type": "declare_skill", "skill": {
        "type": "move", "route": [list(START), [22.0, 22.0], [24.0, 22.0]]}})
    order = state.order
    assert order is not None
    trooper = state.trooper(T(SHOOTER))
    at_start = acting_body(order, trooper, START)
    assert not at_start.all_round_vision and at_start.facing == 90.0
    assert trooper.facing == 0.0  # it ended the Move facing east
    for later in ((22.0, 21.0), (22.0, 22.0), (23.0, 22.0), (24.0, 22.0)):
        assert acting_body(order, trooper, later).all_round_vision, later


def test_a_route_that_comes_back_to_its_start_looks_any_way_there() -> None:
    """Back at its starting point after moving, the trooper has been turning: the point is
    one it stands on after the start."""
    state = _table()
    state, _ = play(state, A, {"type": "activate", "trooper": SHOOTER, "order": "regular"})
    state, _ = play(state, A, {"type": "declare_skill", "skill": {
        "type": "move", "route": [list(START), [24.0, 20.0], [22.0, 20.0]]}})
    order = state.order
    assert order is not None
    assert acting_body(order, state.trooper(T(SHOOTER)), START).all_round_vision
