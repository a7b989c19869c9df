"""Objective Points so far (``GameState.objective_points``): the one way they change, and
the cap of the mission (``Mission.max_op``) that holds whatever scores them (the mission's
objectives, Classified Objectives)."""

from __future__ import annotations

from ..evolve import replace
from ..ids import Side
from ..state import GameState


def so_far(state: GameState, side: Side) -> int:
    return state.objective_points.get(side, 0)


def room_left(state: GameState, side: Side) -> int:
    """How many more OP ``side`` may score before the mission's cap."""
    if state.mission is None:
        return 0
    return max(0, state.mission.max_op - so_far(state, side))


def capped(state: GameState, side: Side, op: int) -> int:
    """What of ``op`` more OP ``side`` actually scores: never past the mission's cap."""
    return max(0, min(op, room_left(state, side)))


def award(state: GameState, side: Side, op: int) -> GameState:
    """``state`` with ``op`` more Objective Points for ``side``, capped at the mission's
    ``max_op``. A game without a mission scores none."""
    given = capped(state, side, op)
    if given == 0:
        return state
    return replace(state, objective_points={**state.objective_points,
                                            side: so_far(state, side) + given})
