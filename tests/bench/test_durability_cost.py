"""bench.durability_cost's arithmetic: what it keeps of a run, each round's ``always`` over
``everysec`` ratios, and the record's medians over the rounds (the runs themselves:
docs/performance.md)."""

from __future__ import annotations

import argparse
from typing import Any

import pytest

from bench.durability_cost import medians, parse_configs, pick, ratios


def run(cpu: float, p99: float, redis_share: float) -> dict[str, Any]:
    """The part of ``bench.run``'s referee result ``pick`` reads: 100 Orders in 10 s."""
    return {phase: {"cpu_us_per_order": cpu, "latency_ms": {"p50": p99 / 4, "p99": p99},
                    "orders_per_s": 10.0, "orders": 100, "elapsed_s": 10.0, "errors": 0,
                    "redis": {"cpu_share": redis_share}} for phase in ("paced", "max")}


def one_round(everysec: dict[str, Any], always: dict[str, Any]) -> dict[str, Any]:
    round_: dict[str, Any] = {"everysec": pick(everysec), "always": pick(always)}
    round_["ratios"] = ratios(round_)
    return round_


def test_redis_cpu_per_order_is_its_share_of_the_phase_over_its_orders() -> None:
    picked = pick(run(1000.0, 8.0, 0.02))
    assert picked["paced"]["redis_cpu_us_per_order"] == 2000.0  # 0.2 s over 100 Orders
    assert picked["max"]["p99_ms"] == 8.0


def test_each_round_compares_always_with_its_own_everysec_run() -> None:
    round_ = one_round(run(1000.0, 8.0, 0.02), run(1100.0, 12.0, 0.03))
    assert round_["ratios"]["paced/cpu_us_per_order"] == 1.1
    assert round_["ratios"]["max/p99_ms"] == 1.5
    assert round_["ratios"]["paced/redis_cpu_us_per_order"] == 1.5
    assert round_["ratios"]["max/orders_per_s"] == 1.0


def test_a_figure_missing_in_either_run_has_no_ratio() -> None:
    without_redis = run(1000.0, 8.0, 0.0)
    round_ = one_round(without_redis, run(1100.0, 12.0, 0.03))
    assert "paced/redis_cpu_us_per_order" not in round_["ratios"]
    assert "paced/cpu_us_per_order" in round_["ratios"]


def test_the_record_holds_the_median_ratio_and_its_range() -> None:
    rounds = [one_round(run(1000.0, 8.0, 0.02), run(1100.0, 8.0, 0.02)),
              one_round(run(1000.0, 8.0, 0.02), run(1300.0, 8.0, 0.02)),
              one_round(run(1000.0, 8.0, 0.02), run(1000.0, 8.0, 0.02))]
    figures = medians(rounds)
    assert figures["ratios/paced/cpu_us_per_order"] == 1.1
    assert figures["ratios/paced/cpu_us_per_order/min"] == 1.0
    assert figures["ratios/paced/cpu_us_per_order/max"] == 1.3
    assert figures["always/max/cpu_us_per_order"] == 1100.0


def cluster_run(cpu: float, all_s: float, masters_s: float) -> dict[str, Any]:
    """A cluster run's pick: its Redis CPU is the nodes' (seconds per phase), not INFO's."""
    return pick(run(cpu, 8.0, 0.0), {phase: {"all": all_s, "masters": masters_s}
                                     for phase in ("paced", "max")})


def test_a_cluster_runs_redis_cpu_is_all_its_nodes_and_its_masters_apart() -> None:
    picked = cluster_run(1000.0, 0.3, 0.1)
    assert picked["max"]["redis_cpu_us_per_order"] == 3000.0  # 0.3 s over 100 Orders
    assert picked["max"]["redis_masters_cpu_us_per_order"] == 1000.0


def test_the_cluster_is_set_over_each_single_redis_setting() -> None:
    round_: dict[str, Any] = {"everysec": pick(run(1000.0, 8.0, 0.01)),
                              "always": pick(run(1100.0, 8.0, 0.02)),
                              "cluster": cluster_run(1650.0, 0.4, 0.1)}
    found = ratios(round_)
    assert found["paced/cpu_us_per_order"] == 1.1  # always/everysec keep their names
    assert found["cluster_over_always/paced/cpu_us_per_order"] == 1.5
    assert found["cluster_over_everysec/max/cpu_us_per_order"] == 1.65
    assert found["cluster_over_always/max/redis_cpu_us_per_order"] == 2.0  # 4000 / 2000
    # the masters alone against the single Redis
    assert found["cluster_over_always/max/redis_masters_cpu_us_per_order"] == 0.5


def test_a_round_without_the_single_redis_has_no_cluster_ratios() -> None:
    assert ratios({"cluster": cluster_run(1000.0, 0.3, 0.1)}) == {}


def test_errors_of_any_round_are_summed_not_hidden_by_the_median() -> None:
    failing = run(1000.0, 8.0, 0.02)
    failing["max"]["errors"] = 2
    rounds = [one_round(run(1000.0, 8.0, 0.02), run(1000.0, 8.0, 0.02)) for _ in range(2)]
    rounds.append(one_round(run(1000.0, 8.0, 0.02), failing))
    figures = medians(rounds)
    assert figures["always/max/errors"] == 0  # the median
    assert figures["always/errors_total"] == 2


def test_configurations_play_in_their_fixed_order_and_unknown_ones_are_refused() -> None:
    assert parse_configs("cluster, always") == ("always", "cluster")
    with pytest.raises(argparse.ArgumentTypeError):
        parse_configs("everysec,raid")
