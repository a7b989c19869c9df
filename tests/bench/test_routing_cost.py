"""bench.routing_cost's arithmetic: each round's ratios against the one-node run, and the
record's medians over the rounds (the runs themselves: docs/performance.md)."""

from __future__ import annotations

from typing import Any

from bench.routing_cost import CONFIGS, medians, ratios


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


def test_routed_nodes_are_also_compared_with_one_node_at_their_own_load() -> None:
    def figures(cpu: float) -> dict[str, Any]:
        return {phase: {"cpu_us_per_order": cpu, "cpu_us_per_delivery": cpu / 10,
                        "orders_per_s": 10.0, "errors": 0} for phase in ("paced", "max")}
    round_: dict[str, Any] = {"one": figures(1000.0), "routed": figures(1200.0),
                              "half": figures(1150.0)}
    found = ratios(round_)
    assert found["routed/paced/cpu_us_per_order"] == 1.2
    assert found["routed_vs_half/paced/cpu_us_per_order"] == round(1200 / 1150, 3)
    assert "routed_vs_half/max/cpu_us_per_delivery" in found


def test_the_half_configuration_plays_half_the_rooms_on_one_node() -> None:
    nodes, balancer, share = CONFIGS["half"]
    assert (nodes, balancer, share) == (1, False, 2)
    assert CONFIGS["routed"][:2] == (2, True) and CONFIGS["one"][2] == 1
