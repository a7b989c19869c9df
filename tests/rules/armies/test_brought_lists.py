"""A list the player brings (``choose_army`` with ``list``): validated by the server from its
profiles, refused ``bad_army_list`` with the first problem named; an army code reaching the
rules without the operator's data is refused ``no_army_data``; a list that carries items the
referee does not play is accepted by both players before the game (``accept_armies``), and
the opponent sees those items only for troopers it may see.

DIGEST 3.2 and 14 (Army Lists), 11.2 (Private Information: the Lieutenant, Hidden
Deployment); docs/armies.md, "Bringing your own list"."""

from __future__ import annotations

from typing import Any

import pytest

from server.rules import commands as c
from server.rules import engine
from server.rules.decision import Accepted, Rejected
from server.rules.ids import SPECTATOR, Side
from server.rules.options import seat_options
from server.rules.reasons import Reason
from server.rules.state import GameState, Phase
from server.rules.views import view_event, view_state
from tests.support.brought_lists import brought
from tests.support.games import TEST_ENTROPY, play


def game(ruleset: str = "n5", **registered: Any) -> GameState:
    return engine.new_game(engine.GameSetup(
        ruleset=ruleset, seed=3,
        registered_armies={Side(side): army for side, army in registered.items()}))


def decide(state: GameState, side: Side, command: c.Command) -> Accepted | Rejected:
    decision = engine.decide(state, side, command)
    assert isinstance(decision, Accepted | Rejected)
    return decision


def bring(document: Any) -> c.ChooseArmy:
    return c.ChooseArmy(list=document, entropy=TEST_ENTROPY)


def test_a_brought_list_is_chosen_like_a_shipped_one() -> None:
    state, _ = play(game(), Side.A, bring(brought()))
    assert state.armies[Side.A].name == "My Raiders"
    assert len(state.troopers_of(Side.A)) == 15
    state, _ = play(state, Side.B, c.ChooseArmy("helion-vanguard", TEST_ENTROPY))
    assert state.phase is Phase.INITIATIVE  # nothing to review: the game goes on at once


def test_the_first_problem_is_named_in_a_players_words() -> None:
    document = brought()
    document["entries"][1]["lieutenant"] = True  # a second Lieutenant
    refused = decide(game(), Side.A, bring(document))
    assert isinstance(refused, Rejected)
    assert refused.code == Reason.BAD_ARMY_LIST
    assert refused.message == "The list has 2 Lieutenants; it needs exactly one."


def test_points_are_computed_from_the_profiles_never_trusted() -> None:
    document = brought()
    document["points"] = 200  # the troopers cost 300
    refused = decide(game(), Side.A, bring(document))
    assert isinstance(refused, Rejected)
    assert refused.code == Reason.BAD_ARMY_LIST
    assert refused.message.startswith("The troopers cost 300 points; the list allows 200.")


def test_a_list_of_the_other_format_is_refused() -> None:
    refused = decide(game("codeone"), Side.A, bring(brought()))
    assert isinstance(refused, Rejected)
    assert refused.code == Reason.BAD_ARMY_LIST
    assert "this game needs a codeone list" in refused.message


@pytest.mark.parametrize("document", [None, [], "text", 7, {"entries": {"a": 1}}])
def test_a_document_that_is_no_list_is_refused_not_crashed(document: Any) -> None:
    command = c.ChooseArmy(list=document, entropy=TEST_ENTROPY)
    refused = decide(game(), Side.A, command)
    assert isinstance(refused, Rejected)
    assert refused.code in {Reason.BAD_ARMY_LIST, Reason.BAD_COMMAND}


def test_exactly_one_source_is_required() -> None:
    both = c.ChooseArmy(army="vesper-raiders", list=brought(), entropy=TEST_ENTROPY)
    none = c.ChooseArmy(entropy=TEST_ENTROPY)
    for command in (both, none):
        refused = decide(game(), Side.A, command)
        assert isinstance(refused, Rejected)
        assert refused.code == Reason.BAD_COMMAND
        assert "exactly one of" in refused.message


def test_an_army_code_without_the_operators_data_is_refused_saying_how_to_add_it() -> None:
    refused = decide(game(), Side.A, c.ChooseArmy(code="abc", entropy=TEST_ENTROPY))
    assert isinstance(refused, Rejected)
    assert refused.code == Reason.NO_ARMY_DATA
    assert "no army data" in refused.message and "REFEREE_ARMY_DATA" in refused.message


