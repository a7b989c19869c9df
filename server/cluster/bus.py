"""The room bus: Redis pub/sub between the nodes that serve one room.

One subscriber connection per node hands each message to the handler registered for its
channel. One writer task per node sends everything queued by ``publish`` in order on one
connection: the order in which a room publishes is the order every subscriber receives.
``publish`` never waits (the room actor calls it); while Redis is unreachable the queue is
kept (up to ``OUTBOX_LIMIT`` messages, oldest dropped first) and sent when Redis is back.
Pub/sub delivers at most once: a relay detects a lost message by its sequence number; when
the subscriber connection drops, ``on_reset`` runs once (the node sends its relayed viewers
to reconnect and resume) and the connection is opened again every ``RECONNECT_PAUSE_S``, the
node's own channel and every routed one subscribed again on it.

Both connections are the store's ``AppendChannel`` (``server.store.append_channel``): one
asyncio.Protocol per connection whose replies hiredis parses in ``data_received``, opened with
the client pool's settings (URL, TLS, unix socket, AUTH, SELECT, client name). Not redis-py's
``Pipeline`` and ``PubSub``: with a crowd joining one room their own code was a large share
of each node's CPU (``Pipeline.execute``: pool checkout, the retry wrapper, a send under a
timeout task, one ``read_response`` per reply, pool release; ``PubSub.get_message``: a task
wake-up and redis-py's parse path per message; figures in ``bench.bus_cost``).

The writer: ``publish`` packs each message as a ``PUBLISH`` command at once (hiredis' C
packer, ``server.store.resp``); a flush writes the queued commands (up to ``FLUSH_LIMIT``) in
one ``transport.write`` and waits for their replies, one flush in flight at a time. Only the
messages Redis confirmed leave the queue; on a failure (connection lost, no reply within the
pool's ``socket_timeout``, an error reply such as ``LOADING`` after a restart) the rest is
sent again after ``RECONNECT_PAUSE_S``.

The reader: ``_Subscriber`` hands a ``message`` push to its channel's handler inside
``data_received`` (no task in between); the other replies (the confirmations of
``SUBSCRIBE``/``UNSUBSCRIBE``) go, in order, to whoever sent the command, as the
``AppendChannel``'s batches do, so ``subscribe`` returns when Redis confirmed its channel. A
``subscribe`` that finds the connection down opens it again itself (one attempt, as redis-py's
``PubSub`` did) rather than wait for the next ``RECONNECT_PAUSE_S``. The subscriptions asked
for during one turn of the event loop go as one batch (one write, one wait for the replies,
one timeout): after a restart a node starts its rooms 200 at a time, and one round trip each
was a thirtieth of its CPU until every member was back (docs/performance.md, "The restart").
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Sized
from typing import Any, Protocol

import hiredis
import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisClusterException, RedisError, ResponseError

from server.cluster.turn_batches import TurnBatches
from server.store.append_channel import _INCOMPLETE, AppendChannel, _Link
from server.store.resp import pack_command

log = logging.getLogger(__name__)

OUTBOX_LIMIT = 100_000
RECONNECT_PAUSE_S = 0.25  # between attempts while Redis is down
PUBLISH_FAILURES = (RedisError, OSError, RedisClusterException)
"""What a flush may meet while Redis is down or failing over. ``RedisClusterException`` is
not a ``RedisError``: redis-py's cluster client raises it when no node answers while it
reads the slot map ("Redis Cluster cannot be connected"), as during a master's failover."""
SUBSCRIBE_TIMEOUT_S = 5.0
FLUSH_LIMIT = 4096
"""Messages per flush at most (a backlog after an outage goes in several)."""
CLOSE_TIMEOUT_S = 5.0
"""How long ``close`` waits for the last flush's replies."""

Handler = Callable[[bytes], None]


async def write_outbox(outbox: Sized, flush: Callable[[], Awaitable[None]], wake: asyncio.Event,
                       stop: asyncio.Event, closing: Callable[[], bool],
                       after_failure: Callable[[], Awaitable[None]] | None = None) -> None:
    """A bus's writer task: ``flush`` while ``outbox`` holds messages, else wait for ``wake``;
    a failed flush is tried again after ``RECONNECT_PAUSE_S`` (cut short by ``stop``), once
    ``after_failure`` ran (the sharded bus learns the cluster's slots again); on close
    (``closing()``), it ends once the outbox is empty, or at the first failure, saying how
    many messages were not sent. The plain and the sharded bus share it. A failure of
    ``after_failure`` itself (the cluster still unreachable) is logged and tried again with
    the next failure: the writer outlives any outage, or every relay of the node's rooms
    would wait for frames that never come."""
    while True:
        if not outbox:
            if closing():
                return
            wake.clear()
            await wake.wait()
            continue
        try:
            await flush()
        except PUBLISH_FAILURES as error:
            if closing():
                log.warning("room bus: %d messages not sent on close (%s)", len(outbox), error)
                return
            log.warning("room bus: publish failed (%s); retrying", error)
            if after_failure is not None:
                try:
                    await after_failure()
                except PUBLISH_FAILURES as again:
                    log.warning("room bus: the cluster is not reachable yet (%s)", again)
            with contextlib.suppress(TimeoutError):  # Redis is down: try again later
                async with asyncio.timeout(RECONNECT_PAUSE_S):
                    await stop.wait()


