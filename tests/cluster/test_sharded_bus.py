"""The room bus on a real local Redis Cluster (``server.cluster.sharded_bus``): sharded
channels live on their room's master only and keep their order; a subscriber connection
that Redis drops resets once and subscribes again; after a master's ``kill -9`` and its
replica's promotion, the bus resets once (the channels of that master only) and delivers
again from the promoted master; subscriptions asked for together go in one write per master,
each confirmed on its own (one asker giving up or one master failing leaves the others); a subscribe that comes while another one opens the
master's subscriber connection shares that connection; an unsubscribe leaves the connection
in step with its replies; a resubscription that fails for an unforeseen reason is tried
again."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import pytest
import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import ConnectionError as RedisConnectionError

from server.cluster.bus import BusUnavailable
from server.cluster.sharded_bus import ShardedRoomBus
from server.lobby.tokens import new_room_id
from server.store.append_channel import AppendChannel, _Link
from testkit.redis_cluster import NodeView, RedisClusterProcesses
from tests.cluster.test_room_bus import WAIT_S, Heard, Port, one_of_a_batch_gives_up

pytestmark = [pytest.mark.redis, pytest.mark.slow]


class Resets:
    """``on_reset``'s calls: the channels each one said were lost."""

    def __init__(self) -> None:
        self.lost: list[frozenset[str]] = []
        self.happened = asyncio.Event()

    def __call__(self, lost: frozenset[str]) -> None:
        self.lost.append(lost)
        self.happened.set()

    @property
    def count(self) -> int:
        return len(self.lost)


def channel_on(cluster: RedisClusterProcesses, master: NodeView) -> str:
    while True:
        channel = f"{{room:{new_room_id()}}}:out"
        if cluster.master_of_key(channel) == master:
            return channel


@asynccontextmanager
async def started(url: str, node: str,
                  on_reset: Callable[[frozenset[str]], None] = lambda _: None,
                  ) -> AsyncIterator[ShardedRoomBus]:
    client = RedisCluster.from_url(url)
    bus = ShardedRoomBus(client, node, on_reset)
    await bus.start()
    try:
        yield bus
    finally:
        await bus.close()
        await client.aclose()


def admin(port: int) -> aioredis.Redis:
    return aioredis.Redis(host="127.0.0.1", port=port)


async def drop_subscribers(master: NodeView, relay: ShardedRoomBus, resets: Resets) -> None:
    """``master`` drops every subscriber connection; returns once ``relay`` was reset and
    has subscribed its channels again."""
    client = admin(master.port)
    await client.execute_command("CLIENT", "KILL", "TYPE", "pubsub")  # type: ignore[no-untyped-call]
    await client.aclose()
    async with asyncio.timeout(WAIT_S):
        await resets.happened.wait()
        await relay.whole()


async def test_channels_on_every_master_keep_their_order_and_live_on_their_slot(
        redis_cluster: RedisClusterProcesses) -> None:
    masters = redis_cluster.masters()
    channels = [channel_on(redis_cluster, master) for master in masters]
    heard = {channel: Heard() for channel in channels}
    async with started(redis_cluster.url, "a") as owner, \
            started(redis_cluster.url, "b") as relay:
        for channel in channels:
            await relay.subscribe(channel, heard[channel])
        for master, channel in zip(masters, channels, strict=True):
            for other in masters:  # subscribed on the channel's master, nowhere else
                client = admin(other.port)
                (_, count) = await client.execute_command(  # type: ignore[no-untyped-call]
                    "PUBSUB", "SHARDNUMSUB", channel)
                await client.aclose()
                assert count == (1 if other == master else 0)
        sent = [f"m{n}".encode() * (1 + n % 7) for n in range(1500)]
        for start in range(0, len(sent), 100):
            for data in sent[start:start + 100]:
                for channel in channels:
                    owner.publish(channel, data)
            await asyncio.sleep(0)  # the writer flushes while more is published
        for channel in channels:
            assert await heard[channel].until(len(sent)) == sent


async def test_subscriptions_asked_together_go_in_one_write_per_master_and_each_is_confirmed(
        redis_cluster: RedisClusterProcesses, monkeypatch: pytest.MonkeyPatch) -> None:
    masters = redis_cluster.masters()
    channels = [channel_on(redis_cluster, master) for master in masters for _ in range(40)]
    heard = {channel: Heard() for channel in channels}
    writes: list[int] = []
    execute = AppendChannel.execute

    async def counted(self: AppendChannel, commands: list[bytes]) -> list[object]:
        if commands and all(b"SSUBSCRIBE" in command for command in commands):
            writes.append(len(commands))
        return await execute(self, commands)

    async with started(redis_cluster.url, "b") as relay, \
            started(redis_cluster.url, "a") as owner:
        monkeypatch.setattr(AppendChannel, "execute", counted)
        await asyncio.gather(*(relay.subscribe(channel, heard[channel]) for channel in channels))
        monkeypatch.undo()
        assert writes == [40] * len(masters)  # one batch per master, not a round trip each
        for n, channel in enumerate(channels):
            owner.publish(channel, f"m{n}".encode())
        for n, channel in enumerate(channels):
            assert await heard[channel].until(1) == [f"m{n}".encode()]


