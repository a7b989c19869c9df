"""The Guts window (combat/guts_window.py; DIGEST 7.8): the owner of a trooper that failed
its Guts Roll chooses where it moves, within the rule; the default applies when the owner
accepts it or the window's deadline passes."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from server.rules import engine
from server.rules.armies.skills import BsAttack, BurstAssignment, Idle
from server.rules.combat.guts import guts_route_problem, guts_rule
from server.rules.combat.mods import blocking_bodies
from server.rules.combat.outcome import Moved, Turned, WentProne
from server.rules.combat.resolution import resolve_order
from server.rules.commands import ChooseGutsMove, parse_command
from server.rules.decision import SYSTEM, Accepted, Rejected
from server.rules.events import (
    Event,
    GutsReacted,
    GutsWindowOpened,
    OrderConcluded,
    OrderResolved,
    event_from_plain,
    event_to_plain,
)
from server.rules.ids import Side, TerrainId, TrooperId
from server.rules.options import seat_options
from server.rules.orders.sequence import automatic_events
from server.rules.ruleset import Ruleset
from server.rules.state import GameState, OrderCount, OrderStep
from server.rules.table.geometry import Point
from server.rules.table.line_of_fire import has_line_of_fire
from server.rules.table.terrain import TerrainPiece

from .resolution_builders import RIFLE, shoot, trooper
from .resolution_builders import resolving as resolving_order

A, B = Side.A, Side.B
# Hit once (1), save passed (3 <= 8), Guts failed (20 > WIP 13).
HIT_SAVED_GUTS_FAILED = [1, 20, 20, 3, 20]
WALL = TerrainPiece(TerrainId("wall"), ((18.5, 10.6), (19.0, 10.6), (19.0, 16), (18.5, 16)), 3.0)
TARGET = TrooperId("B-t")
SHOOTER = TrooperId("A-s")


def resolving(*args: Any, **kwargs: Any) -> GameState:
    """A state at the Order's Resolution, with Orders left (the turn goes on after it)."""
    return replace(resolving_order(*args, **kwargs), orders=OrderCount(pools={1: 5}))


def _window(ruleset: Ruleset = Ruleset.N5) -> tuple[GameState, list[Event]]:
    """A shoots B's trooper standing just past the end of a wall; B's Guts Roll fails."""
    shooter = trooper("s", A, (10, 10), 0.0)
    target = trooper("t", B, (20, 10), 180.0)
    state = resolving(shooter, [shoot(RIFLE, (target, 3))], [target],
                      faces=HIT_SAVED_GUTS_FAILED, terrain=[WALL], ruleset=ruleset)
    return automatic_events(state, engine.apply)


def _choose(state: GameState, side: Side | Any, route: list[Point] | None = None,
            trooper_id: TrooperId = TARGET) -> engine.Decision:
    body: dict[str, Any] = {"type": "choose_guts_move", "order": 1, "trooper": trooper_id}
    if route is not None:
        body["route"] = [list(p) for p in route]
    return engine.decide(state, side, parse_command(body))


def _unseen(state: GameState, at: Point) -> bool:
    body = state.trooper(TARGET).body(at)
    return not has_line_of_fire(state.trooper(SHOOTER).body(), body, state.table,
                                blocking_bodies(state, SHOOTER, TARGET))


def test_a_failed_guts_roll_with_a_move_to_choose_opens_a_window_for_the_targets_owner() -> None:
    state, events = _window()
    resolved, opened = events
    assert isinstance(resolved, OrderResolved) and resolved.conclusion is not None
    assert resolved.outcome.rolls[-1].skill == "guts"
    assert not any(isinstance(e, (Moved, Turned)) for e in resolved.outcome.effects)
    assert isinstance(opened, GutsWindowOpened)
    assert (opened.trooper, opened.side, opened.reason) == (TARGET, B, "guts_out_of_line_of_fire")
    assert state.order is not None and state.order.step is OrderStep.CONCLUSION
    assert engine.pending_aro_window(state) == engine.AroWindow(1, 0, B, TARGET)
    offer = seat_options(state, B)["guts_move"]
    assert offer["trooper"] == TARGET and offer["default"] == [list(p) for p in opened.default]
    assert offer["points"][0] == offer["default"][1] and offer["max_move"] == 2.0
    assert seat_options(state, A)["guts_move"] is None
    assert state.trooper(TARGET).position == (20, 10)  # nothing moved yet


