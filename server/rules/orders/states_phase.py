"""The States Phase (seed 002): after the Orders Phase, before the End of the Turn.

Once the Active Player ends the Orders Phase (``end_turn``, Orders left or none, or out of
time), both players carry out the checks of the States and skills labelled "States Phase";
those rolls cause no AROs (there is no Order, so no ARO window opens). Then every Order
token still on the table is removed (``TurnEnded.unused_orders``) and the turn ends.

The checks modelled here: Stunned (``combat/stunned.py``) is cancelled automatically, with
no roll, for every trooper of either side Stunned during this Player Turn; a trooper that
used Dogged in this Player Turn and still stands enters the Dead State
(``combat/incapacitation.py``; its Dogged token is removed with it). No other State
the rules core models carries the States Phase label (Isolated and Immobilized-B are
cancelled by Reset; Targeted by Reset; Burning, which has one, is not modelled). Smoke and
Eclipse zones placed in this Player Turn are removed (``combat/smoke.py``).
"""

from __future__ import annotations

from ..combat.incapacitation import dogged_to_kill
from ..combat.smoke import states_phase_clears
from ..combat.stunned import stunned_to_cancel
from ..combat.wounds import Condition
from ..events import Event, StatesPhaseChecked
from ..evolve import replace
from ..state import GameState


def states_phase_checks(state: GameState) -> list[Event]:
    """The States Phase's checks as events: one ``StatesPhaseChecked`` when a check has
    something to do, none otherwise."""
    cancelled = stunned_to_cancel(state)
    dogged = dogged_to_kill(state.troopers.values())
    zones = states_phase_clears(state)
    if not cancelled and not dogged and not zones:
        return []
    return [StatesPhaseChecked(state.round, state.turn, stunned_cancelled=cancelled,
                               dogged_dead=dogged, zones_removed=zones)]


def apply_states_phase_checked(state: GameState, event: StatesPhaseChecked) -> GameState:
    troopers = dict(state.troopers)
    for trooper_id in event.stunned_cancelled:
        troopers[trooper_id] = replace(troopers[trooper_id], stunned_in=None)
    for trooper_id in event.dogged_dead:
        troopers[trooper_id] = replace(troopers[trooper_id], condition=Condition.DEAD,
                                       dogged_in=None)
    table = replace(state.table, zones=()) if event.zones_removed else state.table
    return replace(state, troopers=troopers, table=table)
