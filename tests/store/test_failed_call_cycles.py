"""A failed Redis call leaves no reference cycle behind (docs/server.md: a cycle alive at a
crowd's freeze is kept for good). The batched calls (``ScriptBatches``: claims, leases,
presence; ``RoomLoads``: a room's load) hand each caller the batch's exception through a
future; the caller's frame, and the batch's, are in that exception's traceback, so neither
may hold the future once it is failed. Here against a Redis nobody listens for, with the
collector off: once the callers have handled their ``StorageUnavailable``, none is alive."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest

from server.cluster.lease import RedisLeases
from server.rooms.room_loads import RoomLoads
from server.store.interface import StorageUnavailable
from server.store.redis_store import RedisRoomStore
from tests.transport.test_socket_cycles import left_alive

NOBODY = "redis://127.0.0.1:1/0"  # nothing listens on port 1


@pytest.fixture
async def unreachable() -> AsyncIterator[RedisRoomStore]:
    store = RedisRoomStore.from_url(NOBODY)
    try:
        yield store
    finally:
        await store.close()


def storage_unavailable(thing: object) -> bool:
    return issubclass(type(thing), StorageUnavailable)


CALLS: dict[str, Callable[[RedisRoomStore], Callable[[str], Awaitable[object]]]] = {
    "claim": lambda store: lambda room_id: store.claim_room(room_id, "node"),
    "lease": lambda store: RedisLeases(store.client, "node", 10_000).acquire,
    "presence": lambda store: lambda room_id: store.set_deadlines(room_id, fence=1,
                                                                  deadlines=()),
    "load": lambda store: RoomLoads(store.load_rooms).load,
}


@pytest.mark.parametrize("call", sorted(CALLS))
async def test_a_batch_that_failed_leaves_no_cycle(unreachable: RedisRoomStore,
                                                   call: str) -> None:
    made = CALLS[call](unreachable)
    with left_alive(storage_unavailable) as found:
        outcomes = await asyncio.gather(*(made(f"room{n}") for n in range(3)),
                                        return_exceptions=True)
        assert [type(outcome) for outcome in outcomes] == [StorageUnavailable] * 3
        del outcomes
        await loop_turns(PENDING_TURNS)
    assert found == []


PENDING_TURNS = 10
"""Loop turns given to the callbacks still queued (gather's, the batch task's): they hold
the outcomes until they run. An object in a cycle is alive after any number of turns."""


async def loop_turns(count: int) -> None:
    for _ in range(count):
        await asyncio.sleep(0)  # one turn of the loop, not a wait for time
