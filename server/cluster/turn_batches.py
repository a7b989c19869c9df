"""Requests asked for in one turn of the event loop, sent together after it: how the room
buses (``bus.RoomBus``, ``sharded_bus.ShardedRoomBus``) subscribe the rooms a node starts
together (a restart's warm-up starts them by the batch) in one write instead of a round
trip each.

``ask(key)`` queues ``key`` and waits for its own outcome; after the turn, one task runs
``send(keys, outcomes)``, which notes each key's reply (or error) under its index. Each asker
gets a future of its own, never the batch's, so one asker cancelled cancels no other. What
``send`` left without an outcome when it raised gets that error, whatever it was (no asker may
wait for ever); when the batch is cancelled (``cancel``: the bus closes), ``closed()``.

The pattern of ``server.store.script_batches`` and ``server.rooms.room_loads``, which add what
their calls need (a pipeline's size, one read per room however many wait on it); this one
leaves the batch's size and its I/O to ``send``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, Generic, TypeVar

Key = TypeVar("Key")

Send = Callable[[list[Key], dict[int, Any]], Awaitable[None]]


class TurnBatches(Generic[Key]):
    def __init__(self, send: Send[Key], closed: Callable[[], BaseException]) -> None:
        self._send = send
        self._closed = closed
        self._asked: list[tuple[Key, asyncio.Future[Any]]] = []
        self._batches: set[asyncio.Task[None]] = set()

    async def ask(self, key: Key) -> Any:
        """``key``'s outcome: its reply, or raises its error."""
        loop = asyncio.get_running_loop()
        outcome: asyncio.Future[Any] = loop.create_future()
        if not self._asked:
            loop.call_soon(self._send_asked)
        self._asked.append((key, outcome))
        try:
            return await outcome
        finally:
            # An error's traceback holds this frame: it must not hold the future too, which
            # holds the error (a cycle, kept for good once a crowd's freeze took it out of the
            # collector's reach: docs/server.md), as ``ScriptBatches.run`` does.
            del outcome

    def cancel(self) -> None:
        """Cancel the batches under way (their askers get ``closed()``)."""
        for batch in list(self._batches):
            batch.cancel()

    def _send_asked(self) -> None:
        asked, self._asked = self._asked, []
        task = asyncio.create_task(self._run(asked))
        self._batches.add(task)  # (a reference, so the task is not collected early)
        task.add_done_callback(self._batches.discard)

    async def _run(self, asked: list[tuple[Key, asyncio.Future[Any]]]) -> None:
        outcomes: dict[int, Any] = {}
        try:
            await self._send([key for key, _ in asked], outcomes)
        except Exception as error:  # (unforeseen ones too: no asker may wait for ever)
            for index in range(len(asked)):
                outcomes.setdefault(index, error)
        except asyncio.CancelledError:
            for index in range(len(asked)):
                outcomes.setdefault(index, self._closed())
        for index, (_, future) in enumerate(asked):
            if not future.done():  # (its asker may have been cancelled)
                outcome = outcomes[index]
                if isinstance(outcome, BaseException):
                    future.set_exception(outcome)
                else:
                    future.set_result(outcome)
        # (an error's traceback holds this frame, and ``send``'s: neither may hold the
        # futures or the outcomes that hold the error)
        asked.clear()
        outcomes.clear()
