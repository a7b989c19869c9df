"""bench.failover_cost end to end at a tiny size: the game on two fresh local Redis
Clusters (three masters with two replicas each), one master killed with -9 under one of
them, two nodes with each room's sockets spread over them (``--relayed``), the record in a
history of its own, read back by bench.summarize (behaviour only: no timing asserts)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from bench import failover_cost, summarize
from bench.run_history import read

pytestmark = [
    pytest.mark.slow, pytest.mark.redis,
    pytest.mark.skipif(shutil.which("redis-server") is None
                       and not Path("/usr/bin/redis-server").exists(),
                       reason="redis-server is not installed"),
]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Path]:
    """3 rooms x (2 players + 1 spectator) over two nodes, one round, the master killed 1 s
    in. A command refused while the shard has no master is sent again for up to 30 s
    (``--tries 300``, 0.1 s apart): on a host busy with the rest of the suite the promotion
    has taken over 7 s, past the bench's default 5 s."""
    history = tmp_path_factory.mktemp("failover") / "history.jsonl"
    result = failover_cost.main([
        "--rooms", "3", "--spectators", "1", "--duration", "4", "--pace", "0.5",
        "--aro-window", "0.1", "--rounds", "1", "--kill-after", "1", "--relayed",
        "--tries", "300", "--history", str(history)])
    return result, history


def test_the_failover_is_recorded_with_what_it_cost(
        tiny: tuple[dict[str, Any], Path]) -> None:
    result, history = tiny
    [entry] = read(history)
    assert entry["kind"] == "failover_cost"
    assert entry["config"]["replicas_per_master"] == 2
    assert entry["config"]["relayed"] is True
    assert entry["config"]["node_timeout_ms"] == 1000  # the test kit's
    [round_] = result["rounds"]
    failover = round_["failing"]["failover"]
    assert failover["seconds_to_promotion"] > 0
    assert 0 <= failover["rooms"] <= 3
    assert "failover" not in round_["still"]
    # the commands sent from the kill until just after the promotion, in both runs
    assert round_["failing"]["during"]["commands"] > 0
    assert round_["still"]["during"]["commands"] > 0


def test_both_runs_play_the_game_through_without_an_error(
        tiny: tuple[dict[str, Any], Path]) -> None:
    _, history = tiny
    figures = read(history)[0]["figures"]
    assert figures["failing/errors_total"] == 0 and figures["still/errors_total"] == 0
    # nor one the nodes got over unseen (a room's message that failed: an ERROR line)
    assert figures["failing/node_errors_total"] == 0 and figures["still/node_errors_total"] == 0
    assert figures["failing/max/orders_per_s"] > 0  # the game goes on after the failover
    for name in ("paced/cpu_us_per_order", "during/p99_ms", "max/orders_per_s"):
        assert f"ratios/{name}" in figures


def test_summarize_reads_the_record(tiny: tuple[dict[str, Any], Path]) -> None:
    _, history = tiny
    text = summarize.main(["--kind", "failover_cost", str(history)])
    assert "ratios/during/p99_ms" in text
