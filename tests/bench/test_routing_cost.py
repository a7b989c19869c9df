"""bench.routing_cost's arithmetic: each round's ratios against the one-node run, and the
record's medians over the rounds (the runs themselves: docs/performance.md)."""

from __future__ import annotations

from typing import Any

from bench.routing_cost import medians, ratios


def one_round(one: float, routed: float) -> dict[str, Any]:
    def figures(cpu: float) -> dict[str, Any]:
        return {phase: {"cpu_us_per_order": cpu, "cpu_us_per_delivery": cpu / 10,
                        "orders_per_s": 10.0, "errors": 0} for phase in ("paced", "max")}
    round_: dict[str, Any] = {"one": figures(one), "routed": figures(routed)}
    round_["ratios"] = ratios(round_)
    return round_


def test_each_round_is_compared_with_its_own_one_node_run() -> None:
    round_ = one_round(1000.0, 1050.0)
    assert round_["ratios"] == {f"routed/{phase}/{name}": 1.05
                                for phase in ("paced", "max")
                                for name in ("cpu_us_per_order", "cpu_us_per_delivery")}


def test_the_record_holds_the_median_ratio_and_its_range() -> None:
    rounds = [one_round(1000.0, 1050.0), one_round(2000.0, 2400.0), one_round(1000.0, 1000.0)]
    figures = medians({"rounds": rounds})
    assert figures["ratios/routed/max/cpu_us_per_order"] == 1.05
    assert figures["ratios/routed/max/cpu_us_per_order/min"] == 1.0
    assert figures["ratios/routed/max/cpu_us_per_order/max"] == 1.2
    assert figures["one/max/cpu_us_per_order"] == 1000.0
    assert figures["routed/paced/cpu_us_per_order"] == 1050.0
