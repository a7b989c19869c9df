"""``bench.abuse`` keeps its runs in the history like ``bench.run``: its record (every number
of its report, named by its path in the results file), the ``--history`` / ``--no-history``
hook (its ``main`` with the measurement replaced: no servers), and ``bench.summarize``'s
table of them, a row per phase."""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

import pytest

from bench import abuse, summarize
from bench.measure import percentiles
from bench.run_history import ABUSE_PHASES, append, read, record


def abuse_result(date: str, commit: str, *, ping_p50: float = 1.0, budgets: bool = True,
                 phases: tuple[str, ...] = ABUSE_PHASES) -> dict[str, Any]:
    """A results dictionary shaped as ``bench.abuse.measure`` makes it."""
    def phase(scale: float) -> dict[str, Any]:
        return {
            "ping_ms": percentiles([ping_p50 * scale] * 9 + [40.0 * scale]),
            "command_ms": percentiles([3.0 * scale, 9.5 * scale]),
            "lost": 0,
            "bench_loop_lag_ms": percentiles([0.4, 0.6, 2.5]),
            "server_cpu_share": 0.25, "server_core_busy_share": 0.5,
            "server_loop_stalls_ms": percentiles([25.0, 61.5] if scale > 1 else []),
            "seconds": 10.02,
            "abuse": {"options_answered": 812, "rooms_429": 3100} if scale > 1 else {},
        }
    return {
        "kind": "abuse", "date": date, "commit": commit, "uncommitted_server_changes": False,
        "machine": {"cpus": 2, "server_core": "0", "load_cores": "1",
                    "load_average_before": [0.3, 0.2, 0.1], "load_average_after": [1.1, 0.4, 0.2]},
        "params": {"duration_s": 10.0, "flood_rooms": 4, "clients": 4, "budgets": budgets,
                   "seed": 7, "phases": list(phases)},
        "target_p50_ms": 20.0, "referee_log": "abuse-referee.log",
        "phases": {name: phase(1.0 if name == "quiet" else 2.0) for name in phases},
    }


def test_an_abuse_record_keeps_every_number_of_its_report() -> None:
    result = abuse_result("2026-11-26T11:00:00+00:00", "aaaaaaa", ping_p50=0.7)
    entry = record(result, source="bench.abuse")
    assert entry["kind"] == "abuse" and entry["runs"] == 1 and entry["source"] == "bench.abuse"
    assert entry["config"] == {"duration_s": 10.0, "flood_rooms": 4, "clients": 4,
                               "budgets": True, "seed": 7}
    assert entry["host"] == {"cpus": 2, "load_average_before": [0.3, 0.2, 0.1],
                             "load_average_after": [1.1, 0.4, 0.2]}
    figures = entry["figures"]
    assert all(isinstance(v, int | float) for v in figures.values())
    assert figures["target_p50_ms"] == 20.0
    assert figures["phases/quiet/ping_ms/p50"] == 0.7
    assert figures["phases/all/server_loop_stalls_ms/max"] == 61.5
    assert "phases/quiet/server_loop_stalls_ms/max" not in figures  # none: not invented
    assert not any("/abuse/" in path for path in figures)  # the tallies stay in the results
    # Each number of the report's row of a phase is a figure of that phase, as named there.
    report = abuse.markdown(result)
    for phase in ABUSE_PHASES:
        [row] = [line for line in report.splitlines() if line.startswith(f"| {phase} |")]
        measured = " ".join(row.strip("|").split("|")[1:10])  # (not the target met, the tallies)
        numbers = {float(n) for n in re.findall(r"\d+(?:\.\d+)?", measured)}
        kept = {v for path, v in figures.items() if path.startswith(f"phases/{phase}/")}
        assert numbers and numbers <= kept, (phase, numbers - kept)


