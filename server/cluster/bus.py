"""The room bus: Redis pub/sub between the nodes that serve one room.

One subscriber connection per node (``PubSub``), read by one task that hands each message
to the handler registered for its channel. One writer task per node sends everything queued
by ``publish`` in order on one connection: the order in which a room publishes is the order
every subscriber receives. ``publish`` never waits (the room actor calls it); while Redis is
unreachable the queue is kept (up to ``OUTBOX_LIMIT`` messages, oldest dropped first) and
sent when Redis is back. Pub/sub delivers at most once: a relay detects a lost message by its
sequence number; when the subscriber connection drops, ``on_reset`` runs (the node sends its
relayed viewers to reconnect and resume).

The writer: ``publish`` packs each message as a ``PUBLISH`` command at once (hiredis' C
packer, ``server.store.resp``); a flush writes the queued commands (up to ``FLUSH_LIMIT``) in
one ``transport.write`` on a connection of its own (the store's ``AppendChannel``: an
asyncio.Protocol whose replies hiredis parses in ``data_received``) and waits for their
replies, one flush in flight at a time. Only the messages Redis confirmed leave the queue; on
a failure (connection lost, no reply within the pool's ``socket_timeout``, an error reply such
as ``LOADING`` after a restart) the rest is sent again after ``RECONNECT_PAUSE_S``. Why not a
redis-py ``Pipeline``: its ``execute`` (pool checkout, the retry wrapper, a send under a
timeout task, one ``read_response`` per reply, pool release) cost ~120 µs of the owner's CPU
for a one-message flush and ~14 µs per message at 32 (``bench.bus_cost``), the writer's share
of a crowd joining one room.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections import deque
from collections.abc import Callable

import redis.asyncio as aioredis
from redis.exceptions import RedisError, ResponseError

from server.store.append_channel import AppendChannel
from server.store.resp import pack_command

log = logging.getLogger(__name__)

OUTBOX_LIMIT = 100_000
RECONNECT_PAUSE_S = 0.25  # between attempts while Redis is down
SUBSCRIBE_TIMEOUT_S = 5.0
FLUSH_LIMIT = 4096
"""Messages per flush at most (a backlog after an outage goes in several)."""
CLOSE_TIMEOUT_S = 5.0
"""How long ``close`` waits for the last flush's replies."""

Handler = Callable[[bytes], None]


class BusUnavailable(Exception):
    """The subscription could not be confirmed (Redis unreachable)."""


