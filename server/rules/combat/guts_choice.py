"""The owner's standing choice to fail a trooper's Guts Rolls (DIGEST 7.8, N5).

DIGEST 7.8: "the player may choose to fail it". Guts Rolls are made inside the automatic
Conclusion of an Order, so the game never stops to ask: the owner sets the choice in
advance, at any time, for any of its troopers (``choose_guts_failure``), and it stands
until the owner lifts it. A Guts Roll of a trooper with the choice set is a chosen failure:
no die is rolled and the record says so (``RollRecord.chosen_failure``); the failure's
movement follows as for a failed roll. The choice is private to its owner: ``views``
hides the event and the trooper field from the opponent and spectators, who learn of it
only from a Guts record (docs/rules-decisions/resolution.md).
"""

from __future__ import annotations

from ..commands import ChooseGutsFailure
from ..decision import require
from ..events import Event, GutsFailureChosen
from ..evolve import replace
from ..ids import Side
from ..orders.named_troopers import own_trooper
from ..reasons import Reason
from ..ruleset import options
from ..state import GameState
from .wounds import Condition


def decide_choose_guts_failure(state: GameState, side: Side,
                               command: ChooseGutsFailure) -> list[Event]:
    require(
        options(state.ruleset).guts_rolls,
        Reason.NOT_ALLOWED_BY_RULESET,
        "This ruleset has no Guts Rolls (CodeOne).",
    )
    trooper = own_trooper(state, side, command.trooper)
    require(trooper.condition is not Condition.DEAD, Reason.TROOPER_NULL,
            "That trooper is Dead: it makes no more Guts Rolls.")
    require(
        trooper.fails_guts is not command.fail,
        Reason.ALREADY_CHOSEN,
        "That trooper already fails its Guts Rolls." if command.fail
        else "That trooper already rolls its Guts Rolls.",
    )
    return [GutsFailureChosen(trooper.id, command.fail)]


def apply_guts_failure_chosen(state: GameState, event: GutsFailureChosen) -> GameState:
    trooper = state.trooper(event.trooper)
    return state.with_trooper(replace(trooper, fails_guts=event.fail))
