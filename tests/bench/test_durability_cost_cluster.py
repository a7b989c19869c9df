"""bench.durability_cost's ``cluster`` configuration end to end at a tiny size: the game
against a fresh local Redis Cluster (3 masters, 3 replicas, the node on
``REFEREE_REDIS_CLUSTER=1``) beside the single Redis's ``always``, its record in a history
of its own and read back by bench.summarize (behaviour only: no timing asserts)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from bench import durability_cost, redis_cluster_run, summarize
from bench.run_history import read
from testkit.redis_cluster import VALKEY_BIN, valkey_binaries

pytestmark = [
    pytest.mark.slow, pytest.mark.redis,
    pytest.mark.skipif(shutil.which("redis-server") is None
                       and not Path("/usr/bin/redis-server").exists(),
                       reason="redis-server is not installed"),
]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Path]:
    """2 rooms x (2 players + 1 spectator), one round of ``always`` then ``cluster``, on
    the bench's default cluster: Debian's Redis with ``WAIT``, as production runs it, even
    where Valkey is installed (its ``WAITAOF`` takes about a second per append:
    docs/deploy.md)."""
    folder = tmp_path_factory.mktemp("durability-cluster")
    history = folder / "history.jsonl"
    result = durability_cost.main([
        "--rooms", "2", "--spectators", "1", "--duration", "2", "--pace", "0.5",
        "--aro-window", "0.1", "--rounds", "1", "--configs", "cluster,always",
        "--history", str(history)])
    return result, history


def test_the_record_carries_the_cluster_figures_and_its_ratios(
        tiny: tuple[dict[str, Any], Path]) -> None:
    result, history = tiny
    [entry] = read(history)
    assert entry["kind"] == "durability_cost"
    assert entry["config"]["configs"] == "always,cluster"  # played in the canonical order
    figures = entry["figures"]
    assert figures["cluster/errors_total"] == 0 and figures["always/errors_total"] == 0
    assert figures["cluster/max/orders_per_s"] > 0
    # all six nodes' CPU includes the masters'
    assert 0 < figures["cluster/max/redis_masters_cpu_us_per_order"] \
        <= figures["cluster/max/redis_cpu_us_per_order"]
    for name in ("cpu_us_per_order", "p50_ms", "p99_ms", "orders_per_s",
                 "redis_cpu_us_per_order", "redis_masters_cpu_us_per_order"):
        assert f"ratios/cluster_over_always/max/{name}" in figures
    assert not [key for key in figures if "everysec" in key]  # not played
    [round_] = result["rounds"]
    assert round_["cluster_redis"] == result["cluster"]
    assert (result["cluster"]["masters"], result["cluster"]["replicas"]) == (3, 3)


def test_the_record_says_how_appends_were_confirmed_and_on_which_server(
        tiny: tuple[dict[str, Any], Path]) -> None:
    result, history = tiny
    [entry] = read(history)
    assert entry["config"]["cluster_confirm"] == result["cluster"]["confirm"] == "wait"
    name, _, version = entry["config"]["cluster_server"].partition(" ")
    assert name == "redis" and version
    assert result["cluster"]["wait_ms"] == 1000  # the node's default


def test_summarize_reads_the_record(tiny: tuple[dict[str, Any], Path]) -> None:
    _, history = tiny
    text = summarize.main(["--kind", "durability_cost", str(history)])
    assert "cluster_over_always/max/cpu_us_per_order" in text


def test_valkey_asked_for_and_not_installed_is_refused(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(VALKEY_BIN, str(tmp_path))  # holds no valkey-server
    assert valkey_binaries() is None
    with pytest.raises(RuntimeError, match="Valkey"):
        redis_cluster_run.start(tmp_path / "cluster", None, "valkey")


def test_with_valkey_a_node_confirms_with_waitaof_and_waits_long_enough() -> None:
    """(The Valkey path itself was run by hand: a WAITAOF cluster's run takes about a
    minute at this size.)"""
    env = redis_cluster_run.node_env("waitaof")
    assert (env["REFEREE_REDIS_CLUSTER"], env["REFEREE_REDIS_WAIT_AOF"]) == ("1", "1")
    assert env["REFEREE_ACCEPT_REDIS_DURABILITY"] == "always"
    assert int(env["REFEREE_REDIS_WAIT_MS"]) > 1000  # a WAITAOF 1 1 takes about 1 s there
