"""``bench.summarize`` over a small history, and the records ``bench.run_history`` makes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bench import summarize
from bench.run_history import append, read, record, record_run


def run_result(date: str, commit: str, *, p99: float, cpu_per_order: float,
               rooms: int = 3000, dirty: bool = False) -> dict[str, Any]:
    """The part of a ``bench.run`` results file the history keeps."""
    return {
        "date": date, "commit": commit, "uncommitted_server_changes": dirty,
        "machine": {"cpus": 2},
        "params": {"rooms": rooms, "spectators": 4, "nodes": 1, "sockets": rooms * 6,
                   "duration_s": 30.0, "pace_s": 10.0, "aro_window_s": 2.0,
                   "timeout_every": 2, "seed": 7},
        "referee": {"paced": {"latency_ms": {"p50": 1.0, "p99": p99},
                              "cpu_us_per_order": cpu_per_order},
                    "max": {"cpu_us_per_delivery": 80.0, "errors": 0,
                            "error_examples": ["not a figure"]},
                    "memory": {"bytes_per_connection": 32_000}},
        "baseline": {"max": {"cpu_us_per_delivery": 20.0}},
        "ratios": {"cpu_per_delivery_max": 4.0},
        "restart": {"measured": True, "kill_to_all_rooms_back_s": 41.9},
    }


def broadcast_result(date: str, commit: str, p99: float) -> dict[str, Any]:
    return {"kind": "broadcast", "date": date, "commit": commit,
            "uncommitted_server_changes": False, "machine": {"load_average_before": [3.0]},
            "params": {"spectators": 10_000, "nodes": 2, "join_s": 30.0},
            "referee": {"events": {"to_last_spectator_ms": {"p99": p99}}},
            "ratios": {"cpu_per_spectator_delivery": 0.9}}


def history(tmp_path: Path) -> Path:
    path = tmp_path / "history.jsonl"
    for date, p99, cpu in (("2026-11-26T08:00:00+00:00", 700.0, 3500.0),
                           ("2026-11-26T08:10:00+00:00", 20.0, 1000.0),
                           ("2026-11-26T08:20:00+00:00", 30.0, 1100.0)):
        append(record(run_result(date, "aaaaaaa", p99=p99, cpu_per_order=cpu),
                      source="bench.run"), path)
    # an older commit, from a docs table: one record standing for the median of 3 runs
    old = record(run_result("2026-11-21", "bbbbbbb", p99=13.0, cpu_per_order=2200.0),
                 source="docs/performance.md table")
    append({**old, "runs": 3, "aggregate": "median"}, path)
    # the same commit with uncommitted changes, and another size: groups of their own
    append(record(run_result("2026-11-26T09:00:00+00:00", "aaaaaaa", p99=1.0,
                             cpu_per_order=1.0, dirty=True), source="bench.run"), path)
    append(record(run_result("2026-11-26T09:10:00+00:00", "aaaaaaa", p99=2.0,
                             cpu_per_order=900.0, rooms=100), source="bench.run"), path)
    append(record(broadcast_result("2026-11-26T06:30:00+00:00", "ccccccc", 235.0),
                  source="bench.broadcast"), path)
    return path


def rows(text: str) -> list[list[str]]:
    return [[c.strip() for c in line.strip("|").split("|")]
            for line in text.splitlines() if line.startswith("| ") and "configuration" not in line]


def test_a_run_record_keeps_its_configuration_and_numbers_only() -> None:
    entry = record(run_result("2026-11-26T08:00:00+00:00", "aaaaaaa", p99=711.4,
                              cpu_per_order=3520.7), source="bench.run")
    assert entry["kind"] == "run" and entry["runs"] == 1 and "aggregate" not in entry
    assert entry["config"] == {"rooms": 3000, "spectators": 4, "nodes": 1, "sockets": 18000,
                               "duration_s": 30.0, "pace_s": 10.0, "aro_window_s": 2.0,
                               "timeout_every": 2, "seed": 7, "restart": True}
    figures = entry["figures"]
    assert figures["referee/paced/latency_ms/p99"] == 711.4
    assert figures["restart/kill_to_all_rooms_back_s"] == 41.9
    assert all(isinstance(v, int | float) for v in figures.values())
    assert "referee/paced/latency_ms/p90" not in figures  # absent in the results: not invented


def test_summarize_gives_the_median_per_configuration_and_commit(tmp_path: Path) -> None:
    records = summarize.load([history(tmp_path)])
    table = rows(summarize.table(records, "run"))
    head = ["configuration", "date", "commit", "runs", *(n for n, _ in summarize.COLUMNS)]
    by_key = {(r[0], r[2]): dict(zip(head, r, strict=True)) for r in table}
    three = by_key[("3,000 × 4", "`aaaaaaa`")]
    assert three["runs"] == "3" and three["date"] == "2026-11-26"
    assert three["p99 paced ms"] == "30"  # median of 700, 20, 30
    assert three["paced CPU µs/order"] == "1,100"
    assert three["p99.9 paced ms"] == "-"  # no record has it
    old = by_key[("3,000 × 4", "`bbbbbbb`")]
    assert old["runs"] == "3*"  # one record standing for a median of three
    dirty = by_key[("3,000 × 4", "`aaaaaaa` + uncommitted changes")]
    assert dirty["p99 paced ms"] == "1" and dirty["runs"] == "1"
    assert by_key[("100 × 4", "`aaaaaaa`")]["paced CPU µs/order"] == "900"
    # newest group first: 100 x 4 (09:10), the uncommitted run (09:00), aaaaaaa, bbbbbbb
    assert [(r[0], r[2]) for r in table] == [
        ("100 × 4", "`aaaaaaa`"), ("3,000 × 4", "`aaaaaaa` + uncommitted changes"),
        ("3,000 × 4", "`aaaaaaa`"), ("3,000 × 4", "`bbbbbbb`")]


def test_summarize_keeps_kinds_apart_and_filters(tmp_path: Path) -> None:
    path = history(tmp_path)
    out = summarize.main(["--history", str(path), "--broadcast"])
    assert out.startswith("## broadcast")
    [row] = rows(out)
    assert row[0] == "10,000 spectators on 2 nodes, joins over 30 s" and row[2] == "`ccccccc`"
    assert "235" in row
    out = summarize.main(["--history", str(path), "--kind", "run", "--commit", "bbbbbbb"])
    assert [r[2] for r in rows(out)] == ["`bbbbbbb`"]
    out = summarize.main(["--history", str(path), "--since", "2026-11-26"])
    assert "`bbbbbbb`" not in out and "## run" in out and "## broadcast" in out


def test_summarize_reads_results_files_and_counts_a_run_once(tmp_path: Path) -> None:
    result = run_result("2026-11-26T08:00:00+00:00", "aaaaaaa", p99=700.0,
                        cpu_per_order=3500.0)
    results_file = tmp_path / "2026-11-26T080000Z-r3000-s4.json"
    results_file.write_text(json.dumps(result))
    [row] = rows(summarize.table(summarize.load([results_file]), "run"))
    assert row[3] == "1" and row[5] == "700"
    # the same run in a history and as a results file
    path = tmp_path / "history.jsonl"
    append(record(result, source="bench.run"), path)
    [row] = rows(summarize.table(summarize.load([path, results_file]), "run"))
    assert row[3] == "1"


def test_a_server_code_pools_commits_that_ran_the_same_server(tmp_path: Path) -> None:
    path = tmp_path / "history.jsonl"
    for date, commit, p99 in (("2026-11-26T06:26:00+00:00", "ddddddd", 1448.0),
                              ("2026-11-26T06:30:00+00:00", "eeeeeee", 235.0),
                              ("2026-11-26T06:32:00+00:00", "eeeeeee", 540.0)):
        entry = record(broadcast_result(date, commit, p99), source="bench.broadcast")
        append({**entry, "server_code": "fffffff"}, path)
    [row] = rows(summarize.table(summarize.load([path]), "broadcast"))
    assert row[2] == "`ddddddd`, `eeeeeee` (server `fffffff`)"
    assert row[3] == "3" and row[5] == "540"


def test_record_run_appends_or_keeps_nothing(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    result = run_result("2026-11-26T08:00:00+00:00", "aaaaaaa", p99=1.0, cpu_per_order=1.0)
    assert record_run(result, None, source="bench.run") is None  # --no-history
    assert not path.exists()
    record_run(result, path, source="bench.run", profile="paced phase, py-spy")
    record_run(result, path, source="bench.run")
    first, second = read(path)
    assert first["config"]["variant"] == "profiled, paced phase, py-spy"
    assert "variant" not in second["config"]


def test_latest_keeps_the_newest_commit_of_each_configuration(tmp_path: Path) -> None:
    path = tmp_path / "history.jsonl"
    # two commits measured the same day (a former table's rows: dates without a time): the
    # later in the file is the newer
    for commit, p99 in (("1111111", 50.0), ("2222222", 40.0)):
        append(record(run_result("2026-11-21", commit, p99=p99, cpu_per_order=2000.0),
                      source="docs/performance.md table"), path)
    append(record(run_result("2026-11-21", "1111111", p99=3.0, cpu_per_order=900.0, rooms=100),
                  source="docs/performance.md table"), path)
    text = summarize.main(["--history", str(path), "--kind", "run", "--latest"])
    assert [(r[0], r[2]) for r in rows(text)] == [("100 × 4", "`1111111`"),
                                                  ("3,000 × 4", "`2222222`")]