class Bus(Protocol):
    """What the rooms use of a bus: ``RoomBus`` on one Redis, ``ShardedRoomBus``
    (``server.cluster.sharded_bus``) on a Redis Cluster."""

    async def start(self) -> None: ...

    async def subscribe(self, channel: str, handler: Handler) -> None: ...

    async def unsubscribe(self, channel: str, handler: Handler) -> None: ...

    def publish(self, channel: str, data: bytes) -> None: ...

    async def close(self) -> None: ...


class BusUnavailable(Exception):
    """The subscription could not be confirmed (Redis unreachable)."""


class _Subscriber(_Link):
    """The subscriber connection: a ``message`` push goes to its channel's handler right
    in ``data_received``; any other reply (a ``SUBSCRIBE``'s or ``UNSUBSCRIBE``'s
    confirmation, the handshake's) to the batch waiting for it, as on any ``_Link``."""

    def __init__(self, reply_timeout: float | None, routes: dict[bytes, Handler]) -> None:
        super().__init__(reply_timeout)
        self._routes = routes

    def data_received(self, data: bytes) -> None:
        reader = self._reader
        routes = self._routes
        try:
            reader.feed(data)
            while (reply := reader.gets()) is not _INCOMPLETE:
                if reply.__class__ is list and len(reply) == 3 and reply[0] == b"message":
                    handler = routes.get(reply[1])
                    if handler is not None:
                        try:
                            handler(reply[2])
                        except Exception:
                            log.exception("room bus: handler for %s failed",
                                          reply[1].decode(errors="replace"))
                elif not self._answer(reply):
                    return
        except hiredis.ProtocolError as error:
            self._fail(RedisConnectionError, f"unreadable reply from Redis: {error}")


