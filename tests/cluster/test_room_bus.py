"""The room bus (``server.cluster.bus.RoomBus``) against a real redis-server: the order of
what a node publishes, the outbox kept while Redis is unreachable, confirmed subscriptions
(those asked for together in one batch), unsubscribing, handlers that fail, and a lost subscriber connection (``on_reset`` once, then
delivery again on the same channels)."""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import pytest
import redis.asyncio as aioredis

from server.cluster import bus as bus_module
from server.cluster.bus import BusUnavailable, RoomBus
from server.cluster.sharded_bus import ShardedRoomBus
from testkit.redis_process import RedisProcess

pytestmark = pytest.mark.redis

WAIT_S = 10.0  # a generous bound on waiting for an event that must happen


class Heard:
    """A handler that keeps what it receives; ``until(n)`` waits for the n-th."""

    def __init__(self) -> None:
        self.messages: list[bytes] = []
        self._waiting: list[tuple[int, asyncio.Future[None]]] = []

    def __call__(self, data: bytes) -> None:
        self.messages.append(data)
        for count, future in self._waiting:
            if len(self.messages) >= count and not future.done():
                future.set_result(None)

    async def until(self, count: int) -> list[bytes]:
        if len(self.messages) < count:
            future = asyncio.get_running_loop().create_future()
            self._waiting.append((count, future))
            async with asyncio.timeout(WAIT_S):
                await future
        return self.messages


class Resets:
    def __init__(self) -> None:
        self.count = 0
        self.happened = asyncio.Event()

    def __call__(self) -> None:
        self.count += 1
        self.happened.set()


def channel() -> str:
    return f"{{room:{uuid.uuid4().hex[:8]}}}:out"


@asynccontextmanager
async def started(url: str, node: str,
                  on_reset: Callable[[], None] = lambda: None) -> AsyncIterator[RoomBus]:
    client = aioredis.Redis.from_url(url)
    bus = RoomBus(client, node, on_reset)
    await bus.start()
    try:
        yield bus
    finally:
        await bus.close()
        await client.aclose()


async def test_many_messages_arrive_in_the_order_published_across_flushes(
        redis_server: RedisProcess) -> None:
    out, heard = channel(), Heard()
    async with started(redis_server.url, "a") as owner, started(redis_server.url, "b") as relay:
        await relay.subscribe(out, heard)
        sent = [f"m{n}".encode() * (1 + n % 7) for n in range(3000)]
        for start in range(0, len(sent), 100):
            for data in sent[start:start + 100]:
                owner.publish(out, data)
            await asyncio.sleep(0)  # the writer flushes while more is published
        assert await heard.until(len(sent)) == sent


async def test_close_sends_what_is_queued(redis_server: RedisProcess) -> None:
    out, heard = channel(), Heard()
    async with started(redis_server.url, "b") as relay:
        async with started(redis_server.url, "a") as owner:
            await relay.subscribe(out, heard)
            for n in range(50):
                owner.publish(out, b"%d" % n)
        assert await heard.until(50) == [b"%d" % n for n in range(50)]


@pytest.mark.slow  # a redis-server of its own, stopped and started
async def test_messages_published_while_redis_is_down_arrive_once_it_is_back(
        own_redis: RedisProcess, monkeypatch: pytest.MonkeyPatch) -> None:
    """The publishing node logs in as a user Redis forgets when it restarts, so it cannot
    send before the subscribing node has subscribed again and the test re-created the user
    (pub/sub delivers to whoever is subscribed when the message is published)."""
    monkeypatch.setattr(bus_module, "OUTBOX_LIMIT", 20)
    url = own_redis.url
    node_user = ("ACL", "SETUSER", "node", "on", ">secret", "~*", "&*", "+@all")
    admin = aioredis.Redis.from_url(url)
    await admin.execute_command(*node_user)  # type: ignore[no-untyped-call]
    await admin.aclose()
    out, heard = channel(), Heard()
    async with started(url.replace("redis://", "redis://node:secret@"), "a") as owner, \
            started(url, "b") as relay:
        await relay.subscribe(out, heard)
        owner.publish(out, b"before")
        await heard.until(1)  # both nodes' connections are open: the kill breaks them
        own_redis.kill()
        sent = [b"%d" % n for n in range(25)]
        for data in sent:
            owner.publish(out, data)
        own_redis.start()
        # Confirmed once the relay's connection is open again with ``out`` subscribed.
        await relay.subscribe(channel(), Heard())
        admin = aioredis.Redis.from_url(url)
        assert await admin.execute_command(*node_user) == b"OK"  # type: ignore[no-untyped-call]
        await admin.aclose()
        # The outbox held 20 at most: the 5 oldest were dropped.
        assert await heard.until(21) == [b"before", *sent[5:]]


