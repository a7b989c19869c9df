"""The room index of a node id that never comes back expires, against a real redis-server
and the session's Redis Cluster (``server.cluster.room_index``): each lease renewal round
gives ``{node:<id>}:rooms`` its time to live (``room_index_ttl_s``) again, in the round's
one pipeline, so the set lives as long as its node renews and expires once it stops (a node
killed and never started again under its id). Before, such a set stayed in Redis for ever.

The rounds are also checked to read their other replies where they were before: the
instance lock's (``displaced``) and each owned room's ``RENEW``."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from server.cluster.cluster_renewal import ClusterLeaseRenewal, connect_sync_cluster
from server.cluster.identity import instance_key
from server.cluster.lease import TickReport, alive_key, lease_key
from server.cluster.renewal import LeaseRenewal, connect_sync
from server.cluster.room_index import rooms_key
from server.lobby.tokens import new_room_id
from server.store.redis_store import RedisRoomStore, state_key
from testkit.redis_cluster import RedisClusterProcesses
from tests.cluster.stand_ins import GUARD_S, Expiries
from tests.cluster.test_lease_renewal import serve_room
from tests.cluster.test_takeover import make_node, reports_read

pytestmark = pytest.mark.redis

TTL_MS = 600_000
LEASE_MS = 60_000


def check_rounds_renew_the_index(renewal: LeaseRenewal, client: Any) -> None:
    """``renewal`` keeps an instance lock and a room index; ``client`` (synchronous) reaches
    every key of the round."""
    node_id = renewal.node_id
    index = rooms_key(node_id)
    kept, lost = new_room_id(), new_room_id()
    client.hset(state_key(kept), "fence", 1)
    client.hset(state_key(lost), "fence", 2)  # (claimed again since: fence 1 is stale)
    client.sadd(index, kept, lost)  # (no time to live yet)
    owned = [(kept, 1), (lost, 1)]
    try:
        report = renewal.tick(owned, [], [])
        assert 0 < client.pttl(index) <= TTL_MS, "the round gave the set its time to live"
        assert report == TickReport(lost_leases=frozenset({(lost, 1)}), holders={},
                                    dead_nodes=frozenset(), displaced=False)

        client.pexpire(index, 1_000)  # as if most of its time to live had gone by
        client.set(instance_key(node_id), "another-process")
        report = renewal.tick(owned, [], [])
        assert 1_000 < client.pttl(index) <= TTL_MS, "the next round set it again"
        assert report.displaced, "the instance lock's reply, read where it is"
        assert report.lost_leases == frozenset({(lost, 1)})
    finally:
        renewal.close()
        for key in (index, alive_key(node_id), instance_key(node_id), lease_key(kept),
                    state_key(kept), state_key(lost)):
            client.delete(key)


def test_each_renewal_round_gives_the_room_index_its_time_to_live_again(
        store: RedisRoomStore) -> None:
    client = connect_sync(store.url, GUARD_S)
    renewal = LeaseRenewal(connect_sync(store.url, GUARD_S), f"ttl-{new_room_id()[:8]}",
                           LEASE_MS, instance="this-process", room_index_ttl_ms=TTL_MS)
    try:
        check_rounds_renew_the_index(renewal, client)
    finally:
        client.close()


@pytest.mark.slow  # (forms the session's Redis Cluster if no test did yet)
def test_each_renewal_round_gives_the_room_index_its_time_to_live_again_on_a_redis_cluster(
        redis_cluster: RedisClusterProcesses) -> None:
    client = connect_sync_cluster(redis_cluster.url, GUARD_S)
    renewal = ClusterLeaseRenewal(connect_sync_cluster(redis_cluster.url, GUARD_S),
                                  f"ttl-{new_room_id()[:8]}", LEASE_MS,
                                  instance="this-process", room_index_ttl_ms=TTL_MS)
    try:
        check_rounds_renew_the_index(renewal, client)
    finally:
        client.close()


async def test_the_room_index_of_a_node_that_stopped_renewing_expires(
        store: RedisRoomStore, expiries: Expiries) -> None:
    node_id = f"ttl-{new_room_id()[:8]}"
    index = rooms_key(node_id)
    node = make_node(store, node_id, room_index_ttl_s=0.3)
    rounds = reports_read(node)
    room = await serve_room(store, node, new_room_id())
    await node.room_index.flushed()
    assert 0 < await store.client.pttl(index) <= 300, "the SADD gave the set its time to live"
    await store.client.persist(index)  # from here on only a renewal round gives it one

    await node.start()
    async with asyncio.timeout(GUARD_S):
        await rounds.get()
    # Killed: no more renewal rounds, nothing deleted. The set expires (had no round given
    # it its time to live again, this would wait in vain).
    await node.renewer.stop()
    node.room_index.stop()
    expiries.block_until(index)

    assert not await store.client.exists(index)
    restarted = make_node(store, node_id)
    assert await restarted.room_index.rooms() == [], "a warm-up under the id warms nothing"
    await store.client.delete(lease_key(room.room_id))
