"""A lease renewal round on a Redis Cluster whose slot map is two moves behind
(``server.cluster.cluster_renewal``): found by tests/cluster/test_rebalance_under_load.py,
where ``redis-cli --cluster rebalance`` moved back a slot that ``reshard`` had just moved.

The round's map still names the slot's first master (the round before read it so); the slot
has since moved to a second master, which is now moving it back (``MIGRATING`` there,
``IMPORTING`` on the first). The first master, asked without ``ASKING``, answers ``MOVED``
to the second; the second, which no longer holds the key, answers ``ASK`` back to the first.
Both redirections are part of one move: the round follows both (``ASKING`` before the
second) and goes through. It used to follow one redirection only and fail the whole round
on the second ("lease renewal failed", an ERROR with a traceback, ``/readyz`` 503, every
lease of the node unrenewed that round). The session's cluster.

A round that met ``MOVED`` reads the map again, so the next round goes to the new master
directly; and a slot moved to a master added since the map was read (``redis-cli --cluster
add-node``, then ``rebalance --cluster-use-empty-masters``) is followed there in the same
round, once the map is read again. Found by tests/cluster/test_rebalance_under_load.py: the
round never read the map again (redis-py's ``MovedError`` says ``12 host:port``, without the
``MOVED`` the check looked for), so it could not follow a master it did not know, and every
round of every node failed from the first slot moved to the new master on, for good."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from redis.crc import key_slot

from server.cluster.cluster_renewal import ClusterLeaseRenewal, connect_sync_cluster
from server.cluster.lease import lease_key
from server.lobby.tokens import new_room_id
from testkit.redis_cluster import RedisClusterProcesses

pytestmark = [pytest.mark.redis, pytest.mark.slow]


def test_a_round_follows_a_moved_then_an_ask_of_a_slot_moved_back(
        redis_cluster: RedisClusterProcesses) -> None:
    cluster = redis_cluster
    first, second = cluster.masters()[:2]
    room_id = cluster.id_on(first, lease_key)
    slot = key_slot(lease_key(room_id).encode())
    renewal = ClusterLeaseRenewal(connect_sync_cluster(cluster.url, 5.0),
                                  f"chain-{new_room_id()[:6]}", 10_000)
    try:
        # The round reads the map: the room's lease is on the first master (no holder).
        assert renewal.tick([], [room_id], []).holders == {room_id: None}
        cluster.move_slot(slot, second).run()
        back = cluster.move_slot(slot, first)
        back.begin()
        try:
            with cluster.client(first.port) as client:
                client.execute_command("ASKING")  # (the first master imports the slot)
                client.set(lease_key(room_id), "node-y")
            report = renewal.tick([], [room_id], [])
        finally:  # (no half-moved slot left to the session's tests)
            back.migrate_all()
            back.finish()
        assert report.holders == {room_id: "node-y"}
    finally:
        renewal.close()
        with cluster.client(first.port) as client:
            client.delete(lease_key(room_id))


def test_a_round_that_met_moved_reads_the_map_again(redis_cluster: RedisClusterProcesses) -> None:
    cluster = redis_cluster
    first, second = cluster.masters()[:2]
    room_id = cluster.id_on(first, lease_key)
    slot = key_slot(lease_key(room_id).encode())
    client = connect_sync_cluster(cluster.url, 5.0)
    renewal = ClusterLeaseRenewal(client, f"moved-{new_room_id()[:6]}", 10_000)
    try:
        assert renewal.tick([], [room_id], []).holders == {room_id: None}
        cluster.move_slot(slot, second).run()
        try:
            assert renewal.tick([], [room_id], []).holders == {room_id: None}
            assert client.get_node_from_key(lease_key(room_id)).port == second.port
        finally:  # (the session's map as it was)
            cluster.move_slot(slot, first).run()
    finally:
        renewal.close()


@pytest.fixture
def three_masters(tmp_path: Path) -> Iterator[RedisClusterProcesses]:
    """A cluster of this test's own (a master is added to it), without replicas: nothing
    here waits for one."""
    with RedisClusterProcesses(tmp_path / "cluster", replicas_per_master=0) as cluster:
        yield cluster


def test_a_round_follows_a_slot_moved_to_a_master_added_since_the_map_was_read(
        three_masters: RedisClusterProcesses) -> None:
    cluster = three_masters
    room_id = cluster.id_on(cluster.masters()[0], lease_key)
    slot = key_slot(lease_key(room_id).encode())
    client = connect_sync_cluster(cluster.url, 5.0)
    renewal = ClusterLeaseRenewal(client, f"added-{new_room_id()[:6]}", 10_000)
    try:
        assert renewal.tick([], [room_id], []).holders == {room_id: None}
        added = cluster.add_master()
        cluster.move_slot(slot, added).run()
        with cluster.client(added.port) as direct:
            direct.set(lease_key(room_id), "node-y")

        assert renewal.tick([], [room_id], []).holders == {room_id: "node-y"}
        assert client.get_node_from_key(lease_key(room_id)).port == added.port
    finally:
        renewal.close()
