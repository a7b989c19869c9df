"""Objective Points from the games and tournament points from the scoring table
(docs/tournaments.md, "Scoring and standings"): a game's result carries each side's OP
(``op``, 0 each without a mission) into the results and the standings; the ``classic`` and
``its`` tables and a custom one; a tournament made before tables scores as it did."""

from __future__ import annotations

from typing import Any

import pytest

from protocol.codec import pack_plain
from server.store import RoomMeta, RoomSettings
from server.store.interface import Commits, StoredRoom
from server.store.tournament_store import MemoryTournamentStore
from server.tournaments import scoring, views
from server.tournaments.model import Outcome, apply, fold
from server.tournaments.refusals import Refused
from server.tournaments.results import read_outcome
from server.tournaments.routes import army_name
from server.tournaments.scoring import CLASSIC, ITS, tp_of
from server.tournaments.service import Tournaments
from server.tournaments.standings import standings
from tests.tournaments.test_standings import created, registered


class EndedRooms:
    """A room store holding one finished game per room: its last event a ``game_ended``
    whose plain result is given (what ``read_outcome`` reads)."""

    def __init__(self, results: dict[str, dict[str, Any]]) -> None:
        self.results = results

    async def load_room(self, room_id: str) -> StoredRoom | None:
        meta = RoomMeta(room_id, RoomSettings("n5", 30.0, "public"), "", "", 0)
        return StoredRoom(meta, 10, b"", (), 0, ())

    async def commits_since(self, room_id: str, version: int) -> Commits:
        event = pack_plain({"type": "game_ended", "result": self.results[room_id]})
        return Commits((event,), (1_000,))


def started(round_number: int, pairs: list[tuple[str, str]]) -> dict[str, Any]:
    return {"type": "round_started", "action_id": f"start{round_number}",
            "round": round_number, "bye": None,
            "tables": [{"table": n, "a": a, "b": b, "room": f"room-{round_number}-{n}",
                        "layout": None, "seat_a": "", "seat_b": "", "room_organizer": ""}
                       for n, (a, b) in enumerate(pairs, 1)]}


def with_scoring(rounds: int, table: Any) -> dict[str, Any]:
    entry = created(rounds)
    entry["settings"] = {**entry["settings"], "scoring": table.plain()}
    return entry


async def test_a_games_op_reach_its_result_and_the_standings() -> None:
    """A mission game's ``game_ended`` carries OP: the result and the standings take them
    from it (no OP typed by anyone), and the ITS table adds its bonuses from them."""
    log = [with_scoring(1, ITS), *[registered(n) for n in (1, 2, 3, 4)],
           started(1, [("p1", "p2"), ("p3", "p4")])]
    store = MemoryTournamentStore()
    for n, entry in enumerate(log):
        await store.append("t-sim", expected_version=n, action_id=entry["action_id"],
                           entry=entry)
    rooms = EndedRooms({
        # B wins on OP though A has more VP: B's 7 OP earn the offensive bonus; A lost by
        # 4 OP, more than the defensive bonus's 2.
        "room-1-1": {"winner": "B", "victory_points": {"A": 260, "B": 180},
                     "op": {"A": 3, "B": 7}, "reason": "rounds_completed"},
        # A game without a mission: no ``op`` at all, 0 each.
        "room-1-2": {"winner": "A", "victory_points": {"A": 150, "B": 90},
                     "reason": "rounds_completed"},
    })
    service = Tournaments(store, rooms, clock=lambda: 10_000)  # type: ignore[arg-type]
    state = await service.read("t-sim")
    first = state.rounds[0].tables[0].result
    assert first is not None and first.source == "game"
    assert first.current.op == {"p1": 3, "p2": 7} and first.current.winner == "p2"
    second = state.rounds[0].tables[1].result
    assert second is not None and second.current.op == {"p3": 0, "p4": 0}
    rows = {row.player.id: row for row in standings(state)}
    assert (rows["p2"].tp, rows["p2"].op, rows["p2"].vp) == (5, 7, 180)  # 4 + offensive
    assert (rows["p1"].tp, rows["p1"].op) == (0, 3)  # lost by 4 OP: no defensive bonus
    assert (rows["p3"].tp, rows["p4"].tp) == (4, 1)  # lost by 0 OP: the defensive bonus
    shown = views.public_view(state, army_name)["rounds"][0]["tables"][0]["result"]
    assert shown["op"] == {"p1": 3, "p2": 7} and shown["tp"] == {"p1": 0, "p2": 5}