async def test_subscribe_returns_once_redis_confirmed_it(
        redis_server: RedisProcess, admin: aioredis.Redis) -> None:
    out, heard = channel(), Heard()
    async with started(redis_server.url, "b") as relay:
        await relay.subscribe(out, heard)
        assert await admin.publish(out, b"first") == 1  # subscribed already
        assert await heard.until(1) == [b"first"]


async def test_subscriptions_asked_together_go_in_one_write_and_each_is_confirmed(
        redis_server: RedisProcess, admin: aioredis.Redis,
        monkeypatch: pytest.MonkeyPatch) -> None:
    outs = [channel() for _ in range(300)]
    heard = [Heard() for _ in outs]
    async with started(redis_server.url, "b") as relay:
        writes: list[int] = []
        execute = relay._subscriber.execute

        async def counted(commands: list[bytes]) -> list[object]:
            writes.append(len(commands))
            return await execute(commands)

        monkeypatch.setattr(relay._subscriber, "execute", counted)
        await asyncio.gather(*(relay.subscribe(out, h) for out, h in zip(outs, heard, strict=True)))
        assert writes == [300]  # one batch, not one round trip per room
        for n, out in enumerate(outs):
            assert await admin.publish(out, f"m{n}".encode()) == 1  # each subscribed already
        for n, h in enumerate(heard):
            assert await h.until(1) == [f"m{n}".encode()]


async def one_of_a_batch_gives_up(bus: RoomBus | ShardedRoomBus, kept: str, dropped: str,
                                  heard: Heard, monkeypatch: pytest.MonkeyPatch) -> None:
    """``bus`` is asked for ``dropped`` and then ``kept`` in one loop turn, and the asker of
    ``dropped`` gives up before their batch is sent: ``kept``'s subscription is confirmed
    (to ``heard``), the other asker sees its cancellation. (Both buses batch alike:
    ``server.cluster.turn_batches``.)"""
    batches = bus._subscribing
    send = batches._send_asked

    def give_up_then_send() -> None:  # both have asked: one batch
        cancelled.cancel()
        send()

    monkeypatch.setattr(batches, "_send_asked", give_up_then_send)
    cancelled = asyncio.create_task(bus.subscribe(dropped, Heard()))
    confirmed = asyncio.create_task(bus.subscribe(kept, heard))
    await confirmed
    with pytest.raises(asyncio.CancelledError):
        await cancelled


async def test_a_subscriber_that_gives_up_leaves_the_others_of_its_batch_subscribed(
        redis_server: RedisProcess, admin: aioredis.Redis,
        monkeypatch: pytest.MonkeyPatch) -> None:
    kept, dropped, heard = channel(), channel(), Heard()
    async with started(redis_server.url, "b") as relay:
        await one_of_a_batch_gives_up(relay, kept, dropped, heard, monkeypatch)
        assert await admin.publish(kept, b"still") == 1
        assert await heard.until(1) == [b"still"]


@pytest.mark.slow  # a redis-server of its own
async def test_every_subscription_of_a_batch_redis_cannot_confirm_is_bus_unavailable(
        own_redis: RedisProcess) -> None:
    async with started(own_redis.url, "b") as relay:
        own_redis.kill()
        outcomes = await asyncio.gather(*(relay.subscribe(channel(), Heard()) for _ in range(5)),
                                        return_exceptions=True)
        assert [type(outcome) for outcome in outcomes] == [BusUnavailable] * 5


@pytest.mark.slow  # a redis-server of its own
async def test_subscribe_with_redis_unreachable_is_bus_unavailable(
        own_redis: RedisProcess) -> None:
    async with started(own_redis.url, "b") as relay:
        own_redis.kill()
        with pytest.raises(BusUnavailable):
            await relay.subscribe(channel(), Heard())


async def test_unsubscribe_stops_delivery(
        redis_server: RedisProcess, admin: aioredis.Redis) -> None:
    out, other = channel(), channel()
    heard, heard_other, stranger = Heard(), Heard(), Heard()
    async with started(redis_server.url, "b") as relay:
        await relay.subscribe(out, heard)
        await relay.unsubscribe(out, stranger)  # not the registered handler: no effect
        assert await admin.publish(out, b"kept") == 1
        await heard.until(1)
        await relay.unsubscribe(out, heard)
        # Confirmed on the same connection after the unsubscribe: Redis has done both.
        await relay.subscribe(other, heard_other)
        assert await admin.publish(out, b"dropped") == 0
        await admin.publish(other, b"later")
        await heard_other.until(1)  # delivered after anything of ``out`` would have been
        assert heard.messages == [b"kept"]
        assert stranger.messages == []


