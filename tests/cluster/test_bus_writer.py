"""The room bus's writer (``server.cluster.bus.write_outbox``, shared by the plain and the
sharded bus) outlives an outage of any kind: on a Redis Cluster during a master's failover
both the publish and the slot map's read after it may fail with redis-py's
``RedisClusterException`` ("cannot be connected"), which is not a ``RedisError``. The writer
used to end there, and every relay of the node's rooms then waited for frames that never
came (a relayed seat's join timed out: tests/cluster/test_two_replicas_failover.py).
Tests the implementation."""

from __future__ import annotations

import asyncio
from collections import deque

from redis.exceptions import RedisClusterException

from server.cluster.bus import write_outbox

UNREACHABLE = "Redis Cluster cannot be connected. Please provide at least one reachable node"


async def test_the_writer_publishes_once_the_cluster_answers_again() -> None:
    outbox: deque[str] = deque(["greeting", "events"])
    sent: list[str] = []
    failures = iter([RedisClusterException(UNREACHABLE), RedisClusterException(UNREACHABLE)])
    slot_map_reads: list[str] = []
    closing = False
    wake, stop = asyncio.Event(), asyncio.Event()
    stop.set()  # (no pause between attempts: the pause only waits for stop)
    all_sent = asyncio.Event()

    async def flush() -> None:
        failure = next(failures, None)
        if failure is not None:
            raise failure
        while outbox:
            sent.append(outbox.popleft())
        all_sent.set()

    async def read_slot_map_again() -> None:
        slot_map_reads.append("asked")
        raise RedisClusterException(UNREACHABLE)

    writer = asyncio.create_task(write_outbox(outbox, flush, wake, stop, lambda: closing,
                                              after_failure=read_slot_map_again))
    await asyncio.wait_for(all_sent.wait(), timeout=30)
    closing = True
    wake.set()
    await asyncio.wait_for(writer, timeout=30)
    assert sent == ["greeting", "events"]
    assert slot_map_reads == ["asked", "asked"]
