"""bench.reshard_cost's arithmetic (``bench.cluster_event_runs``): the commands sent while the move ran, what a run keeps,
each round's ``moving`` over ``still`` ratios and the record's medians (the runs themselves:
docs/performance.md, "Moving slots under live games")."""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

from bench.cluster_event_runs import medians, node_errors, pick, ratios, window_latencies

STARTED = 1_800_000_000.0  # the paced phase's start, wall clock


def run(cpu: float, latencies: list[float], sent_after: list[float],
        errors: int = 0) -> dict[str, Any]:
    """The part of ``bench.run``'s referee result ``pick`` reads: 10 Orders, each command
    sent ``sent_after`` seconds into the paced phase."""
    started_at = datetime.datetime.fromtimestamp(STARTED, datetime.UTC).isoformat()
    return {
        "paced": {"started_at": started_at, "cpu_us_per_order": cpu,
                  "latency_ms": {"p50": min(latencies), "p99": max(latencies),
                                 "max": max(latencies)},
                  "orders": 10, "tried_again": 2, "reopened": 0, "errors": errors,
                  "error_examples": ["room 3: act rejected: bad_command"][:errors],
                  "raw": {"sent_at": [STARTED + s for s in sent_after],
                          "latencies_ms": latencies}},
        "max": {"orders_per_s": 50.0, "cpu_us_per_order": cpu / 2, "tried_again": 0,
                "reopened": 0, "errors": 0, "error_examples": []},
    }


def test_during_keeps_the_commands_sent_inside_the_window_only() -> None:
    raw = {"sent_at": [10.0, 11.0, 12.5, 14.0], "latencies_ms": [5.0, 300.0, 7.0, 9.0]}
    inside = window_latencies(raw, 11.0, 12.5)
    assert inside["commands"] == 2
    assert inside["max_ms"] == 300.0 and inside["p50_ms"] == 7.0
    assert window_latencies(raw, 20.0, 30.0) == {"commands": 0}


def test_a_run_keeps_its_paced_phase_its_window_and_redis_cpu_per_order() -> None:
    picked = pick(run(1000.0, [4.0, 250.0, 6.0], [0.5, 2.0, 9.0]), {"paced": 0.05},
                  (1.0, 3.0))
    assert picked["paced"]["redis_cpu_us_per_order"] == 5000.0  # 0.05 s over 10 Orders
    assert picked["paced"]["tried_again"] == 2
    assert picked["during"] == {"commands": 1, "p50_ms": 250.0, "p99_ms": 250.0,
                                "max_ms": 250.0}
    assert picked["max"]["orders_per_s"] == 50.0
    failed = pick(run(1000.0, [4.0], [0.5], errors=1), None, (1.0, 3.0))
    assert failed["paced"]["error_examples"] == ["room 3: act rejected: bad_command"]


def one_round(moving_cpu: float, moving_latency: float) -> dict[str, Any]:
    still = pick(run(1000.0, [4.0, 5.0], [1.0, 2.0]), {"paced": 0.01}, (0.0, 3.0))
    moving = pick(run(moving_cpu, [4.0, moving_latency], [1.0, 2.0]), {"paced": 0.02},
                  (0.0, 3.0))
    moving["move"] = {"seconds": 3.0, "slots": 100, "keys": 40, "rooms": 2}
    for picked in (still, moving):  # (as ``play_rounds`` adds it: its nodes' log)
        picked["node"] = {"errors": 0, "error_examples": []}
    round_ = {"still": still, "moving": moving}
    round_["ratios"] = ratios(round_, "moving")
    return round_


def test_each_round_sets_the_moving_run_over_its_still_run() -> None:
    round_ = one_round(1200.0, 50.0)
    assert round_["ratios"]["paced/cpu_us_per_order"] == 1.2
    assert round_["ratios"]["during/max_ms"] == 10.0  # 50 against 5 ms
    assert round_["ratios"]["paced/redis_cpu_us_per_order"] == 2.0
    assert round_["ratios"]["max/orders_per_s"] == 1.0


def test_the_record_holds_medians_ranges_the_move_and_every_error() -> None:
    rounds = [one_round(1100.0, 5.0), one_round(1300.0, 5.0), one_round(1000.0, 5.0)]
    rounds[1]["moving"]["paced"]["errors"] = 3
    figures = medians(rounds, ("still", "moving"))
    assert figures["ratios/paced/cpu_us_per_order"] == 1.1
    assert (figures["ratios/paced/cpu_us_per_order/min"],
            figures["ratios/paced/cpu_us_per_order/max"]) == (1.0, 1.3)
    assert figures["moving/move/slots"] == 100
    assert figures["moving/errors_total"] == 3 and figures["still/errors_total"] == 0


def test_a_run_counts_the_error_lines_of_its_nodes_log(tmp_path: Path) -> None:
    log = tmp_path / "referee.log"
    log.write_text(
        "2026-12-02 11:44:29,012 WARNING server.rooms.room: room r: storage is unavailable\n"
        "2026-12-02 11:44:29,552 ERROR server.rooms.room: room r failed on WindowExpired\n"
        "Traceback (most recent call last):\n"
        "AttributeError: 'NoneType' object has no attribute 'writelines'\n"
        "INFO:     127.0.0.1:53870 - \"WebSocket /ws?room=r\" [accepted]\n"
        "ERROR:    Exception in ASGI application\n")
    found = node_errors(log)
    assert found["errors"] == 2
    assert found["error_examples"][0].endswith("room r failed on WindowExpired")
    assert node_errors(tmp_path / "none.log") == {"errors": 0, "error_examples": []}


def test_the_record_sums_each_runs_node_errors() -> None:
    rounds = [one_round(1100.0, 5.0), one_round(1300.0, 5.0)]
    rounds[0]["moving"]["node"] = {"errors": 2, "error_examples": ["... ERROR ..."]}
    figures = medians(rounds, ("still", "moving"))
    assert figures["moving/node_errors_total"] == 2 and figures["still/node_errors_total"] == 0
