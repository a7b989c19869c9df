"""Takeovers of relayed rooms whose owner is gone, against a real redis-server: the rooms
exist and their leases are free, the renewal thread reports them, and the node takes them
over at most ``takeover_concurrency`` at a time. Before, a node started every takeover at
once, and 2,239 of them exhausted its Redis pool (docs/performance.md). A failed takeover
keeps the relay's viewers and is tried again by a later renewal round."""

from __future__ import annotations

import asyncio

import pytest

from server.cluster.lease import TickReport
from server.cluster.node import ClusterNode
from server.cluster.renewal import connect_sync
from server.rooms.door import RoomDoor
from server.store import StorageUnavailable
from server.store.redis_store import RedisRoomStore
from tests.cluster.stand_ins import GUARD_S, FakeRelay, IdleBus, new_room, settings

pytestmark = pytest.mark.redis


def make_node(store: RedisRoomStore, node_id: str, **more: float) -> ClusterNode:
    config = settings(lease_renew_s=0.01, **more)
    node = ClusterNode(store.client, node_id, config, connect_sync(store.url, config.lease_s))
    node.bus = IdleBus()  # type: ignore[assignment]
    return node


async def relaying(store: RedisRoomStore, node: ClusterNode, room_ids: list[str]) -> dict[
        str, FakeRelay]:
    """Free rooms (no lease) that ``node`` relays to viewers of a node that is gone."""
    relays = {}
    for room_id in room_ids:
        await new_room(store, room_id)
        relays[room_id] = node._relays[room_id] = FakeRelay(room_id)  # type: ignore[assignment]
    return relays


def reports_read(node: ClusterNode) -> asyncio.Queue[TickReport]:
    """Each renewal report, once the node has acted on it."""
    read: asyncio.Queue[TickReport] = asyncio.Queue()
    act = node.renewer._on_report

    def acted(report: TickReport) -> None:
        act(report)
        read.put_nowait(report)

    node.renewer._on_report = acted
    return read


class GatedOpen:
    """``open_rooms`` that counts how many run at once and holds them until ``gate`` opens."""

    def __init__(self, limit: int, total: int) -> None:
        self.limit = limit
        self.total = total
        self.running = 0
        self.most = 0
        self.opened: list[str] = []
        self.full = asyncio.Event()
        self.gate = asyncio.Event()
        self.all_done = asyncio.Event()

    async def __call__(self, room_id: str) -> RoomDoor | None:
        self.running += 1
        self.most = max(self.most, self.running)
        if self.running == self.limit:
            self.full.set()
        try:
            await self.gate.wait()
        finally:
            self.running -= 1
        self.opened.append(room_id)
        if len(self.opened) == self.total:
            self.all_done.set()
        return None  # "now None": whoever reaches the room next serves it


async def test_many_free_rooms_are_taken_over_at_most_n_at_a_time(
        store: RedisRoomStore) -> None:
    node = make_node(store, "takeover-node", takeover_concurrency=3)
    rooms = [f"takeover-{n}" for n in range(10)]
    relays = await relaying(store, node, rooms)
    opened = GatedOpen(limit=3, total=len(rooms))
    node.open_rooms = opened
    reports = reports_read(node)
    await node.start()
    try:
        async with asyncio.timeout(GUARD_S):
            await opened.full.wait()
            # One report named every free room; more reports name the seven still waiting
            # again: none of them starts a fourth takeover.
            for _ in range(3):
                assert set((await reports.get()).holders) >= set(rooms[3:])
            assert opened.running == 3
            opened.gate.set()
            await opened.all_done.wait()
        assert opened.most == 3
        assert sorted(opened.opened) == sorted(rooms), "each room taken over once"
        assert all(relay.moves == 1 for relay in relays.values()), "viewers reconnect"
    finally:
        await node.close()


async def test_a_failed_takeover_keeps_the_viewers_and_a_later_round_tries_again(
        store: RedisRoomStore) -> None:
    node = make_node(store, "retry-node")
    [relay] = (await relaying(store, node, ["takeover-retry"])).values()
    attempts: list[bool] = []
    retried = asyncio.Event()

    async def open_rooms(room_id: str) -> RoomDoor | None:
        if not attempts:
            attempts.append(relay.moves == 0)
            raise StorageUnavailable("load_room: No connection available")
        attempts.append(relay.moves == 0)
        retried.set()
        return None

    node.open_rooms = open_rooms
    await node.start()
    try:
        async with asyncio.timeout(GUARD_S):
            await retried.wait()
        assert attempts == [True, True], "the viewers stayed through the failed attempt"
    finally:
        await node.close()
