"""The automatic steps of the game, as data, and the one loop that runs them.

After every accepted command the engine asks each rule in ``AUTOMATIC_STEPS`` in turn
whether it has something to do in the current state; the first that does returns its
events, they are applied, and the loop starts again, until no rule fires. Steps that wait
for a player (declaring a skill, an ARO, choosing) are simply states in which no rule here
fires.

The Orders Phase never ends by itself when the Orders run out: the active player ends it
with ``end_turn`` (seed 002: it runs out of Orders "or decides not to use the remaining
ones"), since a trooper in Hidden Deployment or Airborne Deployment may still hold its own
private Order, and a game that waited only then would tell the opponent that such a trooper
exists (docs/rules-decisions/README.md, "The end of the Orders Phase"). Only a player out of time
has its turns ended for it (``clocks.out_of_time_turn_over``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..combat.guts_window import (
    conclude,
    conclusion_over,
    guts_reaction_pending,
    next_guts_reaction,
)
from ..combat.mines import aro_triggers as mines_set_off_by_aros
from ..combat.mines import triggers as mines_going_off
from ..combat.resolution import resolve_order_step
from ..events import Event, OrderResolved, PhaseStarted
from ..missions import classified
from ..missions.consoles import activations_resolved
from ..state import GameState, OrderStep, Phase
from .aro import open_window
from .clocks import out_of_time_turn_over
from .deployment import deployment_finished
from .fireteams import integrity_due, integrity_events
from .game_sequence import (
    end_of_turn,
    end_turn,
    first_turn,
    order_count,
    tactical_phase,
    turn_over,
)
from .initiative import roll_initiative
from .states_phase import states_phase_checks

MAX_AUTOMATIC_STEPS = 64
"""Guard against a rule that keeps firing: a turn's automatic chain is about ten steps."""


@dataclass(frozen=True, slots=True)
class AutomaticStep:
    name: str
    applies: Callable[[GameState], bool]
    events: Callable[[GameState], list[Event]]
    phases: frozenset[Phase] | None = None
    """The only phases in which ``applies`` can hold (None: any): the others skip it."""


def _order_step(state: GameState, step: OrderStep) -> bool:
    return state.order is not None and state.order.step is step


def _entering_aro_step(state: GameState) -> bool:
    order = state.order
    return order is not None and order.step in (OrderStep.ARO_1, OrderStep.ARO_2) and not order.window_open


def _resolve(state: GameState) -> list[Event]:
    assert state.order is not None
    resolved = resolve_order_step(state)
    # A passed Activate roll activates its mission marker (missions/consoles.py).
    activations = (activations_resolved(state, state.order, resolved.outcome)
                   if state.mission is not None else [])
    return [OrderResolved(state.order.number, resolved.outcome, resolved.dice,
                          resolved.conclusion), *activations]


def _impetuous_over(state: GameState) -> bool:
    return state.phase is Phase.IMPETUOUS and state.order is None and not state.orders.impetuous


AUTOMATIC_STEPS: tuple[AutomaticStep, ...] = (
    # Classified Objectives: drawn once both armies are chosen, before the Initiative Roll
    # (missions/classified.py).
    AutomaticStep("classified objectives drawn", classified.draw_due, classified.draw,
                  frozenset({Phase.INITIATIVE})),
    AutomaticStep(
        "initiative roll-off",
        lambda s: s.phase is Phase.INITIATIVE and s.initiative.winner is None,
        lambda s: [roll_initiative(s)],
        frozenset({Phase.INITIATIVE}),
    ),
    AutomaticStep("first turn", deployment_finished, lambda s: [first_turn(s)],
                  frozenset({Phase.DEPLOYMENT})),
    AutomaticStep(
        "tactical phase checks",
        lambda s: s.phase is Phase.TACTICAL and bool(tactical_phase(s)),
        tactical_phase,
        frozenset({Phase.TACTICAL}),
    ),
    AutomaticStep("order count", lambda s: s.phase is Phase.TACTICAL, order_count,
                  frozenset({Phase.TACTICAL})),
    # Enemy Mines go off at the ARO step, before its window opens: automatic, no player's
    # choice (combat/mines.py; docs/rules-decisions/specialists.md).
    AutomaticStep("mines go off", lambda s: bool(s.deployables) and bool(mines_going_off(s)),
                  lambda s: list(mines_going_off(s)),
                  frozenset({Phase.ORDERS, Phase.IMPETUOUS})),
    AutomaticStep("ARO declaration step", _entering_aro_step, open_window),
    # The active side's Mines go off against reactive troopers that declared an ARO in their
    # Trigger Area, once the window closes and before the Order goes on (combat/mines.py).
    AutomaticStep("mines set off by AROs",
                  lambda s: bool(s.deployables) and bool(mines_set_off_by_aros(s)),
                  lambda s: list(mines_set_off_by_aros(s)),
                  frozenset({Phase.ORDERS, Phase.IMPETUOUS})),
    AutomaticStep("resolution", lambda s: _order_step(s, OrderStep.RESOLUTION), _resolve),
    # A Conclusion that waits on Guts movements (combat/guts_window.py): each failed trooper
    # reacts in turn, through its owner's window when it has a movement to choose.
    AutomaticStep("guts reaction", guts_reaction_pending, next_guts_reaction),
    AutomaticStep("order concluded", conclusion_over, conclude),
    # Between Orders a Fireteam loses a member that is Null, Isolated or out of Coherency.
    AutomaticStep("fireteam integrity", integrity_due, integrity_events),
    AutomaticStep("out of time", out_of_time_turn_over, lambda s: [end_turn(s)],
                  frozenset({Phase.IMPETUOUS, Phase.ORDERS})),
    AutomaticStep("impetuous phase over", _impetuous_over, lambda s: [PhaseStarted(Phase.ORDERS)],
                  frozenset({Phase.IMPETUOUS})),
    # The checks are applied before the End of the Turn, whose new Lieutenant (Loss of
    # Lieutenant) is chosen among the troopers they leave standing.
    AutomaticStep("states phase checks",
                  lambda s: s.phase is Phase.STATES and bool(states_phase_checks(s)),
                  states_phase_checks, frozenset({Phase.STATES})),
    AutomaticStep("end of turn", lambda s: s.phase is Phase.STATES,
                  lambda s: [end_of_turn(s)], frozenset({Phase.STATES})),
    AutomaticStep("next turn", lambda s: s.phase is Phase.END_OF_TURN, turn_over,
                  frozenset({Phase.END_OF_TURN})),
)

_STEPS_IN: dict[Phase, tuple[AutomaticStep, ...]] = {
    phase: tuple(s for s in AUTOMATIC_STEPS if s.phases is None or phase in s.phases)
    for phase in Phase
}
"""The steps that may apply in each phase, in ``AUTOMATIC_STEPS``' order (asked after every
event of every command)."""


def next_automatic(state: GameState) -> list[Event] | None:
    """The events of the first automatic step that applies in ``state``, or None."""
    for step in _STEPS_IN[state.phase]:
        if step.applies(state):
            return step.events(state)
    return None


def automatic_events(
    state: GameState, apply: Callable[[GameState, Event], GameState]
) -> tuple[GameState, list[Event]]:
    """Run the automatic steps until none applies; return the final state and the events."""
    produced: list[Event] = []
    for _ in range(MAX_AUTOMATIC_STEPS):
        events = next_automatic(state)
        if events is None:
            return state, produced
        for event in events:
            state = apply(state, event)
            produced.append(event)
    raise RuntimeError("automatic steps did not settle")
