"""The room bus (``server.cluster.bus.RoomBus``) against a real redis-server: the order of
what a node publishes, the outbox kept while Redis is unreachable, confirmed subscriptions,
unsubscribing, handlers that fail, and a lost subscriber connection (``on_reset`` once, then
delivery again on the same channels). The writer: a message written by ``publish`` itself on
a healthy bus, many writes in flight at once, what a failure with writes in flight sends
again (the fine-grained cases with a stand-in for the publishing connection), the outbox's
limit with messages in flight."""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

import hiredis
import pytest
import redis
import redis.asyncio as aioredis
from redis.exceptions import BusyLoadingError
from redis.exceptions import ConnectionError as RedisConnectionError

from server.cluster import bus as bus_module
from server.cluster.bus import BusUnavailable, RoomBus
from server.store.append_channel import Replied
from tests.store.redis_process import RedisProcess

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


@pytest.fixture
async def admin(redis_server: RedisProcess) -> AsyncIterator[aioredis.Redis]:
    client = aioredis.Redis.from_url(redis_server.url)
    try:
        yield client
    finally:
        await client.aclose()


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[RedisProcess]:
    """A redis-server of the test's own, to kill and start again."""
    server = RedisProcess(tmp_path / "redis")
    server.start()
    try:
        yield server
    finally:
        server.stop()


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


# --- the immediate path and the batches in flight ----------------------------------------


async def test_a_message_published_on_a_healthy_bus_is_written_before_publish_returns(
        redis_server: RedisProcess) -> None:
    """The event loop is blocked right after ``publish`` (a synchronous subscriber waits):
    the message reaches Redis all the same, so ``publish`` itself wrote it."""
    out, heard = channel(), Heard()
    watcher = redis.Redis.from_url(redis_server.url)
    pubsub = watcher.pubsub(ignore_subscribe_messages=True)  # type: ignore[no-untyped-call]
    pubsub.subscribe(out)
    assert pubsub.get_message(timeout=WAIT_S) is None  # (the subscription's confirmation)
    try:
        async with started(redis_server.url, "a") as owner, \
                started(redis_server.url, "b") as relay:
            await relay.subscribe(out, heard)
            owner.publish(out, b"first")  # the writer task connects and sends it
            await heard.until(1)
            message = pubsub.get_message(timeout=WAIT_S)
            assert message is not None and message["data"] == b"first"
            for n in range(3):
                owner.publish(out, b"now %d" % n)
                message = pubsub.get_message(timeout=WAIT_S)  # (the loop does not run)
                assert message is not None and message["data"] == b"now %d" % n
            assert await heard.until(4) == [b"first", b"now 0", b"now 1", b"now 2"]
    finally:
        pubsub.close()
        watcher.close()


async def test_many_messages_with_several_batches_in_flight_arrive_in_order(
        redis_server: RedisProcess) -> None:
    out, heard = channel(), Heard()
    async with started(redis_server.url, "a") as owner, started(redis_server.url, "b") as relay:
        await relay.subscribe(out, heard)
        owner.publish(out, b"first")
        await heard.until(1)
        sent = [b"first"]
        for turn in range(30):
            for n in range(50):  # each its own write, none answered before the turn ends
                data = b"%d.%d" % (turn, n)
                owner.publish(out, data)
                sent.append(data)
            link = owner._publisher._link
            assert link is not None and len(link._waiting) >= 50  # all in flight at once
            if turn % 3 == 0:
                await heard.until(len(sent) - 25)  # some confirmed, some in flight
            else:
                await asyncio.sleep(0)
        assert await heard.until(len(sent)) == sent
        async with asyncio.timeout(WAIT_S):
            while owner._outbox:  # every confirmation read: nothing left to send again
                await asyncio.sleep(0.01)


async def test_a_lost_connection_with_batches_in_flight_sends_them_again_once_in_order(
        redis_server: RedisProcess, admin: aioredis.Redis) -> None:
    """Redis holds the PUBLISH commands (CLIENT PAUSE) while the test kills the publishing
    connection: none of the batches in flight was published, all are sent again, in order,
    with those published meanwhile; none confirmed before is."""
    out, heard = channel(), Heard()
    async with started(redis_server.url, "a") as owner, started(redis_server.url, "b") as relay:
        await relay.subscribe(out, heard)
        sent = data(0, 10)
        for message in sent:
            owner.publish(out, message)
        await heard.until(10)
        async with asyncio.timeout(WAIT_S):
            while owner._outbox:  # confirmed
                await asyncio.sleep(0.01)
        await admin.execute_command(  # type: ignore[no-untyped-call]
            "CLIENT", "PAUSE", "60000", "WRITE")
        try:
            for turn in range(3):
                for n in range(5):
                    message = b"%d.%d" % (turn, n)
                    owner.publish(out, message)
                    sent.append(message)
                await asyncio.sleep(0)
            link = owner._publisher._link
            assert link is not None and len(link._waiting) == 15
            clients = (await admin.execute_command(  # type: ignore[no-untyped-call]
                "CLIENT", "LIST")).decode().splitlines()
            (killed,) = [line.split()[0].removeprefix("id=")
                         for line in clients if " cmd=publish " in line]
            await admin.execute_command(  # type: ignore[no-untyped-call]
                "CLIENT", "KILL", "ID", killed)
            async with asyncio.timeout(WAIT_S):
                await link.closed
            for n in range(3):  # while the failure is handled: queued behind the others
                message = b"after %d" % n
                owner.publish(out, message)
                sent.append(message)
        finally:
            await admin.execute_command("CLIENT", "UNPAUSE")  # type: ignore[no-untyped-call]
        owner.publish(out, b"last")
        sent.append(b"last")
        assert await heard.until(len(sent)) == sent
        await admin.publish(out, b"end")  # after anything sent twice
        assert await heard.until(len(sent) + 1) == [*sent, b"end"]


