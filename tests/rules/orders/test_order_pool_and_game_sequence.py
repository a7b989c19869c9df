"""Seeds 002 (Game Sequence) and 004 (Orders and the Order Pool)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from server.rules import commands as c
from server.rules import engine
from server.rules.combat.wounds import Condition
from server.rules.decision import Rejected
from server.rules.events import GameEnded, OrdersCounted, TurnEnded, TurnStarted
from server.rules.ids import Side, TrooperId
from server.rules.options import seat_options
from server.rules.orders.game_sequence import game_over
from server.rules.state import GameResult, OrderType, Phase
from server.rules.views import view_event
from tests.support.games import close_aro_window, new_game_in_deployment, new_game_in_orders_phase, play
from tests.support.skirmish import skirmish

T = TrooperId


def n5(**placements: tuple[float, float, float] | tuple[float, float, float, str]):  # type: ignore[no-untyped-def]
    # Lieutenants face away from each other (no AROs unless a test places more troopers).
    base = {"A-t1": (2, 2, 270.0), "B-t1": (2, 46, 90.0)}
    return skirmish({**base, **placements}, ruleset="n5")


def spend_idle(state, trooper, order="regular", side=Side.A):  # type: ignore[no-untyped-def]
    """One whole Order of Idle + Idle; the reactive player closes each ARO window (windows
    open at every ARO step and never close by themselves)."""
    state, _ = play(state, side, {"type": "activate", "trooper": trooper, "order": order})
    state, _ = play(state, side, {"type": "declare_skill", "skill": {"type": "idle"}})
    state, _ = close_aro_window(state)
    state, _ = play(state, side, {"type": "declare_skill", "skill": {"type": "idle"}})
    state, _ = close_aro_window(state)
    return state


def test_order_count_regular_orders_go_to_each_combat_groups_pool() -> None:
    state = n5(**{"A-t7": (6, 2, 270.0), "A-t11": (8, 2, 270.0), "A-t12": (10, 2, 270.0)})
    assert dict(state.orders.pools) == {1: 2, 2: 2}


def test_order_count_irregular_troopers_get_their_own_order() -> None:
    state = n5(**{"B-t7": (6, 46, 90.0)}, **{"A-t7": (6, 2, 270.0)})
    state, _ = play(state, Side.A, c.EndTurn())
    assert state.active is Side.B
    assert T("B-t7") in state.orders.irregular and dict(state.orders.pools) == {1: 1}


def test_order_count_lieutenant_special_order_and_tactical_order() -> None:
    state = n5()
    assert state.orders.lieutenant == "A-t1"
    assert state.orders.tactical == frozenset({T("A-t1")})  # the Warden Officer has Tactical Awareness


def test_troopers_not_on_the_table_add_no_order_hidden_deployment() -> None:
    state = n5(**{"B-t2": (10, 40, 270.0, "hidden"), "B-t3": (12, 46, 90.0)})
    state, _ = play(state, Side.A, c.EndTurn())
    assert dict(state.orders.pools) == {1: 2}  # B-t1 and B-t3; the hidden B-t2 adds nothing


def test_null_troopers_add_no_order() -> None:
    from dataclasses import replace

    from server.rules.combat.wounds import Condition

    state = n5(**{"A-t7": (6, 2, 270.0), "B-t3": (12, 46, 90.0)})
    state = state.with_trooper(replace(state.trooper(T("A-t7")), condition=Condition.UNCONSCIOUS))
    state, _ = play(state, Side.A, c.EndTurn())
    state, _ = play(state, Side.B, c.EndTurn())
    assert dict(state.orders.pools) == {1: 1}


def test_regular_order_activates_any_trooper_of_its_group_repeatedly_and_interleaved() -> None:
    state = n5(**{"A-t7": (6, 2, 270.0), "A-t8": (8, 2, 270.0)})
    assert state.orders.pools[1] == 3
    state = spend_idle(state, "A-t7")
    state = spend_idle(state, "A-t8")
    state = spend_idle(state, "A-t7")
    assert state.orders.pools[1] == 0


def test_regular_order_cannot_activate_a_trooper_of_another_group() -> None:
    state = n5(**{"A-t11": (8, 2, 270.0)})
    answer = engine.decide(state, Side.A, c.Activate(T("A-t11"), OrderType.REGULAR, combat_group=1))
    assert isinstance(answer, Rejected) and answer.code == "order_not_for_trooper"


def test_pool_never_goes_negative() -> None:
    state = n5(**{"A-t11": (8, 2, 270.0)})
    state = spend_idle(state, "A-t11")
    answer = engine.decide(state, Side.A, c.Activate(T("A-t11"), OrderType.REGULAR))
    assert isinstance(answer, Rejected) and answer.code == "no_order_available"


def test_irregular_order_only_activates_its_own_trooper() -> None:
    state = n5(**{"B-t7": (6, 46, 90.0), "B-t8": (8, 46, 90.0)})
    state, _ = play(state, Side.A, c.EndTurn())
    answer = engine.decide(state, Side.B, c.Activate(T("B-t8"), OrderType.IRREGULAR))
    assert isinstance(answer, Rejected) is False
    state, _ = play(state, Side.B, c.Activate(T("B-t8"), OrderType.IRREGULAR))
    assert T("B-t8") not in state.orders.irregular and T("B-t7") in state.orders.irregular


def test_lieutenant_special_order_only_activates_the_lieutenant() -> None:
    state = n5(**{"A-t7": (6, 2, 270.0)})
    answer = engine.decide(state, Side.A, c.Activate(T("A-t7"), OrderType.LIEUTENANT))
    assert isinstance(answer, Rejected) and answer.code == "order_not_for_trooper"
    state = spend_idle(state, "A-t1", "lieutenant")
    assert state.orders.lieutenant is None


def test_tactical_order_only_activates_its_trooper() -> None:
    state = n5(**{"A-t7": (6, 2, 270.0)})
    answer = engine.decide(state, Side.A, c.Activate(T("A-t7"), OrderType.TACTICAL))
    assert isinstance(answer, Rejected) and answer.code == "order_not_for_trooper"


def test_peripheral_acts_on_its_controllers_order() -> None:
    state = n5(**{"A-t4": (6, 2, 270.0), "A-p1": (8, 2, 270.0)})
    state = spend_idle(state, "A-p1")
    assert state.orders.pools[1] == 1  # one order spent from the Controller's group


def test_impetuous_troopers_activate_once_in_the_impetuous_phase_without_an_order() -> None:
    state = skirmish({"B-t1": (2, 46, 90.0), "B-t6": (8, 46, 270.0), "A-t1": (2, 2, 270.0)}, ruleset="n5", first=Side.B)
    assert state.phase is Phase.IMPETUOUS and state.orders.impetuous == {T("B-t6")}
    pool_before = dict(state.orders.pools)
    state = spend_idle(state, "B-t6", "impetuous", side=Side.B)
    assert state.phase is Phase.ORDERS and dict(state.orders.pools) == pool_before
    answer = engine.decide(state, Side.B, c.Activate(T("B-t6"), OrderType.IMPETUOUS))
    assert isinstance(answer, Rejected) and answer.code == "wrong_phase"


def test_codeone_has_no_impetuous_phase() -> None:
    state = new_game_in_orders_phase("codeone")
    assert state.phase is Phase.ORDERS


def test_unused_orders_are_lost_at_the_end_of_the_turn() -> None:
    state = n5(**{"A-t7": (6, 2, 270.0)})
    state, events = play(state, Side.A, c.EndTurn())
    ended = next(e for e in events if isinstance(e, TurnEnded))
    assert ended.unused_orders == 4  # 2 Regular + Lieutenant + Tactical
    state, _ = play(state, Side.B, c.EndTurn())
    assert dict(state.orders.pools) == {1: 2}  # recounted, not carried over


def test_seed_002_turn_waits_for_end_turn_when_no_orders_are_left() -> None:
    """Seed 002: the Orders Phase ends when the player runs out of Orders or decides not to
    use the rest; the game does not end it by itself when the public Orders run out (a
    private Order may remain, and waiting only then would say so): the player's
    ``end_turn`` does, its only option left here."""
    state = n5()
    state = spend_idle(state, "A-t1")
    state = spend_idle(state, "A-t1", "lieutenant")
    state = spend_idle(state, "A-t1", "tactical")
    assert (state.active, state.phase, state.turn) == (Side.A, Phase.ORDERS, 1)
    options = seat_options(state, Side.A)
    assert options["activate"] == {} and options["end_turn"] is True
    state, events = play(state, Side.A, c.EndTurn())
    ended = next(e for e in events if isinstance(e, TurnEnded))
    assert ended.unused_orders == 0
    assert state.active is Side.B and state.turn == 2


def test_game_has_three_rounds_of_two_player_turns_then_ends_with_a_result() -> None:
    state = n5()
    turns = []
    for _ in range(6):
        state, events = play(state, state.active, c.EndTurn())  # type: ignore[arg-type]
        turns += [(e.round, e.turn, e.active) for e in events if isinstance(e, TurnStarted)]
        ended = [e for e in events if isinstance(e, GameEnded)]
    assert turns == [(1, 2, Side.B), (2, 1, Side.A), (2, 2, Side.B), (3, 1, Side.A), (3, 2, Side.B)]
    assert ended and ended[0].result.reason == "rounds_completed" and state.phase is Phase.GAME_OVER
    # Every trooper not in a Null state counts, on the table or not (DIGEST 11.4, 11.5):
    # both lists spend their 300 points, so a game with no casualty is a draw.
    assert ended[0].result.victory_points == {Side.A: 300, Side.B: 300}  # the lists' totals
    assert ended[0].result.winner is None


def test_victory_points_are_the_surviving_troopers_points() -> None:
    """DIGEST 11.5: a trooper in a Null state scores nothing; the most VP wins."""
    state = n5()
    dead = state.trooper(T("B-t3"))
    state = state.with_trooper(replace(dead, condition=Condition.DEAD, wounds=2))
    result = game_over(state, "rounds_completed").result
    assert result.victory_points == {Side.A: 300, Side.B: 300 - dead.profile.cost}
    assert result.winner is Side.A


@pytest.mark.parametrize(("ruleset", "limit"), [("n5", 300), ("codeone", 30)])
def test_concession_before_deployment_gives_the_winner_its_army_and_the_loser_nothing(
        ruleset: str, limit: int) -> None:
    """A side that concedes leaves the battle with no survivor: 0 VP; the winner keeps its
    whole army's points (docs/rules-decisions/README.md, "Victory Points of a concession")."""
    state = new_game_in_deployment(ruleset)
    state, events = play(state, Side.A, c.Concede())
    (ended,) = [e for e in events if isinstance(e, GameEnded)]
    assert ended.result == GameResult(Side.B, {Side.A: 0, Side.B: limit}, "concession")
    assert state.phase is Phase.GAME_OVER