def test_a_list_may_define_its_own_weapons_but_not_reuse_a_shipped_id() -> None:
    document = brought()
    own = {"id": "w-own-rifle", "name": "Own Rifle", "kind": "ballistic", "burst": 3, "ps": 13,
           "ammo": "N", "ranges": [{"up_to": 16, "mod": 3}, {"up_to": 32, "mod": 0}]}
    document["weapons"] = [own]
    document["units"][0]["weapons"] = ["w-own-rifle"]
    state, _ = play(game(), Side.A, bring(document))
    assert state.armies[Side.A].weapon("w-own-rifle").burst == 3  # type: ignore[arg-type]
    document["weapons"] = [{**own, "id": "sidearm"}]
    refused = decide(game(), Side.A, bring(document))
    assert isinstance(refused, Rejected)
    assert "Weapon id 'sidearm' is defined twice" in refused.message


def reviewed_game() -> GameState:
    """A chose a list with a not-refereed item on a public trooper (t3) and one on its
    Hidden Deployment trooper (t2, the ghost); B a shipped list."""
    document = brought(t3=["Gizmo Visor L1 — played without it"],
                       t2=["Secret Boots — played without it"])
    state, _ = play(game(), Side.A, bring(document))
    state, _ = play(state, Side.B, c.ChooseArmy("helion-vanguard", TEST_ENTROPY))
    return state


def test_not_refereed_items_hold_the_game_until_both_players_accept() -> None:
    state = reviewed_game()
    assert state.phase is Phase.ARMY_SELECTION
    assert seat_options(state, Side.A)["accept_armies"] is True
    assert seat_options(state, Side.B)["accept_armies"] is True
    state, events = play(state, Side.B, c.AcceptArmies())
    assert [event.TYPE for event in events] == ["armies_accepted"]
    assert state.phase is Phase.ARMY_SELECTION
    assert seat_options(state, Side.B)["accept_armies"] is False
    refused = decide(state, Side.B, c.AcceptArmies())
    assert isinstance(refused, Rejected) and refused.code == Reason.ALREADY_CHOSEN
    state, _ = play(state, Side.A, c.AcceptArmies())
    assert state.phase is Phase.INITIATIVE
    assert view_state(state, SPECTATOR)["armies_accepted"] == ["A", "B"]


def test_accepting_before_both_lists_are_chosen_is_refused() -> None:
    state, _ = play(game(), Side.A, bring(brought(t3=["Gizmo Visor L1"])))
    refused = decide(state, Side.A, c.AcceptArmies())
    assert isinstance(refused, Rejected)
    assert refused.code == Reason.WRONG_PHASE
    assert seat_options(state, Side.A)["accept_armies"] is False


def test_without_not_refereed_items_there_is_nothing_to_accept() -> None:
    state, _ = play(game(), Side.A, bring(brought()))
    state, _ = play(state, Side.B, c.ChooseArmy("helion-vanguard", TEST_ENTROPY))
    refused = decide(state, Side.A, c.AcceptArmies())
    assert isinstance(refused, Rejected) and refused.code == Reason.WRONG_PHASE


def test_the_opponent_sees_the_items_of_the_troopers_it_may_see_and_no_others() -> None:
    state = reviewed_game()
    for viewer in (Side.B, SPECTATOR):
        roster = view_state(state, viewer)["armies"]["A"]["roster"]
        items = [item for row in roster for item in row["not_refereed"]]
        assert items == ["Gizmo Visor L1 — played without it"]
    own = view_state(state, Side.A)["armies"]["A"]["entries"]
    assert {item for entry in own for item in entry["not_refereed"]} == {
        "Gizmo Visor L1 — played without it", "Secret Boots — played without it"}


def test_a_hidden_troopers_items_leave_no_trace_in_the_opponents_stream() -> None:
    """Two lists that differ only in a Hidden Deployment trooper's not-refereed item read
    the same to the opponent and spectators, event by event."""
    def stream(hidden_items: list[str]) -> list[Any]:
        document = brought(t3=["Gizmo Visor L1"], t2=hidden_items)
        state, events = play(game(), Side.A, bring(document))
        return [view_event(event, viewer, state) for event in events
                for viewer in (Side.B, SPECTATOR)]

    assert stream(["Secret Boots"]) == stream(["Other Boots", "Cloak"])


def test_the_seat_may_bring_a_list_while_it_chooses() -> None:
    state = game()
    assert seat_options(state, Side.A)["bring_army"] == ["list"]
    state, _ = play(state, Side.A, bring(brought()))
    assert seat_options(state, Side.A)["bring_army"] == []


