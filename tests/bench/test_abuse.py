"""``bench.abuse`` runs end to end at a tiny size and writes its report (no timing asserts)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from bench import abuse
from bench.run_history import read

pytestmark = pytest.mark.slow  # runs the bench tool itself

needs_redis = pytest.mark.skipif(shutil.which("redis-server") is None
                                 and not Path("/usr/bin/redis-server").exists(),
                                 reason="redis-server is not installed")


@needs_redis
def test_the_abuse_bench_measures_the_bystander_under_every_abuse(tmp_path: Path) -> None:
    path = abuse.main(["--duration", "1", "--flood-rooms", "1", "--clients", "1",
                       "--results-dir", str(tmp_path),
                       "--history", str(tmp_path / "history.jsonl")])
    result = json.loads(path.read_text())
    assert path.with_suffix(".md").exists() and (tmp_path / result["referee_log"]).exists()
    assert {"date", "commit", "params", "phases", "target_p50_ms"} <= set(result)
    phases = result["phases"]
    assert list(phases) == list(abuse.PHASES)
    for figures in phases.values():
        assert figures["ping_ms"]["count"] > 0 and figures["command_ms"]["count"] > 0
        assert figures["server_cpu_share"] >= 0
        assert figures["bench_loop_lag_ms"]["count"] > 0
        assert set(figures["server_loop_stalls_ms"]) >= {"count", "max"}
    assert phases["quiet"]["abuse"] == {}
    assert phases["options"]["abuse"]["options_answered"] > 0
    assert phases["options"]["abuse"]["flood_commands"] > 0
    assert sum(n for key, n in phases["rooms"]["abuse"].items() if key.startswith("rooms_")) > 0
    assert phases["bodies"]["abuse"]["bodies_413"] > 0, "refused for their size"
    assert phases["json"]["abuse"]["json_400"] > 0, "refused as bad_json"
    report = path.with_suffix(".md").read_text()
    assert "| options |" in report and "server loop stalls" in report
    # the run appended its record to the history it was given (never the repository's)
    [entry] = read(tmp_path / "history.jsonl")
    assert entry["kind"] == "abuse" and entry["source"] == "bench.abuse"
    assert entry["config"]["flood_rooms"] == 1
    assert entry["figures"]["phases/all/ping_ms/p50"] == phases["all"]["ping_ms"]["p50"]
