"""``server.store.cluster_router`` without a cluster: reading an ``ASK`` reply, the node it
names when the slot map does not (a master added to scale out serves no slot yet), and a
cluster no node of which answers (a master's failover: redis-py's ``RedisClusterException``,
which is not a ``RedisError``)."""

from __future__ import annotations

import socket

import pytest
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError

from server.store.cluster_router import ClusterRouter, asked_to, slot_migrating, slot_moved


def test_an_ask_names_the_master_to_ask_once_and_leaves_the_map_alone() -> None:
    ask = ResponseError("ASK 3999 10.0.0.7:7002")
    assert asked_to(ask) == "10.0.0.7:7002"
    assert slot_moved(ask) and slot_migrating(ask)
    assert asked_to(ResponseError("MOVED 3999 10.0.0.7:7002")) is None
    assert asked_to(ResponseError("TRYAGAIN Multiple keys request during rehashing of slot"))\
        is None
    assert not slot_migrating(ResponseError("MOVED 3999 10.0.0.7:7002"))
    assert slot_migrating(ResponseError("TRYAGAIN Multiple keys request"))


async def test_a_master_the_map_does_not_name_is_reached_with_the_clients_settings() -> None:
    client = RedisCluster.from_url("redis://:sesame@127.0.0.1:7000/")
    try:
        node = ClusterRouter(client).node_at("10.0.0.9:7005")
        assert (node.host, node.port, node.name) == ("10.0.0.9", 7005, "10.0.0.9:7005")
        assert node.connection_kwargs["password"] == "sesame"
        assert client.nodes_manager.get_node("10.0.0.9", 7005) is None  # the map unchanged
    finally:
        await client.aclose()


def unreachable_url() -> str:
    """A loopback port nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"redis://127.0.0.1:{port}/"


async def test_a_cluster_no_node_of_which_answers_is_an_unreachable_redis_to_the_callers() -> None:
    client = RedisCluster.from_url(unreachable_url(), socket_connect_timeout=0.5)
    router = ClusterRouter(client)
    try:
        # Its callers handle RedisError and OSError: the slot map's read turns into one...
        with pytest.raises(RedisConnectionError, match="cannot be connected"):
            await router.ready()
        # ...and reading it again after a failure logs and returns (the next failure asks
        # again), instead of ending the task that asked (the room bus's writer did).
        await router.refresh()
    finally:
        await client.aclose()
