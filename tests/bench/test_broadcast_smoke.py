"""The broadcast bench runs end to end at a tiny size (no timing asserts): 20 spectators
over two referee nodes sharing one Redis, then over two baseline processes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from bench import broadcast
from bench.run_history import read

pytestmark = pytest.mark.slow  # runs the bench tool itself

needs_redis = pytest.mark.skipif(shutil.which("redis-server") is None
                                 and not Path("/usr/bin/redis-server").exists(),
                                 reason="redis-server is not installed")


@needs_redis
def test_broadcast_runs_and_every_spectator_gets_every_frame(tmp_path: Path) -> None:
    path = broadcast.main(["--spectators", "20", "--crowd-workers", "2", "--join-s", "1",
                           "--join-pace", "0.1", "--pace", "0.05", "--events", "8",
                           "--settle-s", "0.5", "--join-timeout-s", "20",
                           "--leave-settle-s", "0.5",
                           "--results-dir", str(tmp_path),
                           "--history", str(tmp_path / "history.jsonl")])
    result = json.loads(path.read_text())
    # the run appended its record to the history it was given (never the repository's)
    [entry] = read(tmp_path / "history.jsonl")
    assert (entry["kind"], entry["commit"], entry["config"]["spectators"]) == \
        ("broadcast", result["commit"], 20)
    assert result["kind"] == "broadcast"
    assert {"date", "commit", "machine", "params", "targets", "referee", "baseline",
            "ratios"} <= set(result)
    assert (tmp_path / result["referee_log"]).exists()
    report = path.with_suffix(".md").read_text()
    assert "Command to the last spectator" in report
    for target in ("referee", "baseline"):
        run = result[target]
        assert run["errors"] == 0, run["error_examples"]
        assert run["joined"] == 20
        events = run["events"]
        # Every command made one frame for the crowd, and every spectator got every one.
        assert events["frames"] == events["commands"] == 8
        assert events["frames_incomplete"] == 0
        assert events["spectator_event_frames"] == 8 * 20
        assert events["spectator_deliveries"] >= 8 * 20  # (a spectator count may come too)
        assert events["to_last_spectator_ms"]["count"] == 8
        assert set(events["to_last_spectator_ms"]) == {"count", "p50", "p90", "p99", "p99.9",
                                                       "max"}
        assert run["joins"]["players_latency_ms"]["count"] == run["joins"]["players_commands"]
        assert run["joins"]["players_commands"] > 0
        assert run["joins"]["spectator_join_ms"]["count"] == 20
        assert len(events["nodes_cpu_s"]) == 2
        # The whole crowd closed at once, the players playing on meanwhile.
        leaves = run["leaves"]
        assert leaves["still_open"] == 0
        assert leaves["players_commands"] > 0
        assert leaves["players_latency_ms"]["count"] == leaves["players_commands"]
    assert set(result["referee"]["slow_collections"]) == {"joins", "events", "leaves"}
    assert "The crowd leaves" in report
    # The owner's command latency in its room, read from each node's /metrics per phase:
    # every command the players played in the events phase went through node 1's room.
    # Every command of the players as it went (for pooling runs): sent when, by whom, how long.
    raw = result["referee"]["joins"]["players_commands_raw"]
    assert len(raw) == result["referee"]["joins"]["players_commands"]
    assert [at for at, _, _ in raw] == sorted(at for at, _, _ in raw) and raw[0][0] == 0
    assert {side for _, side, _ in raw} == {"A", "B"}
    assert max(ms for _, _, ms in raw) == pytest.approx(
        result["referee"]["joins"]["players_latency_ms"]["max"], abs=0.01)
    owner = result["referee"]["events"]["nodes_histograms"][0]["referee_command_latency_seconds"]
    assert owner["+Inf"] >= 8
    # The referee's players' latency split by the side that commanded: both sides command,
    # and the split accounts for every command of the phase.
    split = result["referee"]["events"]["players_latency_by_commander_ms"]
    assert split["A"]["count"] > 0 and split["B"]["count"] > 0
    played = result["referee"]["events"]["players_latency_ms"]["count"]
    assert split["A"]["count"] + split["B"]["count"] == played
    assert result["referee"]["events"]["players_answer_ms"]["count"] == played
    assert "commands by B" in report
    assert result["baseline"]["events"]["nodes_histograms"] == []
    for ratio in ("cpu_per_spectator_delivery", "p99_to_last_spectator", "bytes_per_spectator"):
        assert ratio in result["ratios"]
