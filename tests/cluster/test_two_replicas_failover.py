"""docs/deploy.md's advice, proved: with two replicas per master (``redis-cli --cluster
create --cluster-replicas 2``) a shard keeps taking confirmed writes (``WAIT 1``, the node's
default on a cluster) after its master's ``kill -9``, without the dead node coming back.

Redis reconfigures the failed master's other replica to replicate from the replica it
promoted, so the new master has a replica again by itself: a command sent during the
election is answered ``storage_unavailable`` and accepted once sent again under its id, and
the commands after it are accepted at the first try. The relayed seat is told to reconnect
(4011: its node's room bus link to the dead master reset). A node's start-up check then
names no master short of replicas. The cluster here is the test's own (three masters, six
replicas): the session's one-replica ``redis_cluster`` is left alone.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest

from protocol.constants import CloseCode, ProtocolReason
from protocol.messages import Accepted, Rejected
from server.node.redis_durability import check_cluster_durability
from server.store.cluster_store import ClusterRoomStore
from testkit.cluster_store import store_on
from testkit.redis_cluster import POLL_S, READY_WAIT_S, RedisClusterProcesses
from testkit.server_process import ServerProcess, two_nodes
from tests.cluster.game import (
    ACTIVATE,
    MOVE,
    command_once_storage_is_back,
    play_on_after_failover,
    seats_on_two_nodes,
)
from tests.cluster.test_redis_cluster_games import ON_THE_CLUSTER

pytestmark = [pytest.mark.redis, pytest.mark.slow]


@pytest.fixture
def two_replica_cluster(tmp_path: Path) -> Iterator[RedisClusterProcesses]:
    """Three masters with two replicas each (nine ``redis-server``), for this test only."""
    with RedisClusterProcesses(tmp_path / "cluster", replicas_per_master=2) as cluster:
        yield cluster


@pytest.fixture
async def store(two_replica_cluster: RedisClusterProcesses) -> AsyncIterator[ClusterRoomStore]:
    async with store_on(two_replica_cluster) as cluster_store:
        yield cluster_store


async def until_ready(base: str) -> None:
    """Poll ``/readyz`` until the node says it is ready (its write probe went through)."""
    async with httpx.AsyncClient(base_url=base) as http, asyncio.timeout(READY_WAIT_S):
        while (await http.get("/readyz")).status_code != 200:
            await asyncio.sleep(POLL_S)  # a poll interval, not a wait for an event


async def test_two_replicas_keep_a_shard_writing_through_a_masters_kill_9(
        two_replica_cluster: RedisClusterProcesses, store: ClusterRoomStore,
        caplog: pytest.LogCaptureFixture) -> None:
    cluster = two_replica_cluster
    victim = cluster.masters()[0]
    replicas = sorted(node.port for node in cluster.view()
                      if node.role == "slave" and node.master_id == victim.node_id)
    assert len(replicas) == 2
    async with two_nodes(cluster.url, ServerProcess, prefix="rr-",
                         env=ON_THE_CLUSTER) as (one, two):
        for node in (one, two):
            assert b"fewer than REFEREE_REDIS_WAIT_REPLICAS" not in node.output
        # one owns the room, two relays it
        room, a, b = await seats_on_two_nodes(store, cluster, victim, one.base, two.base)
        activated = await a.command(ACTIVATE, id="activate")
        assert isinstance(activated, Accepted), activated

        await asyncio.to_thread(cluster.kill, victim.port)
        # During the election nobody serves the room's slot: "try again". (On a slow machine
        # the node may handle it only once the election is over: then it is accepted.)
        during = await a.command(MOVE, id="move")
        assert isinstance(during, Accepted) or (
            isinstance(during, Rejected) and during.code == ProtocolReason.STORAGE_UNAVAILABLE
        ), during
        # The relayed seat's bus link to that master reset: it is told to reconnect.
        assert await b.close_code() == CloseCode.ROOM_UNAVAILABLE
        promoted = await asyncio.to_thread(cluster.wait_promoted, victim)
        assert promoted.port in replicas
        # The failed master's other replica follows the promoted one by itself.
        other = next(port for port in replicas if port != promoted.port)
        await asyncio.to_thread(cluster.wait_until,
                                lambda: cluster.replicas_online(promoted) == [other],
                                f"{other} to replicate from {promoted.port}")
        assert cluster.nodes[victim.port].process is None  # the dead node stays dead

        # Sent again under its id, the command is accepted (WAIT 1 is met), or answered as it
        # was if it was accepted during the failover.
        moved = await command_once_storage_is_back(a, MOVE, "move")
        assert moved.version > activated.version
        if isinstance(during, Accepted):
            assert moved.version == during.version, (during, moved)
        # The next commands, the relayed seat's (reconnected) too, are accepted at the
        # first try; every id gets its first answer; nothing is applied twice.
        b = await play_on_after_failover(
            store, room, [a], two.base,
            [(a, ACTIVATE, "activate", activated), (a, MOVE, "move", moved)])

        for node in (one, two):
            await until_ready(node.base)
        await a.close()
        await b.close()

    # A node starting now: every shard has a replica, so no warning (the dead node is
    # logged as down, not as a master short of replicas).
    with caplog.at_level(logging.INFO, logger="server.redis_durability"):
        await asyncio.to_thread(check_cluster_durability, cluster.url, "always", 1)
    messages = [record.message for record in caplog.records]
    assert [m for m in messages if "is down" in m and str(victim.port) in m], messages
    assert not [m for m in messages if "fewer than" in m], messages
