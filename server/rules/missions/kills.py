"""Objectives scored on what was killed, at the end of the game (docs/missions.md):

* ``KillLieutenant``: the enemy's Lieutenant - the trooper its list named Lieutenant, whose
  identity is private until the game's end (DIGEST 11.2) - is in a Null state or never
  reached the table (still in Airborne Deployment), whoever holds the role by then
  (docs/rules-decisions/missions.md).
* ``MorePointsKilled``: a side killed more enemy army points than the other side killed.
* ``KillThresholds``: each side scores the OP of the highest band of enemy army points it
  killed (CodeOne's annihilation scale, DIGEST 14).

Killed means what Victory Points count as lost (``airborne.final_victory_points``): a
trooper in a Null state, or one that never left Airborne Deployment.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..ids import Side
from ..state import GameState, TrooperState
from .mission import GAME_END, KillLieutenant, KillThresholds, MorePointsKilled, Objective


def killed(trooper: TrooperState) -> bool:
    return trooper.is_null or trooper.airborne


def killed_points(state: GameState, side: Side) -> int:
    """The army points of ``side``'s enemy that ``side`` killed."""
    return sum(t.profile.cost for t in state.troopers_of(side.other) if killed(t))


def army_points(state: GameState, side: Side) -> int:
    """The army points ``side`` fielded (every trooper of its list)."""
    return sum(t.profile.cost for t in state.troopers_of(side))


def listed_lieutenant(state: GameState, side: Side) -> TrooperState | None:
    """The trooper ``side``'s list named Lieutenant."""
    army = state.armies.get(side)
    if army is None:
        return None
    entry = next((e.id for e in army.entries if e.lieutenant), None)
    return next((t for t in state.troopers_of(side) if t.entry.id == entry), None)


def awards(state: GameState, objective: Objective,
           when: str) -> Sequence[tuple[Side, int, str]]:
    if when != GAME_END:
        return ()
    out: list[tuple[Side, int, str]] = []
    if isinstance(objective, KillLieutenant):
        for side in (Side.A, Side.B):
            lieutenant = listed_lieutenant(state, side.other)
            if lieutenant is not None and killed(lieutenant):
                out.append((side, objective.op,
                            f"killed the enemy Lieutenant ({lieutenant.profile.name})"))
    elif isinstance(objective, MorePointsKilled):
        score = {side: killed_points(state, side) for side in (Side.A, Side.B)}
        if score[Side.A] != score[Side.B]:
            side = Side.A if score[Side.A] > score[Side.B] else Side.B
            out.append((side, objective.op, f"killed {score[side]} enemy army points against "
                                            f"{score[side.other]}"))
    elif isinstance(objective, KillThresholds):
        for side in (Side.A, Side.B):
            points, total = killed_points(state, side), army_points(state, side.other)
            reached = [band for band in objective.bands
                       if total and points >= band.share * total - 1e-9]
            if reached:
                band = reached[-1]
                out.append((side, band.op, f"killed {points} of the enemy's {total} army points "
                                           f"({round(band.share * 100)}% or more)"))
    return out
