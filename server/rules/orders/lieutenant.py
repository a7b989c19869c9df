"""Appointing a new Lieutenant after Loss of Lieutenant (DIGEST 11.3).

A player in Loss of Lieutenant appoints a new Lieutenant at the End of its Turn, and its
identity is Private Information. The End of Turn is automatic here (it follows
``end_turn``, or a chess clock run out), so the game never stops to ask: from the moment
Loss of Lieutenant is declared (the Tactical Phase) the player names its choice with
``appoint_lieutenant``, privately, and may change it until the End of Turn, where it takes
effect. A player that named nobody, or whose choice can no longer be Lieutenant then, gets
the eligible trooper with the highest WIP (then the lowest id), as the rules require one to
be appointed (docs/rules-decisions/README.md). The opponent and spectators learn nothing of
who, then or at the End of Turn: ``views`` hides the event, and the Order Count shows only
that a Lieutenant exists.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..armies.profiles import Training, TroopType
from ..commands import AppointLieutenant
from ..decision import require
from ..events import Event, LieutenantAppointed
from ..evolve import replace
from ..ids import Side, TrooperId
from ..reasons import Reason
from ..state import GameState, Phase, TrooperState
from .named_troopers import own_trooper

_IN_PLAY = (Phase.TACTICAL, Phase.IMPETUOUS, Phase.ORDERS, Phase.STATES)


def may_be_lieutenant(trooper: TrooperState) -> bool:
    """On the table, not Null, not Isolated, not a Peripheral, Regular and not a REM
    (DIGEST 11.3: an Isolated Lieutenant is lost at once)."""
    return (trooper.can_act and not trooper.isolated and not trooper.entry.is_peripheral
            and trooper.profile.training is Training.REGULAR
            and trooper.profile.troop_type is not TroopType.REM)


def decide_appoint_lieutenant(state: GameState, side: Side,
                              command: AppointLieutenant) -> list[Event]:
    require(
        state.phase in _IN_PLAY and side in state.loss_of_lieutenant and side not in state.retreat,
        Reason.WRONG_PHASE,
        "You appoint a new Lieutenant only while in Loss of Lieutenant (not in Retreat!).",
    )
    trooper = own_trooper(state, side, command.trooper)
    require(
        may_be_lieutenant(trooper),
        Reason.BAD_TARGET,
        "A Lieutenant must be on the table, not in a Null state, not Isolated, Regular, not a "
        "Peripheral and not a REM.",
    )
    return [LieutenantAppointed(side, trooper.id)]


def apply_lieutenant_appointed(state: GameState, event: LieutenantAppointed) -> GameState:
    return replace(state, lieutenant_choice={**state.lieutenant_choice, event.side: event.trooper})


def lieutenant_at_end_of_turn(state: GameState, side: Side) -> TrooperId | None:
    """Who takes office as the player's Lieutenant at the End of its Turn: its choice, or
    the default; None if nobody may be Lieutenant."""
    candidates = [t for t in state.troopers_of(side) if may_be_lieutenant(t)]
    if not candidates:
        return None
    chosen_id = state.lieutenant_choice.get(side)
    chosen = next((t for t in candidates if t.id == chosen_id), None)
    if chosen is None:
        chosen = max(candidates, key=lambda t: (t.profile.wip, [-ord(c) for c in t.id]))
    return chosen.id


def appoint(state: GameState, side: Side,
            lieutenant: TrooperId) -> Mapping[TrooperId, TrooperState]:
    """The troopers with ``lieutenant`` made the player's only Lieutenant."""
    troopers = dict(state.troopers)
    for t in state.troopers_of(side):
        if t.entry.lieutenant:
            troopers[t.id] = replace(t, entry=replace(t.entry, lieutenant=False))
    chosen = troopers[lieutenant]
    troopers[lieutenant] = replace(chosen, entry=replace(chosen.entry, lieutenant=True))
    return troopers
