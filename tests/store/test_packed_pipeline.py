"""The store's own RESP pipeline against a real Redis: commands packed as redis-py packs
them, every reply in order (an error reply as its ResponseError, the others unharmed), and
a connection whose replies were abandoned (cancellation) never reused."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis
from redis.asyncio.connection import BlockingConnectionPool, Connection
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from server.store.packed_pipeline import execute, pack_command
from tests.store.redis_process import RedisProcess, free_port

pytestmark = pytest.mark.redis


@pytest.fixture
async def pool(redis_server: RedisProcess) -> AsyncIterator[BlockingConnectionPool]:
    """One connection only: a command gets the very connection the last one used."""
    one = BlockingConnectionPool.from_url(redis_server.url, max_connections=1, timeout=5)
    try:
        yield one
    finally:
        await one.aclose()


@pytest.mark.parametrize("args", [
    (b"EVALSHA", "f" * 40, 2, "{room:r}:state", "{room:r}:events", -3, b"", b"\x00\xff",
     "é", b"x" * 10_000),
    ("SET", "{node:n1}:alive", b"1", "PX", 5000),
    ("EVALSHA", "a" * 40, 2, "{room:é}:lease", "{room:é}:state", "n1", 12, 60_000),
    ("GET", b"\x00\r\n binary"),
])
def test_commands_are_packed_as_redis_py_packs_them(args: tuple[bytes | str | int, ...]) -> None:
    assert pack_command(*args) == b"".join(Connection().pack_command(*args))


def test_a_command_is_an_array_of_bulk_strings() -> None:
    assert pack_command(b"PING") == b"*1\r\n$4\r\nPING\r\n"
    assert pack_command("GET", 7) == b"*2\r\n$3\r\nGET\r\n$1\r\n7\r\n"


async def test_every_reply_comes_back_in_order_and_an_error_reply_harms_no_other(
        pool: BlockingConnectionPool) -> None:
    key = f"packed-{uuid.uuid4().hex}"
    replies = await execute(pool, [
        pack_command(b"SET", key, 41), pack_command(b"EVALSHA", "0" * 40, 0),
        pack_command(b"INCR", key), pack_command(b"HGET", key, "field"),
        pack_command(b"GET", key)])
    assert replies[0] == b"OK" and replies[2:] == [42, replies[3], b"42"]
    assert isinstance(replies[1], NoScriptError)
    assert isinstance(replies[3], ResponseError) and "WRONGTYPE" in str(replies[3])
    assert await execute(pool, [pack_command(b"ECHO", b"next")]) == [b"next"]


async def test_a_cancelled_pipeline_does_not_leave_its_reply_for_the_next_one(
        pool: BlockingConnectionPool, redis_server: RedisProcess) -> None:
    key = f"packed-{uuid.uuid4().hex}"
    client = aioredis.Redis.from_url(redis_server.url)
    try:
        blocked = asyncio.ensure_future(execute(pool, [pack_command(b"BLPOP", key, 0)]))
        while not any(c["cmd"] == "blpop" for c in await client.client_list()):
            pass  # each look is a round trip: the pipeline gets to send meanwhile
        blocked.cancel()
        with pytest.raises(asyncio.CancelledError):
            await blocked
        await client.lpush(key, b"for the abandoned BLPOP")  # its reply, were it still read
        assert await execute(pool, [pack_command(b"ECHO", b"fresh")]) == [b"fresh"]
    finally:
        await client.aclose()


async def test_replies_that_do_not_come_within_the_socket_timeout_raise_and_are_abandoned(
        redis_server: RedisProcess) -> None:
    key = f"packed-{uuid.uuid4().hex}"
    impatient = BlockingConnectionPool.from_url(redis_server.url, max_connections=1, timeout=5,
                                                socket_timeout=0.2)
    try:
        with pytest.raises(RedisTimeoutError):
            await execute(impatient, [pack_command(b"ECHO", b"on time"),
                                      pack_command(b"BLPOP", key, 0)])  # never answered
        await execute(impatient, [pack_command(b"LPUSH", key, b"for the abandoned BLPOP")])
        assert await execute(impatient, [pack_command(b"ECHO", b"fresh")]) == [b"fresh"]
    finally:
        await impatient.aclose()


async def test_an_unreachable_redis_raises_a_connection_error() -> None:
    nowhere = BlockingConnectionPool.from_url(f"redis://127.0.0.1:{free_port()}/0",
                                              max_connections=1, timeout=5)
    try:
        with pytest.raises(RedisConnectionError):
            await execute(nowhere, [pack_command(b"PING")])
    finally:
        await nowhere.aclose()
