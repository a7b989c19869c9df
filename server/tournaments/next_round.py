"""The next round's pairings of a tournament: its active players in order (round 1: seeds
then a shuffle fixed by the tournament id; later: the standings), through
``server.tournaments.pairing``."""

from __future__ import annotations

from server.tournaments.model import Proposal, Tournament
from server.tournaments.pairing import first_round_order, pair_first_round, pair_round
from server.tournaments.standings import ranking


def propose(tournament: Tournament) -> Proposal:
    active = {p.id for p in tournament.active_players()}
    number = tournament.round + 1
    if not tournament.rounds:
        order = first_round_order(
            [(p.id, p.seed) for p in sorted(tournament.players.values(), key=lambda p: p.order)
             if p.id in active], tournament.id)
        pairing = pair_first_round(order, tournament.had_bye())
    else:
        order = [pid for pid in ranking(tournament) if pid in active]
        pairing = pair_round(order, tournament.played_pairs(), tournament.had_bye())
    return Proposal(number, pairing.tables, pairing.bye)
