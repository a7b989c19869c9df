"""When a mission's objectives are scored, and the result they decide (docs/missions.md).

* At the end of each Game Round (after its second Player Turn's End of Turn, before the
  next round's ``turn_started``): every objective scored "round_end".
* At the end of the game, however it ends but by concession (rounds completed, Retreat!):
  first the "round_end" objectives of the round it ends in (the round ends with the game,
  even after its first Player Turn), then the "game_end" ones; then ``game_ended``.
* A concession: the side that concedes scores no OP (as it keeps no VP); the other side is
  awarded the mission's maximum, so conceding never costs the winner points it could still
  have scored (docs/rules-decisions/missions.md).

Each scoring is one ``ObjectivePointsScored`` event listing the awards in the mission's
order of objectives, side A before side B; it is emitted only when it awards something.
Every award goes through ``points.award``, so the cap holds: an award is what the side
actually scores, and one the cap leaves at 0 is left out.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..events import Award, ObjectivePointsScored
from ..ids import Side
from ..state import GameState
from . import consoles, dominate, kills
from .mission import GAME_END, ActivateMarker, DominateZone, Objective
from .points import award, capped

CONCESSION = "concession"
"""The ``Award.objective`` of the OP a concession gives the other side."""


def _objective_awards(state: GameState, objective: Objective,
                      when: str) -> Sequence[tuple[Side, int, str]]:
    if isinstance(objective, DominateZone):
        return dominate.awards(state, objective, when)
    if isinstance(objective, ActivateMarker):
        return consoles.awards(state, objective, when)
    return kills.awards(state, objective, when)


def scored(state: GameState, when: str) -> ObjectivePointsScored | None:
    """The objectives of ``state.mission`` scored now (``when``: "round_end" or
    "game_end"), or None if the game has no mission or nothing scores."""
    mission = state.mission
    if mission is None:
        return None
    awards: list[Award] = []
    after = state
    for objective in mission.objectives:
        for side, op, reason in _objective_awards(state, objective, when):
            given = capped(after, side, op)
            if given > 0:
                awards.append(Award(side, objective.id, given, reason))
                after = award(after, side, given)
    return ObjectivePointsScored(when, state.round, tuple(awards)) if awards else None


def conceded(state: GameState, loser: Side) -> ObjectivePointsScored | None:
    """What a concession awards the side that stays: the OP it lacks to the mission's
    maximum (None without a mission, or when it has them all already)."""
    if state.mission is None:
        return None
    winner = loser.other
    given = capped(state, winner, state.mission.max_op)
    if given == 0:
        return None
    return ObjectivePointsScored(GAME_END, state.round, (
        Award(winner, CONCESSION, given, "the enemy conceded: the mission's maximum"),))


def apply_objective_points_scored(state: GameState, event: ObjectivePointsScored) -> GameState:
    for item in event.awards:
        state = award(state, item.side, item.op)
    return state


def final_points(state: GameState, loser: Side | None) -> dict[Side, int]:
    """Each side's OP in the result: as scored, 0 for a side that conceded."""
    return {side: 0 if side is loser else state.objective_points.get(side, 0)
            for side in (Side.A, Side.B)}


def winner_by_points(op: dict[Side, int], vp: dict[Side, int]) -> Side | None:
    """The winner of a mission: more OP, then more VP (the missions' tie-break); None when
    both are equal."""
    key = {side: (op[side], vp[side]) for side in (Side.A, Side.B)}
    if key[Side.A] == key[Side.B]:
        return None
    return Side.A if key[Side.A] > key[Side.B] else Side.B
