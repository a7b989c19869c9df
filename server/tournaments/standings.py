"""The standings: every player's totals and its rank (docs/tournaments.md, "Scoring and
standings"). Highest first by TP, then OP, then VP, then strength of schedule (the sum of
the TP of every opponent played), then the organizer's seed (seeded first, lower first),
then registration order: the last key is unique, so the order is total and the same on
every node."""

from __future__ import annotations

from dataclasses import dataclass, field

from server.tournaments.model import Player, Tournament
from server.tournaments.scoring import tournament_points


@dataclass(slots=True)
class Standing:
    player: Player
    rank: int = 0
    played: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    byes: int = 0
    tp: int = 0
    op: int = 0
    vp: int = 0
    sos: int = 0
    opponents: list[str] = field(default_factory=list)

    def sort_key(self) -> tuple[int, int, int, int, bool, int, int]:
        seed = self.player.seed
        return (-self.tp, -self.op, -self.vp, -self.sos, seed is None, seed or 0,
                self.player.order)


def standings(tournament: Tournament) -> list[Standing]:
    """Every player (dropped ones too), ranked; only tables with a result count."""
    rows = {pid: Standing(player) for pid, player in tournament.players.items()}
    points_table = tournament.settings.scoring
    for played in tournament.rounds:
        if played.bye is not None and played.bye in rows:
            bye = rows[played.bye]
            bye.byes += 1
            bye.tp += points_table.bye
        for table in played.tables:
            if table.result is None:
                continue
            outcome = table.result.current
            for player in (table.a, table.b):
                row = rows[player]
                row.played += 1
                row.opponents.append(table.opponent(player))
                points = tournament_points(outcome, player, points_table)
                row.tp += points
                row.op += outcome.op.get(player, 0)
                row.vp += outcome.vp.get(player, 0)
                if outcome.winner is None:
                    row.draws += 1
                elif outcome.winner == player:
                    row.wins += 1
                else:
                    row.losses += 1
    for row in rows.values():
        row.sos = sum(rows[opponent].tp for opponent in row.opponents)
    ranked = sorted(rows.values(), key=Standing.sort_key)
    for rank, row in enumerate(ranked, 1):
        row.rank = rank
    return ranked


def ranking(tournament: Tournament) -> list[str]:
    """Player ids in standings order."""
    return [row.player.id for row in standings(tournament)]
