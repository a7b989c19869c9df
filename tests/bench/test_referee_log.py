"""The bench counts a phase's slow collections from the referee's log (bench/referee_log.py)."""

from __future__ import annotations

import datetime
import logging
from pathlib import Path

from bench.referee_log import slow_collections
from server.log_format import TEXT_FORMAT
from server.node.collection_watch import CollectionWatch


def logged_by_the_node(path: Path, pauses_s: list[tuple[int, float]]) -> None:
    """Lines as the node writes them: its log format, its collection watch's message."""
    handler = logging.FileHandler(path)
    handler.setFormatter(logging.Formatter(TEXT_FORMAT))
    logger = logging.getLogger("server.gc")
    logger.addHandler(handler)
    try:
        for generation, took in pauses_s:
            clock = iter([0.0, took])
            watch = CollectionWatch(0.020, clock=clock.__next__)
            watch("start", {"generation": generation, "collected": 0})
            watch("stop", {"generation": generation, "collected": 3})
    finally:
        logger.removeHandler(handler)
        handler.close()


def test_the_slow_collections_logged_within_the_phase_are_counted(tmp_path: Path) -> None:
    log = tmp_path / "referee.log"
    log.write_text("2026-11-30 05:33:31,605 WARNING server.loop: event loop ran 30.1 ms late\n")
    before = datetime.datetime.now().timestamp() - 1
    logged_by_the_node(log, [(0, 0.0615), (1, 0.130), (0, 0.005)])  # the last is not slow
    after = datetime.datetime.now().timestamp() + 1
    assert slow_collections(log, before, after) == {
        "count": 2, "total_ms": 191.5, "max_ms": 130.0, "by_generation": [1, 1, 0]}
    assert slow_collections(log, after, after + 60)["count"] == 0
    assert slow_collections(tmp_path / "none.log", before, after)["count"] == 0
