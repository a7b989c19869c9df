"""Command Tokens (DIGEST 3.3; N4/N5, not CodeOne): the part this slice builds.

Only the eligibility test of one Strategic use is built: the second player may spend a
Command Token in the first player's first Tactical Phase, right after the Order Count, to
remove 2 Regular Orders from the opponent's pools, but only if the opponent's Regular,
Irregular and Tactical Orders add up to more than 10. Troopers not on the table (Hidden
Deployment, Airborne) added no Orders to the count, so they are left out by construction;
the Lieutenant Special Order is not part of the sum (DIGEST W6: 7 + 1 + 1 = 9).

Command Tokens themselves (how many each player holds, a command to spend one, the removal)
are not built; see docs/rules-decisions.md.
"""

from __future__ import annotations

from .ids import Side
from .ruleset import options
from .state import GameState, OrderCount, Phase

STRATEGIC_REMOVAL_THRESHOLD = 10
"""The opponent needs more than this many Regular + Irregular + Tactical Orders."""


def orders_for_strategic_removal(count: OrderCount) -> int:
    """Regular (every pool), Irregular and Tactical Orders of an Order Count."""
    return sum(count.pools.values()) + len(count.irregular) + len(count.tactical)


def may_remove_two_regular_orders(state: GameState, side: Side) -> bool:
    """Whether ``side`` may now use the Strategic "remove 2 Regular Orders" (DIGEST 3.3).

    True only when the ruleset has Command Tokens, ``side`` plays second and its opponent is
    in its first turn of the game with its Orders just counted (no Order spent yet), and the
    opponent's count exceeds ``STRATEGIC_REMOVAL_THRESHOLD``.
    """
    opponent = side.other
    just_counted = (
        state.round == 1
        and state.turn == 1
        and state.active is opponent
        and state.initiative.first_player is opponent
        and state.phase in (Phase.IMPETUOUS, Phase.ORDERS)
        and state.order is None
        and state.orders_spent == 0
    )
    return (
        options(state.ruleset).command_tokens
        and just_counted
        and orders_for_strategic_removal(state.orders) > STRATEGIC_REMOVAL_THRESHOLD
    )
