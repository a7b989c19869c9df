"""bench.shard_fanout_cost at a tiny size on the suite's real local Redis Cluster: every
subscribing node receives every message in order (a reader that did not would end its
process, and its figures never come), and each pace gets its figures (behaviour only: no
timing asserts)."""

from __future__ import annotations

import argparse

import pytest

from bench import shard_fanout_cost
from testkit.redis_cluster import RedisClusterProcesses

pytestmark = [pytest.mark.slow, pytest.mark.redis]


def test_two_subscribing_nodes_get_every_message_and_each_pace_its_figures(
        redis_cluster: RedisClusterProcesses) -> None:
    args = argparse.Namespace(messages=64, size=40, repeat=1, loop="asyncio")
    figures = shard_fanout_cost.measure(redis_cluster.url, redis_cluster.alive_ports(), 2,
                                        args)
    assert sorted(figures) == list(shard_fanout_cost.FLUSHES)
    for by_name in figures.values():
        assert set(by_name) == {"publish_us", "read_us", "redis_us_per_message",
                                "redis_us_per_delivery", "messages_per_s"}
        assert by_name["publish_us"] > 0 and by_name["messages_per_s"] > 0
        assert by_name["redis_us_per_delivery"] == pytest.approx(
            by_name["redis_us_per_message"] / 2, abs=0.01)