def test_a_registered_document_is_the_only_choice_of_its_seat() -> None:
    state = game(A=brought())
    assert seat_options(state, Side.A)["choose_army"] == ["my-list"]
    assert seat_options(state, Side.A)["bring_army"] == []
    for command in (c.ChooseArmy("vesper-raiders", TEST_ENTROPY), bring(brought())):
        refused = decide(state, Side.A, command)
        assert isinstance(refused, Rejected)
        assert refused.code == Reason.ARMY_NOT_REGISTERED
        assert refused.message == "This table is for your registered army, My Raiders."
    state, _ = play(state, Side.A, c.ChooseArmy("my-list", TEST_ENTROPY))
    assert state.armies[Side.A].name == "My Raiders"


def test_lists_differing_only_in_private_facts_read_the_same_to_the_opponent() -> None:
    """DIGEST 11.2: the Lieutenant and a Hidden Deployment trooper (its figures, weapons and
    not-refereed items) are private. B brings one of two lists that differ only there; A and
    the spectators get the same events and the same snapshot through the lists' review."""
    def brought_by_b(lieutenant: str, ghost_bs: int, ghost_items: list[str]) -> dict[str, Any]:
        document = brought(t3=["Gizmo Visor L1"], t2=ghost_items)
        for entry in document["entries"]:
            entry["lieutenant"] = entry["id"] == lieutenant
        ghost = next(unit for unit in document["units"] if unit["id"] == "ghost")
        ghost["bs"] = ghost_bs
        return document

    def seen(document: dict[str, Any]) -> list[Any]:
        state, first = play(game(), Side.A, c.ChooseArmy("helion-vanguard", TEST_ENTROPY))
        state, second = play(state, Side.B, bring(document))
        state, third = play(state, Side.B, c.AcceptArmies())
        events = [*first, *second, *third]
        return [(view_event(event, viewer, state), view_state(state, viewer))
                for event in events for viewer in (Side.A, SPECTATOR)]

    one = seen(brought_by_b("t1", 11, ["Secret Boots"]))
    other = seen(brought_by_b("t4", 14, ["Other Boots", "Cloak"]))
    assert one == other


def test_the_opponent_learns_the_lists_own_weapons_its_shown_troopers_carry_only() -> None:
    """A converted code's weapons are the list's own: the opponent's summary names those of
    the troopers it is shown, never one only a Hidden Deployment trooper carries (11.2)."""
    document = brought()
    rifle = {"id": "w-own-rifle", "name": "Own Rifle", "kind": "ballistic", "burst": 3,
             "ps": 13, "ammo": "N", "ranges": [{"up_to": 16, "mod": 3}]}
    spike = {**rifle, "id": "w-own-spike", "name": "Hidden Spike"}
    document["weapons"] = [rifle, spike]
    for unit in document["units"]:
        if unit["id"] == "ghost":
            unit["weapons"] = [*unit["weapons"], "w-own-spike"]
        elif unit["id"] == "enforcer":
            unit["weapons"] = [*unit["weapons"], "w-own-rifle"]
    state, _ = play(game(), Side.A, bring(document))
    summary = view_state(state, Side.B)["armies"]["A"]
    assert [weapon["name"] for weapon in summary["weapons"]] == ["Own Rifle"]
    assert {w["id"] for w in view_state(state, Side.A)["armies"]["A"]["arsenal"]} >= {
        "w-own-rifle", "w-own-spike"}


def test_everyone_is_told_how_each_list_came_to_the_game() -> None:
    """A list file's figures are its player's; the summary says which lists they are."""
    state, _ = play(game(), Side.A, bring(brought()))
    state, _ = play(state, Side.B, c.ChooseArmy("helion-vanguard", TEST_ENTROPY))
    armies = view_state(state, SPECTATOR)["armies"]
    assert (armies["A"]["source"], armies["B"]["source"]) == ("list", "shipped")
    assert view_state(state, Side.A)["armies"]["A"]["source"] == "list"
    registered = engine.new_game(engine.GameSetup(seed=3, registered_armies={Side.A: brought()}))
    registered, _ = play(registered, Side.A, c.ChooseArmy("my-list", TEST_ENTROPY))
    assert registered.armies[Side.A].source == "registered"


def test_a_list_document_cannot_say_it_came_from_a_code() -> None:
    document = {**brought(), "source": "code"}
    refused = decide(game(), Side.A, bring(document))
    assert isinstance(refused, Rejected)
    assert "unknown fields: source" in refused.message
