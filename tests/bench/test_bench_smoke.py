"""The benchmark runs end to end at a tiny size and writes its results (no timing asserts)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from bench import run
from bench.run_history import read
from testkit.scripted_game import plan

pytestmark = pytest.mark.slow  # runs the bench tool itself

needs_redis = pytest.mark.skipif(shutil.which("redis-server") is None
                                 and not Path("/usr/bin/redis-server").exists(),
                                 reason="redis-server is not installed")


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """2 rooms x (2 players + 1 spectator), a few Orders paced and at maximum rate: its
    results file (the history beside it)."""
    tmp_path = tmp_path_factory.mktemp("bench-run")
    return run.main(["--rooms", "2", "--spectators", "1", "--duration", "2", "--pace", "0.5",
                     "--aro-window", "0.1", "--results-dir", str(tmp_path),
                     "--history", str(tmp_path / "history.jsonl")])


@needs_redis
def test_benchmark_runs_end_to_end_and_writes_results(tiny_run: Path) -> None:
    path, tmp_path = tiny_run, tiny_run.parent
    result = json.loads(path.read_text())
    # the run appended its record to the history it was given (never the repository's)
    [entry] = read(tmp_path / "history.jsonl")
    assert (entry["kind"], entry["commit"], entry["runs"]) == ("run", result["commit"], 1)
    assert entry["config"]["rooms"] == 2 and entry["config"]["spectators"] == 1
    assert entry["figures"]["referee/max/cpu_us_per_delivery"] == \
        result["referee"]["max"]["cpu_us_per_delivery"]
    assert path.with_suffix(".md").exists()
    assert (tmp_path / json.loads(path.read_text())["referee_log"]).exists()
    assert {"date", "commit", "params", "referee", "baseline", "ratios", "restart"} <= set(result)
    for target in ("referee", "baseline"):
        for phase in ("paced", "max"):
            figures = result[target][phase]
            assert {"orders_per_s", "deliveries_per_s", "cpu_us_per_delivery", "latency_ms",
                    "window_close_lateness_ms"} <= set(figures)
            assert set(figures["latency_ms"]) == {"count", "p50", "p90", "p99", "p99.9", "max"}
            assert figures["errors"] == 0, figures["error_examples"]
            by_second = figures["latency_by_second"]
            assert by_second["seconds"] >= 1
            assert sum(w["count"] for w in by_second["worst"]) <= figures["latency_ms"]["count"]
            assert 0 <= figures["server_system_cpu_share"] <= figures["server_cpu_share"]
            assert figures["machine_steal_share"] >= 0
            # the load generators timed their own loops all phase long
            assert figures["load_loop_lag_ms"]["count"] > 0
        assert result[target]["max"]["orders"] > 0
    redis_events = result["referee"]["paced"]["redis"]["latency_events"]
    assert isinstance(redis_events, list)  # Redis's latency monitor was read (may be empty)
    report = path.with_suffix(".md").read_text()
    assert "The load generators' own event loops, paced" in report
    assert "latency event" in report
    assert result["referee"]["setup_errors"] == 0
    assert "bytes_per_connection" in result["referee"]["memory"]
    # the referee's restart and the baseline's, the same way (its floor), side by side, and
    # the baseline's greeted restart after it
    greeted = result["baseline"]["greeted_restart"]
    for restart in (result["restart"], result["baseline"]["restart"], greeted):
        assert restart["measured"] and restart["errors"] == 0, restart
        assert restart["sockets"] == 2 * (2 + 1)
        assert restart["kill_to_all_rooms_back_s"] >= restart["process_start_s"]
        # (CPU is counted in 10 ms ticks: a tiny run's reconnecting may show none)
        assert restart["server_cpu_s"] >= restart["server_cpu_serving_s"] > 0
        assert restart["load_cpu_s"] >= restart["load_cpu_reconnecting_s"] >= 0
        assert restart["listen_overflows"] is None or restart["listen_overflows"] >= 0
        shares = restart["cores_busy_share"]
        assert set(shares) == {str(n) for n in range(os.cpu_count() or 1)}
        assert all(0 <= share <= 1 for share in shares.values())
        bound = restart["cores_bound_s"]  # (None: a phase shorter than two readings)
        # (never both at once: the one needs the load core waiting, the other full)
        assert bound is None or 0 <= bound["server_bound_s"] + bound["load_bound_s"] \
            <= bound["measured_s"] + 0.01
    assert result["ratios"]["restart_all_back"] is not None
    assert entry["figures"]["baseline/restart/kill_to_all_rooms_back_s"] == \
        result["baseline"]["restart"]["kill_to_all_rooms_back_s"]
    assert "### The same restart of the baseline" in report
    # what a reconnecting member reads: one welcome and one catch-up each, and whatever
    # else the referee sends then (presence, spectator counts); the baseline sends nothing
    by_type = result["restart"]["frames_per_socket_by_type"]
    assert by_type["welcome"] == 1 and by_type["events"] >= 1, by_type
    assert result["restart"]["frames_per_socket"] == pytest.approx(sum(by_type.values()),
                                                                   abs=0.05)
    assert result["baseline"]["restart"]["frames_per_socket"] == 0
    assert "frames each reconnected socket read" in report
    # Redis's part of the referee's restart (on the load core): each room read back and
    # claimed, so at least a command per room; the baseline has no Redis
    redis = result["restart"]["redis"]
    assert redis["commands_per_room"] >= 1 and redis["cpu_s"] >= 0, redis
    assert sum(redis["commands_per_room_by_name"].values()) == pytest.approx(
        redis["commands_per_room"], abs=0.05)
    assert "redis" not in result["baseline"]["restart"]
    assert "- Redis from the kill until every member was back" in report
    # greeted: each member read one frame of the referee's bytes per reconnected socket
    assert greeted["greeting_bytes"] == round(result["restart"]["bytes_per_socket"]) > 0
    assert greeted["frames_per_socket"] == 1
    assert greeted["bytes_per_socket"] == greeted["greeting_bytes"]
    assert "| restart | referee | baseline | baseline, greeted |" in report
    assert result["ratios"]["restart_greeted_all_back"] == round(
        greeted["kill_to_all_rooms_back_s"]
        / result["baseline"]["restart"]["kill_to_all_rooms_back_s"], 2)
    # the referee log's slow collections, counted per phase
    for phase in ("paced", "max", "restart"):
        assert result["referee"][phase]["slow_collections"]["count"] >= 0


@needs_redis
def test_the_run_measures_its_floor_beside_the_baseline(tiny_run: Path) -> None:
    """The rules core's work per command (bench.rules_cost on the server core) on top of the
    baseline's socket work, in the same run (bench/floor.py)."""
    result = json.loads(tiny_run.read_text())
    floor, baseline = result["floor"], result["baseline"]
    assert floor["measured"] and floor["rules_commands"] > 0
    [entry] = read(tiny_run.parent / "history.jsonl")
    for name in ("rules_us_per_command", "referee_commands_per_order", "clock_closes_per_order",
                 "room_commands_per_order", "baseline_commands_per_order",
                 "referee_deliveries_per_command", "baseline_deliveries_per_command",
                 "paced_cpu_us_per_order", "max_cpu_us_per_delivery",
                 "max_cpu_us_per_delivery_low", "cpu_per_delivery_max_ratio"):
        assert entry["figures"][f"floor/{name}"] > 0, name
    # the clock closed every 2nd window of the paced phase: the room decided those too
    assert floor["room_commands_per_order"] == pytest.approx(
        floor["referee_commands_per_order"] + floor["clock_closes_per_order"], abs=0.02)
    # a referee's command reaches every member (the commander's frame is its answer), a
    # baseline's relay every other member
    assert floor["referee_deliveries_per_command"] >= 3
    assert floor["baseline_deliveries_per_command"] == 2
    # the baseline's socket work plus the rules core's: above the baseline's own
    assert floor["paced_cpu_us_per_order"] >= baseline["paced"]["cpu_us_per_order"]
    assert floor["max_cpu_us_per_delivery"] >= baseline["max"]["cpu_us_per_delivery"]
    assert floor["cpu_per_delivery_max_ratio"] >= 1
    assert "## Floor" in tiny_run.with_suffix(".md").read_text()


