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
lease of the node unrenewed that round). The session's cluster."""

from __future__ import annotations

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
    room_id = new_room_id()
    while cluster.master_of_key(lease_key(room_id)).node_id != first.node_id:
        room_id = new_room_id()
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
