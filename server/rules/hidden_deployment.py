"""Hidden Deployment (DIGEST 12): a hidden trooper is placed secretly and is not on the
table. It can reveal itself by declaring an ARO (see ``aro``) or, in its Active Turn, with
the ``reveal`` command, which places the model where it was hidden. This slice reveals
without spending an Order (docs/rules-decisions.md)."""

from __future__ import annotations

from .commands import Reveal
from .decision import require
from .events import Event, TrooperRevealed
from .evolve import replace
from .ids import Side
from .reasons import Reason
from .state import GameState, Phase


def decide_reveal(state: GameState, side: Side, command: Reveal) -> list[Event]:
    require(state.active is side, Reason.NOT_YOUR_TURN, "Reveal a hidden trooper in your own turn.")
    require(
        state.phase in (Phase.ORDERS, Phase.IMPETUOUS) and state.order is None,
        Reason.WRONG_PHASE,
        "Reveal a hidden trooper between Orders.",
    )
    trooper = state.troopers.get(command.trooper)
    require(
        trooper is not None and trooper.side is side and trooper.hidden,
        Reason.BAD_TARGET,
        "That is not one of your hidden troopers.",
    )
    assert trooper is not None and trooper.position is not None
    require(not trooper.is_null, Reason.TROOPER_NULL, "That trooper is in a Null state.")
    return [TrooperRevealed(trooper.id, trooper.position, trooper.facing)]


def apply_trooper_revealed(state: GameState, event: TrooperRevealed) -> GameState:
    trooper = replace(
        state.trooper(event.trooper), hidden=False, position=event.position, facing=event.facing
    )
    return state.with_trooper(trooper)
