"""A game set up with a registered army per side (a tournament table): that army is the only
one the side may choose and the only one its options offer; any other is refused with
``army_not_registered``. A side without one, and a game without any, choose freely.

DIGEST 11.1 (the tournament pre-game order: a player plays the army it registered)."""

from __future__ import annotations

import pytest

from server.rules import commands as c
from server.rules import engine
from server.rules.decision import Accepted, Rejected
from server.rules.ids import Side
from server.rules.options import seat_options
from server.rules.plain import from_plain, to_plain
from server.rules.reasons import Reason
from server.rules.state import GameState, Phase
from tests.support.games import TEST_ENTROPY, play

N5_LISTS = ["helion-vanguard", "orrery-veil", "petrel-skyborne", "vesper-raiders"]
CODEONE_LISTS = ["helion-c1-patrol", "orrery-c1-veil", "petrel-c1-drop", "vesper-c1-cell"]


def game(ruleset: str = "n5", **registered: str) -> GameState:
    return engine.new_game(engine.GameSetup(
        ruleset=ruleset, seed=3,
        registered_armies={Side(side): army for side, army in registered.items()}))


def choose(state: GameState, side: Side, army: str) -> Accepted | Rejected:
    decision = engine.decide(state, side, c.ChooseArmy(army, TEST_ENTROPY))
    assert isinstance(decision, Accepted | Rejected)
    return decision


def test_another_army_than_the_registered_one_is_refused_with_a_reason_the_player_reads() -> None:
    state = game(A="vesper-raiders")
    refused = choose(state, Side.A, "helion-vanguard")
    assert isinstance(refused, Rejected)
    assert refused.code == Reason.ARMY_NOT_REGISTERED
    assert Reason.ARMY_NOT_REGISTERED.value == "army_not_registered"  # the wire's code
    assert refused.message == "This table is for your registered army, Vesper Raiders."


def test_the_registered_army_is_accepted_and_the_game_goes_on() -> None:
    state = game(A="vesper-raiders", B="helion-vanguard")
    state, _ = play(state, Side.A, c.ChooseArmy("vesper-raiders", TEST_ENTROPY))
    state, _ = play(state, Side.B, c.ChooseArmy("helion-vanguard", TEST_ENTROPY))
    assert state.phase is Phase.INITIATIVE
    assert state.armies[Side.A].id == "vesper-raiders"
    assert state.armies[Side.B].id == "helion-vanguard"


def test_both_players_may_be_registered_with_the_same_army() -> None:
    state = game(A="vesper-raiders", B="vesper-raiders")
    state, _ = play(state, Side.A, c.ChooseArmy("vesper-raiders", TEST_ENTROPY))
    assert isinstance(choose(state, Side.B, "helion-vanguard"), Rejected)
    state, _ = play(state, Side.B, c.ChooseArmy("vesper-raiders", TEST_ENTROPY))
    assert state.phase is Phase.INITIATIVE


def test_the_options_offer_only_the_registered_army() -> None:
    state = game(A="vesper-raiders")
    assert seat_options(state, Side.A)["choose_army"] == ["vesper-raiders"]
    assert seat_options(state, Side.B)["choose_army"] == N5_LISTS  # not registered: free


def test_nothing_is_offered_once_the_seat_has_chosen() -> None:
    state = game(A="vesper-raiders")
    state, _ = play(state, Side.A, c.ChooseArmy("vesper-raiders", TEST_ENTROPY))
    assert seat_options(state, Side.A)["choose_army"] == []
    state, _ = play(state, Side.B, c.ChooseArmy("vesper-raiders", TEST_ENTROPY))
    assert seat_options(state, Side.B)["choose_army"] == []


@pytest.mark.parametrize(("ruleset", "lists"), [
    ("n5", N5_LISTS), ("codeone", CODEONE_LISTS)])
def test_a_game_without_registered_armies_is_unchanged(ruleset: str, lists: list[str]) -> None:
    state = game(ruleset)
    assert state.registered_armies == {}
    for side in Side:
        assert seat_options(state, side)["choose_army"] == lists
        for army in lists:
            assert isinstance(choose(state, side, army), Accepted)
    other = next(a for a in ["helion-vanguard", "helion-c1-patrol"] if a not in lists)
    refused = choose(state, Side.A, other)
    assert isinstance(refused, Rejected) and refused.code == Reason.UNKNOWN_ARMY


def test_the_registered_armies_survive_a_snapshot() -> None:
    state = game(A="vesper-raiders", B="helion-vanguard")
    plain = engine.state_to_plain(state)
    assert plain["registered_armies"] == {"A": "vesper-raiders", "B": "helion-vanguard"}
    again = engine.state_from_plain(plain)
    assert again.registered_armies == {Side.A: "vesper-raiders", Side.B: "helion-vanguard"}
    assert again == from_plain(GameState, to_plain(state))


def test_a_snapshot_from_before_registered_armies_holds_no_side_to_one() -> None:
    plain = engine.state_to_plain(game())
    del plain["registered_armies"]
    assert engine.state_from_plain(plain).registered_armies == {}