async def test_a_subscriber_that_gives_up_leaves_the_others_of_its_batch_subscribed(
        redis_cluster: RedisClusterProcesses, monkeypatch: pytest.MonkeyPatch) -> None:
    master = redis_cluster.masters()[0]
    kept, dropped, heard = channel_on(redis_cluster, master), channel_on(
        redis_cluster, master), Heard()
    async with started(redis_cluster.url, "b") as relay, \
            started(redis_cluster.url, "a") as owner:
        await one_of_a_batch_gives_up(relay, kept, dropped, heard, monkeypatch)
        owner.publish(kept, b"still")
        assert await heard.until(1) == [b"still"]


async def test_every_subscription_of_a_batch_a_master_cannot_confirm_is_bus_unavailable(
        redis_cluster: RedisClusterProcesses, monkeypatch: pytest.MonkeyPatch) -> None:
    master = redis_cluster.masters()[0]
    async with started(redis_cluster.url, "b") as relay:
        async def refused(self: AppendChannel, commands: list[bytes]) -> list[object]:
            raise RedisConnectionError("connection lost")

        monkeypatch.setattr(AppendChannel, "execute", refused)
        channels = [channel_on(redis_cluster, master) for _ in range(5)]
        outcomes = await asyncio.gather(*(relay.subscribe(channel, Heard())
                                          for channel in channels), return_exceptions=True)
        assert [type(outcome) for outcome in outcomes] == [BusUnavailable] * 5


async def test_a_connection_dropped_by_redis_resets_its_channels_once_and_subscribes_again(
        redis_cluster: RedisClusterProcesses) -> None:
    master, other = redis_cluster.masters()[1:3]
    out, heard, resets = channel_on(redis_cluster, master), Heard(), Resets()
    elsewhere = channel_on(redis_cluster, other)
    async with started(redis_cluster.url, "b", resets) as relay, \
            started(redis_cluster.url, "a") as owner:
        await relay.subscribe(out, heard)
        await relay.subscribe(elsewhere, Heard())
        await drop_subscribers(master, relay, resets)
        owner.publish(out, b"after")
        assert await heard.until(1) == [b"after"]
        assert resets.lost == [frozenset({out})]  # not the channel on the other master


async def test_a_resubscription_that_fails_unforeseen_is_tried_again(
        redis_cluster: RedisClusterProcesses, monkeypatch: pytest.MonkeyPatch) -> None:
    """Not every failure of redis-py's cluster client is a RedisError: one that is not
    does not end the bus's watcher, which tries again (its pause: 0.5 s)."""
    master = redis_cluster.masters()[0]
    out, heard, resets = channel_on(redis_cluster, master), Heard(), Resets()
    async with started(redis_cluster.url, "b", resets) as relay, \
            started(redis_cluster.url, "a") as owner:
        await relay.subscribe(out, heard)
        resubscribe = relay._resubscribe
        failures = []

        async def fails_once() -> None:
            if not failures:
                failures.append(1)
                raise RuntimeError("unable to perform operation on <TCPTransport closed=True>")
            await resubscribe()

        monkeypatch.setattr(relay, "_resubscribe", fails_once)
        await drop_subscribers(master, relay, resets)
        assert failures == [1], "the first try failed"
        owner.publish(out, b"after")
        assert await heard.until(1) == [b"after"]


async def test_after_a_masters_kill_9_the_bus_delivers_from_the_promoted_replica(
        redis_cluster: RedisClusterProcesses) -> None:
    victim = redis_cluster.masters()[2]
    out, heard, resets = channel_on(redis_cluster, victim), Heard(), Resets()
    async with started(redis_cluster.url, "b", resets) as relay, \
            started(redis_cluster.url, "a") as owner:
        await relay.subscribe(out, heard)
        owner.publish(out, b"before")
        await heard.until(1)
        try:
            await asyncio.to_thread(redis_cluster.kill, victim.port)
            async with asyncio.timeout(WAIT_S):
                await resets.happened.wait()
            promoted = await asyncio.to_thread(redis_cluster.wait_promoted, victim)
            async with asyncio.timeout(WAIT_S):
                await relay.whole()
            assert redis_cluster.master_of_key(out) == promoted
            owner.publish(out, b"after")
            assert await heard.until(2) == [b"before", b"after"]
            assert resets.lost == [frozenset({out})]
        finally:
            await asyncio.to_thread(redis_cluster.restart, victim.port)


