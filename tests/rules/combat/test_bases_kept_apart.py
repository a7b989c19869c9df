"""No two bases end a movement overlapping (the General Movement Rules, which the wiki's
"Dodge" page applies to Dodge movement too).

A Dodge's route is declared with the ARO but followed in the Effects step, the active
player's Dodges first, then the reactive player's (the wiki's "Dodge": moved "during the
Effects step ... the Active Player will move their Troopers first"). By then other bases
may stand on it: a Move declared later in the Order, or a Dodge moved before it. Each Dodge
follows its route up to the first point where its base would press into another base, and
stops there, touching it (docs/rules-decisions/resolution.md, "Dodge movement that meets
another base"). In a joint activation each participant's route is judged with the troopers
declared before it standing at the end of their own routes. A player deploys no model
onto its own trooper in Hidden Deployment, and moves none onto one.

DIGEST 9 (Move: where a base may end) and DIGEST 6.3 (Dodge: its move in the Effects step,
active side first); DIGEST 12 for Hidden Deployment."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from server.rules import commands as c
from server.rules import engine
from server.rules.combat.outcome import Moved
from server.rules.decision import Rejected
from server.rules.events import OrderResolved
from server.rules.ids import Side, TrooperId
from server.rules.state import GameState
from server.rules.table.geometry import point_distance
from tests.support.games import ARMIES, TEST_ENTROPY, close_aro_window, decide, play
from tests.support.invariants import overlapping_bases
from tests.support.scenarios import build_state

A, B = Side.A, Side.B
T = TrooperId
MOVER = "A-t7"  # helion-vanguard Lancer (MOV 4-4)
LEFT, RIGHT = "B-t3", "B-t4"  # vesper-raiders Enforcers (PH 11)


def _table(placements: Mapping[str, list[float]], dice: tuple[int, ...] = ()) -> GameState:
    return build_state({"ruleset": "n5", "terrain": [], "dice": list(dice),
                        "placements": {**placements, "A-t1": [1, 1, 270], "B-t1": [1, 47, 90]}})


def _move(route: list[list[float]]) -> dict[str, Any]:
    return {"type": "declare_skill", "skill": {"type": "move", "route": route}}


def _dodge(trooper: str, route: list[list[float]]) -> dict[str, Any]:
    return {"type": "declare_aro", "trooper": trooper, "skill": {"type": "dodge", "route": route}}


def _resolved(events: tuple[object, ...]) -> OrderResolved:
    (resolved,) = [e for e in events if isinstance(e, OrderResolved)]
    return resolved


def _contact(state: GameState, one: str, other: str) -> float:
    return state.trooper(T(one)).body().radius + state.trooper(T(other)).body().radius


def _moves(resolved: OrderResolved) -> dict[str, Moved]:
    return {m.trooper: m for m in resolved.outcome.effects if isinstance(m, Moved)}


def test_regression_two_dodges_to_the_same_point_do_not_stack_the_bases() -> None:
    """Two Enforcers Dodge (Normal PH Rolls, both 1) to the same point: the first one by
    trooper order gets there; the second stops touching it. Both used to arrive, one base on
    the other."""
    state = _table({MOVER: [24, 12, 90], LEFT: [22, 30, 270], RIGHT: [26, 30, 270]}, dice=(1, 1))
    state, _ = play(state, A, {"type": "activate", "trooper": MOVER, "order": "regular"})
    state, _ = play(state, A, _move([[24, 12], [24, 14]]))
    state, _ = play(state, B, _dodge(LEFT, [[22, 30], [24, 30]]))
    state, _ = play(state, B, _dodge(RIGHT, [[26, 30], [24, 30]]))
    state, _ = close_aro_window(state)
    state, _ = play(state, A, {"type": "declare_skill", "skill": {"type": "idle"}})
    state, events = close_aro_window(state)
    moves = _moves(_resolved(events))
    assert moves[LEFT].route == ((22.0, 30.0), (24.0, 30.0)) and moves[LEFT].reason == "dodge"
    stop = moves[RIGHT].route[-1]
    assert moves[RIGHT].reason == "dodge_stopped_at_a_base"
    assert stop[1] == pytest.approx(30.0)
    assert stop[0] == pytest.approx(24.0 + _contact(state, LEFT, RIGHT))
    assert state.trooper(T(RIGHT)).position == pytest.approx(stop)
    assert overlapping_bases(state) == []


def test_regression_a_dodge_stops_at_a_base_a_later_move_put_on_its_route() -> None:
    """The Enforcer Dodges at the first ARO step towards a point; the Lancer's second Move,
    judged when declared (the Enforcer has not moved yet), ends on that point. In the
    Effects step the Enforcer stops touching the Lancer instead of standing on it."""
    state = _table({MOVER: [22, 24, 90], LEFT: [24, 30, 270]}, dice=(1,))
    state, _ = play(state, A, {"type": "activate", "trooper": MOVER, "order": "regular"})
    state, _ = play(state, A, _move([[22, 24], [22, 26]]))
    state, _ = play(state, B, _dodge(LEFT, [[24, 30], [22, 30]]))
    state, _ = close_aro_window(state)
    state, _ = play(state, A, _move([[22, 26], [22, 30]]))
    state, events = close_aro_window(state)
    (dodge,) = _moves(_resolved(events)).values()
    assert dodge.trooper == LEFT and dodge.reason == "dodge_stopped_at_a_base"
    assert point_distance(dodge.route[-1], (22.0, 30.0)) == pytest.approx(_contact(state, MOVER, LEFT))
    assert state.trooper(T(MOVER)).position == (22.0, 30.0)
    assert overlapping_bases(state) == []


def test_a_dodge_whose_way_is_blocked_at_once_does_not_move() -> None:
    """The Lancer ends its Move touching the Enforcer on the side it Dodges to: the Dodge
    succeeds but has no room; no movement is recorded."""
    state = _table({MOVER: [22, 24, 90], LEFT: [22, 30, 270]}, dice=(1,))
    contact = _contact(state, MOVER, LEFT)
    state, _ = play(state, A, {"type": "activate", "trooper": MOVER, "order": "regular"})
    state, _ = play(state, A, _move([[22, 24], [22, 26]]))
    state, _ = play(state, B, _dodge(LEFT, [[22, 30], [22, 28.5]]))
    state, _ = close_aro_window(state)
    state, _ = play(state, A, _move([[22, 26], [22, 30 - contact]]))
    state, events = close_aro_window(state)
    assert _moves(_resolved(events)) == {}
    assert state.trooper(T(LEFT)).position == (22.0, 30.0)


def test_a_dodge_that_meets_no_base_follows_its_whole_route() -> None:
    state = _table({MOVER: [24, 12, 90], LEFT: [22, 30, 270]}, dice=(1,))
    state, _ = play(state, A, {"type": "activate", "trooper": MOVER, "order": "regular"})
    state, _ = play(state, A, _move([[24, 12], [24, 14]]))
    state, _ = play(state, B, _dodge(LEFT, [[22, 30], [21, 30], [20, 30]]))
    state, _ = close_aro_window(state)
    state, _ = play(state, A, {"type": "declare_skill", "skill": {"type": "idle"}})
    state, events = close_aro_window(state)
    assert _moves(_resolved(events))[LEFT] == Moved(T(LEFT), ((22.0, 30.0), (21.0, 30.0), (20.0, 30.0)), "dodge")


def test_regression_a_controller_and_its_peripherals_cannot_end_a_move_on_one_spot() -> None:
    """A joint activation's Moves are judged together: a Peripheral's route may not end
    where the Controller's (or an earlier Peripheral's) route ends. Each used to be judged
    against the table as it stood, and two Gnat Drones could end on one spot."""
    controller, drones = "A-t4", ("A-p1", "A-p2")
    state = _table({controller: [20, 10, 90], drones[0]: [18, 10, 90], drones[1]: [22, 10, 90],
                    LEFT: [40, 40, 270]})
    state, _ = play(state, A, {"type": "activate", "trooper": controller, "order": "regular",
                               "peripherals": list(drones)})
    same_spot = {"type": "declare_skill", "skill": {"type": "move", "route": [[20, 10], [20, 13]]},
                 "peripherals": [
                     {"trooper": drones[0], "skill": {"type": "move", "route": [[18, 10], [20, 15]]}},
                     {"trooper": drones[1], "skill": {"type": "move", "route": [[22, 10], [20, 15]]}}]}
    refused = decide(state, A, same_spot)
    assert isinstance(refused, Rejected) and refused.code == "bad_route", refused
    onto_controller = {**same_spot, "peripherals": [
        {"trooper": drones[0], "skill": {"type": "move", "route": [[18, 10], [20, 13]]}},
        {"trooper": drones[1], "skill": {"type": "move", "route": [[22, 10], [22, 13]]}}]}
    refused = decide(state, A, onto_controller)
    assert isinstance(refused, Rejected) and refused.code == "bad_route", refused
    apart = {**same_spot, "peripherals": [
        {"trooper": drones[0], "skill": {"type": "move", "route": [[18, 10], [18, 13]]}},
        {"trooper": drones[1], "skill": {"type": "move", "route": [[22, 10], [22, 13]]}}]}
    state, _ = play(state, A, apart)
    assert overlapping_bases(state) == []


def test_regression_a_player_cannot_deploy_a_model_on_its_own_trooper_in_hidden_deployment() -> None:
    """The player knows where its hidden trooper is written down: a model deployed onto it
    is refused, as onto any model (`bad_position`). Found by the random games: revealed by an
    ARO, the hidden trooper stood on the model deployed there."""
    state = engine.new_game(engine.GameSetup(ruleset="n5", seed=3, injected_dice=(3, 20)))
    for side in Side:
        state, _ = play(state, side, c.ChooseArmy(ARMIES["n5"][side], TEST_ENTROPY))
    state, _ = play(state, A, {"type": "choose_initiative", "keep": "initiative", "first": True})
    state, _ = play(state, B, {"type": "choose_remaining", "first": True, "zone": "north"})
    ghost = next(t for t in state.troopers_of(B) if t.profile.hidden_deployment)
    other = next(t for t in state.troopers_of(B) if not t.profile.hidden_deployment
                 and not t.entry.is_peripheral and not t.entry.lieutenant)
    state, _ = play(state, B, {"type": "deploy", "trooper": ghost.id, "position": [10, 40],
                               "facing": 270.0, "hidden": True})
    refused = decide(state, B, {"type": "deploy", "trooper": other.id, "position": [10.5, 40],
                                "facing": 270.0})
    assert isinstance(refused, Rejected) and refused.code == "bad_position", refused
    state, _ = play(state, B, {"type": "deploy", "trooper": other.id, "position": [14, 40],
                               "facing": 270.0})


GHOST = "B-t2"  # vesper-raiders Ghost Infiltrator (Hidden Deployment)


def test_regression_a_player_cannot_move_a_model_onto_its_own_trooper_in_hidden_deployment() -> None:
    """The Enforcer's player knows where its Ghost is written down: a Move ending on it is
    refused (`bad_route`), one beside it is accepted. Found by the random games: revealed by
    an ARO, the Ghost stood on an ally moved onto its spot."""
    state = build_state({"ruleset": "n5", "terrain": [], "first": "B", "placements": {
        "A-t1": [1, 1, 270], "B-t1": [1, 47, 90], LEFT: [24, 30, 270],
        GHOST: [22, 30, 270, "hidden"]}})
    state, _ = play(state, B, {"type": "activate", "trooper": LEFT, "order": "regular"})
    refused = decide(state, B, _move([[24, 30], [22.3, 30]]))
    assert isinstance(refused, Rejected) and refused.code == "bad_route", refused
    state, _ = play(state, B, _move([[24, 30], [24, 33]]))
    assert state.trooper(T(LEFT)).position == (24.0, 33.0)


def test_regression_a_dodge_may_not_end_on_its_own_trooper_in_hidden_deployment() -> None:
    """The same for the Dodge route declared with an ARO."""
    state = _table({MOVER: [24, 12, 90], LEFT: [24, 30, 270], GHOST: [22, 30, 270, "hidden"]})
    state, _ = play(state, A, {"type": "activate", "trooper": MOVER, "order": "regular"})
    state, _ = play(state, A, _move([[24, 12], [24, 14]]))
    refused = decide(state, B, _dodge(LEFT, [[24, 30], [22.3, 30]]))
    assert isinstance(refused, Rejected) and refused.code == "bad_route", refused
    state, events = play(state, B, _dodge(LEFT, [[24, 30], [25.5, 30]]))
    assert events, "a Dodge beside the Ghost is accepted"


def test_an_enemy_trooper_in_hidden_deployment_does_not_block_a_move() -> None:
    """The enemy's hidden troopers block nothing: a refusal would tell where one is."""
    state = _table({MOVER: [20, 30, 90], GHOST: [22, 30, 270, "hidden"]})
    state, _ = play(state, A, {"type": "activate", "trooper": MOVER, "order": "regular"})
    state, _ = play(state, A, _move([[20, 30], [22, 30]]))
    assert state.trooper(T(MOVER)).position == (22.0, 30.0)
