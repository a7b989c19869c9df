"""A cluster test's failed wait says what each node saw (``RedisClusterProcesses.describe``),
and a node left killed makes the session's cluster not whole, so the next test gets a new
one (tests/conftest.py)."""

from __future__ import annotations

import pytest

from testkit.redis_cluster import RedisClusterProcesses

pytestmark = [pytest.mark.redis, pytest.mark.slow]


def test_a_replica_left_killed_is_described_and_its_restart_makes_the_cluster_whole(
        redis_cluster: RedisClusterProcesses) -> None:
    replica = next(node for node in redis_cluster.view() if node.role == "slave")
    redis_cluster.kill(replica.port)
    try:
        described = redis_cluster.describe()
        assert described.startswith("not whole because: ")
        assert f"node {replica.port}: not running" in described
        for port in redis_cluster.alive_ports():
            assert f"node {port}: cluster_state ok, role " in described
            # its log's last lines, as the server wrote them
            assert redis_cluster.nodes[port].log_tail()
        assert len(redis_cluster.alive_ports()) == len(redis_cluster.nodes) - 1
    finally:
        redis_cluster.restart(replica.port)
    assert redis_cluster.whole()
    assert redis_cluster.describe().startswith("not whole because: none: it is whole\n")
    assert f"node {replica.port}: cluster_state ok, role slave" in redis_cluster.describe()
