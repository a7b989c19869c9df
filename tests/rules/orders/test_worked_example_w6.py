"""DIGEST 16, worked example W6: Order Count, Strategic Command Token eligibility, and the
ARO windows of a Move + Move Order.

The Order Count and the ARO windows are scenario files (also run by test_scenarios.py); this
module runs them under W6's name and tests the Strategic "remove 2 Regular Orders" rule.
"""

from __future__ import annotations

import copy
import json
from dataclasses import replace

from server.rules.ids import Side
from server.rules.orders.command_tokens import (
    may_remove_two_regular_orders,
    orders_for_strategic_removal,
)
from server.rules.state import OrderCount
from tests.support.scenarios import SCENARIO_DIR, build_state, load_scenario, run_scenario

ORDER_COUNT = SCENARIO_DIR / "w6_order_count.json"
ARO_WINDOWS = SCENARIO_DIR / "w6_aro_windows_move_move.json"


def _setup() -> dict[str, object]:
    return copy.deepcopy(json.loads(ORDER_COUNT.read_text())["setup"])  # type: ignore[no-any-return]


def test_w6_order_count_pool_irregular_lieutenant_and_tactical_orders() -> None:
    """W6: pool 7 (Unconscious is Null, HD not on the table), 1 Irregular, 1 Lieutenant
    Special Order, 1 Tactical Order; each special Order only for its own trooper."""
    run_scenario(load_scenario(ORDER_COUNT))


def test_w6_aro_windows_over_move_then_move() -> None:
    """W6: R1 (LoF) declares at step 2; R2 (ZoC only) may only Dodge/Reset and loses its ARO
    by declining; R3 becomes eligible through the second Move and declares at step 4; R1
    and R2 may not declare again."""
    run_scenario(load_scenario(ARO_WINDOWS))


def test_w6_strategic_removal_needs_more_than_ten_orders() -> None:
    """W6: Regular + Irregular + Tactical = 7 + 1 + 1 = 9, so the second player may not
    remove 2 Regular Orders (the Lieutenant Special Order does not count)."""
    state = build_state(_setup())
    assert orders_for_strategic_removal(state.orders) == 9
    assert not may_remove_two_regular_orders(state, Side.B)


def test_strategic_removal_allowed_above_ten_in_the_first_players_first_tactical_phase() -> None:
    setup = _setup()
    army = setup["armies"]["A"]  # type: ignore[index]
    army["entries"] += [  # a second Combat Group of two Regular troopers: 9 + 2 = 11
        {"id": "t11", "unit": "lancer", "combat_group": 2},
        {"id": "t12", "unit": "lancer", "combat_group": 2},
    ]
    setup["placements"] |= {"A-t11": [2, 4, 90], "A-t12": [4, 4, 90]}  # type: ignore[operator]
    state = build_state(setup)
    assert state.orders.pools == {1: 7, 2: 2}
    assert orders_for_strategic_removal(state.orders) == 11
    assert may_remove_two_regular_orders(state, Side.B), "the second player, right after the Order Count"
    assert not may_remove_two_regular_orders(state, Side.A), "only the second player"
    assert not may_remove_two_regular_orders(replace(state, orders_spent=1), Side.B), "only before any Order"
    assert not may_remove_two_regular_orders(replace(state, round=2), Side.B), "only the first turn"


def test_strategic_removal_never_in_codeone() -> None:
    from server.rules.ruleset import Ruleset

    state = build_state(_setup())
    big = OrderCount(pools={1: 11})
    assert may_remove_two_regular_orders(replace(state, orders=big), Side.B)
    assert not may_remove_two_regular_orders(replace(state, orders=big, ruleset=Ruleset.CODEONE), Side.B)
