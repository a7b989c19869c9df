"""Reading rooms back from the store in batches: one round trip for the rooms opened at once.

After a restart every client reconnects at once and each hello opens its room. Read one by
one, the rooms' reads queue on the store's connections, one round trip each. ``RoomLoads``
collects the reads asked for during one turn of the event loop and sends them as one
``RoomStore.load_rooms`` call (one pipeline on Redis), at most ``max_batch`` rooms per call;
a read asked for while its room's read is pending shares it (two hellos for one room read
it once). A failed batch fails each of its reads with the same error, so every waiting
hello is answered (``storage_unavailable`` for ``StorageUnavailable``); a batch read in part
(``SomeRoomsUnavailable``: on a Redis Cluster, a shard that cannot confirm its rooms on a
replica) serves the rooms read and fails the others only.

A node opening relays to rooms other nodes own reads their metas alone the same way
(``RoomStore.load_metas``, a ``RoomLoads`` of its own in the registry).

The pattern is the appends' group commit (``server.store.group_commit``): nothing waits for
a batch to fill; a batch holds what arrived while the loop was busy with other work.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Generic, TypeVar, cast

from server.store import StorageUnavailable
from server.store.interface import SomeRoomsUnavailable

Read = TypeVar("Read")
"""What is read of each room: ``StoredRoom`` (the whole room), ``RoomMeta`` (its meta)."""

MAX_BATCH = 200
"""Rooms per store call: a batch's replies are decoded in one go by the store client, so
a bounded batch keeps that stretch of the event loop short (and one batch's failure small)."""


class RoomLoads(Generic[Read]):
    def __init__(self, read: Callable[[Sequence[str]], Awaitable[Sequence[Read | None]]],
                 max_batch: int = MAX_BATCH) -> None:
        self._read = read
        self._max_batch = max_batch
        self._waiting: dict[str, asyncio.Future[Read | None]] = {}
        self._queued: list[str] = []
        self._flush_scheduled = False
        self._batches: set[asyncio.Task[None]] = set()

    async def load(self, room_id: str) -> Read | None:
        """The room as stored (None: no such room), read in the next batch or in the one
        already reading it; raises what the batch's store call raised."""
        future = self._waiting.get(room_id)
        if future is None:
            loop = asyncio.get_running_loop()
            future = self._waiting[room_id] = loop.create_future()
            self._queued.append(room_id)
            if not self._flush_scheduled:
                self._flush_scheduled = True
                loop.call_soon(self._flush)
        try:
            # shield: one waiter cancelled (its socket went away) does not cancel the others'.
            return await asyncio.shield(future)
        finally:
            # A failed read's exception holds this frame (its traceback): it must not hold
            # the future too, which holds the exception (a cycle: docs/server.md).
            del future

    def pending(self) -> int:
        """Rooms asked for and not read yet (queued or in a batch)."""
        return len(self._waiting)

    def _flush(self) -> None:
        self._flush_scheduled = False
        queued, self._queued = self._queued, []
        for start in range(0, len(queued), self._max_batch):
            task = asyncio.create_task(self._run(queued[start:start + self._max_batch]))
            self._batches.add(task)  # (a reference, so the task is not collected early)
            task.add_done_callback(self._batches.discard)

    async def _run(self, room_ids: list[str]) -> None:
        try:
            stored = await self._read(room_ids)
            if len(stored) != len(room_ids):
                raise RuntimeError(f"the store read {len(stored)} rooms of {len(room_ids)}")
        except SomeRoomsUnavailable as partly:
            # (raised by ``load_rooms`` only: its outcomes are what this batch reads)
            self._settle(room_ids, cast(Sequence[Read | StorageUnavailable | None],
                                        partly.outcomes))
            return
        except Exception as error:
            # (in a method of its own: this frame is in the error's traceback, and must not
            # hold a future that holds the error, as in ``load``)
            self._fail(room_ids, error)
            return
        except BaseException:  # cancelled (the loop is closing): so are its reads
            for room_id in room_ids:
                self._waiting.pop(room_id).cancel()
            raise
        self._settle(room_ids, stored)

    def _fail(self, room_ids: list[str], error: Exception) -> None:
        for room_id in room_ids:
            future = self._waiting.pop(room_id)
            if not future.done():
                future.set_exception(error)
                future.exception()  # marked retrieved: its waiters re-raise it

    def _settle(self, room_ids: list[str],
                outcomes: Sequence[Read | StorageUnavailable | None]) -> None:
        for room_id, outcome in zip(room_ids, outcomes, strict=True):
            future = self._waiting.pop(room_id)
            if future.done():
                continue
            if isinstance(outcome, StorageUnavailable):
                future.set_exception(outcome)
                future.exception()  # marked retrieved: its waiters re-raise it
            else:
                future.set_result(outcome)