@needs_redis
def test_the_run_measures_its_restart_floor_beside_the_baselines_restart(tiny_run: Path) -> None:
    """The rooms read back at the point of the game they were killed at (bench.restart_cost
    on the server core) on top of the baseline's restart, in the same run
    (bench/restart_floor.py)."""
    result = json.loads(tiny_run.read_text())
    floor, baseline = result["floor"], result["baseline"]["restart"]
    [entry] = read(tiny_run.parent / "history.jsonl")
    for name in ("restart_us_per_room", "restart_in_process_s", "restart_all_back_s",
                 "restart_all_back_ratio", "restart_all_back_serial_s"):
        assert entry["figures"][f"floor/{name}"] > 0, name
    played = result["referee"]["paced"]["orders"] + result["referee"]["max"]["orders"]
    # (a room that played the whole game stops)
    assert floor["restart_orders_at_kill"] == min(round(played / 2), len(plan(7).orders))
    # the greeted restart is its socket part; never less than that restart
    greeted = result["baseline"]["greeted_restart"]
    assert floor["restart_floor_greeted"] is True
    assert floor["restart_greeting_bytes"] == greeted["greeting_bytes"]
    assert floor["restart_all_back_s"] >= greeted["kill_to_all_rooms_back_s"]
    assert floor["restart_greeted_ratio"] == round(
        greeted["kill_to_all_rooms_back_s"] / baseline["kill_to_all_rooms_back_s"], 2)
    assert "### The restart's floor" in tiny_run.with_suffix(".md").read_text()
