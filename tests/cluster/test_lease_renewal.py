"""Lease renewal off the event loop, against a real redis-server.

- a node whose event loop is blocked for longer than a lease keeps its leases (the renewal
  thread renews them meanwhile): before, they expired although the node was alive;
- a node whose loop is stalled past ``lease_loop_stall_s`` counts as hung: its leases run
  out, another node claims the room, and once the loop runs again the room stops and its
  old fence cannot write;
- a room that stopped idle gives its lease back through the renewal thread, and no later
  renewal takes it back;
- ``close`` stops the thread before it releases every lease.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from protocol.constants import CloseCode
from server.cluster.lease import ACQUIRE, RedisLeases, TickReport, lease_key
from server.cluster.node import ClusterNode
from server.cluster.renewal import LeaseRenewal, connect_sync
from server.cluster.renewer import RenewalThread
from server.rooms.ownership import Claimed
from server.store import StaleWriter
from server.store.redis_errors import StorageUnavailable
from server.store.redis_store import RedisRoomStore, state_key
from tests.cluster.stand_ins import GUARD_S, Expiries, FakeRoom, IdleBus, new_room, settings

pytestmark = pytest.mark.redis


def make_node(store: RedisRoomStore, node_id: str, **lease_settings: float) -> ClusterNode:
    config = settings(**lease_settings)
    node = ClusterNode(store.client, node_id, config, connect_sync(store.url, config.lease_s))
    node.bus = IdleBus()  # type: ignore[assignment]
    return node


async def serve_room(store: RedisRoomStore, node: ClusterNode, room_id: str) -> FakeRoom:
    await new_room(store, room_id)
    claim = await node.claim(room_id)
    assert isinstance(claim, Claimed)
    room = FakeRoom(room_id, claim.fence)
    await node.serve(room)  # type: ignore[arg-type]
    return room


async def test_a_loop_blocked_for_longer_than_a_lease_keeps_its_leases(
        store: RedisRoomStore, expiries: Expiries) -> None:
    node = make_node(store, "busy-node", lease_s=1.0, lease_renew_s=0.1, lease_loop_stall_s=30)
    room = await serve_room(store, node, "renew-busy")
    await node.start()
    try:
        # Block this event loop (the node's) for two leases: a saturated loop.
        await store.client.set("busy-sentinel", b"1", px=2000)
        expiries.block_until("busy-sentinel")
        holder = expiries.client.get(lease_key(room.room_id))  # still inside the block
        assert holder == b"busy-node", "the renewal thread kept the lease"
        assert not room.stopped
    finally:
        await node.close()


async def test_a_loop_stalled_past_the_limit_loses_its_leases_and_cannot_write(
        store: RedisRoomStore, expiries: Expiries) -> None:
    node = make_node(store, "hung-node", lease_s=0.5, lease_renew_s=0.05,
                     lease_loop_stall_s=0.2)
    room = await serve_room(store, node, "renew-hung")
    await node.start()
    try:
        # Block this event loop until its lease is gone: a hung loop is not kept alive by
        # the thread. Still inside the block, another node takes the room.
        expiries.block_until(lease_key(room.room_id))
        taken = expiries.client.eval(ACQUIRE, 2, lease_key(room.room_id),
                                     state_key(room.room_id), "other-node", 60_000, "")
        assert int(taken[0]) == 1
        async with asyncio.timeout(GUARD_S):
            assert await room.stopped_with == CloseCode.ROOM_UNAVAILABLE, "lease lost"
        with pytest.raises(StaleWriter, match="fence"):
            await store.append(room.room_id, fence=room.fence, expected_version=0,
                               events=[b"late"], snapshot=b"s", deadlines=(), listing=None)
        assert node.renewer.refused > 0
    finally:
        await node.close()


async def test_an_idle_room_gives_its_lease_back_and_no_later_renewal_retakes_it(
        store: RedisRoomStore) -> None:
    room_id = await new_room(store, "renew-idle")
    loop = asyncio.get_running_loop()
    released: asyncio.Future[list[str]] = loop.create_future()
    reports: asyncio.Queue[TickReport] = asyncio.Queue()
    claim = await RedisLeases(store.client, "idle-node", 60_000).acquire(room_id)
    assert isinstance(claim, Claimed)
    renewer = RenewalThread(LeaseRenewal(connect_sync(store.url, 5.0), "idle-node", 60_000),
                            0.01, 30.0, lambda: ((), ()), reports.put_nowait,
                            released.set_result)
    renewer.own(room_id, claim.fence)
    renewer.start()
    try:
        async with asyncio.timeout(GUARD_S):
            await reports.get()  # renewed at least once
            renewer.disown(room_id, claim.fence, release=True)
            assert await released == [room_id]
            rounds = renewer.rounds
            while renewer.rounds <= rounds:  # a whole round after the release
                await reports.get()
        assert await store.client.get(lease_key(room_id)) is None
    finally:
        await renewer.stop()


async def test_close_stops_the_renewal_thread_then_releases_every_lease(
        store: RedisRoomStore) -> None:
    node = make_node(store, "closing-node", lease_renew_s=0.01)
    room = await serve_room(store, node, "renew-close")
    await node.start()
    assert node.renewer.running
    await node.close()
    assert not node.renewer.running
    assert await store.client.get(lease_key(room.room_id)) is None


class SwitchedRenewal(LeaseRenewal):
    """A renewal whose rounds fail while ``failing`` (Redis away), each round reported to
    the loop: True when it went through."""

    def __init__(self, renewal: LeaseRenewal, loop: asyncio.AbstractEventLoop,
                 rounds: asyncio.Queue[bool]) -> None:
        super().__init__(renewal._redis, renewal.node_id, renewal.lease_ms)
        self.failing = True
        self._loop = loop
        self._rounds = rounds

    def tick(self, owned: Sequence[tuple[str, int]], watched_rooms: Sequence[str],
             watched_nodes: Sequence[str], seen_ms: int | None = None) -> TickReport:
        went_through = False
        try:
            if self.failing:
                raise StorageUnavailable("renew leases: Redis is away (test)")
            report = super().tick(owned, watched_rooms, watched_nodes, seen_ms)
            went_through = True
            return report
        finally:
            self._loop.call_soon_threadsafe(self._rounds.put_nowait, went_through)


async def test_after_an_outage_the_first_round_through_retakes_the_leases_and_readiness_waits_for_it(
        store: RedisRoomStore) -> None:
    node = make_node(store, "outage-node", lease_renew_s=0.01)
    room_id = await new_room(store, "renew-outage")
    claim = await node.claim(room_id)
    assert isinstance(claim, Claimed)
    loop = asyncio.get_running_loop()
    rounds: asyncio.Queue[bool] = asyncio.Queue()
    renewal = SwitchedRenewal(LeaseRenewal(connect_sync(store.url, 5.0), "outage-node", 60_000),
                              loop, rounds)
    node.renewer = renewer = RenewalThread(renewal, 0.01, 30.0, lambda: ((), ()),
                                           lambda report: None, lambda released: None)
    renewer.own(room_id, claim.fence)
    assert node.lease_problem() is None
    renewer.start()
    try:
        async with asyncio.timeout(GUARD_S):
            assert await rounds.get() is False
            await rounds.get()  # the round after it began: the failed one's bookkeeping is done
            assert renewer.failing_since is not None
            assert "lease renewal failing" in (node.lease_problem() or "")
            # What a restarted Redis holds: no scripts, and the lease expired meanwhile
            # (the room's fence, in its state, is still this node's).
            await store.client.script_flush()
            await store.client.delete(lease_key(room_id))
            renewal.failing = False
            while not await rounds.get():
                pass
            await rounds.get()  # the round after it began: that one's bookkeeping is done
        assert renewer.failing_since is None and node.lease_problem() is None
        assert await store.client.get(lease_key(room_id)) == b"outage-node", (
            "the first round that went through re-took the lease")
    finally:
        await renewer.stop()
