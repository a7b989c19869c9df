"""``ClusterNode.close`` ends the renewal loop even when a tick loses the cancellation:
the Redis client was seen to swallow it right after a Redis restart, and the node's
graceful shutdown then waited for its whole budget (found by
tests/deploy/test_loopback_failover.py: 10 s to stop a node)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence

import redis.asyncio as aioredis

from server.cluster.lease import TickReport
from server.cluster.node import ClusterNode
from server.config import Settings

GUARD_S = 10.0  # against a hung test only


class CancellationLosingLeases:
    """Each tick waits until cancelled; the first one then carries on as if nothing
    happened."""

    def __init__(self) -> None:
        self.ticking = asyncio.Event()
        self.released: list[str] | None = None
        self.lost = 0
        self.ticks = 0

    async def tick(self, owned: Iterable[tuple[str, int]], watched_rooms: Sequence[str],
                   watched_nodes: Sequence[str]) -> TickReport:
        self.ticks += 1
        self.ticking.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            if self.lost:
                raise
            self.lost += 1
        return TickReport(frozenset(), {}, frozenset())

    async def release(self, rooms: list[str]) -> None:
        self.released = rooms


class IdleBus:
    async def start(self) -> None:
        pass

    async def close(self) -> None:
        pass


async def test_close_ends_the_renewal_loop_even_if_a_tick_loses_its_cancellation() -> None:
    client = aioredis.Redis()  # never connected: the leases and the bus are stand-ins
    node = ClusterNode(client, "node-x", Settings(freeze_gc=False, static_dir=None,
                                                  lease_renew_s=0.01))
    leases = CancellationLosingLeases()
    node.leases = leases  # type: ignore[assignment]
    node.bus = IdleBus()  # type: ignore[assignment]
    await node.start()
    async with asyncio.timeout(GUARD_S):
        await leases.ticking.wait()
        await node.close()
    assert leases.lost == 1 and leases.ticks == 1, "no tick after close began"
    assert leases.released == []
    await client.aclose()
