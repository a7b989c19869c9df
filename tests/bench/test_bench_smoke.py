"""The benchmark runs end to end at a tiny size and writes its results (no timing asserts)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from bench import run
from bench.run_history import read

pytestmark = pytest.mark.slow  # runs the bench tool itself

needs_redis = pytest.mark.skipif(shutil.which("redis-server") is None
                                 and not Path("/usr/bin/redis-server").exists(),
                                 reason="redis-server is not installed")


@needs_redis
def test_benchmark_runs_end_to_end_and_writes_results(tmp_path: Path) -> None:
    """2 rooms x (2 players + 1 spectator), a few Orders paced and at maximum rate."""
    path = run.main(["--rooms", "2", "--spectators", "1", "--duration", "2", "--pace", "0.5",
                     "--aro-window", "0.1", "--results-dir", str(tmp_path),
                     "--history", str(tmp_path / "history.jsonl")])
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
    # the referee's restart and the baseline's, the same way (its floor), side by side
    for restart in (result["restart"], result["baseline"]["restart"]):
        assert restart["measured"] and restart["errors"] == 0, restart
        assert restart["sockets"] == 2 * (2 + 1)
        assert restart["kill_to_all_rooms_back_s"] >= restart["process_start_s"]
        # (CPU is counted in 10 ms ticks: a tiny run's reconnecting may show none)
        assert restart["server_cpu_s"] >= restart["server_cpu_serving_s"] > 0
        assert restart["load_cpu_s"] >= restart["load_cpu_reconnecting_s"] >= 0
        assert restart["listen_overflows"] is None or restart["listen_overflows"] >= 0
    assert result["ratios"]["restart_all_back"] is not None
    assert entry["figures"]["baseline/restart/kill_to_all_rooms_back_s"] == \
        result["baseline"]["restart"]["kill_to_all_rooms_back_s"]
    assert "### The same restart of the baseline" in report
