"""A result the organizer types (``correct``, ``close``: a game not played on the server, or
a correction) checked for consistency before it counts, as a game's own result always is:
Objective Points 0..10 each; the winner named has at least the loser's OP, and with equal
OP at least the loser's VP (the mission's order: OP, then VP); a tie has equal OP and equal
VP. Each refusal has its code (400) and says the problem with the players' names."""

from __future__ import annotations

from collections.abc import Mapping

from server.tournaments.model import Player
from server.tournaments.refusals import Refused

MAX_OP = 10
"""A game's Objective Points per player (ITS missions score 0..10)."""


def check_consistent(winner: str | None, vp: Mapping[str, int], op: Mapping[str, int],
                     pair: tuple[str, str], players: Mapping[str, Player]) -> None:
    def name(pid: str) -> str:
        player = players.get(pid)
        return player.name if player is not None else pid

    for pid in pair:
        if not 0 <= op[pid] <= MAX_OP:
            raise Refused("op_out_of_range", f"Objective Points are 0 to {MAX_OP} per "
                          f"player: {name(pid)} has {op[pid]}.")
    if winner is None:
        a, b = pair
        if op[a] != op[b] or vp[a] != vp[b]:
            raise Refused("tie_not_level", f"A tie needs equal Objective Points and equal "
                          f"Victory Points: {name(a)} has {op[a]} OP and {vp[a]} VP, "
                          f"{name(b)} {op[b]} OP and {vp[b]} VP. Name the winner, or "
                          "correct the points.")
        return
    loser = pair[1] if winner == pair[0] else pair[0]
    if op[winner] < op[loser]:
        raise Refused("winner_fewer_op", f"{name(winner)} is named the winner with "
                      f"{op[winner]} OP against {name(loser)}'s {op[loser]}: the player "
                      "with more Objective Points wins. Name the winner again, or correct "
                      "the points.")
    if op[winner] == op[loser] and vp[winner] < vp[loser]:
        raise Refused("winner_fewer_vp", f"{name(winner)} is named the winner with "
                      f"{vp[winner]} VP against {name(loser)}'s {vp[loser]} at equal "
                      f"Objective Points ({op[winner]} each): with equal OP the player with "
                      "more Victory Points wins. Name the winner again, or correct the "
                      "points.")
