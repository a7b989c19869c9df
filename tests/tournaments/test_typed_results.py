"""A result the organizer types (``correct``, ``close``) is checked before it counts
(docs/tournaments.md, "Organizer actions"): OP 0..10 each, the winner named has at least
the loser's OP and with equal OP at least its VP, a tie is level on both; each refusal has
its code and names the players."""

from __future__ import annotations

from typing import Any

import pytest

from server.tournaments import decide
from server.tournaments.model import Tournament, apply, fold
from server.tournaments.refusals import Refused
from tests.tournaments.test_points_from_games import started
from tests.tournaments.test_standings import created


def dana_and_alice() -> Tournament:
    """Round 1, table 1: Dana (p1, seat A) against Alice (p2), not finished."""
    entries: list[dict[str, Any]] = [created(1)]
    for n, name in ((1, "Dana"), (2, "Alice")):
        entries.append({"type": "registered", "action_id": f"r{n}", "player": f"p{n}",
                        "name": name, "army": "x", "token_hash": "", "sealed_token": ""})
    return fold([*entries, started(1, [("p1", "p2")])])


def typed(state: Tournament, winner: str | None, vp: tuple[int, int],
          op: tuple[int, int] | None, kind: str = "close") -> dict[str, Any]:
    result: dict[str, Any] = {"winner": winner, "vp": {"p1": vp[0], "p2": vp[1]}}
    if op is not None:
        result["op"] = {"p1": op[0], "p2": op[1]}
    return decide.organizer_action(state, {"action_id": "typed-result-0001", "type": kind,
                                           "round": 1, "table": 1, "result": result,
                                           "reason": "played at the venue"})


@pytest.mark.parametrize(("winner", "vp", "op", "code", "words"), [
    # The case: "Dana beat Alice 180-260 VP, 2-5 OP".
    ("p1", (180, 260), (2, 5), "winner_fewer_op",
     "Dana is named the winner with 2 OP against Alice's 5"),
    ("p2", (180, 160), (3, 3), "winner_fewer_vp",
     "Alice is named the winner with 160 VP against Dana's 180 at equal Objective Points"),
    (None, (180, 160), (3, 3), "tie_not_level",
     "Dana has 3 OP and 180 VP, Alice 3 OP and 160 VP"),
    (None, (100, 100), (4, 3), "tie_not_level", "A tie needs equal Objective Points"),
    ("p1", (100, 0), (11, 0), "op_out_of_range", "Dana has 11"),
    ("p1", (100, 0), (3, -1), "op_out_of_range", "Alice has -1"),
    (None, (0, 10), None, "tie_not_level", "Dana has 0 OP and 0 VP"),
])
def test_an_inconsistent_typed_result_is_refused_with_its_reason(
        winner: str | None, vp: tuple[int, int], op: tuple[int, int] | None, code: str,
        words: str) -> None:
    with pytest.raises(Refused) as refused:
        typed(dana_and_alice(), winner, vp, op)
    assert (refused.value.code, refused.value.status) == (code, 400)
    assert words in refused.value.message
    assert "p1" not in refused.value.message and "p2" not in refused.value.message


@pytest.mark.parametrize(("winner", "vp", "op"), [
    ("p2", (180, 260), (2, 5)),   # the case told right: Alice won
    ("p1", (100, 300), (6, 5)),   # more OP wins whatever the VP
    ("p1", (200, 200), (5, 5)),   # level on both: the organizer names who won (a tiebreak)
    (None, (150, 150), (4, 4)),
    ("p1", (20, 10), None),       # no OP (a game without a mission): 0 each, VP decide
])
def test_a_consistent_typed_result_counts(winner: str | None, vp: tuple[int, int],
                                          op: tuple[int, int] | None) -> None:
    state = dana_and_alice()
    entry = typed(state, winner, vp, op)
    table = apply(state, entry).rounds[0].tables[0]
    assert table.result is not None and table.result.current.winner == winner


def test_a_correction_is_checked_and_keeps_the_games_result_beside_it() -> None:
    state = apply(dana_and_alice(), {
        "type": "result", "action_id": "result:1:1", "round": 1, "table": 1, "winner": "p2",
        "vp": {"p1": 180, "p2": 260}, "op": {"p1": 2, "p2": 5}, "reason": "rounds_completed"})
    with pytest.raises(Refused) as refused:
        typed(state, "p1", (180, 260), (2, 5), kind="correct")
    assert refused.value.code == "winner_fewer_op"
    state = apply(state, typed(state, "p1", (180, 260), (6, 5), kind="correct"))
    result = state.rounds[0].tables[0].result
    assert result is not None and result.original is not None
    assert (result.original.winner, result.original.op) == ("p2", {"p1": 2, "p2": 5})
    assert (result.current.winner, result.current.op) == ("p1", {"p1": 6, "p2": 5})
    assert result.corrections[0].outcome.reason == "played at the venue"
