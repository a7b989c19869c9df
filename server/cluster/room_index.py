"""Which rooms this node runs, kept in Redis for its next start under the same id.

A node restarted after a crash (``kill -9``) under its node id (``server.cluster.identity``)
loads the rooms it was running before their players' hellos arrive
(``server.cluster.warm_up``). It learns which from ``{node:<id>}:rooms``, a set of room ids
under the node's own hash tag (the slot of its instance lock, so it works on a Redis
Cluster too): a room is added when it starts being served here (``ClusterNode.serve``) and
removed when it stops here (``ClusterNode.forget``: idle, lease lost, shutdown).

Cheap: nothing on the command path. The changes of one event-loop turn go out together, one
``SADD``/``SREM`` pipeline at a time (after a restart thousands of rooms start within a
second or two); for a room changed twice before a write, the last change wins. It is a
hint, never a claim: a room added by a write the crash cut short is simply opened by its
first hello, as before; a room in it that another node took meanwhile, or that was deleted,
is claimed by the warm-up, skipped and removed. A write that fails (Redis unreachable) is
retried with the next change (only a store outage: another error drops that write's
changes, logged).

A graceful shutdown (``ClusterNode.close``) deletes the set: its leases are released, so
the rooms' players (sent away with ``GOING_AWAY``) are served by whichever node they reach
next, and a warm-up after the restart would compete with those nodes for rooms nobody
waits for here.

A node killed and never started again under its id (on Kubernetes, a pod replaced under a
new name) leaves the set to expire: it lives ``room_index_ttl_s`` (``server.config``) past
the node's last lease renewal round, each round (``server.cluster.renewal``) setting that
time to live again in the same round trip, and each ``SADD`` setting it too (the ``SADD``
may recreate a set that expired). A warm-up that finds no set warms nothing (its rooms open
on their first hellos). A Redis outage longer than the time to live empties the set too
(no round renews it meanwhile); it then holds only the rooms that started here since.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from server.store.redis_errors import StorageUnavailable, storage_call

log = logging.getLogger(__name__)


def rooms_key(node_id: str) -> str:
    return f"{{node:{node_id}}}:rooms"


class RoomIndex:
    def __init__(self, client: Any, node_id: str, ttl_ms: int) -> None:
        """``client``: the event loop's Redis client (one Redis or a cluster); ``ttl_ms``:
        the set's time to live, also renewed by the node's lease renewal rounds."""
        self._redis = client
        self.key = rooms_key(node_id)
        self._ttl_ms = ttl_ms
        self._changes: dict[str, bool] = {}  # room -> served here (True) or not (False)
        self._writer: asyncio.Task[None] | None = None
        self._closed = False

    def add(self, room_id: str) -> None:
        self._change(room_id, True)

    def remove(self, room_id: str) -> None:
        self._change(room_id, False)

    async def rooms(self) -> list[str]:
        """The rooms this node id ran last (read once, at start-up)."""
        async with storage_call("read the node's rooms"):
            members = await self._redis.smembers(self.key)
        return sorted(m.decode() if isinstance(m, bytes) else str(m) for m in members)

    async def flushed(self) -> None:
        """Until the changes made so far are written (or their write failed)."""
        while self._writer is not None and not self._writer.done():
            await asyncio.shield(self._writer)

    async def clear(self) -> None:
        """Graceful shutdown: no more writes; the set is deleted (see the module's
        docstring)."""
        self._closed = True
        self._changes.clear()
        if self._writer is not None and not self._writer.done():
            await asyncio.gather(self._writer, return_exceptions=True)
        try:
            async with storage_call("delete the node's rooms"):
                await self._redis.delete(self.key)
        except StorageUnavailable as error:
            log.warning("the node's room index not deleted: %s", error)

    def stop(self) -> None:
        """No more writes (this process no longer holds the node id)."""
        self._closed = True
        self._changes.clear()

    def _change(self, room_id: str, served: bool) -> None:
        if self._closed:
            return
        self._changes[room_id] = served
        if self._writer is None or self._writer.done():
            self._writer = asyncio.get_running_loop().create_task(self._write())

    async def _write(self) -> None:
        # One pipeline at a time, each with every change made since the last one: the set
        # follows the changes in order.
        while self._changes and not self._closed:
            changes, self._changes = self._changes, {}
            added = [room_id for room_id, served in changes.items() if served]
            removed = [room_id for room_id, served in changes.items() if not served]
            try:
                async with (storage_call("index the node's rooms"),
                            self._redis.pipeline(transaction=False) as pipe):
                    if added:
                        pipe.sadd(self.key, *added)
                        # (the set may have expired and be created again here: the renewal
                        # round that gives it its time to live may be a second away)
                        pipe.pexpire(self.key, self._ttl_ms)
                    if removed:
                        pipe.srem(self.key, *removed)
                    await pipe.execute()
            except StorageUnavailable as error:
                log.warning("the node's room index not written (retried with the next "
                            "change): %s", error)
                # Newer changes made meanwhile win over these.
                self._changes = {**changes, **self._changes}
                return
            except Exception:  # (a reply no retry mends: these changes are dropped)
                log.exception("the node's room index not written")
