"""The rules core's facade: decide what a command does, apply what happened.

``decide(state, actor, command)`` validates the command and returns every event it causes,
including the automatic steps that follow (ARO windows opening, resolution, the next turn),
or a rejection with a stable reason code. ``apply(state, event)`` folds one event into the
next state; ``apply_all`` replays a log. Nothing here performs I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeAlias

from . import commands as c
from .apply import apply
from .armies.army_catalogue import load_weapons, sample_armies
from .armies.army_selection import decide_accept_armies, decide_choose_army
from .combat.guts_choice import decide_choose_guts_failure
from .combat.guts_window import decide_choose_guts_move, open_guts_window
from .decision import SYSTEM, Accepted, Decision, Rejected, Rejection, System
from .events import ClassifiedAchieved, Event, GameEnded, SuppressiveFireChanged
from .ids import Side, TrooperId
from .missions import mission_catalogue
from .missions.classified_action import decide_classified_action
from .orders.activation import decide_declare_skill
from .orders.airborne import decide_combat_jump, decide_keep_airborne
from .orders.aro import decide_close_aro_window, decide_declare_aro, decide_pass_aro
from .orders.aro_eligibility import may_react_unseen
from .orders.clocks import (
    clocks_fields,
    decide_clock_expired,
    decide_hold_clocks,
    start_clocks,
    switch_events,
    time_out_events,
)
from .orders.command_tokens import decide_coordinate_order, decide_spend_command_token
from .orders.deployment import decide_deploy, decide_end_deployment_step
from .orders.fireteams import decide_activate_fireteam, decide_form_fireteam
from .orders.game_sequence import decide_concede, decide_end_impetuous_phase, decide_end_turn
from .orders.hidden_deployment import decide_reveal
from .orders.initiative import decide_choose_initiative, decide_choose_remaining
from .orders.lieutenant import decide_appoint_lieutenant
from .orders.named_troopers import unknown_to
from .orders.order_pool import decide_activate
from .orders.setup import GameSetup, new_game
from .plain import Plain, state_form
from .plain import prepare as prepare_conversions
from .plain.packed import Pack, Unpack
from .produced import Produced
from .reasons import Reason
from .state import GameState, OrderStep, Phase
from .table.table_catalogue import shipped as shipped_tables

__all__ = [
    "SYSTEM",
    "Accepted",
    "AroWindow",
    "Decision",
    "GameSetup",
    "Rejected",
    "apply",
    "apply_all",
    "armies_to_plain",
    "clocks_fields",
    "decide",
    "may_react_unseen",
    "new_game",
    "pending_aro_window",
    "prepare",
    "start_clocks",
    "state_from_plain",
    "state_to_plain",
]

Actor: TypeAlias = Side | System
Handler = Callable[[GameState, Any, Any], list[Event]]

HANDLERS: dict[type[c.Command], Handler] = {
    c.ChooseArmy: decide_choose_army,
    c.AcceptArmies: decide_accept_armies,
    c.ChooseInitiative: decide_choose_initiative,
    c.ChooseRemaining: decide_choose_remaining,
    c.Deploy: decide_deploy,
    c.EndDeploymentStep: decide_end_deployment_step,
    c.Activate: decide_activate,
    c.DeclareSkill: decide_declare_skill,
    c.DeclareAro: decide_declare_aro,
    c.PassAro: decide_pass_aro,
    c.CloseAroWindow: decide_close_aro_window,
    c.Reveal: decide_reveal,
    c.KeepAirborne: decide_keep_airborne,
    c.CombatJump: decide_combat_jump,
    c.EndImpetuousPhase: decide_end_impetuous_phase,
    c.EndTurn: decide_end_turn,
    c.Concede: decide_concede,
    c.ChooseGutsFailure: decide_choose_guts_failure,
    c.ChooseGutsMove: decide_choose_guts_move,
    c.AppointLieutenant: decide_appoint_lieutenant,
    c.SpendCommandToken: decide_spend_command_token,
    c.CoordinateOrder: decide_coordinate_order,
    c.FormFireteam: decide_form_fireteam,
    c.ActivateFireteam: decide_activate_fireteam,
    c.ClockExpired: decide_clock_expired,
    c.HoldClocks: decide_hold_clocks,
    c.ClassifiedAction: decide_classified_action,  # Classified Objectives
}

SYSTEM_COMMANDS = (c.CloseAroWindow, c.ClockExpired, c.HoldClocks, c.ChooseGutsMove)


def decide(state: GameState, actor: Actor, command: c.Command, at_ms: int | None = None) -> Decision:
    """Validate ``command`` from ``actor``; return its events (with the automatic steps
    they trigger) or a rejection. Never raises for a bad command.

    ``at_ms``: the room's time (Unix ms) when it decides the command, for the chess clocks
    (``orders/clocks``); None: no time has passed since the clocks last switched."""
    if state.phase is Phase.GAME_OVER:
        return Rejected(Reason.GAME_OVER.value, "The game is over.")
    if actor is SYSTEM and not isinstance(command, SYSTEM_COMMANDS):
        return Rejected(Reason.BAD_COMMAND.value,
                        "The room clock only closes ARO and Guts windows and runs or holds "
                        "chess clocks.")
    if isinstance(actor, Side):
        unknown = unknown_to(state, actor, command)
        if unknown is not None:
            return Rejected(Reason.UNKNOWN_TROOPER.value, f"There is no trooper {unknown}.")
    produced = Produced(state)
    if at_ms is not None and not isinstance(command, c.ClockExpired | c.HoldClocks):
        # A command that arrives after the running clock's deadline, before the room's timer
        # said so: the time-out happened first, and the command is decided after it.
        timed_out = time_out_events(state, at_ms)
        if timed_out:
            produced.then_automatic(timed_out)
    try:
        events = HANDLERS[type(command)](produced.state, actor, command)
    except Rejection as rejection:
        return Rejected(rejection.reason.value, rejection.message)
    produced.then_automatic(events)
    switches = switch_events(produced.state, at_ms)
    if switches:
        produced = _with_clock_switches(state, produced, switches)
    return Accepted(tuple(produced.events), produced.state)


def _with_clock_switches(start: GameState, produced: Produced, switches: list[Event]) -> Produced:
    """The clocks' switch after a command goes last, except at the end of the game: nothing
    follows ``game_ended`` (the record and a tournament's results read the game's end as its
    last event), so the clocks stop just before it, at the same time (the events are folded
    again from ``start`` then: once a game)."""
    ended = next((at for at, event in enumerate(produced.events) if isinstance(event, GameEnded)),
                 None)
    if ended is None:
        produced.add_all(switches)
        return produced
    # (Suppressive Fire changes and Classified Objectives achieved: ``Produced.add`` makes
    # them again where they fall.)
    events = [e for e in produced.events
              if not isinstance(e, SuppressiveFireChanged | ClassifiedAchieved)]
    ended = next(at for at, event in enumerate(events) if isinstance(event, GameEnded))
    events[ended:ended] = switches
    again = Produced(start)
    again.add_all(events)  # (with the Suppressive Fire changes, made again where they fall)
    return again


def apply_all(state: GameState, events: Iterable[Event]) -> GameState:
    for event in events:
        state = apply(state, event)
    return state


@dataclass(frozen=True, slots=True)
class AroWindow:
    """A timed window the game waits in: an open ARO declaration step (the reactive player
    must declare now), or a Guts window (``guts``: the trooper whose owner, ``reactive``,
    chooses its Guts movement; ``step`` is 0), which the room times alike."""

    order: int
    step: int
    reactive: Side
    guts: TrooperId | None = None


def pending_aro_window(state: GameState) -> AroWindow | None:
    order = state.order
    if order is None:
        return None
    due = open_guts_window(state)
    if due is not None:
        return AroWindow(order.number, 0, state.trooper(due.trooper).side, due.trooper)
    if not order.window_open or state.reactive is None:
        return None
    if order.step not in (OrderStep.ARO_1, OrderStep.ARO_2):
        return None
    return AroWindow(order.number, order.aro_step_number, state.reactive)


def prepare() -> int:
    """Make now what games need and would otherwise make at its first use, in a player's
    command (a server calls it before it serves): the plain-data converters of every event,
    command and the state (how many classes: the return), and the shipped armies, weapons,
    tables and missions, read and checked once per process."""
    sample_armies()
    load_weapons()
    shipped_tables()
    mission_catalogue.shipped()
    state_form.prepare()
    return prepare_conversions(Event, c.Command, GameState)


def state_to_plain(state: GameState, pack: Pack | None = None, *, armies: bool = True
                   ) -> Plain:
    """The state's stored plain form: troopers' entries by reference, with ``pack`` (a
    store's codec) the army lists packed, and without ``armies`` none of them (the store
    keeps them apart: ``armies_to_plain``) (``plain.state_form``)."""
    return state_form.state_to_plain(state, pack, armies=armies)


def armies_to_plain(state: GameState, pack: Pack | None = None) -> Plain:
    """The state's army lists alone, for a store that keeps them apart from the state."""
    return state_form.armies_to_plain(state, pack)


def state_from_plain(data: Plain, unpack: Unpack | None = None,
                     armies: Plain | None = None) -> GameState:
    """A state from its stored plain form, any of them: entries by reference or in full,
    army lists packed (read with ``unpack``, a store's codec) or not, or kept apart and
    given back as ``armies`` (``armies_to_plain``'s form)."""
    return state_form.state_from_plain(data, unpack, armies)
