"""docs/deploy.md's replica migration, proved: with one replica per master but one master
holding a spare (a second replica), a shard whose master is ``kill -9``ed and left dead takes
confirmed writes (``WAIT 1``, the node's default on a cluster) again once Redis moves that
spare replica to the promoted master, without the dead node coming back.

The promoted replica has no replica of its own (orphaned): its rooms' appends are refused
``storage_unavailable`` through the election and until the spare replica migrates
(``cluster-migration-barrier`` 1: the spare's master keeps one replica;
``cluster-allow-replica-migration yes``; both Redis's defaults). A command refused meanwhile
is accepted once sent again under its id. Measured here (1 s ``cluster-node-timeout``,
``repl-diskless-sync-delay`` 0 as the test kit runs every node): the promotion about 2.4 s
after the kill, the spare re-pointed and streaming about 5 s later (Redis waits that long, a
constant, before it migrates a replica): writes refused about 7.7 s in all (about 12 s with
the delay at its default 5 s, which the new master's full sync waits). The cluster here is the test's own (three masters, four replicas): the session's
``redis_cluster`` is left alone.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from websockets.exceptions import ConnectionClosed

from protocol.constants import CloseCode, ProtocolReason
from protocol.messages import Accepted, Rejected
from server.store.cluster_store import ClusterRoomStore
from testkit.cluster_store import store_on
from testkit.redis_cluster import RedisClusterProcesses
from testkit.server_process import ServerProcess, two_nodes
from testkit.wsclient import Client
from tests.cluster.game import (
    ACTIVATE,
    MOVE,
    RETRIES,
    play_on_after_failover,
    seats_on_two_nodes,
)
from tests.cluster.test_redis_cluster_games import ON_THE_CLUSTER

pytestmark = [pytest.mark.redis, pytest.mark.slow]


@pytest.fixture
def spare_replica_cluster(tmp_path: Path) -> Iterator[RedisClusterProcesses]:
    """Three masters with one replica each, and a second replica for the second master
    (seven ``redis-server``), for this test only."""
    with RedisClusterProcesses(tmp_path / "cluster", replicas_per_master=1) as cluster:
        cluster.add_replica(cluster.masters()[1])
        yield cluster


@pytest.fixture
async def store(spare_replica_cluster: RedisClusterProcesses) -> AsyncIterator[ClusterRoomStore]:
    async with store_on(spare_replica_cluster) as cluster_store:
        yield cluster_store


async def command_once_accepted(connections: list[Client], base: str, room_id: str,
                                token: str, body: dict[str, object],
                                command_id: str) -> Accepted:
    """Send ``body`` (same id each time) on the seat's last connection until it is accepted.
    A refusal must be ``storage_unavailable``. If the refused write did land on the master
    (not confirmed by a replica), the room's next write meets ``STALE version``: the room
    reloads and sends its clients to reconnect (4011); the seat reconnects (appended to
    ``connections``) and sends it again, to get the stored answer."""
    for _ in range(RETRIES):
        try:
            answer = await connections[-1].command(body, id=command_id)
        except ConnectionClosed as closed:
            assert closed.rcvd is not None and closed.rcvd.code == CloseCode.ROOM_UNAVAILABLE
            # Resumed from the version it holds: the missed events, the landed one
            # included, follow the welcome.
            connections.append(await Client.connect(base, room_id, token,
                                                    since=connections[-1].version))
            continue
        if isinstance(answer, Accepted):
            return answer
        assert answer.code == ProtocolReason.STORAGE_UNAVAILABLE, answer
    raise AssertionError(f"{command_id} still refused after {RETRIES} tries")


async def test_a_spare_replica_migrates_to_the_orphaned_master_and_writes_resume(
        spare_replica_cluster: RedisClusterProcesses, store: ClusterRoomStore) -> None:
    cluster = spare_replica_cluster
    victim, donor = cluster.masters()[0], cluster.masters()[1]
    [victim_replica] = cluster.replicas_online(victim)
    spares = cluster.replicas_online(donor)
    assert len(spares) == 2
    async with two_nodes(cluster.url, ServerProcess, prefix="rm-",
                         env=ON_THE_CLUSTER) as (one, two):
        # one owns the room, two relays it
        room, a, b = await seats_on_two_nodes(store, cluster, victim, one.base, two.base)
        activated = await a.command(ACTIVATE, id="activate")
        assert isinstance(activated, Accepted), activated

        await asyncio.to_thread(cluster.kill, victim.port)
        # Sent at once: nobody serves the room's slot, then its new master has no replica
        # to confirm it. "Try again".
        refused = await a.command(MOVE, id="move")
        assert isinstance(refused, Rejected)
        assert refused.code == ProtocolReason.STORAGE_UNAVAILABLE, refused
        # The relayed seat's bus link to the dead master reset: it is told to reconnect.
        assert await b.close_code() == CloseCode.ROOM_UNAVAILABLE
        promoted = await asyncio.to_thread(cluster.wait_promoted, victim)
        assert promoted.port == victim_replica
        # Promoted, it has no replica: Redis migrates one only once the master has been
        # orphaned for 5 s (a constant in Redis), so WAIT 1 cannot be met meanwhile.
        assert cluster.replicas_online(promoted) == []

        # Redis moves one of the donor's two replicas to the orphaned master.
        migrated: list[int] = []

        def one_spare_migrated() -> bool:
            migrated[:] = cluster.replicas_online(promoted)
            return len(migrated) == 1 and migrated[0] in spares
        await asyncio.to_thread(cluster.wait_until, one_spare_migrated,
                                f"a replica of {donor.port} to migrate to {promoted.port}")
        # The donor keeps the other one (the barrier); the cluster lists the moved one as
        # the promoted master's replica (once the news has gone round: the replica may be
        # streaming from its new master before the node asked has heard of the move).
        assert cluster.replicas_online(donor) == [p for p in spares if p not in migrated]

        def listed_as_the_promoted_masters() -> bool:
            return [n.master_id for n in cluster.view() if n.port == migrated[0]] == [
                promoted.node_id]
        await asyncio.to_thread(cluster.wait_until, listed_as_the_promoted_masters,
                                f"the cluster to list {migrated[0]} under {promoted.port}")
        assert cluster.nodes[victim.port].process is None  # the dead node stays dead

        # Sent again under its id, the refused command is accepted: WAIT 1 is met.
        seat_a = [a]
        moved = await command_once_accepted(seat_a, one.base, room.room_id, room.token_a,
                                            MOVE, "move")
        a = seat_a[-1]
        assert moved.version > activated.version
        b = await play_on_after_failover(
            store, room, seat_a, two.base,
            [(a, ACTIVATE, "activate", activated), (a, MOVE, "move", moved)])
        await a.close()
        await b.close()
