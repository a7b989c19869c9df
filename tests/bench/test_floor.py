"""The floor of a ``bench.run`` (``bench.floor``): the rules part as ``bench.rules_cost``
measures it, and how the floor counts the referee's and the baseline's commands and
deliveries. No servers, no timing thresholds."""

from __future__ import annotations

from typing import Any

import pytest

from bench import floor, rules_cost
from bench.run_history import record
from testkit.scripted_game import plan


def test_the_rules_part_is_what_the_room_pays_per_command_of_the_orders() -> None:
    game = rules_cost.measure(7, 1)
    orders = rules_cost.measure(7, 1, orders_only=True)
    assert orders["part"] == "orders" and game["part"] == "game"
    assert orders["commands"] == game["commands"] - len(plan(7).setup)
    # the fingerprint names the whole game, whatever part is measured
    assert orders["decision_fingerprint"] == game["decision_fingerprint"]
    room = orders["room_us_per_command"]
    assert room["total"] == pytest.approx(sum(v for k, v in room.items() if k != "total"),
                                          abs=0.1)
    assert room["decide"] > 0 and room["views_and_frames_3_audiences"] > 0
    # every verdict of the game carries the state it leads to: the room applies none again
    assert orders["verdicts_applied_by_room"] == 0 and room["apply_not_kept_by_decide"] == 0
    # a snapshot at each phase, round or turn change or every snapshot_every versions, not
    # every command
    assert 0 < orders["snapshots_taken"] < orders["commands"]
    assert room["snapshot_amortised"] > 0  # (the snapshots timed as taken)


def phase(orders: int, commands: int, deliveries: int, cpu_s: float, *,
          timed_out: int = 0) -> dict[str, Any]:
    """The part of a phase's figures (``bench.run.phase_figures``) the floor reads."""
    return {"orders": orders, "commands": commands, "deliveries": deliveries,
            "cpu_us_per_order": round(cpu_s / orders * 1e6, 1),
            "cpu_us_per_command": round(cpu_s / commands * 1e6, 1),
            "cpu_us_per_delivery": round(cpu_s / deliveries * 1e6, 2),
            "window_close_lateness_ms": {"count": timed_out}}


RULES = {"rules_core": "rules core: interpreted", "commands": 331, "snapshot_every": 100,
         "snapshots_taken": 6,
         "room_us_per_command": {"decide": 40.0, "views_and_frames_3_audiences": 10.0,
                                 "total": 50.0}}


def tiny_run() -> dict[str, Any]:
    """Two Orders of 5 room commands each, 1 spectator: the referee's players sent 8 (the
    clock closed 2 windows), every command reached all 3 members; the baseline relayed all
    10, each to the 2 other members."""
    referee = {"paced": phase(2, 8, 30, 0.01, timed_out=2), "max": phase(4, 20, 60, 0.006)}
    baseline = {"paced": phase(2, 10, 20, 0.001), "max": phase(4, 20, 40, 0.0008)}
    return {"referee": referee, "baseline": baseline}


def test_the_floor_counts_the_clocks_closes_and_the_commanders_answer() -> None:
    run = tiny_run()
    figures = floor.figures(run["referee"], run["baseline"], RULES)
    # the room decided the players' 8 and the clock's 2: 5 per Order, as the baseline relayed
    assert figures["referee_commands_per_order"] == 4
    assert figures["clock_closes_per_order"] == 1
    assert figures["room_commands_per_order"] == figures["baseline_commands_per_order"] == 5
    # the baseline's relay (100 µs a command) and the rules' 50 µs, for each of the 5
    assert figures["paced_cpu_us_per_order"] == 750
    assert figures["paced_overhead_us_per_order"] == 5000 - 750
    # every member gets a referee command's frame, every other member a baseline relay
    assert figures["referee_deliveries_per_command"] == 3
    assert figures["baseline_deliveries_per_command"] == 2
    # each of the 3 deliveries a baseline delivery (20 µs), plus 50 µs of rules over the 3
    assert figures["max_cpu_us_per_delivery"] == pytest.approx(20 + 50 / 3, abs=0.01)
    assert figures["cpu_per_delivery_max_ratio"] == pytest.approx((20 + 50 / 3) / 20, abs=0.01)
    # the low one: a baseline relay per command (40 µs) and the rules, over 3 deliveries
    assert figures["max_cpu_us_per_delivery_low"] == pytest.approx(90 / 3, abs=0.01)
    assert figures["max_overhead_us_per_delivery"] == pytest.approx(100 - (20 + 50 / 3),
                                                                    abs=0.01)


def test_a_runs_record_and_report_carry_the_floor() -> None:
    run = tiny_run()
    result = {
        "date": "2026-11-29T20:00:00+00:00", "commit": "aaaaaaa",
        "uncommitted_server_changes": False,
        "params": {"rooms": 2, "spectators": 1, "nodes": 1, "sockets": 6, "duration_s": 2.0},
        **run, "floor": floor.figures(run["referee"], run["baseline"], RULES),
    }
    figures = record(result, source="bench.run")["figures"]
    for name in ("rules_us_per_command", "room_commands_per_order", "paced_cpu_us_per_order",
                 "max_cpu_us_per_delivery", "cpu_per_delivery_max_ratio"):
        assert figures[f"floor/{name}"] > 0
    lines = "\n".join(floor.markdown_lines(result["floor"], run["referee"], run["baseline"]))
    assert "## Floor" in lines and "| paced CPU µs/order | 5,000 | 750 | 500 |" in lines
    skipped = floor.markdown_lines(floor.not_measured("run with --no-floor"), {}, {})
    assert skipped == ["Floor: not measured (run with --no-floor).", ""]