class RoomBus:
    def __init__(self, client: aioredis.Redis, node_id: str,
                 on_reset: Callable[[], None]) -> None:
        self._node_channel = f"{{node:{node_id}}}:bus"
        self._on_reset = on_reset
        self._routes: dict[bytes, Handler] = {}  # channel -> handler (as Redis names it)
        self._subscriber = AppendChannel(client.connection_pool, self._new_link)
        self._newest: _Subscriber | None = None  # the connection ``connect`` made last
        self._live: _Subscriber | None = None  # the one opened and subscribed again
        self._reconnecting = asyncio.Lock()
        self._subscribing = TurnBatches(self._subscribe_all, bus_closed)
        self._publisher = AppendChannel(client.connection_pool)
        self._outbox: deque[bytes] = deque()  # packed PUBLISH commands
        self._queued = 0  # messages ever queued: the outbox's first is number queued - len
        self._wake = asyncio.Event()
        self._stop = asyncio.Event()  # cuts a retry's pause short on close
        self._watcher: asyncio.Task[None] | None = None
        self._writer: asyncio.Task[None] | None = None
        self._closing = False

    async def start(self) -> None:
        """Open the subscriber connection (its first channel the node's own); raises if
        Redis refuses (a ``RedisError``) or has not answered in ``SUBSCRIBE_TIMEOUT_S``."""
        async with asyncio.timeout(SUBSCRIBE_TIMEOUT_S):
            await self._connected()
        self._watcher = asyncio.create_task(self._watch(), name="bus-reader")
        self._writer = asyncio.create_task(self._write(), name="bus-writer")

    async def subscribe(self, channel: str, handler: Handler) -> None:
        """Route ``channel``'s messages to ``handler``; returns once Redis confirmed the
        subscription (so whatever is published after this is received). If the subscriber
        connection is down, it is opened again first, every channel subscribed again on it."""
        key = channel.encode()
        self._routes[key] = handler
        try:
            # (with the others asked for in this turn of the loop: one write)
            _confirmed(await self._subscribing.ask(key))
        except (RedisError, OSError, TimeoutError) as error:
            if self._routes.get(key) == handler:
                del self._routes[key]
            raise BusUnavailable(f"subscribe {channel}: {error}") from error

    async def _subscribe_all(self, keys: list[bytes], outcomes: dict[int, Any]) -> None:
        """One ``SUBSCRIBE`` per channel asked for, in one write (``TurnBatches``): each
        asker gets its reply, or the batch's failure."""
        async with asyncio.timeout(SUBSCRIBE_TIMEOUT_S):
            await self._connected()
            commands = [pack_command("SUBSCRIBE", key) for key in keys]
            try:
                replies = await self._subscriber.execute(commands)
            except RedisConnectionError:
                # Its loss not noticed yet (Redis restarted a moment ago): once more on a new
                # connection, as redis-py's PubSub would.
                await self._connected()
                replies = await self._subscriber.execute(commands)
        outcomes.update(enumerate(replies))

    async def unsubscribe(self, channel: str, handler: Handler) -> None:
        """Stop routing ``channel`` to ``handler`` (if it is still the one registered)."""
        key = channel.encode()
        # Equal, not the same object: a bound method (a port's or a relay's ``on_message``)
        # is a new object each time it is named. Compared by identity, no port or relay was
        # ever unsubscribed: its channel stayed subscribed, and the route held the port
        # and its stopped room (or the relay) in memory for the node's life.
        if self._routes.get(key) != handler:
            return
        del self._routes[key]
        # Not waited for: from now on its messages find no handler. (Not connected: the
        # connection opened next does not subscribe it.)
        self._subscriber.send([pack_command("UNSUBSCRIBE", key)], _ignore)

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
        self._subscribing.cancel()  # (its askers are told the bus closed)
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
        if self._watcher is not None:
            self._watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._watcher
        await self._subscriber.close()

    # --- the subscriber connection ------------------------------------------------------

    def _new_link(self, reply_timeout: float | None) -> _Link:
        link = self._newest = _Subscriber(reply_timeout, self._routes)
        return link

    async def _connected(self) -> None:
        """Unless the subscriber connection is open: open it and subscribe the node's own
        channel and every routed one on it (in one write, the node's first), confirmed."""
        if self._is_live():
            return
        async with self._reconnecting:  # one reconnection; the others wait for it
            if self._is_live():
                return
            subscriber = self._subscriber
            await subscriber.connect()
            link = self._newest
            assert link is not None
            try:
                channels = [self._node_channel.encode(), *self._routes]
                # Written before anything else can be: a SUBSCRIBE sent by ``subscribe``
                # meanwhile is confirmed after these.
                replies = await subscriber.execute(
                    [pack_command("SUBSCRIBE", channel) for channel in channels])
                for reply in replies:
                    _confirmed(reply)
            except BaseException:
                link.close()  # not subscribed as it should be: the next attempt opens anew
                raise
            self._live = link

    def _is_live(self) -> bool:
        live = self._live
        return live is not None and live.failure is None

    async def _watch(self) -> None:
        """``on_reset`` once per outage of the subscriber connection; the connection opened
        again every ``RECONNECT_PAUSE_S`` until it is (or ``subscribe`` did it first)."""
        while True:
            lost = self._live
            assert lost is not None  # (``start`` opened one)
            await asyncio.wait([lost.closed])  # (not cancelling it when we are)
            if self._closing:
                return
            log.warning("room bus: subscriber connection lost: %s", lost.failure)
            try:
                self._on_reset()
            except Exception:
                log.exception("room bus: on_reset failed")
            while not self._is_live():
                await asyncio.sleep(RECONNECT_PAUSE_S)
                try:
                    async with asyncio.timeout(SUBSCRIBE_TIMEOUT_S):
                        await self._connected()
                except (RedisError, OSError, TimeoutError):
                    continue  # Redis is down: try again later
            log.info("room bus: subscriber connection back")

    # --- the writer ---------------------------------------------------------------------

    async def _write(self) -> None:
        await write_outbox(self._outbox, self._flush, self._wake, self._stop,
                           lambda: self._closing)

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


def _confirmed(reply: Any) -> None:
    """Raise unless ``reply`` confirms a subscription."""
    if isinstance(reply, Exception):
        raise reply
    if not (isinstance(reply, list) and reply and reply[0] == b"subscribe"):
        raise RedisConnectionError(f"unexpected reply to SUBSCRIBE: {reply!r}")


def bus_closed() -> BaseException:
    """What a subscriber still waiting when the bus closes is told."""
    return RedisConnectionError("the room bus closed")


def _ignore(_outcome: list[Any] | Exception) -> None:
    pass
