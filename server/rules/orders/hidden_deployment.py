"""Hidden Deployment (DIGEST 12): a hidden trooper is placed secretly and is not on the
table. It can reveal itself by declaring an ARO (see ``aro``) or, in its Active Turn, with
the ``reveal`` command: an activation on its own Order, which it brought at the Order Count
as Private Information (``OrderCount.hidden``; seeds 002/004: in no pool, unseen by the
opponent). The model is placed where it was hidden at the start of that Order, then the
Order runs through the Order Expenditure Sequence as any other: the first skill it declares
opens the reactive player's ARO window (docs/rules-decisions/README.md)."""

from __future__ import annotations

from ..armies.profiles import Training
from ..commands import Reveal
from ..decision import require
from ..events import Event, OrderSpent, TrooperRevealed
from ..evolve import replace
from ..ids import Side
from ..reasons import Reason
from ..state import GameState, OrderType, Phase, TrooperState


def decide_reveal(state: GameState, side: Side, command: Reveal) -> list[Event]:
    require(state.active is side, Reason.NOT_YOUR_TURN, "Reveal a hidden trooper in your own turn.")
    require(state.phase is Phase.ORDERS, Reason.WRONG_PHASE,
            "A hidden trooper reveals itself on its own Order, in the Orders Phase.")
    require(state.order is None, Reason.ORDER_IN_PROGRESS, "Finish the current Order first.")
    trooper = state.troopers.get(command.trooper)
    require(
        trooper is not None and trooper.side is side and trooper.hidden,
        Reason.BAD_TARGET,
        "That is not one of your hidden troopers.",
    )
    assert trooper is not None and trooper.position is not None
    require(not trooper.is_null, Reason.TROOPER_NULL, "That trooper is in a Null state.")
    require(
        trooper.id in state.orders.hidden,
        Reason.NO_ORDER_AVAILABLE,
        "That trooper has no Order of its own this turn: it was not in Hidden Deployment at "
        "the Order Count.",
    )
    return [
        TrooperRevealed(trooper.id, trooper.position, trooper.facing),
        OrderSpent(state.orders_spent + 1, trooper.id, own_order_type(state, trooper),
                   trooper.entry.combat_group, private=True),
    ]


def own_order_type(state: GameState, trooper: TrooperState) -> OrderType:
    """The kind of the Order a trooper brings: Irregular for an Irregular or Isolated
    trooper, or any trooper of a side in Loss of Lieutenant; Regular otherwise."""
    irregular = (trooper.profile.training is not Training.REGULAR or trooper.isolated
                 or trooper.side in state.loss_of_lieutenant)
    return OrderType.IRREGULAR if irregular else OrderType.REGULAR


def apply_trooper_revealed(state: GameState, event: TrooperRevealed) -> GameState:
    trooper = replace(
        state.trooper(event.trooper), hidden=False, position=event.position, facing=event.facing
    )
    return state.with_trooper(trooper)
