"""The Guts window: the owner chooses where a trooper moves after a failed Guts Roll
(DIGEST 7.8, N5; docs/rules-decisions/resolution.md "Guts movement: the owner's choice").

At the table the owner moves its trooper, within the rule: up to 2 inches to leave every
attacker's LoF (or Hacking Area) if it can, else to reach Partial Cover, else Prone. When a
failure leaves such a movement, the Order's Resolution stops before its Guts reactions
(``resolution.resolve_order_step``; ``OrderResolved.conclusion``) and the Order waits at its
Conclusion. Each failed trooper then reacts in turn, in the order it was first hit, in the
state the earlier reactions left:

- a trooper whose failure calls for no movement goes Prone (or does nothing) at once
  (``GutsReacted``, "automatic");
- otherwise a timed window opens for its owner (``GutsWindowOpened``, with the rule and the
  default route), who answers with ``choose_guts_move``: a route ``guts.guts_route_problem``
  accepts ("chosen"), or none to take the default ("default"). The room times the window as
  an ARO window and, at its deadline, sends the same command with no route as the system
  ("deadline").

When no reaction is left, ``OrderConcluded`` makes the Alert! turns from where the troopers
then stand and ends the Order. CodeOne has no Guts Rolls, so never a Guts window.
"""

from __future__ import annotations

from ..commands import ChooseGutsMove
from ..decision import SYSTEM, System, require
from ..events import Event, GutsReacted, GutsWindowOpened, OrderConcluded, OrderResolved
from ..evolve import replace
from ..ids import Side
from ..reasons import Reason
from ..state import Conclusion, GameState, GutsDue, OrderStep
from .effects import apply_effect
from .guts import GutsRule, guts_route_problem, guts_rule, rule_reaction
from .resolution import alert_turns


def concluding(state: GameState) -> Conclusion | None:
    """The Conclusion the current Order waits at, or None."""
    order = state.order
    if order is None or order.step is not OrderStep.CONCLUSION:
        return None
    return order.conclusion


def guts_due_now(state: GameState) -> GutsDue | None:
    """The failed Guts Roll whose reaction comes next in a waiting Conclusion, or None."""
    conclusion = concluding(state)
    return conclusion.guts[0] if conclusion is not None and conclusion.guts else None


def open_guts_window(state: GameState) -> GutsDue | None:
    """The trooper whose owner is choosing its Guts movement now, or None."""
    order = state.order
    return guts_due_now(state) if order is not None and order.guts_window else None


def window_rule(state: GameState) -> GutsRule | None:
    """The rule of the open Guts window (its default, the points that satisfy it)."""
    due = open_guts_window(state)
    return guts_rule(state, due) if due is not None else None


# --- the automatic steps (``orders/sequence.py``) -------------------------------------------


def guts_reaction_pending(state: GameState) -> bool:
    order = state.order
    return guts_due_now(state) is not None and order is not None and not order.guts_window


def next_guts_reaction(state: GameState) -> list[Event]:
    """Open the owner's window when the failure leaves a movement to choose, else react."""
    order, due = state.order, guts_due_now(state)
    assert order is not None and due is not None
    rule = guts_rule(state, due)
    if rule.moves:
        assert rule.reason is not None
        trooper = state.trooper(due.trooper)
        assert trooper.position is not None
        return [GutsWindowOpened(order.number, due.trooper, trooper.side, rule.reason,
                                 (trooper.position, rule.default))]
    return [GutsReacted(order.number, due.trooper, rule_reaction(state, rule), "automatic")]


def conclusion_over(state: GameState) -> bool:
    conclusion = concluding(state)
    return conclusion is not None and not conclusion.guts


def conclude(state: GameState) -> list[Event]:
    order, conclusion = state.order, concluding(state)
    assert order is not None and conclusion is not None
    return [OrderConcluded(order.number, alert_turns(state, order, conclusion.attacked))]


# --- the owner's choice --------------------------------------------------------------------


def decide_choose_guts_move(state: GameState, side: Side | System,
                            command: ChooseGutsMove) -> list[Event]:
    order = state.order
    due = open_guts_window(state)
    require(
        order is not None and due is not None and order.number == command.order
        and due.trooper == command.trooper,
        Reason.STALE_GUTS_WINDOW,
        "No Guts movement is waiting for that trooper now.",
    )
    assert order is not None and due is not None
    trooper = state.trooper(due.trooper)
    if side is SYSTEM:
        require(not command.route, Reason.BAD_COMMAND,
                "At the deadline the room takes the default Guts movement.")
    else:
        require(trooper.side is side, Reason.NOT_YOUR_TROOPER,
                "That trooper is not yours: its owner chooses its Guts movement.")
    rule = guts_rule(state, due)
    if side is SYSTEM or not command.route:
        how = "deadline" if side is SYSTEM else "default"
        return [GutsReacted(order.number, due.trooper, rule_reaction(state, rule), how)]
    problem = guts_route_problem(state, rule, command.route)
    if problem is not None:
        require(False, Reason(problem.code), problem.message)
    return [GutsReacted(order.number, due.trooper, rule_reaction(state, rule, command.route),
                        "chosen")]


# --- folding the events --------------------------------------------------------------------


def apply_conclusion_waits(state: GameState, event: OrderResolved) -> GameState:
    """``OrderResolved`` with a ``conclusion``: the Order stays, at its Conclusion."""
    order = state.order
    assert order is not None and event.conclusion is not None
    return replace(state, order=replace(order, step=OrderStep.CONCLUSION,
                                        conclusion=event.conclusion, window_open=False))


def apply_guts_window_opened(state: GameState, event: GutsWindowOpened) -> GameState:
    order = state.order
    assert order is not None
    return replace(state, order=replace(order, guts_window=True))


def apply_guts_reacted(state: GameState, event: GutsReacted) -> GameState:
    order = state.order
    assert order is not None and order.conclusion is not None
    if event.effect is not None:
        state = apply_effect(state, event.effect)
    guts = order.conclusion.guts
    assert guts and guts[0].trooper == event.trooper, "reactions come in order"
    conclusion = replace(order.conclusion, guts=guts[1:])
    return replace(state, order=replace(order, conclusion=conclusion, guts_window=False))


def apply_order_concluded(state: GameState, event: OrderConcluded) -> GameState:
    for effect in event.effects:
        state = apply_effect(state, effect)
    return replace(state, order=None)


def guts_window_owner(state: GameState) -> Side | None:
    """The side the open Guts window waits on (the chess clocks run its time)."""
    due = open_guts_window(state)
    return state.trooper(due.trooper).side if due is not None else None