class Port:
    """Subscribes with its bound method, as the owner's port and a relay do."""

    def __init__(self) -> None:
        self.heard = Heard()

    def on_message(self, data: bytes) -> None:
        self.heard(data)


async def test_a_handler_named_again_as_a_bound_method_is_unsubscribed(
        redis_server: RedisProcess, admin: aioredis.Redis) -> None:
    """``port.on_message`` is a new object each time it is named: unsubscribing with it must
    still find the route (compared by identity, no port or relay was ever unsubscribed; its
    channel stayed subscribed and its route kept it in memory)."""
    out, port = channel(), Port()
    async with started(redis_server.url, "b") as relay:
        await relay.subscribe(out, port.on_message)
        assert await admin.publish(out, b"kept") == 1
        await port.heard.until(1)
        await relay.unsubscribe(out, port.on_message)
        await relay.subscribe(channel(), Heard())  # confirmed after the unsubscribe
        assert await admin.publish(out, b"dropped") == 0
        assert port.heard.messages == [b"kept"]


async def test_a_failing_handler_does_not_stop_the_others(
        redis_server: RedisProcess, admin: aioredis.Redis,
        caplog: pytest.LogCaptureFixture) -> None:
    failing, fine = channel(), channel()
    calls: list[bytes] = []

    def fails(data: bytes) -> None:
        calls.append(data)
        raise RuntimeError("handler bug")

    heard = Heard()
    async with started(redis_server.url, "b") as relay:
        await relay.subscribe(failing, fails)
        await relay.subscribe(fine, heard)
        with caplog.at_level(logging.ERROR, logger="server.cluster.bus"):
            await admin.publish(failing, b"one")
            await admin.publish(fine, b"two")
            await admin.publish(failing, b"three")
            await admin.publish(fine, b"four")
            assert await heard.until(2) == [b"two", b"four"]
    assert calls == [b"one", b"three"]
    assert sum("handler for" in record.getMessage() for record in caplog.records) == 2


@pytest.mark.slow  # a redis-server of its own
async def test_lost_subscriber_connection_resets_once_then_delivers_again(
        own_redis: RedisProcess, monkeypatch: pytest.MonkeyPatch) -> None:
    # No pause between the reader's attempts to reconnect: they fail meanwhile, beside the
    # test's, and must not reset again.
    monkeypatch.setattr(bus_module, "RECONNECT_PAUSE_S", 0.0)
    out, heard, resets = channel(), Heard(), Resets()
    admin = aioredis.Redis.from_url(own_redis.url)
    async with started(own_redis.url, "b", resets) as relay:
        await relay.subscribe(out, heard)
        await admin.publish(out, b"before")
        await heard.until(1)
        await admin.aclose()
        own_redis.kill()
        async with asyncio.timeout(WAIT_S):
            await resets.happened.wait()
        # While Redis is down, every attempt to subscribe fails; no further reset.
        for _ in range(3):
            with pytest.raises(BusUnavailable):
                await relay.subscribe(channel(), Heard())
        own_redis.start()
        # A subscription confirmed now comes after the connection was opened again and
        # every channel subscribed again on it.
        later = channel()
        await relay.subscribe(later, Heard())
        admin = aioredis.Redis.from_url(own_redis.url)
        assert await admin.publish(out, b"after") == 1
        assert await heard.until(2) == [b"before", b"after"]
        assert resets.count == 1
    await admin.aclose()


@pytest.mark.slow  # a redis-server of its own
async def test_connection_killed_by_redis_resets_once_and_resubscribes(
        own_redis: RedisProcess) -> None:
    out, heard, resets = channel(), Heard(), Resets()
    admin = aioredis.Redis.from_url(own_redis.url)
    async with started(own_redis.url, "b", resets) as relay:
        await relay.subscribe(out, heard)
        await admin.execute_command(  # type: ignore[no-untyped-call]
            "CLIENT", "KILL", "TYPE", "pubsub")
        async with asyncio.timeout(WAIT_S):
            await resets.happened.wait()
        await relay.subscribe(channel(), Heard())
        assert await admin.publish(out, b"after") == 1
        assert await heard.until(1) == [b"after"]
        assert resets.count == 1
    await admin.aclose()
