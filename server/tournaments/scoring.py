"""Tournament Points of a game (ITS: Victory 4, Tie 2, Defeat 0) and of a bye
(docs/tournaments.md, "Scoring and standings")."""

from __future__ import annotations

from server.tournaments.model import Outcome

WIN_TP = 4
DRAW_TP = 2
LOSS_TP = 0
BYE_TP = 4
"""A bye scores as a win in TP (0 OP, 0 VP): the common tournament practice; ITS editions
differ."""


def tournament_points(outcome: Outcome, player: str) -> int:
    if outcome.winner is None:
        return DRAW_TP
    return WIN_TP if outcome.winner == player else LOSS_TP


def tp_of(outcome: Outcome) -> dict[str, int]:
    return {player: tournament_points(outcome, player) for player in outcome.vp}