class FakePublisher:
    """Stands for the bus's ``AppendChannel``: keeps the batches written, answered (or
    failed, all at once as a lost connection fails them) when the test says."""

    def __init__(self) -> None:
        self.connection: int | None = None
        self.waiting: list[tuple[list[bytes], Replied]] = []
        self.written: list[list[bytes]] = []  # every batch ever written, in order
        self._wanted: list[tuple[int, asyncio.Future[None]]] = []

    async def connect(self) -> None:
        self.connection = 1

    async def close(self) -> None:
        self.fail()

    def send(self, commands: Sequence[bytes], replied: Replied) -> None:
        if self.connection is None:
            replied(RedisConnectionError("not connected"))  # at once, as AppendChannel
            return
        self.waiting.append((list(commands), replied))
        self.written.append(list(commands))
        for count, future in self._wanted:
            if len(self.written) >= count and not future.done():
                future.set_result(None)

    async def until_written(self, count: int) -> None:
        if len(self.written) < count:
            future = asyncio.get_running_loop().create_future()
            self._wanted.append((count, future))
            async with asyncio.timeout(WAIT_S):
                await future

    def confirm(self, *replies: object) -> None:
        """Answer the oldest waiting batch (every message published to 1 subscriber, or
        ``replies`` as given)."""
        commands, replied = self.waiting.pop(0)
        replied(list(replies) if replies else [1] * len(commands))

    def fail(self) -> None:
        self.connection = None
        waiting, self.waiting = self.waiting, []
        for _commands, replied in waiting:
            replied(RedisConnectionError("connection lost"))


def published(commands: list[bytes]) -> list[bytes]:
    """The messages in packed PUBLISH commands."""
    reader = hiredis.Reader()
    for command in commands:
        reader.feed(command)
    messages = []
    while (reply := reader.gets()) is not False:
        assert reply[0] == b"PUBLISH"
        messages.append(reply[2])
    return messages


def data(first: int, end: int) -> list[bytes]:
    return [b"%d" % n for n in range(first, end)]


@asynccontextmanager
async def faked(url: str) -> AsyncIterator[tuple[RoomBus, FakePublisher]]:
    async with started(url, "a") as bus:
        fake = FakePublisher()
        bus._publisher = fake  # type: ignore[assignment]
        try:
            yield bus, fake
        finally:
            while fake.waiting:  # (for close: confirm what is left)
                fake.confirm()


async def test_a_failure_with_batches_in_flight_sends_the_unconfirmed_again_in_order(
        redis_server: RedisProcess, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bus_module, "RECONNECT_PAUSE_S", 0.0)
    out = channel()
    async with faked(redis_server.url) as (bus, fake):
        bus.publish(out, b"0")
        await fake.until_written(1)  # the writer connected and wrote it
        for n in range(1, 6):
            bus.publish(out, b"%d" % n)  # written at once, one batch each
        assert [published(batch) for batch in fake.written] == [[b"%d" % n] for n in range(6)]
        fake.confirm()
        fake.confirm()  # 0 and 1 confirmed; 2 to 5 in flight
        assert list(map(published, [list(bus._outbox)])) == [data(2, 6)]
        fake.fail()  # each batch in flight fails
        for n in range(6, 9):
            bus.publish(out, b"%d" % n)  # queued: never before the older ones
        assert len(fake.written) == 6
        await fake.until_written(7)
        # Everything unconfirmed, in order, in one batch; nothing confirmed again.
        assert published(fake.written[6]) == data(2, 9)
        bus.publish(out, b"9")  # written at once again, after them
        assert published(fake.written[7]) == [b"9"]
        fake.confirm()
        assert published(list(bus._outbox)) == [b"9"]
        fake.confirm()
        assert not bus._outbox


async def test_an_error_reply_sends_again_what_followed_it_even_if_confirmed(
        redis_server: RedisProcess, monkeypatch: pytest.MonkeyPatch) -> None:
    """LOADING for one message: it and every message after it are sent again (in order;
    those Redis published after it are published twice), the ones before it are not."""
    monkeypatch.setattr(bus_module, "RECONNECT_PAUSE_S", 0.0)
    out = channel()
    async with faked(redis_server.url) as (bus, fake):
        bus.publish(out, b"0")
        await fake.until_written(1)
        bus.publish(out, b"1")
        bus.publish(out, b"2")
        fake.confirm()
        fake.confirm(BusyLoadingError("LOADING Redis is loading the dataset in memory"))
        fake.confirm()  # "2" confirmed after the failure: ignored, sent again
        await fake.until_written(4)
        assert published(fake.written[3]) == [b"1", b"2"]
        assert len(fake.written) == 4


async def test_the_outbox_limit_drops_the_oldest_with_messages_in_flight(
        redis_server: RedisProcess, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bus_module, "RECONNECT_PAUSE_S", 0.0)
    monkeypatch.setattr(bus_module, "OUTBOX_LIMIT", 5)
    out = channel()
    async with faked(redis_server.url) as (bus, fake):
        bus.publish(out, b"0")
        await fake.until_written(1)
        for n in range(1, 8):
            bus.publish(out, b"%d" % n)  # 0 to 2 dropped, in flight
        assert published(list(bus._outbox)) == data(3, 8)
        fake.confirm()  # 0: dropped already, pops nothing
        fake.confirm()
        fake.confirm()
        assert published(list(bus._outbox)) == data(3, 8)
        fake.confirm()  # 3
        assert published(list(bus._outbox)) == data(4, 8)
        fake.fail()
        await fake.until_written(9)
        assert published(fake.written[8]) == data(4, 8)
