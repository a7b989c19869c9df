"""Group commit: the writes that rooms make in one event-loop iteration, sent as one batch.

A Redis round trip costs the client far more CPU than Redis spends on the write (see
/work/shared/PERFORMANCE-NOTES.md: ~5x less client CPU per write when the writes of all
rooms ready in the same loop iteration share one pipeline). ``GroupCommit.submit`` queues an
item; the first item queued starts a task that runs on the next loop iteration, takes every
item queued by then and hands them to ``flush`` at once. A room has at most one write in
flight (it awaits each), so batching never reorders one room's writes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Generic, TypeVar

Item = TypeVar("Item")

Flush = Callable[[list[Item]], Awaitable[Sequence[Any]]]


class GroupCommit(Generic[Item]):
    """``flush(items)`` returns one outcome per item, in order; an exception it raises is
    every item's outcome."""

    def __init__(self, flush: Flush[Item], max_batch: int = 256) -> None:
        """``max_batch``: the most items one ``flush`` gets; more start another flush at
        once (a huge pipeline is one huge socket write that may outlast a timeout)."""
        self._flush = flush
        self._max_batch = max_batch
        self._pending: list[tuple[Item, asyncio.Future[Any]]] = []
        self._tasks: set[asyncio.Task[None]] = set()

    async def submit(self, item: Item) -> Any:
        """The outcome ``flush`` gave for ``item``."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        if not self._pending:
            self._start(loop)  # its first step runs on the next loop iteration
        self._pending.append((item, future))
        return await future

    def _start(self, loop: asyncio.AbstractEventLoop) -> None:
        task = loop.create_task(self._run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _run(self) -> None:
        batch = self._pending[:self._max_batch]
        self._pending = self._pending[self._max_batch:]
        if self._pending:
            self._start(asyncio.get_running_loop())
        try:
            outcomes = await self._flush([item for item, _ in batch])
        except asyncio.CancelledError:
            for _, future in batch:
                future.cancel()
            raise
        except Exception as error:
            for _, future in batch:
                if not future.done():
                    future.set_exception(error)
            return
        for (_, future), outcome in zip(batch, outcomes, strict=True):
            if not future.done():  # its writer may have been cancelled meanwhile
                future.set_result(outcome)
