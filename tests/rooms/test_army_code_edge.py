"""The room's edge expands an army code into the list it stands for, with the operator's army
data, before the rules see it (``server/rooms/rules_engine.py``): the rules then judge it
like a brought list; a code the data cannot read is refused ``bad_army_list`` with the
reader's problem; without army data the code is refused ``no_army_data``, and the seat's
options offer codes only when the server can read them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from server.rooms.engine_port import CommandFormatError
from server.rooms.rules_engine import ArmyCodeRefused, RulesCoreEngine
from server.rules import commands, engine
from server.rules.armies.army_list import ListFormat
from server.rules.state import Phase
from tests.support.brought_lists import brought
from tests.support.games import TEST_ENTROPY

CODE = "Axxx-valid"


def reader(text: str, list_format: ListFormat) -> Mapping[str, Any]:
    if text != CODE:
        raise ArmyCodeRefused(f"The code is cut short at byte 3, where the list name was "
                              f"expected ({list_format.value}).")
    return brought()


def game() -> Any:
    return engine.new_game(engine.GameSetup(ruleset="n5", seed=3))


def test_a_code_becomes_the_list_it_stands_for() -> None:
    edge = RulesCoreEngine(army_codes=reader)
    verdict = edge.decide(game(), "A", commands.ChooseArmy(code=CODE, entropy=TEST_ENTROPY))
    assert verdict.events is not None
    state = verdict.state
    assert state is not None and state.armies[engine.Side.A].name == "My Raiders"
    assert state.phase is Phase.ARMY_SELECTION


def test_a_code_the_data_cannot_read_is_refused_with_the_readers_problem() -> None:
    edge = RulesCoreEngine(army_codes=reader)
    verdict = edge.decide(game(), "A", commands.ChooseArmy(code="junk", entropy=TEST_ENTROPY))
    assert verdict.events is None
    assert verdict.code == "bad_army_list"
    assert verdict.message == ("The code is cut short at byte 3, where the list name was "
                               "expected (standard).")


def test_without_army_data_a_code_is_refused_and_not_offered() -> None:
    edge = RulesCoreEngine()
    verdict = edge.decide(game(), "A", commands.ChooseArmy(code=CODE, entropy=TEST_ENTROPY))
    assert verdict.code == "no_army_data"
    options = edge.seat_options(game(), "A")
    assert isinstance(options, dict) and options["bring_army"] == ["list"]


def test_with_army_data_codes_are_offered_while_the_seat_chooses() -> None:
    edge = RulesCoreEngine(army_codes=reader)
    options = edge.seat_options(game(), "A")
    assert isinstance(options, dict) and options["bring_army"] == ["list", "code"]


def test_the_list_a_code_became_says_so_and_a_client_cannot_claim_it() -> None:
    edge = RulesCoreEngine(army_codes=reader)
    verdict = edge.decide(game(), "A", commands.ChooseArmy(code=CODE, entropy=TEST_ENTROPY))
    assert verdict.state is not None
    assert verdict.state.armies[engine.Side.A].source == "code"
    with pytest.raises(CommandFormatError, match="from_code"):
        edge.parse_command({"type": "choose_army", "list": brought(), "from_code": True,
                            "entropy": TEST_ENTROPY})