async def test_read_outcome_takes_op_per_side_in_player_ids() -> None:
    rooms = EndedRooms({"r": {"winner": None, "victory_points": {"A": 100, "B": 100},
                              "op": {"A": 4, "B": 4}, "reason": "rounds_completed"}})
    table = fold([created(1), registered(1), registered(2),
                  {**started(1, [("p2", "p1")]), "tables": [{
                      "table": 1, "a": "p2", "b": "p1", "room": "r", "layout": None,
                      "seat_a": "", "seat_b": "", "room_organizer": ""}]}]).rounds[0].tables[0]
    outcome = await read_outcome(rooms, table, 10_000)  # type: ignore[arg-type]
    assert outcome is not None
    assert (outcome.winner, outcome.op, outcome.vp) == (None, {"p2": 4, "p1": 4},
                                                         {"p2": 100, "p1": 100})
    rooms.results["r"]["op"] = {}  # an empty mapping: no mission
    outcome = await read_outcome(rooms, table, 10_000)  # type: ignore[arg-type]
    assert outcome is not None and outcome.op == {"p2": 0, "p1": 0}


def outcome(winner: str | None, op_a: int, op_b: int) -> Outcome:
    return Outcome(winner, {"a": 100, "b": 100}, {"a": op_a, "b": op_b}, "")


@pytest.mark.parametrize(("winner", "op_a", "op_b", "classic", "its"), [
    ("a", 0, 0, (4, 0), (4, 1)),    # lost by 0 OP: defensive bonus
    ("a", 6, 4, (4, 0), (5, 1)),    # winner's offensive bonus; lost by 2: defensive
    ("a", 7, 4, (4, 0), (5, 0)),    # lost by 3: no defensive bonus
    ("a", 8, 5, (4, 0), (5, 1)),    # the loser's 5 OP: its offensive bonus
    ("a", 4, 2, (4, 0), (4, 1)),    # 4 OP: below the offensive threshold
    (None, 5, 5, (2, 2), (3, 3)),   # a tie: offensive bonus each, no defensive bonus
    (None, 0, 0, (2, 2), (2, 2)),
])
def test_the_classic_and_its_tables(winner: str | None, op_a: int, op_b: int,
                                    classic: tuple[int, int], its: tuple[int, int]) -> None:
    game = outcome(winner, op_a, op_b)
    assert tuple(tp_of(game, CLASSIC).values()) == classic
    assert tuple(tp_of(game, ITS).values()) == its


def test_a_custom_table_and_its_refusals() -> None:
    custom = scoring.parse({"win": 3, "draw": 1, "loss": 0, "offensive_bonus_op": None,
                            "defensive_bonus_margin": 1})
    assert custom.plain() == {"name": "custom", "win": 3, "draw": 1, "loss": 0, "bye": 4,
                              "offensive_bonus_op": None, "defensive_bonus_margin": 1}
    assert tp_of(outcome("a", 10, 9), custom) == {"a": 3, "b": 1}
    assert scoring.parse("classic") == CLASSIC and scoring.parse("its") == ITS
    copied = scoring.parse(ITS.plain())  # a table copied from a view: custom, same values
    assert copied.name == "custom" and copied.plain() == {**ITS.plain(), "name": "custom"}
    for bad in ("fifa", {"win": 2, "draw": 3}, {"win": "4"}, {"offensive_bonus_op": 0},
                {"defensive_bonus_margin": 11}, {"tp": 1}, 4, {"win": True}):
        with pytest.raises(Refused) as refused:
            scoring.parse(bad)
        assert refused.value.code == "bad_scoring"


def test_a_tournament_made_before_tables_scores_as_it_did() -> None:
    """A log whose ``created`` has no ``scoring``: the classic table, no bonus, so a 0-0 OP
    defeat stays 0 TP."""
    state = fold([created(1), registered(1), registered(2), started(1, [("p1", "p2")])])
    assert state.settings.scoring == CLASSIC
    state = apply(state, {"type": "result", "action_id": "result:1:1", "round": 1,
                          "table": 1, "winner": "p1", "vp": {"p1": 10, "p2": 5},
                          "reason": "rounds_completed"})
    assert [(r.player.id, r.tp, r.op) for r in standings(state)] == [("p1", 4, 0),
                                                                     ("p2", 0, 0)]
    assert views.public_view(state, army_name)["settings"]["scoring"]["name"] == "classic"


def test_standings_order_tp_then_op_then_vp() -> None:
    state = fold([with_scoring(1, ITS), *[registered(n) for n in (1, 2, 3, 4, 5, 6)],
                  started(1, [("p1", "p2"), ("p3", "p4"), ("p5", "p6")])])
    games = [("p1", {"p1": 100, "p2": 50}, {"p1": 4, "p2": 1}),   # p1 4 TP, 4 OP
             ("p4", {"p3": 10, "p4": 300}, {"p3": 0, "p4": 4}),   # p4 4 TP, 4 OP, 300 VP
             ("p6", {"p5": 0, "p6": 20}, {"p5": 0, "p6": 3})]     # p6 4 TP, 3 OP
    for n, (winner, vp, op) in enumerate(games, 1):
        state = apply(state, {"type": "result", "action_id": f"result:1:{n}", "round": 1,
                              "table": n, "winner": winner, "vp": vp, "op": op,
                              "reason": "rounds_completed"})
    assert [(r.player.id, r.tp, r.op, r.vp) for r in standings(state)][:3] == [
        ("p4", 4, 4, 300), ("p1", 4, 4, 100), ("p6", 4, 3, 20)]
