"""``bench.append_cost`` runs against a real redis-server and reports every figure (no
timing asserts)."""

from __future__ import annotations

import argparse

import pytest

from bench import append_cost

pytestmark = [pytest.mark.redis, pytest.mark.slow]


@pytest.mark.parametrize("public", [False, True])
def test_append_cost_stores_the_game_and_counts_the_commands_it_sends(public: bool) -> None:
    args = argparse.Namespace(rooms=3, rounds=2, repeat=1, seed=7, public=public,
                              redis_url=None, loop="asyncio" if public else "uvloop")
    result = append_cost.measure(args)
    assert set(result["us"]) == {"redis", "memory", "redis client", "socket round trip"}
    assert result["commands_per_append"]["evalsha"] == 1
    assert result["events_per_append"] >= 1
