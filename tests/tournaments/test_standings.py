"""Whole tournaments simulated on the model alone (the log folded as the server folds it):
every round paired by ``next_round.propose`` with random results, then the properties of
docs/tournaments.md checked: no repeat while a repeat-free pairing exists, byes to the
lowest-ranked without one, and the standings order (TP, OP, VP, SoS, seed, registration)."""

from __future__ import annotations

import random
from typing import Any

from server.tournaments.model import Tournament, apply, fold
from server.tournaments.next_round import propose
from server.tournaments.pairing import first_round_order
from server.tournaments.standings import ranking, standings


def created(rounds: int) -> dict[str, Any]:
    return {"type": "created", "action_id": "create", "tournament": "t-sim", "name": "Sim",
            "organizer_hash": "", "sealed_organizer": "", "created_ms": 0,
            "settings": {"rounds": rounds, "ruleset": "n5", "point_limit": 300,
                         "aro_window_s": 30, "spectator_delay_s": 0, "clock_s": None,
                         "tables": [], "visibility": "public"}}


def registered(n: int) -> dict[str, Any]:
    return {"type": "registered", "action_id": f"r{n}", "player": f"p{n}", "name": f"P{n}",
            "army": "x", "token_hash": "", "sealed_token": ""}


def repeat_free_exists(players: list[str], played: set[frozenset[str]]) -> bool:
    if not players:
        return True
    top, rest = players[0], players[1:]
    return any(frozenset((top, other)) not in played
               and repeat_free_exists([p for p in rest if p != other], played)
               for other in rest)


def play(rng: random.Random, state: Tournament) -> Tournament:
    proposal = propose(state)
    if state.rounds:
        active = [p for p in ranking(state) if not state.players[p].dropped]
    else:  # round 1's order: seeds, then a shuffle fixed by the tournament id
        active = first_round_order([(p.id, p.seed) for p in state.active_players()], state.id)
    played = state.played_pairs()
    # The bye: the lowest-ranked active player without one.
    if len(active) % 2:
        without = [p for p in active if p not in state.had_bye()]
        assert proposal.bye == (without[-1] if without else active[-1])
    else:
        assert proposal.bye is None
    seated = [p for t in proposal.tables for p in t]
    assert sorted(seated + ([proposal.bye] if proposal.bye else [])) == sorted(active)
    rest = [p for p in active if p != proposal.bye]
    if state.rounds and repeat_free_exists(rest, played):
        assert not any(frozenset(t) in played for t in proposal.tables), "an avoidable repeat"
    tables = [{"table": n, "a": a, "b": b, "room": f"r{state.round}-{n}", "layout": None,
               "seat_a": "", "seat_b": "", "room_organizer": ""}
              for n, (a, b) in enumerate(proposal.tables, 1)]
    state = apply(state, {"type": "round_started", "action_id": f"start{proposal.round}",
                          "round": proposal.round, "tables": tables, "bye": proposal.bye})
    for table in tables:
        winner = rng.choice([table["a"], table["b"], None])
        state = apply(state, {
            "type": "result", "action_id": f"result:{proposal.round}:{table['table']}",
            "round": proposal.round, "table": table["table"], "winner": winner,
            "vp": {table["a"]: rng.randrange(0, 300, 10), table["b"]: rng.randrange(0, 300, 10)},
            "op": {table["a"]: rng.randint(0, 2), table["b"]: rng.randint(0, 2)},
            "reason": "victory_points"})
    return state


def test_simulated_tournaments_keep_every_pairing_and_standings_rule() -> None:
    rng = random.Random(21)
    for _ in range(300):
        count = rng.randint(2, 11)
        rounds = rng.randint(1, min(count + 1, 7))
        state = fold([created(rounds), *[registered(n) for n in range(1, count + 1)]])
        for player in rng.sample(sorted(state.players), rng.randint(0, count // 3)):
            state = apply(state, {"type": "seed", "action_id": f"s{player}", "player": player,
                                  "seed": rng.randint(1, 5)})
        while state.round < rounds:
            if rng.random() < 0.15 and len(state.active_players()) > 2:
                victim = rng.choice(state.active_players()).id
                state = apply(state, {"type": "drop", "action_id": f"d{state.version}",
                                      "player": victim})
            state = play(rng, state)
            assert state.status in ("between_rounds", "finished")
        rows = standings(state)
        keys = [(-r.tp, -r.op, -r.vp, -r.sos, r.player.seed is None, r.player.seed or 0,
                 r.player.order) for r in rows]
        assert keys == sorted(keys) and len(set(keys)) == len(keys), "a total order"
        assert [r.rank for r in rows] == list(range(1, len(rows) + 1))
        # The totals are the sum of the games: every game gives 4 TP, every bye 4.
        games = sum(len(r.tables) for r in state.rounds)
        byes = sum(r.bye is not None for r in state.rounds)
        assert sum(r.tp for r in rows) == 4 * games + 4 * byes
        for row in rows:
            assert row.sos == sum(next(o.tp for o in rows if o.player.id == opp)
                                  for opp in row.opponents)
        assert state.status == "finished"


def test_with_everything_equal_the_seed_then_registration_order_decides() -> None:
    state = fold([created(1), *[registered(n) for n in (1, 2, 3, 4)]])
    assert ranking(state) == ["p1", "p2", "p3", "p4"]
    state = apply(state, {"type": "seed", "action_id": "s3", "player": "p3", "seed": 1})
    state = apply(state, {"type": "seed", "action_id": "s4", "player": "p4", "seed": 2})
    assert ranking(state) == ["p3", "p4", "p1", "p2"]
