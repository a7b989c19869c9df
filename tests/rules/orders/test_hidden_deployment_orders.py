"""A trooper in Hidden Deployment brings its own Order, private to its owner (issue 19
point 3; seed 002 "Undeployed Troopers' Orders are Private Information", seed 004 "The
status and existence of Orders provided by these Troopers is Private Information", DIGEST
3 Order Count and 12 Hidden Deployment: "can only use its own Order when revealing in its
Active Turn").

B's Ghost (B-t2) is either hidden on the table or not in the game at all; A and the
spectators must not be able to tell which from anything they receive, until it reveals.
"""

from __future__ import annotations

from server.rules import commands as c
from server.rules import engine
from server.rules.decision import Accepted, Rejected
from server.rules.events import AroWindowOpened, OrdersCounted, OrderSpent, TrooperRevealed, TurnEnded
from server.rules.ids import SPECTATOR, Side, TrooperId, Viewer
from server.rules.options import seat_options
from server.rules.orders.order_pool import orders_left
from server.rules.plain import Plain
from server.rules.state import GameState, OrderStep, OrderType, Phase
from server.rules.views import view_event, view_state
from tests.support.games import idle_out, play, spend_public_orders
from tests.support.skirmish import Placement, skirmish

HIDDEN = TrooperId("B-t2")  # the Ghost of vesper-raiders: Hidden Deployment, Regular
VISIBLE: dict[str, Placement] = {
    "A-t1": (10.0, 6.0, 90.0), "A-t3": (24.0, 6.0, 90.0), "A-t5": (38.0, 6.0, 90.0),
    "B-t1": (6.0, 44.0, 270.0), "B-t3": (20.0, 40.0, 270.0), "B-t4": (30.0, 40.0, 270.0),
}
HIDING_PLACE: Placement = (24.0, 20.0, 270.0, "hidden")
"""In front of A's troopers, inside their Line of Fire once revealed."""
OUTSIDERS = (Side.A, SPECTATOR)


def _game(hidden: bool) -> GameState:
    """B's Orders Phase, with or without the hidden Ghost."""
    placements = {**VISIBLE, HIDDEN: HIDING_PLACE} if hidden else dict(VISIBLE)
    return skirmish(placements, ruleset="n5", first=Side.B)


def _seen(state: GameState, viewer: Viewer) -> dict[str, Plain]:
    view = view_state(state, viewer)
    return {"orders": view["orders"], "orders_spent": view["orders_spent"], "phase": view["phase"],
            "active": view["active"], "troopers": view["troopers"]}


def _counted(state: GameState) -> OrdersCounted:
    from server.rules.orders.order_pool import count_orders

    return count_orders(state, Side.B)


def test_seed_002_undeployed_troopers_orders_are_private_the_owner_holds_its_own_order() -> None:
    with_ghost, without = _game(hidden=True), _game(hidden=False)
    assert with_ghost.orders.hidden == frozenset({HIDDEN})
    assert without.orders.hidden == frozenset()
    assert view_state(with_ghost, Side.B)["orders"]["hidden"] == [HIDDEN]
    assert seat_options(with_ghost, Side.B)["reveal"] == [HIDDEN]
    assert seat_options(without, Side.B)["reveal"] == []


def test_seed_004_undeployed_troopers_orders_are_private_not_in_the_pool() -> None:
    """Its Order goes into no pool: the pools and the Orders left are those of the game
    without it (DIGEST W6: "HD not on table")."""
    with_ghost, without = _game(hidden=True), _game(hidden=False)
    assert with_ghost.orders.pools == without.orders.pools
    assert with_ghost.orders.irregular == without.orders.irregular
    assert HIDDEN not in seat_options(with_ghost, Side.B)["activate"]


