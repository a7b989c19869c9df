"""The start-up check of a Redis Cluster's persistence (``check_cluster_durability``) on a
real local cluster: every node is checked, replicas included (a replica promoted is a
master from then on), and ``WAITAOF`` is refused on a Redis older than 7.2."""

from __future__ import annotations

import logging

import pytest

from server.node.redis_durability import check_cluster_durability
from testkit.redis_cluster import RedisClusterProcesses

pytestmark = [pytest.mark.redis, pytest.mark.slow]


def test_every_node_with_appendfsync_always_starts(
        redis_cluster: RedisClusterProcesses, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="server.redis_durability"):
        check_cluster_durability(redis_cluster.url, "always", wait_replicas=1)
    checked = [r.message for r in caplog.records if "appendfsync always" in r.message]
    assert len(checked) == len(redis_cluster.nodes) == 6
    assert not [r for r in caplog.records if "fewer than" in r.message]  # a replica each


def test_one_replica_with_everysec_refuses_the_start(
        redis_cluster: RedisClusterProcesses) -> None:
    replica = next(node for node in redis_cluster.view() if node.role == "slave")
    with redis_cluster.client(replica.port) as client:
        client.config_set("appendfsync", "everysec")
        try:
            with pytest.raises(SystemExit, match=f"{replica.port}.*appendfsync everysec"):
                check_cluster_durability(redis_cluster.url, "always", wait_replicas=1)
            check_cluster_durability(redis_cluster.url, "everysec", wait_replicas=1)
        finally:
            client.config_set("appendfsync", "always")


def test_waitaof_on_redis_7_0_refuses_the_start(redis_cluster: RedisClusterProcesses) -> None:
    with pytest.raises(SystemExit, match="needs WAITAOF"):
        check_cluster_durability(redis_cluster.url, "always", wait_replicas=1, aof=True)
