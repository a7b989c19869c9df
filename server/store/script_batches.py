"""One Lua script's calls made during one event-loop turn, sent as one pipeline.

After a restart every client reconnects at once: thousands of rooms claim their lease and
store their seats' presence within a second or two. One ``EVALSHA`` round trip each, every
call takes a pooled connection, packs, waits and parses on its own; the referee's CPU for
that was a few percent of the restart and the calls queued on the pool. ``ScriptBatches``
collects the calls of one script asked for during one turn of the event loop and sends
them as one pipeline (``transaction=False``: each script is atomic on its own room, as it
was alone), at most ``max_batch`` calls per pipeline. Each caller gets its own call's reply,
or its own error reply raised (e.g. ``STALE fence`` for that room only); a pipeline that
fails as a whole (Redis unreachable) fails each of its calls with ``StorageUnavailable``.

The pattern is the room loads' (``server.rooms.room_loads``) and the appends' group commit:
nothing waits for a batch to fill; a batch holds what arrived while the loop was busy.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import NoScriptError

from server.store.lua_scripts import LuaScripts
from server.store.redis_errors import storage_call

MAX_BATCH = 500
"""Calls per pipeline: its replies are parsed in one go, so a bounded batch keeps that
stretch of the event loop short (and one failed pipeline's harm small)."""

Call = tuple[Sequence[str], Sequence[Any]]  # keys, args


class ScriptBatches:
    def __init__(self, client: aioredis.Redis, scripts: LuaScripts, script: str, what: str,
                 max_batch: int = MAX_BATCH) -> None:
        self._redis = client
        self._scripts = scripts
        self._script = script
        self._what = what
        self._max_batch = max_batch
        self._queued: list[tuple[Call, asyncio.Future[Any]]] = []
        self._flush_scheduled = False
        self._batches: set[asyncio.Task[None]] = set()

    async def run(self, keys: Sequence[str], args: Sequence[Any]) -> Any:
        """The script's reply to this call, sent in the next pipeline; raises its error
        reply (``ResponseError``) or ``StorageUnavailable``."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        self._queued.append(((keys, args), future))
        if not self._flush_scheduled:
            self._flush_scheduled = True
            loop.call_soon(self._flush)
        try:
            # shield: a caller cancelled (its socket went away) does not cancel the batch.
            return await asyncio.shield(future)
        finally:
            # A failed call's exception holds this frame (its traceback): it must not hold
            # the future too, which holds the exception (a cycle, kept for good once a
            # crowd's freeze took it out of the collector's reach: docs/server.md).
            del future

    def _flush(self) -> None:
        self._flush_scheduled = False
        queued, self._queued = self._queued, []
        for start in range(0, len(queued), self._max_batch):
            task = asyncio.create_task(self._send(queued[start:start + self._max_batch]))
            self._batches.add(task)  # (a reference, so the task is not collected early)
            task.add_done_callback(self._batches.discard)

    async def _send(self, batch: list[tuple[Call, asyncio.Future[Any]]]) -> None:
        try:
            replies = await self._pipeline([call for call, _ in batch])
        except Exception as error:
            # This frame is in the error's traceback: it must not hold a future that holds
            # the error, as in ``run`` (the loop's variable: in a function of its own).
            _fail(batch, error)
            batch.clear()
            return
        except BaseException:  # cancelled (the loop is closing): so are its calls
            for _, future in batch:
                future.cancel()
            raise
        for (_, future), reply in zip(batch, replies, strict=True):
            if future.done():
                continue
            if isinstance(reply, Exception):
                future.set_exception(reply)
                future.exception()
            else:
                future.set_result(reply)

    async def _pipeline(self, calls: list[Call]) -> list[Any]:
        async with storage_call(self._what):
            replies = await self._evalsha(calls)
            again = [i for i, reply in enumerate(replies) if isinstance(reply, NoScriptError)]
            if again:
                # Redis restarted and lost its scripts (NOSCRIPT: those calls did nothing):
                # load it again and send those calls once more.
                self._scripts.forget()
                for i, reply in zip(again, await self._evalsha([calls[i] for i in again]),
                                    strict=True):
                    replies[i] = reply
            return replies

    async def _evalsha(self, calls: list[Call]) -> list[Any]:
        sha = await self._scripts.sha(self._script)
        async with self._redis.pipeline(transaction=False) as pipe:
            for keys, args in calls:
                # (execute_command: a cluster pipeline refuses its evalsha method)
                pipe.execute_command("EVALSHA", sha, len(keys), *keys, *args)
            replies: list[Any] = await pipe.execute(raise_on_error=False)
        return replies


def _fail(batch: list[tuple[Call, asyncio.Future[Any]]], error: Exception) -> None:
    for _, future in batch:
        if not future.done():
            future.set_exception(error)
            future.exception()  # marked retrieved: its caller re-raises it
