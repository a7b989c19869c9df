"""``bench.run`` and ``bench.broadcast`` append their run's record to the history they are given,
and none with ``--no-history``: their ``main`` with the benchmark itself replaced (no servers)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import pytest

from bench import broadcast, run
from bench.run_history import read


def fake_result(kind: str | None) -> dict[str, Any]:
    result: dict[str, Any] = {
        "date": "2026-11-26T08:00:00+00:00", "commit": "aaaaaaa",
        "uncommitted_server_changes": False, "machine": {"cpus": 2},
        "params": {"rooms": 2, "spectators": 1, "nodes": 1, "duration_s": 2.0},
        "referee": {"max": {"cpu_us_per_delivery": 80.0}},
    }
    if kind:
        result["kind"] = kind
    return result


@pytest.mark.parametrize(("bench", "kind"), [(run, None), (broadcast, "broadcast")])
def test_a_run_appends_its_record_unless_told_not_to(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bench: Any, kind: str | None) -> None:
    async def benchmark(args: argparse.Namespace) -> dict[str, Any]:
        return fake_result(kind)

    monkeypatch.setattr(bench, "benchmark", benchmark)
    monkeypatch.setattr(bench, "markdown", lambda result: "report")
    history = tmp_path / "history.jsonl"
    common = ["--spectators", "1", "--results-dir", str(tmp_path)]
    bench.main([*common, "--history", str(history)])
    bench.main([*common, "--no-history"])
    bench.main([*common, "--history", str(history), "--profile", str(tmp_path / "prof")])
    first, profiled = read(history)  # the --no-history run left nothing
    assert first["kind"] == (kind or "run") and first["commit"] == "aaaaaaa"
    assert first["source"] == f"bench.{bench.__name__.split('.')[-1]}"
    assert "variant" not in first["config"]
    assert profiled["config"]["variant"].startswith("profiled, ")


@pytest.mark.parametrize("bench", [run, broadcast])
def test_by_default_the_record_goes_to_the_repositorys_history(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bench: Any) -> None:
    async def benchmark(args: argparse.Namespace) -> dict[str, Any]:
        return fake_result("broadcast" if bench is broadcast else None)

    paths: list[Path | None] = []
    monkeypatch.setattr(bench, "benchmark", benchmark)
    monkeypatch.setattr(bench, "markdown", lambda result: "report")
    monkeypatch.setattr(bench, "record_run", lambda result, path, **kw: paths.append(path))
    bench.main(["--spectators", "1", "--results-dir", str(tmp_path)])
    assert paths == [Path(run.__file__).resolve().parent / "history.jsonl"]


def test_a_run_with_the_baseline_on_uvloop_is_a_variant(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its baseline figures are not those of the usual baseline (asyncio's loop): never pooled."""
    async def benchmark(args: argparse.Namespace) -> dict[str, Any]:
        assert args.baseline_loop == "uvloop"
        return fake_result(None)

    monkeypatch.setattr(run, "benchmark", benchmark)
    monkeypatch.setattr(run, "markdown", lambda result: "report")
    history = tmp_path / "history.jsonl"
    common = ["--spectators", "1", "--results-dir", str(tmp_path), "--history", str(history),
              "--baseline-loop", "uvloop"]
    run.main(common)
    run.main([*common, "--profile", str(tmp_path / "prof")])
    plain, profiled = read(history)
    assert plain["config"]["variant"] == "baseline on uvloop"
    assert profiled["config"]["variant"].startswith("profiled, ")
    assert profiled["config"]["variant"].endswith("; baseline on uvloop")


def test_a_run_without_the_compiled_rules_core_is_a_variant(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its CPU per Order is another core's: never pooled with the compiled runs."""
    async def benchmark(args: argparse.Namespace) -> dict[str, Any]:
        return fake_result(None)

    monkeypatch.setattr(run, "benchmark", benchmark)
    monkeypatch.setattr(run, "markdown", lambda result: "report")
    monkeypatch.setattr(run.native, "extension_of", lambda *module: None)  # none built
    history = tmp_path / "history.jsonl"
    run.main(["--spectators", "1", "--results-dir", str(tmp_path), "--history", str(history)])
    (record,) = read(history)
    assert record["config"]["variant"].startswith("rules core: interpreted")
