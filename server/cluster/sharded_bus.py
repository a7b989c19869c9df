"""The room bus on a Redis Cluster: sharded pub/sub (``SPUBLISH``/``SSUBSCRIBE``, Redis 7).

The same contract as ``server.cluster.bus.RoomBus`` (``start``, ``subscribe``,
``unsubscribe``, ``publish``, ``close``; ``on_reset`` once per lost subscription): a node
receives what is published after ``subscribe`` returned, in the order the publisher queued
it, at most once. What differs is where a channel lives. A sharded channel belongs to the
slot of its name, so a room's channels (``{room:<id>}:in`` and ``:out``, ``wire``) live on
the master that holds the room's keys: a room's traffic loads that shard only, not every
node of the cluster as plain ``PUBLISH`` would (a classic pub/sub message is broadcast over
the cluster bus to every node).

Subscriber: one connection per master that serves a subscribed channel (an
``AppendChannel`` made by ``server.store.cluster_router``); ``SSUBSCRIBE`` goes to the
channel's master, and its ``smessage`` pushes are handed to the channel's handler inside
``data_received``. The subscriptions asked for in one turn of the event loop (a restart's
warm-up opens its rooms by the batch) go together, each master's share in one write, and
each asker gets its own reply. When one of those connections is lost (its master died),
``on_reset`` runs once with the channels that were subscribed on it (the relays and owners
of rooms on other masters go on undisturbed), the slot map is read again and every channel
is subscribed again on the master that serves it now, every ``RECONNECT_PAUSE_S`` until that
succeeds (a failover takes about ``cluster-node-timeout`` and an election). When Redis
unsubscribes channels because their slot moved to another master (resharding: an unasked
``sunsubscribe`` push per channel), only those channels are lost: the connection stays, with
the other channels of that master on it, and ``on_reset`` gets those channels alone, which
are then subscribed again the same way on their new master. (Dropping the connection reset
every room of the master, once per slot moved: a ``rebalance`` moving many slots off a
master sent the relayed viewers of all its rooms to reconnect over and over.)

Writer: ``publish`` packs an ``SPUBLISH`` and queues it (never waits; up to
``OUTBOX_LIMIT``, oldest dropped); one flush at a time takes the oldest queued messages,
splits them by master and writes each master's share in one write on that master's
connection. The messages a master did not confirm (connection lost, ``MOVED`` after a
failover) go back to the front of the queue, in order, and are sent again after the slot
map is read again: a channel's messages keep their order because they all go to one master
and one flush is in flight at a time.

The node's own channel of the plain bus (``{node:<id>}:bus``) is not subscribed here: nothing
is published on it (on one Redis it only opens the subscriber connection at start).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Callable
from functools import partial
from typing import Any

import hiredis
from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError, ResponseError

from server.cluster.bus import (
    CLOSE_TIMEOUT_S,
    FLUSH_LIMIT,
    OUTBOX_LIMIT,
    RECONNECT_PAUSE_S,
    SUBSCRIBE_TIMEOUT_S,
    BusUnavailable,
    Handler,
    bus_closed,
    write_outbox,
)
from server.cluster.turn_batches import TurnBatches
from server.store.append_channel import _INCOMPLETE, AppendChannel, _Link
from server.store.cluster_router import ClusterRouter, slot_moved
from server.store.resp import pack_command

log = logging.getLogger(__name__)


class _ShardSubscriber(_Link):
    """A subscriber connection to one master: ``smessage`` pushes go to their channel's
    handler; the replies to ``SSUBSCRIBE``/``SUNSUBSCRIBE`` to whoever sent them; an unasked
    ``sunsubscribe`` (the channel's slot left this master) to ``on_moved``."""

    def __init__(self, reply_timeout: float | None, routes: dict[bytes, Handler],
                 on_moved: Callable[[bytes], None]) -> None:
        super().__init__(reply_timeout)
        self._routes = routes
        self._on_moved = on_moved
        self.leaving: set[bytes] = set()
        """Channels whose ``SUNSUBSCRIBE`` this node sent and whose reply is due."""

    def data_received(self, data: bytes) -> None:
        reader = self._reader
        try:
            reader.feed(data)
            while (reply := reader.gets()) is not _INCOMPLETE:
                if reply.__class__ is list and len(reply) == 3:
                    kind = reply[0]
                    if kind == b"smessage":
                        self._deliver(reply[1], reply[2])
                        continue
                    if kind == b"sunsubscribe" and reply[1] not in self.leaving:
                        self._on_moved(reply[1])
                        continue
                    if kind == b"sunsubscribe":
                        # The reply to this node's SUNSUBSCRIBE: to the batch it is due to
                        # (left waiting, it took the next command's reply, and the link
                        # was dropped as hung once its reply timeout passed)
                        self.leaving.discard(reply[1])
                if not self._answer(reply):
                    return
        except hiredis.ProtocolError as error:
            self._fail(RedisConnectionError, f"unreadable reply from Redis: {error}")

    def _deliver(self, channel: bytes, data: bytes) -> None:
        handler = self._routes.get(channel)
        if handler is None:
            return
        try:
            handler(data)
        except Exception:
            log.exception("room bus: handler for %s failed", channel.decode(errors="replace"))


class _Shard:
    """The subscriber connection to one master and the channels subscribed on it."""

    def __init__(self, node: ClusterNode, routes: dict[bytes, Handler],
                 on_moved: Callable[[_Shard, bytes], None]) -> None:
        self.node = node
        self.link: _ShardSubscriber | None = None
        self.channels: set[bytes] = set()
        self.connection = AppendChannel(node, self._new_link)  # type: ignore[arg-type]
        self._routes = routes
        self._on_moved = on_moved

    def _new_link(self, reply_timeout: float | None) -> _Link:
        self.link = _ShardSubscriber(reply_timeout, self._routes,
                                     partial(self._on_moved, self))
        return self.link

    @property
    def live(self) -> bool:
        return self.link is not None and self.link.failure is None


class ShardedRoomBus:
    def __init__(self, client: RedisCluster, node_id: str,
                 on_reset: Callable[[frozenset[str]], None]) -> None:
        """``on_reset`` gets the channels whose subscription was lost (those of the masters
        whose connection dropped): only their relays and owners need to start again."""
        self.node_id = node_id
        self._router = ClusterRouter(client)
        self._on_reset = on_reset
        self._routes: dict[bytes, Handler] = {}
        self._shards: dict[str, _Shard] = {}  # master name -> its subscriber connection
        self._subscribing = TurnBatches(self._subscribe_all, bus_closed)
        self._lost = asyncio.Event()  # a subscriber connection failed
        self._lost_channels: set[bytes] = set()  # what was subscribed on it
        self._whole = asyncio.Event()  # every routed channel subscribed (no loss pending)
        self._whole.set()
        self._resubscribing = asyncio.Lock()
        self._publishers: dict[str, AppendChannel] = {}
        self._outbox: deque[tuple[str, bytes]] = deque()  # (channel, packed SPUBLISH)
        self._wake = asyncio.Event()
        self._stop = asyncio.Event()
        self._watcher: asyncio.Task[None] | None = None
        self._writer: asyncio.Task[None] | None = None
        self._closing = False

    async def start(self) -> None:
        """Read the slot map (raises if the cluster does not answer within
        ``SUBSCRIBE_TIMEOUT_S``) and start the writer and the subscription watcher."""
        async with asyncio.timeout(SUBSCRIBE_TIMEOUT_S):
            await self._router.ready()
        self._watcher = asyncio.create_task(self._watch(), name="sharded-bus-watch")
        self._writer = asyncio.create_task(self._write(), name="sharded-bus-writer")

    async def subscribe(self, channel: str, handler: Handler) -> None:
        key = channel.encode()
        self._routes[key] = handler
        try:
            # (with the others asked for in this turn of the loop: one write per master)
            _confirmed(await self._subscribing.ask(key))
        except (RedisError, OSError, TimeoutError) as error:
            if self._routes.get(key) == handler:
                del self._routes[key]
            raise BusUnavailable(f"ssubscribe {channel}: {error}") from error

    async def _subscribe_all(self, keys: list[bytes], outcomes: dict[int, Any]) -> None:
        """The channels asked for in one turn of the event loop (``TurnBatches``): each
        master's share in one write (a restart's warm-up opens rooms by the batch, on every
        master); each asker gets its own reply, or the failure of its master's write. A
        connection found lost or a slot found moved (``MOVED``) is tried once more, after
        the slot map is read again, for the channels it failed."""
        pending = list(range(len(keys)))
        async with asyncio.timeout(SUBSCRIBE_TIMEOUT_S):
            for attempt in (1, 2):
                again = await self._subscribe_once(keys, pending, outcomes, last=attempt == 2)
                if not again:
                    break
                # (``_shard_for`` replaces a shard whose connection is lost; one still open
                # keeps the channels subscribed on it in its books)
                await self._router.refresh()
                pending = again

    async def _subscribe_once(self, keys: list[bytes], pending: list[int],
                              outcomes: dict[int, Any], last: bool) -> list[int]:
        """``SSUBSCRIBE`` the ``pending`` channels of ``keys``, one write per master, noting
        each one's reply in ``outcomes``; returns those to try again (unless ``last``)."""
        by_shard: dict[str, tuple[_Shard, list[int]]] = {}
        for index in pending:
            shard = await self._shard_for(keys[index].decode())
            by_shard.setdefault(shard.node.name, (shard, []))[1].append(index)
        results = await asyncio.gather(
            *(shard.connection.execute([pack_command("SSUBSCRIBE", keys[index])
                                        for index in indexes])
              for shard, indexes in by_shard.values()),
            return_exceptions=True)
        again: list[int] = []
        for (shard, indexes), result in zip(by_shard.values(), results, strict=True):
            if isinstance(result, RedisConnectionError) and not last:
                again += indexes
                continue
            if isinstance(result, BaseException):
                for index in indexes:
                    outcomes[index] = result
                continue
            for index, reply in zip(indexes, result, strict=True):
                if isinstance(reply, ResponseError) and slot_moved(reply) and not last:
                    again.append(index)
                    continue
                if _subscribed(reply):
                    shard.channels.add(keys[index])
                outcomes[index] = reply
        return again

    async def unsubscribe(self, channel: str, handler: Handler) -> None:
        key = channel.encode()
        # Equal, not the same object: a bound method (a port's or a relay's ``on_message``)
        # is a new object each time it is named.
        if self._routes.get(key) != handler:
            return
        del self._routes[key]
        for shard in self._shards.values():
            if key in shard.channels and shard.live:
                shard.channels.discard(key)
                assert shard.link is not None
                shard.link.leaving.add(key)
                # Not waited for: from now on its messages find no handler.
                shard.connection.send([pack_command("SUNSUBSCRIBE", key)], _ignore)

    def publish(self, channel: str, data: bytes) -> None:
        if len(self._outbox) >= OUTBOX_LIMIT:
            self._outbox.popleft()
            log.warning("bus outbox full; dropped the oldest message")
        self._outbox.append((channel, pack_command("SPUBLISH", channel, data)))
        self._wake.set()

    async def close(self) -> None:
        self._closing = True
        self._wake.set()
        self._stop.set()
        self._subscribing.cancel()  # (its askers are told the bus closed)
        if self._writer is not None:
            try:
                async with asyncio.timeout(CLOSE_TIMEOUT_S):
                    await self._writer
            except TimeoutError:
                log.warning("room bus: Redis did not confirm the last messages on close")
        if self._watcher is not None:
            self._watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._watcher
        for publisher in self._publishers.values():
            await publisher.close()
        for shard in self._shards.values():
            await shard.connection.close()
        await self._router.close()

    # --- subscriptions ------------------------------------------------------------------

    async def _shard_for(self, channel: str) -> _Shard:
        """The live subscriber connection to the master of ``channel`` (opened if need be,
        watched for its loss)."""
        await self._router.ready()
        node = self._router.node_for(channel)
        shard = self._shards.get(node.name)
        if shard is None or (shard.link is not None and not shard.live):
            shard = self._shards[node.name] = _Shard(node, self._routes, self._channel_moved)
        if shard.connection.connection is None:
            # Not open yet, or being opened by another caller (its link is made before its
            # handshake is done): one connect, which the callers meanwhile share.
            await shard.connection.connect()
            assert shard.link is not None
            shard.link.closed.add_done_callback(partial(self._link_closed, shard))
        return shard

    async def whole(self) -> None:
        """Return once no subscriber connection is lost: every channel routed here is
        subscribed on the master that serves it (at once, unless one was lost and is not
        subscribed again yet)."""
        await self._whole.wait()

    def _channel_moved(self, shard: _Shard, channel: bytes) -> None:
        """Redis unsubscribed ``channel`` from ``shard``'s connection (its slot moved to
        another master): lost alone; the watcher resets it and subscribes it again where it
        lives now."""
        log.warning("room bus: Redis unsubscribed %s from %s (its slot moved)",
                    channel.decode(errors="replace"), shard.node.name)
        shard.channels.discard(channel)
        if not self._closing and channel in self._routes:
            self._lost_channels.add(channel)
            self._whole.clear()
            self._lost.set()

    def _link_closed(self, shard: _Shard, _closed: asyncio.Future[None]) -> None:
        if not self._closing:
            self._lost_channels |= shard.channels
            self._whole.clear()
            self._lost.set()

    async def _watch(self) -> None:
        """``on_reset`` once per loss of subscriber connections, then every channel routed
        here subscribed again where it lives now, every ``RECONNECT_PAUSE_S`` until done."""
        while True:
            await self._lost.wait()
            if self._closing:
                return
            self._lost.clear()
            for shard in [shard for shard in self._shards.values() if not shard.live]:
                log.warning("room bus: subscriber connection to %s lost: %s", shard.node.name,
                            shard.link.failure if shard.link else "")
                del self._shards[shard.node.name]
            lost, self._lost_channels = self._lost_channels, set()
            try:
                self._on_reset(frozenset(channel.decode() for channel in lost))
            except Exception:
                log.exception("room bus: on_reset failed")
            while not self._closing:
                try:
                    async with asyncio.timeout(SUBSCRIBE_TIMEOUT_S):
                        await self._router.refresh()
                        await self._resubscribe()
                    if not self._lost.is_set():
                        self._whole.set()
                    break
                except (RedisError, OSError, TimeoutError) as error:
                    log.info("room bus: not subscribed again yet (%s)", error)
                except Exception:
                    # (redis-py's cluster errors are not all RedisErrors; a watcher that
                    # died would leave this node's relayed viewers without their rooms)
                    log.exception("room bus: subscribing again failed; trying again")
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(RECONNECT_PAUSE_S):
                        await self._stop.wait()
            log.info("room bus: subscriptions back")

    async def _resubscribe(self) -> None:
        """Every routed channel not subscribed on a live connection: subscribed on its
        master now (one write per master)."""
        async with self._resubscribing:
            held = {key for shard in self._shards.values() if shard.live
                    for key in shard.channels}
            by_shard: dict[str, tuple[_Shard, list[bytes]]] = {}
            for key in [key for key in self._routes if key not in held]:
                shard = await self._shard_for(key.decode())
                by_shard.setdefault(shard.node.name, (shard, []))[1].append(key)
            for shard, keys in by_shard.values():
                replies = await shard.connection.execute(
                    [pack_command("SSUBSCRIBE", key) for key in keys])
                for key, reply in zip(keys, replies, strict=True):
                    _confirmed(reply)
                    shard.channels.add(key)

    # --- the writer ---------------------------------------------------------------------

    async def _write(self) -> None:
        await write_outbox(self._outbox, self._flush, self._wake, self._stop,
                           lambda: self._closing, after_failure=self._router.refresh)

    async def _flush(self) -> None:
        """Send the oldest queued messages, each master's share in one write; put back, in
        order and in front, those not confirmed, and raise if there were any."""
        outbox = self._outbox
        batch = [outbox.popleft() for _ in range(min(FLUSH_LIMIT, len(outbox)))]
        try:
            await self._router.ready()
            by_node: dict[str, tuple[ClusterNode, list[int]]] = {}
            for index, (channel, _command) in enumerate(batch):
                node = self._router.node_for(channel)
                by_node.setdefault(node.name, (node, []))[1].append(index)
        except BaseException:
            outbox.extendleft(reversed(batch))
            raise
        failed: set[int] = set()
        errors: list[BaseException] = []
        results = await asyncio.gather(
            *(self._send(node, [batch[i][1] for i in indexes]) for node, indexes in
              by_node.values()), return_exceptions=True)
        for (_node, indexes), result in zip(by_node.values(), results, strict=True):
            if isinstance(result, BaseException):
                failed.update(indexes)
                errors.append(result)
                continue
            for index, reply in zip(indexes, result, strict=True):
                if isinstance(reply, Exception):
                    failed.add(index)
                    errors.append(reply)
        if failed:
            outbox.extendleft(reversed([batch[i] for i in sorted(failed)]))
            error = errors[0]
            if isinstance(error, RedisError | OSError):
                raise error
            raise RedisConnectionError(f"SPUBLISH failed: {error}")

    async def _send(self, node: ClusterNode, commands: list[bytes]) -> list[Any]:
        publisher = self._publishers.get(node.name)
        if publisher is None:
            publisher = self._publishers[node.name] = AppendChannel(node)  # type: ignore[arg-type]
        if publisher.connection is None:
            await publisher.connect()
        return await publisher.execute(commands)


def _subscribed(reply: Any) -> bool:
    return isinstance(reply, list) and bool(reply) and reply[0] == b"ssubscribe"


def _confirmed(reply: Any) -> None:
    if isinstance(reply, Exception):
        raise reply
    if not _subscribed(reply):
        raise RedisConnectionError(f"unexpected reply to SSUBSCRIBE: {reply!r}")


def _ignore(_outcome: list[Any] | Exception) -> None:
    pass