async def test_a_subscribe_while_the_masters_connection_opens_shares_that_connection(
        redis_cluster: RedisClusterProcesses, monkeypatch: pytest.MonkeyPatch) -> None:
    """Found by tests/cluster/test_rebalance_under_load.py (a node's warm restart opens
    many rooms at once): a subscribe that came while another one was opening the master's
    subscriber connection (made, its handshake under way) was sent on it before it was
    open, failed "not connected", and the bus opened a second connection, dropping the
    first from its books though it stayed open with the first channel on it. The next
    reset subscribed that channel again on the second connection: each of its messages
    came twice (a relayed command was decided twice, and answered twice), and an
    unsubscribe never reached it."""
    master = redis_cluster.masters()[0]
    first, second = channel_on(redis_cluster, master), channel_on(redis_cluster, master)
    heard = {first: Heard(), second: Heard()}
    handshakes = 0
    handshaking, let_it_finish = asyncio.Event(), asyncio.Event()
    handshake = AppendChannel._handshake

    async def held_handshake(self: AppendChannel, link: _Link) -> None:
        nonlocal handshakes
        handshakes += 1
        handshaking.set()
        await let_it_finish.wait()
        await handshake(self, link)

    async with started(redis_cluster.url, "b") as relay, \
            started(redis_cluster.url, "a") as owner:
        monkeypatch.setattr(AppendChannel, "_handshake", held_handshake)
        subscribing = asyncio.create_task(relay.subscribe(first, heard[first]))
        await handshaking.wait()  # the connection is made, its handshake held
        meanwhile = asyncio.create_task(relay.subscribe(second, heard[second]))
        let_it_finish.set()
        await subscribing
        await meanwhile
        monkeypatch.undo()

        assert handshakes == 1, "one subscriber connection to the master"
        for channel in (first, second):
            owner.publish(channel, b"once")
            assert await heard[channel].until(1) == [b"once"]


async def test_a_handler_named_again_as_a_bound_method_is_unsubscribed(
        redis_cluster: RedisClusterProcesses) -> None:
    """``port.on_message`` is a new object each time it is named: unsubscribing with it must
    still find the route and ``SUNSUBSCRIBE`` the channel."""
    master = redis_cluster.masters()[0]
    gone, port = channel_on(redis_cluster, master), Port()
    async with started(redis_cluster.url, "b") as relay:
        await relay.subscribe(gone, port.on_message)
        await relay.unsubscribe(gone, port.on_message)
        await relay.subscribe(channel_on(redis_cluster, master), Heard())  # sent after it
        client = admin(master.port)
        counts = await client.execute_command(  # type: ignore[no-untyped-call]
            "PUBSUB", "SHARDNUMSUB", gone)
        await client.aclose()
        assert counts == [gone.encode(), 0]


async def test_after_an_unsubscribe_the_connection_answers_the_next_subscribe(
        redis_cluster: RedisClusterProcesses) -> None:
    """Found with the test above: the reply to the bus's own ``SUNSUBSCRIBE`` was read as
    nobody's, so the command sent next on that connection got it instead of its own (a
    ``SSUBSCRIBE`` then waited for ever: the subscribe failed), and once the reply timeout
    had passed the connection was dropped as hung, resetting every channel of the master
    (their relayed viewers sent to reconnect) some seconds after any room or relay closed."""
    master = redis_cluster.masters()[0]
    gone, staying, later = (channel_on(redis_cluster, master) for _ in range(3))
    heard, resets = Heard(), Resets()
    async with started(redis_cluster.url, "b", resets) as relay, \
            started(redis_cluster.url, "a") as owner:
        handler = Heard()
        await relay.subscribe(gone, handler)
        await relay.subscribe(staying, heard)
        await relay.unsubscribe(gone, handler)
        await relay.subscribe(later, Heard())  # (sent after the unsubscribe)
        client = admin(master.port)
        counts = await client.execute_command(  # type: ignore[no-untyped-call]
            "PUBSUB", "SHARDNUMSUB", gone, staying, later)
        await client.aclose()
        assert counts == [gone.encode(), 0, staying.encode(), 1, later.encode(), 1]
        owner.publish(staying, b"once")
        assert await heard.until(1) == [b"once"]
        assert resets.count == 0
