"""Tournament Points of a game and of a bye, from the tournament's scoring table
(docs/tournaments.md, "Scoring and standings").

Two named tables: ``classic`` (victory 4, tie 2, defeat 0, no bonus: what every tournament
scored before tables could be chosen, and what a tournament whose log has no table still
scores) and ``its`` (the same, with ITS's two bonus points measured in Objective Points:
+1 to a player who scores ``offensive_bonus_op`` OP or more, whatever the result; +1 to the
loser of a game lost by ``defensive_bonus_margin`` OP or fewer). The bonuses are our reading
of ITS practice (docs/tournaments.md says which values stay uncertain); an organizer sets
its own values with a custom table."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from server.tournaments.refusals import Refused

if TYPE_CHECKING:  # the model's Settings holds a ScoringTable
    from server.tournaments.model import Outcome

MAX_TP = 10
"""The most TP a table's entry (win, draw, loss, bye) may give."""
MAX_BONUS_OP = 10
"""OP are 0..10: an offensive threshold or a defensive margin above it means nothing."""


@dataclass(frozen=True, slots=True)
class ScoringTable:
    name: str
    """"classic", "its" or "custom" (an organizer's own values)."""
    win: int = 4
    draw: int = 2
    loss: int = 0
    bye: int = 4
    """A bye scores as a win in TP (0 OP, 0 VP): the common tournament practice; ITS
    editions differ."""
    offensive_bonus_op: int | None = None
    """+1 TP to a player who scores at least this many OP (None: no offensive bonus)."""
    defensive_bonus_margin: int | None = None
    """+1 TP to the loser of a game lost by at most this many OP (None: no defensive
    bonus)."""

    def plain(self) -> dict[str, Any]:
        return {"name": self.name, "win": self.win, "draw": self.draw, "loss": self.loss,
                "bye": self.bye, "offensive_bonus_op": self.offensive_bonus_op,
                "defensive_bonus_margin": self.defensive_bonus_margin}


CLASSIC = ScoringTable("classic")
ITS = ScoringTable("its", offensive_bonus_op=5, defensive_bonus_margin=2)
PRESETS = {table.name: table for table in (CLASSIC, ITS)}
FIELDS = ("win", "draw", "loss", "bye", "offensive_bonus_op", "defensive_bonus_margin")


def tournament_points(outcome: Outcome, player: str, table: ScoringTable) -> int:
    opponent = next((p for p in outcome.vp if p != player), player)
    mine, theirs = outcome.op.get(player, 0), outcome.op.get(opponent, 0)
    if outcome.winner is None:
        points = table.draw
    elif outcome.winner == player:
        points = table.win
    else:
        points = table.loss
        if (table.defensive_bonus_margin is not None
                and theirs - mine <= table.defensive_bonus_margin):
            points += 1
    if table.offensive_bonus_op is not None and mine >= table.offensive_bonus_op:
        points += 1
    return points


def tp_of(outcome: Outcome, table: ScoringTable) -> dict[str, int]:
    return {player: tournament_points(outcome, player, table) for player in outcome.vp}


def scoring_table_from_plain(plain: Mapping[str, Any] | None) -> ScoringTable:
    """The table a ``created`` entry stored (None: a tournament made before tables, which
    scores as it always did: ``classic``)."""
    if plain is None:
        return CLASSIC
    return ScoringTable(str(plain["name"]), *(plain[f] for f in FIELDS))


def parse(chosen: Any) -> ScoringTable:
    """A creation's ``scoring``: a preset's name, or a table of the FIELDS (each one left
    out takes ``its``'s value; a bonus set to null is off). Refused ``bad_scoring``."""
    if isinstance(chosen, str):
        preset = PRESETS.get(chosen)
        if preset is None:
            raise Refused("bad_scoring", f"scoring must be one of {sorted(PRESETS)} or a table "
                          f"of {list(FIELDS)}")
        return preset
    if not isinstance(chosen, dict):
        raise Refused("bad_scoring", f"scoring must be one of {sorted(PRESETS)} or a table of "
                      f"{list(FIELDS)}")
    # (a "name" is taken and ignored: a table copied from a view names itself; any table
    # given whole is "custom")
    unknown = sorted(set(chosen) - {*FIELDS, "name"})
    if unknown:
        raise Refused("bad_scoring", f"scoring: unknown fields {unknown}")
    values: dict[str, int | None] = {}
    for name in FIELDS:
        value = chosen.get(name, getattr(ITS, name))
        bonus = name in ("offensive_bonus_op", "defensive_bonus_margin")
        if value is None and bonus:
            values[name] = None
            continue
        low, high = (1 if name == "offensive_bonus_op" else 0), (MAX_BONUS_OP if bonus
                                                                 else MAX_TP)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise Refused("bad_scoring", f"scoring.{name} must be a whole number in "
                          f"{low}..{high}" + (" or null (no bonus)" if bonus else ""))
        values[name] = value
    win, draw, loss, bye = (int(values[f] or 0) for f in FIELDS[:4])
    table = ScoringTable("custom", win, draw, loss, bye, values["offensive_bonus_op"],
                         values["defensive_bonus_margin"])
    if not table.win >= table.draw >= table.loss:
        raise Refused("bad_scoring", "scoring: a victory must give at least the TP of a tie, "
                      "and a tie at least those of a defeat")
    return table
