"""Group commit: the writes that rooms make in one event-loop iteration, sent as one batch.

A Redis round trip costs the client far more CPU than Redis spends on the write, so the
writes of all rooms ready in the same loop iteration share one pipeline (the group commit;
its cost per write: ``python -m bench.append_cost``, docs/performance.md). ``GroupCommit.submit`` queues an
item; the first item queued schedules a callback for the next loop iteration, which takes
every item queued by then and hands them to ``flush`` at once. A room has at most one write
in flight (it awaits each), so batching never reorders one room's writes.

``flush`` is callback-shaped, not a coroutine: it starts the write and calls ``deliver``
when the outcomes are known. So a batch costs no task, and a flush that gets its replies in
a protocol callback (``server.store.append_channel``) hands them to the waiting rooms right
there, one loop iteration sooner than a future's callbacks would. A flush that must await
runs a coroutine with ``deliver_when_done``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from typing import Any, Generic, TypeVar

Item = TypeVar("Item")

Deliver = Callable[[Sequence[Any] | BaseException], None]
"""Called once per flush: one outcome per item, in order, or an exception that is every
item's outcome."""

Flush = Callable[[list[Item], Deliver], None]
"""``flush(items, deliver)`` starts writing ``items`` and returns; it calls ``deliver`` once,
possibly before it returns."""

_running: set[asyncio.Task[Any]] = set()  # the loop keeps only weak references to tasks


def deliver_when_done(work: Awaitable[Sequence[Any]], deliver: Deliver) -> None:
    """Run ``work`` in a task and ``deliver`` its outcome (the flush's slow paths)."""
    task = asyncio.ensure_future(work)
    _running.add(task)
    task.add_done_callback(partial(_task_done, deliver))


def _task_done(deliver: Deliver, task: asyncio.Task[Sequence[Any]]) -> None:
    _running.discard(task)
    if task.cancelled():
        deliver(asyncio.CancelledError())
    else:
        error = task.exception()
        deliver(task.result() if error is None else error)


class GroupCommit(Generic[Item]):
    def __init__(self, flush: Flush[Item], max_batch: int = 256) -> None:
        """``max_batch``: the most items one ``flush`` gets; more start another flush at
        once (a huge pipeline is one huge socket write that may outlast a timeout)."""
        self._flush = flush
        self._max_batch = max_batch
        self._pending: list[tuple[Item, asyncio.Future[Any]]] = []
        self._loop: asyncio.AbstractEventLoop | None = None

    def submit(self, item: Item) -> asyncio.Future[Any]:
        """A future of the outcome ``flush`` gives for ``item``."""
        loop = self._loop
        if loop is None:  # (asking asyncio every time costs a getpid system call in 3.11)
            loop = self._loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        if not self._pending:
            loop.call_soon(self._take)
        self._pending.append((item, future))
        return future

    def _take(self) -> None:
        batch = self._pending[:self._max_batch]
        self._pending = self._pending[self._max_batch:]
        if self._pending:
            self._loop.call_soon(self._take)  # type: ignore[union-attr]  # (set by submit)
        deliver = partial(_deliver, batch)
        try:
            self._flush([item for item, _ in batch], deliver)
        except Exception as error:
            deliver(error)


def _deliver(batch: list[tuple[Any, asyncio.Future[Any]]],
             outcomes: Sequence[Any] | BaseException) -> None:
    if isinstance(outcomes, BaseException):
        for _, future in batch:
            if future.done():
                continue
            if isinstance(outcomes, asyncio.CancelledError):
                future.cancel()
            else:
                future.set_exception(outcomes)
        return
    for (_, future), outcome in zip(batch, outcomes, strict=True):
        if not future.done():  # its writer may have been cancelled meanwhile
            future.set_result(outcome)
