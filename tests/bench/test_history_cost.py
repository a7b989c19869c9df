"""``bench.history_cost`` pages a whole N5 game's history for every audience (no timing
asserts)."""

from __future__ import annotations

import pytest

from bench import history_cost

pytestmark = pytest.mark.slow  # runs the bench tool itself


def test_history_cost_pages_every_audiences_whole_history() -> None:
    result = history_cost.measure(seed=7, repeat=1)
    assert result["stored_events"] > 100
    assert set(result["audiences"]) == {"A", "B", "spectator", "caster"}
    for figures in result["audiences"].values():
        assert 0 < figures["events"] <= result["stored_events"]
        assert figures["pages"] == -(-figures["events"] // 500)
        assert figures["frame_bytes"] > 0