def test_the_active_troopers_owner_chooses_when_an_aro_made_it_fail() -> None:
    """The attacked trooper may be the active one: the window waits on the active player."""
    active = trooper("t", A, (20, 10), 180.0)
    reactive = trooper("s", B, (10, 10), 0.0)
    aro = BsAttack(weapon=RIFLE.id, targets=(BurstAssignment(active.id, 1),))
    # The ARO's single die hits (1), the save passes (3), the Guts Roll fails (20).
    state = resolving(active, [Idle()], [reactive], aros={reactive.id: aro},
                      faces=[1, 3, 20], terrain=[WALL])
    state, events = automatic_events(state, engine.apply)
    opened = events[-1]
    assert isinstance(opened, GutsWindowOpened) and opened.side is A
    assert engine.pending_aro_window(state) == engine.AroWindow(1, 0, A, active.id)
    assert seat_options(state, A)["guts_move"]["trooper"] == active.id
    assert seat_options(state, B)["guts_move"] is None


def test_a_chosen_point_out_of_line_of_fire_is_applied_then_alert_turns_from_there() -> None:
    state, _ = _window()
    offer = seat_options(state, B)["guts_move"]
    chosen = tuple(offer["points"][-1])
    assert chosen != tuple(offer["default"][1])
    decision = _choose(state, B, [(20, 10), chosen])
    assert isinstance(decision, Accepted)
    reacted, concluded = decision.events
    assert isinstance(reacted, GutsReacted) and reacted.choice == "chosen"
    assert reacted.effect == Moved(TARGET, ((20, 10), chosen), "guts_out_of_line_of_fire")
    assert isinstance(concluded, OrderConcluded)
    assert [type(e) for e in concluded.effects] == [Turned]  # Alert!: it faces the shooter
    after = decision.state
    assert after.order is None and after.trooper(TARGET).position == chosen
    assert _unseen(after, chosen)


def test_a_point_no_ring_holds_is_accepted_when_the_rule_accepts_it() -> None:
    state, _ = _window()
    end = (20.3, 11.8)  # behind the wall, 1.82 inches away: not a ring point
    rule = guts_rule(state, state.order.conclusion.guts[0])  # type: ignore[union-attr]
    assert end not in rule.points and _unseen(state, end)
    decision = _choose(state, B, [(20, 10), end])
    assert isinstance(decision, Accepted)
    assert decision.state.trooper(TARGET).position == end


def test_illegal_points_are_refused_with_their_reasons() -> None:
    state, _ = _window()
    cases = {
        "route_too_long": [(20, 10), (20, 12.5)],
        "guts_still_in_reach": [(20, 10), (21.5, 10)],  # in the open, and points behind exist
        "bad_route": [(20, 10), (18.4, 11.0)],  # into the wall
    }
    for code, route in cases.items():
        decision = _choose(state, B, route)
        assert isinstance(decision, Rejected), code
        assert decision.code == code and decision.message, (code, decision)
    still = _choose(state, B, [(20, 10), (21.5, 10)])
    assert isinstance(still, Rejected) and "Line of Fire" in still.message
    assert isinstance(_choose(state, A, [(20, 10), (20.3, 11.8)]), Rejected)
    wrong = _choose(state, B, [(20, 10), (20.3, 11.8)], trooper_id=SHOOTER)
    assert isinstance(wrong, Rejected) and wrong.code == "stale_guts_window"


def test_a_route_ending_in_base_contact_with_an_enemy_is_refused() -> None:
    end = (20.0, 11.4)  # behind the wall
    radius = trooper("t", B, (20, 10)).body().radius
    shooter = trooper("s", A, (10, 10), 0.0)
    target = trooper("t", B, (20, 10), 180.0)
    guard = trooper("g", A, (20.0, end[1] + 2 * radius + 0.02), 270.0)  # touching at ``end``
    state = resolving(shooter, [shoot(RIFLE, (target, 3))], [target, guard],
                      faces=HIT_SAVED_GUTS_FAILED, terrain=[WALL])
    state, _ = automatic_events(state, engine.apply)
    decision = _choose(state, B, [(20, 10), end])
    assert isinstance(decision, Rejected) and decision.code == "guts_base_contact"
    default = tuple(seat_options(state, B)["guts_move"]["default"][1])
    assert isinstance(_choose(state, B, [(20, 10), default]), Accepted)