class RoomBus:
    def __init__(self, client: aioredis.Redis, node_id: str,
                 on_reset: Callable[[], None]) -> None:
        self._redis = client
        self._node_id = node_id
        self._on_reset = on_reset
        self._pubsub = client.pubsub()
        self._handlers: dict[str, Handler] = {}
        self._confirm: dict[str, asyncio.Future[None]] = {}
        self._publisher = AppendChannel(client.connection_pool)
        self._outbox: deque[bytes] = deque()  # packed PUBLISH commands
        self._queued = 0  # messages ever queued: the outbox's first is number queued - len
        self._wake = asyncio.Event()
        self._stop = asyncio.Event()  # cuts a retry's pause short on close
        self._tasks: list[asyncio.Task[None]] = []
        self._writer: asyncio.Task[None] | None = None
        self._closing = False

    async def start(self) -> None:
        # A channel of its own first, so the reader always has a subscribed connection.
        await self._pubsub.subscribe(f"{{node:{self._node_id}}}:bus")
        self._writer = asyncio.create_task(self._write(), name="bus-writer")
        self._tasks = [asyncio.create_task(self._read(), name="bus-reader")]

    async def subscribe(self, channel: str, handler: Handler) -> None:
        """Route ``channel``'s messages to ``handler``; returns once Redis confirmed the
        subscription (so whatever is published after this is received)."""
        self._handlers[channel] = handler
        confirmed = self._confirm[channel] = asyncio.get_running_loop().create_future()
        try:
            await self._pubsub.subscribe(channel)
            async with asyncio.timeout(SUBSCRIBE_TIMEOUT_S):
                await confirmed
        except (RedisError, OSError, TimeoutError) as error:
            raise BusUnavailable(f"subscribe {channel}: {error}") from error
        finally:
            if self._confirm.get(channel) is confirmed:
                del self._confirm[channel]

    async def unsubscribe(self, channel: str, handler: Handler) -> None:
        """Stop routing ``channel`` to ``handler`` (if it is still the one registered)."""
        if self._handlers.get(channel) is not handler:
            return
        del self._handlers[channel]
        with contextlib.suppress(RedisError, OSError):
            await self._pubsub.unsubscribe(channel)

    def publish(self, channel: str, data: bytes) -> None:
        """Queue a message; sent in order by the writer task. Never blocks."""
        if len(self._outbox) >= OUTBOX_LIMIT:
            self._outbox.popleft()
            log.warning("bus outbox full; dropped the oldest message")
        # Packed here, once: a message retried after an outage is not packed again.
        self._outbox.append(pack_command("PUBLISH", channel, data))
        self._queued += 1
        self._wake.set()

    async def close(self) -> None:
        """Send what is queued (if Redis answers at once), then stop."""
        self._closing = True
        self._wake.set()
        self._stop.set()
        if self._writer is not None:
            # Not cancelled: a flush cut short would leave its messages queued although
            # Redis may have published them. The writer stops once the outbox is empty or
            # one flush failed after ``close`` began.
            try:
                async with asyncio.timeout(CLOSE_TIMEOUT_S):
                    await self._writer
            except TimeoutError:
                log.warning("room bus: Redis did not confirm the last messages on close")
        await self._publisher.close()
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        with contextlib.suppress(RedisError, OSError):
            await self._pubsub.aclose()  # type: ignore[no-untyped-call]

    async def _read(self) -> None:
        healthy = True
        # Not ``while True``: a cancellation can be lost inside the Redis client (seen
        # right after a Redis restart); the loop ends once ``close`` began anyway.
        while not self._closing:
            try:
                message = await self._pubsub.get_message(timeout=None)
            except (RedisError, OSError) as error:
                if healthy:
                    log.warning("room bus: subscriber connection lost: %s", error)
                    healthy = False
                    self._on_reset()
                await asyncio.sleep(RECONNECT_PAUSE_S)  # Redis is down: try again later
                continue
            if not healthy:
                log.info("room bus: subscriber connection back")
                healthy = True
            if message is None:
                continue
            channel = message["channel"]
            channel = channel.decode() if isinstance(channel, bytes) else str(channel)
            kind = message["type"]
            if kind == "subscribe":
                confirmed = self._confirm.get(channel)
                if confirmed is not None and not confirmed.done():
                    confirmed.set_result(None)
            elif kind == "message":
                handler = self._handlers.get(channel)
                if handler is not None:
                    try:
                        handler(bytes(message["data"]))
                    except Exception:
                        log.exception("room bus: handler for %s failed", channel)

    async def _write(self) -> None:
        while True:
            if not self._outbox:
                if self._closing:
                    return
                self._wake.clear()
                await self._wake.wait()
                continue
            try:
                await self._flush()
            except (RedisError, OSError) as error:
                if self._closing:
                    log.warning("room bus: %d messages not sent on close (%s)",
                                len(self._outbox), error)
                    return
                log.warning("room bus: publish failed (%s); retrying", error)
                with contextlib.suppress(TimeoutError):  # Redis is down: try again later
                    async with asyncio.timeout(RECONNECT_PAUSE_S):
                        await self._stop.wait()

    async def _flush(self) -> None:
        """Send the oldest queued messages in one write and wait for Redis' replies; pop
        those it confirmed (all, unless an error reply came: ``LOADING`` just after a
        restart), then raise if not all were."""
        publisher = self._publisher
        if publisher.connection is None:
            await publisher.connect()
        outbox = self._outbox
        batch = list(itertools.islice(outbox, FLUSH_LIMIT))
        first = self._queued - len(outbox)  # the number of the batch's first message
        replies = await publisher.execute(batch)
        confirmed = len(replies)
        for n, reply in enumerate(replies):
            if isinstance(reply, Exception):
                confirmed = n
                break
        # publish() may have appended meanwhile, and, the outbox being full, dropped some of
        # the oldest: pop the confirmed messages still in it, none after them.
        gone = self._queued - len(outbox) - first  # dropped meanwhile
        for _ in range(max(0, confirmed - gone)):
            outbox.popleft()
        if confirmed < len(batch):
            raise ResponseError(f"PUBLISH refused: {replies[confirmed]}")
