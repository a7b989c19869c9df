"""The room bus: Redis pub/sub between the nodes that serve one room.

One subscriber connection per node (``PubSub``), read by one task that hands each message
to the handler registered for its channel. One publisher task per node sends everything
queued by ``publish`` in order, pipelined, on one connection: the order in which a room
publishes is the order every subscriber receives. ``publish`` never waits (the room actor
calls it); while Redis is unreachable the queue is kept (up to ``OUTBOX_LIMIT`` messages,
oldest dropped first) and sent when Redis is back. Pub/sub delivers at most once: a relay
detects a lost message by its sequence number; when the subscriber connection drops,
``on_reset`` runs (the node sends its relayed viewers to reconnect and resume).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Callable

import redis.asyncio as aioredis
from redis.exceptions import RedisError

log = logging.getLogger(__name__)

OUTBOX_LIMIT = 100_000
RECONNECT_PAUSE_S = 0.25  # between attempts while Redis is down
SUBSCRIBE_TIMEOUT_S = 5.0

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
        self._outbox: deque[tuple[str, bytes]] = deque()
        self._wake = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self._closing = False

    async def start(self) -> None:
        # A channel of its own first, so the reader always has a subscribed connection.
        await self._pubsub.subscribe(f"{{node:{self._node_id}}}:bus")
        self._tasks = [asyncio.create_task(self._read(), name="bus-reader"),
                       asyncio.create_task(self._write(), name="bus-writer")]

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
        self._outbox.append((channel, data))
        self._wake.set()

    async def close(self) -> None:
        """Send what is queued (if Redis answers at once), then stop."""
        self._closing = True
        self._wake.set()
        if self._outbox:
            with contextlib.suppress(RedisError, OSError):
                await self._flush()
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
        while not self._closing:
            await self._wake.wait()
            self._wake.clear()
            while self._outbox and not self._closing:
                try:
                    await self._flush()
                except (RedisError, OSError) as error:
                    log.warning("room bus: publish failed (%s); retrying", error)
                    await asyncio.sleep(RECONNECT_PAUSE_S)

    async def _flush(self) -> None:
        batch = list(self._outbox)
        async with self._redis.pipeline(transaction=False) as pipe:
            for channel, data in batch:
                pipe.publish(channel, data)
            await pipe.execute()
        for _ in batch:  # only what was sent; publish() may have appended meanwhile
            self._outbox.popleft()
