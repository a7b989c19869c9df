"""``bench.load_cost`` runs and reports every figure (no timing asserts)."""

from __future__ import annotations

import pytest

from bench import load_cost

pytestmark = pytest.mark.slow  # runs the bench tool itself


def test_load_cost_reads_the_scripted_game_back() -> None:
    result = load_cost.measure(seed=7, repeat=1)
    assert result["loaded_events"] >= 100
    assert set(result["us"]) == set(result["median_us"]) == {
        "state_from_plain (per state)", "state_from_plain (final state)",
        "state_from_plain (mid-game state)", "state_from_plain (mid-game, first read)",
        "event_from_plain (per event)", "parse_command (per command)",
        "state_to_plain (per state)", "event_to_plain (per event)",
        "load a room (snapshot + events)"}
    assert all(result["us"][name] <= result["median_us"][name] for name in result["us"])
