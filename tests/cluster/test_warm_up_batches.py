"""The warm-up's batches, with stand-ins for the index and the registry: at most ``batch``
rooms are opened at once, a shutdown stops it between batches (and a registry already
shutting down stops it too), and a room that fails to load is counted, not fatal."""

from __future__ import annotations

import asyncio
from typing import Any, cast

from server.cluster.room_index import RoomIndex
from server.cluster.warm_up import WarmUp
from server.rooms.registry import NodeShuttingDown, Warmed
from server.store import StorageUnavailable


class Index:
    def __init__(self, rooms: list[str]) -> None:
        self._rooms = rooms

    async def rooms(self) -> list[str]:
        return list(self._rooms)


class Opens:
    """``RoomRegistry.warm`` stand-in: each call waits until the test lets its batch go."""

    def __init__(self, outcomes: dict[str, Warmed | BaseException] | None = None) -> None:
        self.outcomes = outcomes or {}
        self.running = 0
        self.most = 0
        self.calls: list[str] = []
        self.gate = asyncio.Event()
        self.all_in = asyncio.Event()  # the current batch's calls are all waiting
        self.expected = 0
        self.arrived = 0  # calls since the last batch was let go

    async def __call__(self, room_id: str) -> Warmed:
        self.calls.append(room_id)
        self.running += 1
        self.most = max(self.most, self.running)
        self.arrived += 1
        if self.arrived == self.expected:
            self.all_in.set()
        try:
            await self.gate.wait()
        finally:
            self.running -= 1
        outcome = self.outcomes.get(room_id, "started")
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    async def batch_in(self, size: int) -> None:
        """Until ``size`` calls arrived since the last batch was let go."""
        self.expected = size
        if self.arrived == size:
            self.all_in.set()
        await self.all_in.wait()
        self.all_in.clear()

    def release(self) -> None:
        self.arrived = 0
        self.gate.set()  # (wakes the calls waiting now; the next batch's wait again)
        self.gate.clear()

    async def let_batch_go(self, size: int) -> None:
        await self.batch_in(size)
        self.release()


def warm_up(rooms: list[str], opens: Opens, unindexed: list[str], batch: int,
            after_batch: list[list[str]] | None = None) -> WarmUp:
    """``after_batch``: gets the rooms called so far each time a batch is open."""
    def batch_done() -> None:
        if after_batch is not None:
            after_batch.append(list(opens.calls))
    return WarmUp(cast(RoomIndex, Index(rooms)), opens, unindexed.extend, batch=batch,
                  after_batch=batch_done)


async def test_rooms_are_opened_a_bounded_batch_at_a_time() -> None:
    rooms = [f"r{i}" for i in range(7)]
    opens = Opens({"r1": "held", "r2": "gone", "r3": StorageUnavailable("down"),
                   "r4": "already"})
    unindexed: list[str] = []
    after_batch: list[list[str]] = []
    running = asyncio.create_task(
        warm_up(rooms, opens, unindexed, batch=3, after_batch=after_batch).run())
    for size in (3, 3, 1):
        await opens.let_batch_go(size)
    report = await running

    assert opens.most == 3
    assert after_batch == [rooms[:3], rooms[:6], rooms], "told once each batch is open"
    assert report.loaded == ["r0", "r5", "r6"]
    assert report.skipped == ["r1", "r2", "r4"]
    assert report.failed == ["r3"]
    assert unindexed == ["r1", "r2"], "held elsewhere or gone: out of the index"


async def test_a_shutdown_stops_it_between_batches() -> None:
    rooms = [f"r{i}" for i in range(6)]
    opens = Opens()
    warming = warm_up(rooms, opens, [], batch=2)
    running = asyncio.create_task(warming.run())
    await opens.let_batch_go(2)
    await opens.batch_in(2)
    warming.stop()
    opens.release()  # the batch under way ends
    report = await running

    assert opens.calls == ["r0", "r1", "r2", "r3"], "no batch after the stop"
    assert report.loaded == ["r0", "r1", "r2", "r3"]


async def test_a_registry_shutting_down_stops_it() -> None:
    rooms = [f"r{i}" for i in range(4)]
    outcomes: dict[str, Any] = {"r0": NodeShuttingDown("n"), "r1": NodeShuttingDown("n")}
    opens = Opens(outcomes)
    running = asyncio.create_task(warm_up(rooms, opens, [], batch=2).run())
    await opens.let_batch_go(2)
    report = await running

    assert opens.calls == ["r0", "r1"]
    assert report.loaded == [] and report.failed == []