def test_seed_002_undeployed_troopers_orders_are_private_counts_and_views_are_alike() -> None:
    """The Order Count event, the snapshot's Orders and A's options read the same to A and
    spectators whether or not a hidden trooper exists."""
    with_ghost, without = _game(hidden=True), _game(hidden=False)
    assert _counted(with_ghost).hidden == (HIDDEN,)
    for viewer in OUTSIDERS:
        assert (view_event(_counted(with_ghost), viewer, with_ghost)
                == view_event(_counted(without), viewer, without))
        assert view_state(with_ghost, viewer)["orders"]["hidden"] == []
        assert _seen(with_ghost, viewer) == _seen(without, viewer)
    assert seat_options(with_ghost, Side.A) == seat_options(without, Side.A)


def _spend_public_orders(state: GameState) -> tuple[GameState, list[tuple[str, object]]]:
    """B spends every public Order on Idle; what A and the spectators receive meanwhile."""
    return spend_public_orders(state, Side.B, OUTSIDERS, _seen)


def _end_turn_seen(state: GameState) -> tuple[GameState, list[object]]:
    """B ends its turn; what A and the spectators receive of it, and A's options after."""
    decision = engine.decide(state, Side.B, c.EndTurn())
    assert isinstance(decision, Accepted), decision
    after = engine.apply_all(state, decision.events)
    seen: list[object] = [[view_event(e, viewer, after) for e in decision.events] for viewer in OUTSIDERS]
    return after, [*seen, *(_seen(after, viewer) for viewer in OUTSIDERS), seat_options(after, Side.A)]


def test_seed_002_undeployed_troopers_orders_are_private_the_turn_ends_alike() -> None:
    """Timing: once B has spent its public Orders the game waits for B's ``end_turn`` in
    both games, with or without a private Order in hand (seed 002: the player runs out of
    Orders "or decides not to use the remaining ones"), so neither the wait nor the end
    tells A anything; ``unused_orders`` counts public Orders only."""
    with_ghost, seen_with = _spend_public_orders(_game(hidden=True))
    without, seen_without = _spend_public_orders(_game(hidden=False))
    assert seen_with == seen_without
    for state in (with_ghost, without):
        assert (state.phase, state.active, state.order) == (Phase.ORDERS, Side.B, None)
        assert orders_left(state.orders) == 0 and seat_options(state, Side.B)["end_turn"]
    assert with_ghost.orders.hidden == frozenset({HIDDEN}), "B still holds its private Order"
    ended_with, end_seen_with = _end_turn_seen(with_ghost)
    _, end_seen_without = _end_turn_seen(without)
    assert end_seen_with == end_seen_without
    assert ended_with.active is Side.A and ended_with.trooper(HIDDEN).hidden
    assert ended_with.orders.hidden == frozenset(), "an unused private Order ends with the turn"


def test_seed_002_a_private_order_is_still_spent_after_the_public_orders_ran_out() -> None:
    """The private Order of a trooper in Hidden Deployment is not forfeited when the public
    Orders run out: the player reveals on it, plays the Order, then ends the turn."""
    state, _ = _spend_public_orders(_game(hidden=True))
    options = seat_options(state, Side.B)
    assert options["activate"] == {} and options["reveal"] == [HIDDEN] and options["end_turn"]
    state, events = play(state, Side.B, {"type": "reveal", "trooper": HIDDEN})
    spent = next(e for e in events if isinstance(e, OrderSpent))
    assert (spent.trooper, spent.private) == (HIDDEN, True)
    state, _ = idle_out(state)
    assert state.trooper(HIDDEN).on_table and state.orders.hidden == frozenset()
    assert (state.phase, state.active) == (Phase.ORDERS, Side.B)
    state, events = play(state, Side.B, {"type": "end_turn"})
    ended = next(e for e in events if isinstance(e, TurnEnded))
    assert ended.side is Side.B and ended.unused_orders == 0 and state.active is Side.A


