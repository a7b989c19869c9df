"""bench.reshard_cost end to end at a tiny size: the game on two fresh local Redis Clusters
(three masters, three replicas), ``redis-cli --cluster reshard`` moving slots under one of
them, the record in a history of its own, read back by bench.summarize (behaviour only: no
timing asserts)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from bench import reshard_cost, summarize
from bench.run_history import read

pytestmark = [
    pytest.mark.slow, pytest.mark.redis,
    pytest.mark.skipif(shutil.which("redis-server") is None
                       and not Path("/usr/bin/redis-server").exists(),
                       reason="redis-server is not installed"),
]

SLOTS = 3000
BALLAST = 20


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Path]:
    """3 rooms x (2 players + 1 spectator), one round."""
    history = tmp_path_factory.mktemp("reshard") / "history.jsonl"
    result = reshard_cost.main([
        "--rooms", "3", "--spectators", "1", "--duration", "2", "--pace", "0.5",
        "--aro-window", "0.1", "--rounds", "1", "--slots", str(SLOTS),
        "--ballast", str(BALLAST), "--history", str(history)])
    return result, history


def test_the_move_is_recorded_with_what_it_moved(tiny: tuple[dict[str, Any], Path]) -> None:
    result, history = tiny
    [entry] = read(history)
    assert entry["kind"] == "reshard_cost"
    assert entry["config"]["slots"] == SLOTS and entry["config"]["cluster_server"] == "redis"
    figures = entry["figures"]
    assert figures["moving/move/slots"] == SLOTS  # every slot asked for, named by redis-cli
    [round_] = result["rounds"]
    move = round_["moving"]["move"]
    assert 0 <= move["rooms"] <= 3
    assert move["keys"] >= move["rooms"] * BALLAST  # a moved room's slot took its ballast
    assert "move" not in round_["still"]


def test_both_runs_play_the_game_through_without_an_error(
        tiny: tuple[dict[str, Any], Path]) -> None:
    _, history = tiny
    figures = read(history)[0]["figures"]
    assert figures["moving/errors_total"] == 0 and figures["still/errors_total"] == 0
    assert figures["moving/node_errors_total"] == 0 and figures["still/node_errors_total"] == 0
    assert figures["moving/paced/orders"] > 0 and figures["still/paced/orders"] > 0
    assert figures["moving/max/orders_per_s"] > 0
    for name in ("paced/cpu_us_per_order", "paced/redis_cpu_us_per_order",
                 "max/orders_per_s"):
        assert f"ratios/{name}" in figures


def test_summarize_reads_the_record(tiny: tuple[dict[str, Any], Path]) -> None:
    _, history = tiny
    text = summarize.main(["--kind", "reshard_cost", str(history)])
    assert "ratios/paced/cpu_us_per_order" in text
