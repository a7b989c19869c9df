"""Games on a real local Redis Cluster (three masters, three replicas; ``redis_cluster``,
tests/conftest.py, and one of its own for the kill), with real ``python -m server`` nodes started with
``REFEREE_REDIS_CLUSTER=1`` and ``REDIS_URL`` naming one node:

- rooms whose slots sit on every master, each played by a seat on one node and a seat on
  another (the relayed seat's commands and the owner's events cross the sharded room bus,
  ``SSUBSCRIBE``/``SPUBLISH`` on the room's own slot); every accepted command stored exactly
  once, in order;
- ``kill -9`` of a master mid-game: a command sent meanwhile is answered
  ``storage_unavailable``; once its replica is promoted (and the dead node is back as its
  replica, so that writes can be confirmed on a replica again), the same command id is
  accepted, every command accepted before the kill is still stored, and every command id
  sent again gets its first answer.
"""

from __future__ import annotations

import asyncio

import httpx
import pytest

from protocol.constants import ProtocolReason
from protocol.messages import Accepted, Rejected, Snapshot
from server.lobby.tokens import new_room_id
from server.store.cluster_store import ClusterRoomStore
from testkit.redis_cluster import RedisClusterProcesses
from testkit.server_process import ServerProcess, two_nodes
from testkit.wsclient import Client
from tests.cluster.game import (
    ACTIVATE,
    COUNTER_SHOT,
    MOVE,
    assert_stored_exactly_once_in_order,
    close_window,
    command_once_storage_is_back,
    received_events,
    room_on,
    seats_on_two_nodes,
)
from tests.support.windows import closed, opened

pytestmark = [pytest.mark.redis, pytest.mark.slow]

ON_THE_CLUSTER = {"REFEREE_REDIS_CLUSTER": "1", "REFEREE_REDIS_WAIT_MS": "2000",
                  # Leases outlive a failover (about 3 s here): the node keeps its rooms.
                  "REFEREE_LEASE_S": "20", "REFEREE_LEASE_RENEW_S": "0.5"}


async def test_games_on_every_master_with_seats_on_two_nodes(
        redis_cluster: RedisClusterProcesses, cluster_store: ClusterRoomStore) -> None:
    async with two_nodes(redis_cluster.url, ServerProcess, prefix="rc-",
                         env=ON_THE_CLUSTER) as (one, two):
        masters = redis_cluster.masters()
        assert len(masters) == 3
        for node in (one, two):  # the write probe and the lease rounds go through
            async with httpx.AsyncClient(base_url=node.base) as http:
                ready = await http.get("/readyz")
            assert ready.status_code == 200, ready.text
        for master in masters:
            # one owns the room, two relays it
            room, a, b = await seats_on_two_nodes(cluster_store, redis_cluster, master,
                                                  one.base, two.base)
            accepted = [await a.command(ACTIVATE), await a.command(MOVE)]
            window = await opened(b)  # the owner's events crossed the sharded bus
            accepted.append(await b.command(COUNTER_SHOT))  # a relayed seat's command
            accepted.append(await b.command(close_window(window)))
            await closed(a, window)
            assert all(isinstance(answer, Accepted) for answer in accepted), accepted
            final = accepted[-1].version
            assert max(received_events(b)) >= final - 1
            await assert_stored_exactly_once_in_order(
                cluster_store, room, received_events(a), [answer.version for answer in accepted])
            await a.close()
            await b.close()


async def test_kill_9_of_a_master_mid_game_loses_no_accepted_command(
        own_cluster: RedisClusterProcesses, own_cluster_store: ClusterRoomStore) -> None:
    # A cluster of its own: see ``own_cluster`` (tests/cluster/conftest.py).
    redis_cluster, cluster_store = own_cluster, own_cluster_store
    node = ServerProcess(redis_cluster.url, env={**ON_THE_CLUSTER,
                                                 "REFEREE_NODE_ID": f"rc-kill-{new_room_id()[:6]}"})
    await node.start()
    victim = redis_cluster.masters()[0]
    restarted = False
    try:
        rooms = [await room_on(cluster_store, redis_cluster, master)
                 for master in redis_cluster.masters()]
        seats = []
        for room in rooms:
            a = await Client.connect(node.base, room.room_id, room.token_a)
            await a.until(Snapshot)
            seats.append(a)
        first = {room.room_id: await a.command(ACTIVATE, id="activate")
                 for room, a in zip(rooms, seats, strict=True)}
        assert all(isinstance(answer, Accepted) for answer in first.values()), first
        hit = next(i for i, room in enumerate(rooms)
                   if redis_cluster.master_of_key(f"{{room:{room.room_id}}}") == victim)

        await asyncio.to_thread(redis_cluster.kill, victim.port)
        # Its master is gone: the command is not accepted, and says "try again".
        refused = await seats[hit].command(MOVE, id="move")
        assert isinstance(refused, Rejected)
        assert refused.code == ProtocolReason.STORAGE_UNAVAILABLE, refused
        await asyncio.to_thread(redis_cluster.wait_promoted, victim)
        await asyncio.to_thread(redis_cluster.restart, victim.port)  # back, as its replica
        restarted = True

        for room, a in zip(rooms, seats, strict=True):
            moved = await command_once_storage_is_back(a, MOVE, "move")
            assert moved.version > first[room.room_id].version  # type: ignore[union-attr]
            # Sent again, each id gets its first answer; nothing is applied twice.
            again = await a.command(ACTIVATE, id="activate")
            assert isinstance(again, Accepted)
            assert again.version == first[room.room_id].version  # type: ignore[union-attr]
            assert (await a.command(MOVE, id="move")).version == moved.version  # type: ignore[union-attr]
            stored = await cluster_store.load_room(room.room_id)
            assert stored is not None and stored.version == moved.version
            await assert_stored_exactly_once_in_order(
                cluster_store, room, received_events(a),
                [first[room.room_id].version, moved.version])  # type: ignore[union-attr]
    finally:
        await node.stop()
        if not restarted:
            await asyncio.to_thread(redis_cluster.restart, victim.port)
        print(node.output.decode(errors="replace"))