def test_digest_12_hidden_deployment_reveal_spends_its_own_order() -> None:
    state = _game(hidden=True)
    pools = dict(state.orders.pools)
    state, events = play(state, Side.B, {"type": "reveal", "trooper": HIDDEN})
    revealed, spent = events
    assert isinstance(revealed, TrooperRevealed) and revealed.trooper == HIDDEN
    assert isinstance(spent, OrderSpent)
    assert (spent.trooper, spent.order_type, spent.private) == (HIDDEN, OrderType.REGULAR, True)
    assert state.orders.pools == pools and state.orders.hidden == frozenset()
    assert state.order is not None and state.order.trooper == HIDDEN
    assert state.order.step is OrderStep.FIRST_SKILL
    assert state.trooper(HIDDEN).on_table
    # Once revealed it is a trooper on the table like any other: pool Orders activate it.
    state, _ = idle_out(state)
    assert seat_options(state, Side.B)["activate"][HIDDEN] == ["regular"]
    assert seat_options(state, Side.B)["reveal"] == []


def test_digest_12_hidden_deployment_reveal_opens_an_aro_window_for_the_reactive_player() -> None:
    state = _game(hidden=True)
    state, _ = play(state, Side.B, {"type": "reveal", "trooper": HIDDEN})
    state, events = play(state, Side.B, {"type": "declare_skill", "skill": {"type": "idle"}})
    opened = [e for e in events if isinstance(e, AroWindowOpened)]
    assert opened and opened[0].eligible, "A's troopers in front of it may react"
    assert {e.trooper[:2] for e in opened[0].eligible} == {"A-"}
    window = engine.pending_aro_window(state)
    assert window is not None and window.reactive is Side.A


def test_digest_12_hidden_deployment_reveal_is_seen_only_when_spent() -> None:
    """The reveal and its Order reach A and spectators at once, with the profile."""
    state = _game(hidden=True)
    decision = engine.decide(state, Side.B, c.Reveal(HIDDEN))
    assert isinstance(decision, Accepted)
    state = engine.apply_all(state, decision.events)
    for viewer in OUTSIDERS:
        seen = [view_event(e, viewer, state) for e in decision.events]
        assert seen[0] is not None and seen[0]["profile"]["name"]
        assert seen[1] is not None and seen[1]["private"] is True
        (on_table,) = [t for t in view_state(state, viewer)["troopers"] if t["id"] == HIDDEN]
        assert seen[0]["combat_group"] == on_table["combat_group"] is not None


def _refused(state: GameState, side: Side, body: Plain) -> str:
    decision = engine.decide(state, side, c.parse_command(body))
    assert isinstance(decision, Rejected), decision
    return decision.code


def test_digest_12_hidden_deployment_reveal_only_between_orders_of_its_own_turn() -> None:
    state = _game(hidden=True)
    # The opponent naming it gets the answer of an id that names nobody.
    assert _refused(state, Side.A, {"type": "reveal", "trooper": HIDDEN}) == "unknown_trooper"
    state, _ = play(state, Side.B, {"type": "activate", "trooper": "B-t3", "order": "regular"})
    assert _refused(state, Side.B, {"type": "reveal", "trooper": HIDDEN}) == "order_in_progress"
    assert seat_options(state, Side.B)["reveal"] == []


def test_digest_12_hidden_deployment_no_own_order_if_not_hidden_at_the_order_count() -> None:
    """A trooper hidden after the Order Count (not possible in play; forced here) has no
    Order of its own this turn: the reveal is refused."""
    from server.rules.evolve import replace

    state = _game(hidden=True)
    state = replace(state, orders=replace(state.orders, hidden=frozenset()))
    assert _refused(state, Side.B, {"type": "reveal", "trooper": HIDDEN}) == "no_order_available"
    assert seat_options(state, Side.B)["reveal"] == []


def test_digest_12_hidden_deployment_unused_orders_count_public_orders_only() -> None:
    state = _game(hidden=True)
    state, events = play(state, Side.B, {"type": "end_turn"})
    ended = next(e for e in events if isinstance(e, TurnEnded))
    without = _game(hidden=False)
    assert ended.unused_orders == orders_left(without.orders) > 0
