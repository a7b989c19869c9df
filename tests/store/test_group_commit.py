"""GroupCommit: items submitted in one loop iteration reach ``flush`` together, each gets
its own outcome, a failure of the flush is every item's, a cancelled submitter is skipped;
a flush may deliver from a coroutine (``deliver_when_done``) or at once."""

from __future__ import annotations

import asyncio

import pytest

from server.store.group_commit import Deliver, GroupCommit, deliver_when_done


class Recorder:
    def __init__(self, fail: Exception | None = None) -> None:
        self.batches: list[list[int]] = []
        self.fail = fail
        self.release = asyncio.Event()
        self.release.set()
        self._flushing = asyncio.Condition()

    def flush(self, items: list[int], deliver: Deliver) -> None:
        deliver_when_done(self.flush_items(items), deliver)

    async def flush_items(self, items: list[int]) -> list[object]:
        async with self._flushing:
            self.batches.append(items)
            self._flushing.notify_all()
        await self.release.wait()
        if self.fail is not None:
            raise self.fail
        return [item * 10 if item >= 0 else ValueError(f"bad {item}") for item in items]

    async def batches_started(self, count: int) -> None:
        """Wait until ``count`` flushes have begun."""
        async with self._flushing:
            await self._flushing.wait_for(lambda: len(self.batches) >= count)


async def test_items_submitted_together_are_flushed_once_each_with_its_own_outcome() -> None:
    recorder = Recorder()
    group: GroupCommit[int] = GroupCommit(recorder.flush)
    outcomes = await asyncio.gather(*(group.submit(n) for n in (1, 2, -3)))
    assert recorder.batches == [[1, 2, -3]]
    assert outcomes[:2] == [10, 20] and isinstance(outcomes[2], ValueError)


async def test_items_submitted_while_a_flush_runs_go_into_the_next_one() -> None:
    recorder = Recorder()
    recorder.release.clear()
    group: GroupCommit[int] = GroupCommit(recorder.flush)
    first = asyncio.ensure_future(group.submit(1))
    await recorder.batches_started(1)
    second = asyncio.ensure_future(group.submit(2))
    await recorder.batches_started(2)
    recorder.release.set()
    assert (await first, await second) == (10, 20)
    assert recorder.batches == [[1], [2]]


async def test_a_failing_flush_fails_every_item_of_its_batch() -> None:
    group: GroupCommit[int] = GroupCommit(Recorder(fail=ConnectionError("down")).flush)
    results = await asyncio.gather(group.submit(1), group.submit(2), return_exceptions=True)
    assert all(isinstance(r, ConnectionError) for r in results)


async def test_a_cancelled_submitter_does_not_disturb_the_others() -> None:
    recorder = Recorder()
    recorder.release.clear()
    group: GroupCommit[int] = GroupCommit(recorder.flush)
    gone = asyncio.ensure_future(group.submit(1))
    kept = asyncio.ensure_future(group.submit(2))
    await recorder.batches_started(1)
    gone.cancel()
    recorder.release.set()
    assert await kept == 20
    with pytest.raises(asyncio.CancelledError):
        await gone


async def test_a_batch_holds_at_most_max_batch_items_and_the_rest_flush_at_once() -> None:
    recorder = Recorder()
    group: GroupCommit[int] = GroupCommit(recorder.flush, max_batch=2)
    outcomes = await asyncio.gather(*(group.submit(n) for n in range(5)))
    assert outcomes == [0, 10, 20, 30, 40]
    assert recorder.batches == [[0, 1], [2, 3], [4]]


async def test_a_flush_may_deliver_before_it_returns_or_fail_as_it_starts() -> None:
    def at_once(items: list[int], deliver: Deliver) -> None:
        deliver([item + 1 for item in items])

    def broken(items: list[int], deliver: Deliver) -> None:
        raise ValueError("cannot even start")

    assert await asyncio.gather(*(GroupCommit(at_once).submit(n) for n in (1, 2))) == [2, 3]
    failing: GroupCommit[int] = GroupCommit(broken)
    results = await asyncio.gather(failing.submit(1), failing.submit(2), return_exceptions=True)
    assert all(isinstance(r, ValueError) for r in results)


async def test_a_cancelled_flush_cancels_its_items() -> None:
    recorder = Recorder()
    recorder.release.clear()
    flushing: list[asyncio.Future[list[object]]] = []

    def flush(items: list[int], deliver: Deliver) -> None:
        flushing.append(asyncio.ensure_future(recorder.flush_items(items)))
        deliver_when_done(flushing[-1], deliver)

    group: GroupCommit[int] = GroupCommit(flush)
    item = group.submit(1)
    await recorder.batches_started(1)
    flushing[0].cancel()
    with pytest.raises(asyncio.CancelledError):
        await item