def test_concession_mid_game_zeroes_only_the_conceding_side() -> None:
    state = n5()
    dead = state.trooper(T("A-t1"))
    state = state.with_trooper(replace(dead, condition=Condition.DEAD, wounds=2))
    state, events = play(state, Side.B, c.Concede())
    (ended,) = [e for e in events if isinstance(e, GameEnded)]
    assert ended.result.winner is Side.A
    assert ended.result.victory_points == {Side.A: 300 - dead.profile.cost, Side.B: 0}


def test_which_order_was_spent_is_open_information() -> None:
    state = n5(**{"A-t7": (6, 2, 270.0)})
    decision = engine.decide(state, Side.A, c.Activate(T("A-t1"), OrderType.LIEUTENANT))
    spent = decision.events[0]  # type: ignore[union-attr]
    for viewer in (Side.B, "spectator"):
        from server.rules.ids import SPECTATOR

        seen = view_event(spent, SPECTATOR if viewer == "spectator" else Side.B, state)
        assert seen is not None and seen["order_type"] == "lieutenant" and seen["trooper"] == "A-t1"


def test_lieutenant_identity_is_private_in_the_order_count() -> None:
    state = n5()
    counted = OrdersCounted(Side.A, {1: 1}, (), (), T("A-t1"), ())
    assert view_event(counted, Side.B, state)["lieutenant"] is True  # type: ignore[index]
    assert view_event(counted, Side.A, state)["lieutenant"] == "A-t1"  # type: ignore[index]


def test_loss_of_lieutenant_makes_every_trooper_irregular() -> None:
    state = skirmish({"A-t7": (6, 2, 270.0), "A-t8": (8, 2, 270.0)}, ruleset="n5")
    assert Side.A in state.loss_of_lieutenant
    assert dict(state.orders.pools) == {1: 0} and state.orders.irregular == {T("A-t7"), T("A-t8")}