def test_abuse_appends_its_record_unless_told_not_to(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    async def measure(args: argparse.Namespace) -> dict[str, Any]:
        return abuse_result("2026-11-26T11:00:00+00:00", "aaaaaaa", budgets=not args.no_budgets)

    monkeypatch.setattr(abuse, "measure", measure)
    history = tmp_path / "history.jsonl"
    common = ["--results-dir", str(tmp_path)]
    abuse.main([*common, "--history", str(history)])
    abuse.main([*common, "--no-history"])
    abuse.main([*common, "--no-budgets", "--history", str(history)])
    on, off = read(history)  # the --no-history run left nothing
    assert on["kind"] == off["kind"] == "abuse" and on["source"] == "bench.abuse"
    assert on["config"]["budgets"] and not off["config"]["budgets"]
    assert on["figures"]["phases/all/ping_ms/p50"] == 2.0


def test_by_default_the_record_goes_to_the_repositorys_history(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    async def measure(args: argparse.Namespace) -> dict[str, Any]:
        return abuse_result("2026-11-26T11:00:00+00:00", "aaaaaaa")

    paths: list[Path | None] = []
    monkeypatch.setattr(abuse, "measure", measure)
    monkeypatch.setattr(abuse, "record_run", lambda result, path, **kw: paths.append(path))
    abuse.main(["--results-dir", str(tmp_path)])
    assert paths == [Path(abuse.__file__).resolve().parent / "history.jsonl"]


def rows(text: str) -> list[dict[str, str]]:
    lines = [line for line in text.splitlines() if line.startswith("| ")]
    head = [c.strip() for c in lines[0].strip("|").split("|")]
    return [dict(zip(head, (c.strip() for c in line.strip("|").split("|")), strict=True))
            for line in lines[1:]]


def test_summarize_shows_abuse_runs_a_row_per_phase(tmp_path: Path) -> None:
    path = tmp_path / "history.jsonl"
    for minute, p50 in (("00", 1.0), ("05", 3.0), ("10", 15.0)):
        append(record(abuse_result(f"2026-11-26T11:{minute}:00+00:00", "aaaaaaa",
                                   ping_p50=p50), source="bench.abuse"), path)
    append(record(abuse_result("2026-11-26T11:20:00+00:00", "aaaaaaa", ping_p50=30.0,
                               budgets=False, phases=("quiet", "options")),
                  source="bench.abuse"), path)
    out = summarize.main(["--history", str(path), "--kind", "abuse"])
    assert out.startswith("## abuse")
    table = rows(out)
    # newest group first; each group's phases in the bench's order, those it measured
    assert [(r["configuration"], r["phase"]) for r in table] == [
        ("budgets off", "quiet"), ("budgets off", "options"),
        *(("budgets on", phase) for phase in ABUSE_PHASES)]
    on = {r["phase"]: r for r in table if r["configuration"] == "budgets on"}
    assert on["quiet"]["runs"] == "3" and on["quiet"]["commit"] == "`aaaaaaa`"
    assert on["quiet"]["ping p50 ms"] == "3"  # the median of 1, 3, 15
    assert on["all"]["ping p50 ms"] == "6"  # (2.0 x the quiet phase's)
    assert on["all"]["ping p50 < target"] == "yes"
    assert on["all"]["server loop stalls >= 20 ms"] == "2"
    assert on["all"]["longest stall ms"] == "61.5"
    assert on["quiet"]["longest stall ms"] == "-"
    off = {r["phase"]: r for r in table if r["configuration"] == "budgets off"}
    assert off["options"]["ping p50 ms"] == "60" and off["options"]["ping p50 < target"] == "NO"


def test_abuse_runs_of_another_size_are_not_pooled(tmp_path: Path) -> None:
    path = tmp_path / "history.jsonl"
    append(record(abuse_result("2026-11-26T11:00:00+00:00", "aaaaaaa"), source="bench.abuse"),
           path)
    small = abuse_result("2026-11-26T11:05:00+00:00", "aaaaaaa", phases=("quiet",))
    small["params"].update(duration_s=1.0, flood_rooms=1, clients=1)
    append(record(small, source="bench.abuse"), path)
    labels = [r["configuration"] for r in rows(summarize.table(summarize.load([path]), "abuse"))]
    assert labels == ["budgets on, 1 flooding rooms, 1 clients a flood, 1 s phases",
                      *["budgets on"] * len(ABUSE_PHASES)]
