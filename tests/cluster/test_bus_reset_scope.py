"""What a node starts again when its room bus loses subscriptions: on one Redis every relay
and owner port (the one subscriber connection carried all of them); on a Redis Cluster only
those whose channel was on the master whose connection dropped
(``server.cluster.sharded_bus``: ``on_reset`` names the lost channels)."""

from __future__ import annotations

import pytest

from server.cluster.node import ClusterNode
from server.cluster.wire import in_channel, out_channel
from server.store.redis_store import RedisRoomStore
from tests.cluster.stand_ins import FakeRelay
from tests.cluster.test_takeover import make_node

pytestmark = pytest.mark.redis


class FakePort:
    def __init__(self) -> None:
        self.resets = 0

    def reset(self) -> None:
        self.resets += 1


def populated(node: ClusterNode) -> tuple[dict[str, FakeRelay], dict[str, FakePort]]:
    relays = {room: FakeRelay(room) for room in ("relayed-1", "relayed-2")}
    ports = {room: FakePort() for room in ("owned-1", "owned-2")}
    node._relays.update(relays)  # type: ignore[arg-type]
    node._ports.update(ports)  # type: ignore[arg-type]
    return relays, ports


async def test_a_reset_naming_lost_channels_starts_only_their_rooms_again(
        store: RedisRoomStore) -> None:
    node = make_node(store, "reset-scope-a")
    relays, ports = populated(node)
    node._bus_reset(frozenset({out_channel("relayed-1"), in_channel("owned-2")}))
    assert [relays[r].moves for r in ("relayed-1", "relayed-2")] == [1, 0]
    assert [ports[r].resets for r in ("owned-1", "owned-2")] == [0, 1]


async def test_a_reset_of_the_one_redis_bus_starts_every_room_again(
        store: RedisRoomStore) -> None:
    node = make_node(store, "reset-scope-b")
    relays, ports = populated(node)
    node._bus_reset()
    assert [relay.moves for relay in relays.values()] == [1, 1]
    assert [port.resets for port in ports.values()] == [1, 1]