def test_accepting_the_default_moves_where_the_server_would_have() -> None:
    state, events = _window()
    shooter = trooper("s", A, (10, 10), 0.0)
    target = trooper("t", B, (20, 10), 180.0)
    whole, _ = resolve_order(resolving(shooter, [shoot(RIFLE, (target, 3))], [target],
                                       faces=HIT_SAVED_GUTS_FAILED, terrain=[WALL]))
    (default_move,) = [e for e in whole.effects if isinstance(e, Moved)]
    decision = _choose(state, B)
    assert isinstance(decision, Accepted)
    reacted = decision.events[0]
    assert isinstance(reacted, GutsReacted) and reacted.choice == "default"
    assert reacted.effect == default_move
    assert isinstance(events[-1], GutsWindowOpened) and events[-1].default == default_move.route


def test_the_deadline_takes_the_default_and_only_the_room_clock_may_send_it_empty() -> None:
    state, _ = _window()
    decision = engine.decide(state, SYSTEM, ChooseGutsMove(1, TARGET))
    assert isinstance(decision, Accepted)
    reacted = decision.events[0]
    assert isinstance(reacted, GutsReacted) and reacted.choice == "deadline"
    assert isinstance(reacted.effect, Moved)
    drawn = engine.decide(state, SYSTEM, ChooseGutsMove(1, TARGET, ((20, 10), (20.3, 11.8))))
    assert isinstance(drawn, Rejected) and drawn.code == "bad_command"
    after = decision.state
    late = engine.decide(after, SYSTEM, ChooseGutsMove(1, TARGET))
    assert isinstance(late, Rejected) and late.code == "stale_guts_window"


def test_every_point_options_offer_is_accepted() -> None:
    state, _ = _window()
    offer = seat_options(state, B)["guts_move"]
    start = tuple(offer["default"][0])
    assert len(offer["points"]) > 1
    for point in offer["points"]:
        assert isinstance(_choose(state, B, [start, tuple(point)]), Accepted), point
    rule = guts_rule(state, state.order.conclusion.guts[0])  # type: ignore[union-attr]
    assert all(guts_route_problem(state, rule, (start, p)) is None for p in rule.points)


def test_a_failure_with_nothing_to_choose_is_concluded_at_once_as_before() -> None:
    """In the open (nowhere within 2 inches out of LoF or in cover): Prone, no window."""
    shooter = trooper("s", A, (10, 10), 0.0)
    target = trooper("t", B, (16, 10), 180.0)
    state = resolving(shooter, [shoot(RIFLE, (target, 3))], [target], faces=HIT_SAVED_GUTS_FAILED)
    state, events = automatic_events(state, engine.apply)
    (resolved,) = events
    assert isinstance(resolved, OrderResolved) and resolved.conclusion is None
    assert WentProne(target.id, "guts") in resolved.outcome.effects
    assert state.order is None and engine.pending_aro_window(state) is None


def test_codeone_has_no_guts_and_no_window() -> None:
    state, events = _window(Ruleset.CODEONE)
    assert [type(e) for e in events] == [OrderResolved]
    assert not any(r.skill == "guts" for r in events[0].outcome.rolls)  # type: ignore[attr-defined]
    assert state.order is None and seat_options(state, B)["guts_move"] is None


def test_two_failures_are_chosen_one_after_the_other_each_seeing_the_first() -> None:
    """A split Burst hits two troopers behind the wall's end: each owner's window in turn
    (first hit first); the second opens only once the first has moved."""
    shooter = trooper("s", A, (10, 10), 0.0)
    first = trooper("t", B, (20, 10), 180.0)
    second = trooper("u", B, (20, 8.6), 180.0)
    # Burst 2 on t: 1 hits; burst 1 on u: 2 hits; saves 3, 3 pass; Guts 20, 20 fail.
    state = resolving(shooter, [shoot(RIFLE, (first, 2), (second, 1))], [first, second],
                      faces=[1, 20, 2, 3, 3, 20, 20], terrain=[WALL])
    state, events = automatic_events(state, engine.apply)
    assert isinstance(events[-1], GutsWindowOpened) and events[-1].trooper == first.id
    decision = _choose(state, B)
    assert isinstance(decision, Accepted)
    assert [type(e) for e in decision.events] == [GutsReacted, GutsWindowOpened]
    state = decision.state
    assert engine.pending_aro_window(state) == engine.AroWindow(1, 0, B, second.id)
    decision = _choose(state, B, trooper_id=second.id)
    assert isinstance(decision, Accepted)
    assert [type(e) for e in decision.events] == [GutsReacted, OrderConcluded]
    assert decision.state.order is None


