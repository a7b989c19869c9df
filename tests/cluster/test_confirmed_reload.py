"""A command refused "try again" that landed on the master is not answered ``accepted``
from a reload until a replica has it (docs/deploy.md, "Durability on a cluster").

A real ``python -m server`` node on the session's Redis Cluster (``WAIT 1``); the room's
master's replica stopped (``SIGSTOP``) so that it cannot acknowledge: the Move is refused
``storage_unavailable`` (``NotReplicated``) although the master stored it with its answer.
Sent again under its id, the room (behind the store) meets ``STALE version`` and stops
(4011); the seat reconnects, and the room's load reads the master, which holds the Move and
its stored answer. Before loads were confirmed, that answer (``accepted``) went to the
player while no replica had the Move: a second failure would have lost it. Now the
reconnection is refused ``storage_unavailable`` while the replica is stopped; once it runs
again, the seat reconnects and the Move, sent again, is answered ``accepted`` (its first
answer), stored once and in order.
"""

from __future__ import annotations

import pytest
from websockets.exceptions import ConnectionClosed

from protocol.constants import PROTOCOL_VERSION, CloseCode, ProtocolReason
from protocol.messages import Accepted, Error, Hello, Rejected, Welcome
from server.lobby.tokens import new_room_id
from server.store.cluster_store import ClusterRoomStore
from server.store.redis_store import state_key
from testkit.redis_cluster import RedisClusterProcesses
from testkit.server_process import ServerProcess
from testkit.wsclient import Client
from tests.cluster.game import (
    ACTIVATE,
    MOVE,
    RETRIES,
    Room,
    assert_stored_exactly_once_in_order,
    received_events,
    room_on,
)
from tests.cluster.test_redis_cluster_games import ON_THE_CLUSTER

pytestmark = [pytest.mark.redis, pytest.mark.slow]

WAITING = {**ON_THE_CLUSTER, "REFEREE_REDIS_WAIT_MS": "1000"}  # (each refusal waits that long)


async def hello(base: str, room: Room, since: int) -> tuple[Client, Welcome | Error]:
    """Seat A's connection resuming from ``since``, and the first answer to its hello."""
    client = await Client.connect(base, room.room_id, hello=False)
    await client.send(Hello(PROTOCOL_VERSION, room.room_id, room.token_a, since))
    first = await client.next()
    assert isinstance(first, Welcome | Error), first
    if isinstance(first, Welcome):
        client.welcome, client.version = first, since
    return client, first


async def test_a_refused_command_that_landed_is_not_accepted_from_a_reload_until_a_replica_has_it(
        redis_cluster: RedisClusterProcesses, cluster_store: ClusterRoomStore) -> None:
    node = ServerProcess(redis_cluster.url, env={
        **WAITING, "REFEREE_NODE_ID": f"cr-{new_room_id()[:6]}"})
    await node.start()
    victim = redis_cluster.masters()[0]
    replica = redis_cluster.replica_of(victim.node_id)
    try:
        room = await room_on(cluster_store, redis_cluster, victim)
        a = await Client.connect(node.base, room.room_id, room.token_a)
        activated = await a.command(ACTIVATE, id="activate")
        assert isinstance(activated, Accepted), activated
        connections = [a]

        redis_cluster.pause(replica.port)
        try:
            refused = await a.command(MOVE, id="move")
            assert isinstance(refused, Rejected), refused
            assert refused.code == ProtocolReason.STORAGE_UNAVAILABLE, refused
            with redis_cluster.client(victim.port) as master:  # it landed there all the same
                landed = int(master.hget(state_key(room.room_id), "version"))
            assert landed > activated.version
            # Sent again: the room is behind its store (STALE version) and stops.
            with pytest.raises(ConnectionClosed) as closed:
                await a.command(MOVE, id="move")
            assert closed.value.rcvd is not None
            assert closed.value.rcvd.code == CloseCode.ROOM_UNAVAILABLE
            # Reconnecting loads the room from its master, which no replica confirms:
            # "try again", not the stored answer.
            early, first = await hello(node.base, room, since=a.version)
            assert isinstance(first, Error), first
            assert first.code == ProtocolReason.STORAGE_UNAVAILABLE, first
            assert await early.close_code() == CloseCode.ROOM_UNAVAILABLE
        finally:
            redis_cluster.resume(replica.port)

        # The replica runs again: the load is confirmed once it has caught up.
        for _ in range(RETRIES):
            seat, first = await hello(node.base, room, since=a.version)
            if isinstance(first, Welcome):
                break
            assert first.code == ProtocolReason.STORAGE_UNAVAILABLE, first
            assert await seat.close_code() == CloseCode.ROOM_UNAVAILABLE
        else:
            raise AssertionError(f"the room never reloaded in {RETRIES} tries")
        connections.append(seat)
        moved = await seat.command(MOVE, id="move")
        assert isinstance(moved, Accepted) and moved.version == landed, moved
        again = await seat.command(MOVE, id="move")  # its one answer, not a second Move
        assert isinstance(again, Accepted) and again.version == moved.version, again
        assert [answer.id for answer in seat.answers()] == ["move", "move"]
        await assert_stored_exactly_once_in_order(
            cluster_store, room, received_events(*connections),
            [activated.version, moved.version])
        await seat.close()
    finally:
        await node.stop()
        print(node.output.decode(errors="replace"))
