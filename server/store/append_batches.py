"""The Redis store's appends, group-committed: the appends of every room that wrote in one
loop iteration go out as one pipeline on the append channel (one round trip).

Per append the pipeline holds the append script (``EVALSHA``: fencing, version check, the
events, snapshot, deadlines, listing) and, for a public room, the lobby index update (ZADD:
its listing's ``updated_ms`` moved; outside the script because the lobby key lives in
another slot). Each append gets its own outcome: ``[new version, unlisted]`` or the error
its script replied (``STALE ...``), or ``StorageUnavailable``.

The script is loaded by the first batch on each new connection: ``SCRIPT LOAD`` goes at the
head of that batch's pipeline (Redis runs it before the ``EVALSHA`` calls behind it), so a
Redis restart costs no extra round trip. An append that still finds the script cache empty
(NOSCRIPT: ``SCRIPT FLUSH``, a failover) is sent once more, the script loaded again in front.

The usual batch, on an open connection, costs no task: it is packed and written in the group
commit's callback, and its replies are handed to the rooms from the channel's
``data_received``. The rest runs as a coroutine (``_complete``): connecting, the NOSCRIPT
retry, and the second round trip of an append that removed a listing the room had (the ZREM
off the lobby index).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, ResponseError

from server.store.append_channel import AppendChannel
from server.store.group_commit import Deliver, GroupCommit, deliver_when_done
from server.store.interface import Listing
from server.store.redis_errors import StorageUnavailable, storage_call, unavailable
from server.store.resp import pack_command


@dataclass(frozen=True, slots=True)
class PendingAppend:
    room_id: str
    keys: list[str]
    args: list[Any]
    listing: Listing | None


class AppendBatches:
    def __init__(self, client: aioredis.Redis, script: str, lobby_key: str) -> None:
        """``script``: the append script (its keys and arguments are each append's);
        ``lobby_key``: the sorted set of listed rooms (``client`` takes rooms off it)."""
        self._redis = client
        self._script = script
        self._sha = hashlib.sha1(script.encode()).hexdigest()  # as Redis names it
        self._loaded_on: int | None = None  # the connection that loaded the script
        self._lobby_key = lobby_key
        self._channel = AppendChannel(client.connection_pool)
        self._group: GroupCommit[PendingAppend] = GroupCommit(self._flush)

    async def append(self, item: PendingAppend) -> Any:
        """The append's outcome (an error outcome is returned, not raised)."""
        return await self._group.submit(item)

    async def close(self) -> None:
        await self._channel.close()

    def _flush(self, batch: list[PendingAppend], deliver: Deliver) -> None:
        everything = range(len(batch))
        if self._channel.connection is None:
            deliver_when_done(self._complete(batch, [None] * len(batch), everything, 2),
                              deliver)
            return
        commands, where = self._pack(batch, everything)
        self._channel.send(commands, partial(self._replied, batch, where, deliver))

    def _replied(self, batch: list[PendingAppend], where: list[int], deliver: Deliver,
                 results: list[Any] | Exception) -> None:
        if isinstance(results, Exception):
            deliver(unavailable("append", results))
            return
        try:
            outcomes: list[Any] = [None] * len(batch)
            retry = self._take(range(len(batch)), where, results, outcomes)
            if retry:
                deliver_when_done(self._complete(batch, outcomes, retry, 1), deliver)
            elif _unlisted(outcomes):
                deliver_when_done(self._complete(batch, outcomes, (), 0), deliver)
            else:
                deliver(outcomes)
        except Exception as error:  # a bug: the rooms must still get an answer
            deliver(error)

    async def _complete(self, batch: list[PendingAppend], outcomes: list[Any],
                        todo: Sequence[int], attempts: int) -> list[Any]:
        """Send the appends ``todo`` (connecting first if need be), again those that find
        the script cache empty, up to ``attempts`` sends; then take the listings removed
        off the lobby index."""
        try:
            with storage_call("append"):
                while todo and attempts:
                    attempts -= 1
                    await self._channel.connect()
                    commands, where = self._pack(batch, todo)
                    results = await self._channel.execute(commands)
                    todo = self._take(todo, where, results, outcomes)
        except StorageUnavailable as error:  # only the appends not answered yet failed
            for index in todo:
                outcomes[index] = error
        else:
            for index in todo:
                outcomes[index] = StorageUnavailable("append: script cache kept emptying")
        if unlisted := _unlisted(outcomes):
            await self._unlist(batch, unlisted, outcomes)
        return outcomes

    def _pack(self, batch: list[PendingAppend],
              todo: Sequence[int]) -> tuple[list[bytes], list[int]]:
        """The commands of the appends ``todo`` (after ``SCRIPT LOAD`` if this connection
        has not loaded the script), and where each script's reply is among their replies."""
        commands: list[bytes] = []
        connection = self._channel.connection
        if connection != self._loaded_on:
            commands.append(pack_command(b"SCRIPT", b"LOAD", self._script))
            self._loaded_on = connection
        where: list[int] = []
        for index in todo:
            item = batch[index]
            where.append(len(commands))
            commands.append(pack_command(b"EVALSHA", self._sha, len(item.keys), *item.keys,
                                         *item.args))
            if item.listing is not None:
                commands.append(pack_command(b"ZADD", self._lobby_key,
                                             item.listing.updated_ms, item.room_id))
        return commands, where

    def _take(self, todo: Sequence[int], where: list[int], results: list[Any],
              outcomes: list[Any]) -> list[int]:
        """Each script's reply as its append's outcome; the appends to send again (NOSCRIPT:
        the next batch loads the script again)."""
        retry = []
        for index, at in zip(todo, where, strict=True):
            outcome = results[at]
            if isinstance(outcome, NoScriptError):
                retry.append(index)
                self._loaded_on = None
            elif isinstance(outcome, RedisConnectionError):  # LOADING: Redis just restarted
                outcome = StorageUnavailable(f"append: {outcome}")
            elif isinstance(outcome, ResponseError) and str(outcome).startswith("TRYAGAIN"):
                # the room's keys are not all there (``redis_scripts``): nothing was written
                outcome = StorageUnavailable(f"append: {outcome}")
            outcomes[index] = outcome
        return retry

    async def _unlist(self, batch: list[PendingAppend], unlisted: list[int],
                      outcomes: list[Any]) -> None:
        """Take the rooms whose append removed their listing off the lobby index: a second
        round trip, only when a public room stops being listed (never for a private one).
        If it fails, those appends report it (the index keeps an entry ``public_rooms``
        skips, as after any failure between the script and the index update)."""
        try:
            async with storage_call("append (lobby index)"):
                await self._redis.zrem(self._lobby_key,
                                       *(batch[index].room_id for index in unlisted))
        except StorageUnavailable as error:
            for index in unlisted:
                outcomes[index] = error


def _unlisted(outcomes: list[Any]) -> list[int]:
    """The appends whose script removed a listing the room had."""
    return [index for index, outcome in enumerate(outcomes)
            if type(outcome) is list and outcome[1]]