def test_replaying_the_events_and_the_plain_forms_rebuild_the_game() -> None:
    shooter = trooper("s", A, (10, 10), 0.0)
    target = trooper("t", B, (20, 10), 180.0)
    start = resolving(shooter, [shoot(RIFLE, (target, 3))], [target],
                      faces=HIT_SAVED_GUTS_FAILED, terrain=[WALL])
    waiting, events = automatic_events(start, engine.apply)
    assert engine.state_from_plain(engine.state_to_plain(waiting)) == waiting
    decision = _choose(waiting, B, [(20, 10), (20.3, 11.8)])
    assert isinstance(decision, Accepted)
    log = [*events, *decision.events]
    assert [event_from_plain(event_to_plain(e)) for e in log] == log
    assert engine.apply_all(start, tuple(log)) == decision.state


def test_the_window_and_the_choice_are_open_information() -> None:
    """Every viewer sees the window, the default and the choice alike (no private trooper
    can have a Guts Roll: docs/rules-decisions/resolution.md)."""
    from server.rules.ids import SPECTATOR
    from server.rules.views import shares_one_view, view_event, view_state

    state, events = _window()
    decision = _choose(state, B, [(20, 10), (20.3, 11.8)])
    assert isinstance(decision, Accepted)
    for event in (*events, *decision.events):
        assert shares_one_view(event)
        seen = [view_event(event, viewer, decision.state) for viewer in (A, B, SPECTATOR)]
        assert seen[0] == seen[1] == seen[2] is not None
    order = view_state(state, SPECTATOR)["order"]
    assert order["step"] == "conclusion" and order["guts_window"] is True


def test_without_a_point_out_of_line_of_fire_the_move_must_reach_cover() -> None:
    """7.8 (2): a long low wall gives Partial Cover but hides nothing: the window asks for
    cover (a move into contact with the wall, which no ring point reaches: the default is a
    straight move until the base touches it), and a point in the open, or short of contact,
    is refused."""
    low_wall = TerrainPiece(TerrainId("low"), ((19.0, 5.0), (19.3, 5.0), (19.3, 15.0), (19.0, 15.0)),
                            1.0, True)
    shooter = trooper("s", A, (10, 10), 0.0)
    target = trooper("t", B, (21.5, 10), 180.0)
    state = resolving(shooter, [shoot(RIFLE, (target, 3))], [target],
                      faces=HIT_SAVED_GUTS_FAILED, terrain=[low_wall])
    state, events = automatic_events(state, engine.apply)
    opened = events[-1]
    assert isinstance(opened, GutsWindowOpened) and opened.reason == "guts_to_cover"
    refused = _choose(state, B, [(21.5, 10), (23.0, 10)])
    assert isinstance(refused, Rejected) and refused.code == "guts_not_in_cover"
    assert "Partial Cover" in refused.message
    near = _choose(state, B, [(21.5, 10), (20.0, 10.3)])  # 0.21" short of the wall: no contact
    assert isinstance(near, Rejected) and near.code == "guts_not_in_cover"
    decision = _choose(state, B, [(21.5, 10), (19.3 + 0.4921 + 0.02, 10.3)])  # base touching it
    assert isinstance(decision, Accepted)
    reacted = decision.events[0]
    assert isinstance(reacted, GutsReacted) and isinstance(reacted.effect, Moved)
    assert reacted.effect.reason == "guts_to_cover"


def test_the_chess_clock_of_the_owner_runs_during_the_window() -> None:
    """The game waits on the owner (orders/clocks.py): B's clock, though A is active."""
    from server.rules.orders.clocks import waiting_on

    state, _ = _window()
    assert state.active is A
    assert waiting_on(engine.start_clocks(state, 60_000, 0)) is B
