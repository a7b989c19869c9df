"""The appends' own Redis connection against a real Redis: pipelined batches get their
replies in order (an error reply as its exception, the others unharmed), a cancelled
caller's replies are dropped, a lost connection or a reply that does not come in time fails
every waiting batch and the next batch connects again; it connects as the URL says (unix
socket, password, user, database, TLS)."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import redis.asyncio as aioredis
from redis.asyncio.connection import BlockingConnectionPool
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from server.store.append_channel import AppendChannel
from server.store.resp import pack_command
from testkit.redis_process import RedisProcess, free_port

pytestmark = pytest.mark.redis


def channel_to(url: str, **options: Any) -> AppendChannel:
    return AppendChannel(BlockingConnectionPool.from_url(url, **options))


@pytest.fixture
async def channel(redis_server: RedisProcess) -> AsyncIterator[AppendChannel]:
    one = channel_to(redis_server.url)
    await one.connect()
    try:
        yield one
    finally:
        await one.close()


async def until_blocked(admin: aioredis.Redis, command: str) -> None:
    """Until a client of Redis waits in ``command`` (each look is a round trip, during
    which the other tasks run)."""
    while not any(c["cmd"] == command and "b" in c["flags"] for c in await admin.client_list()):
        pass


def key() -> str:
    return f"channel-{uuid.uuid4().hex}"


async def test_every_reply_comes_back_in_order_and_an_error_reply_harms_no_other(
        channel: AppendChannel) -> None:
    name = key()
    replies = await channel.execute([
        pack_command(b"SET", name, 41), pack_command(b"EVALSHA", "0" * 40, 0),
        pack_command(b"INCR", name), pack_command(b"HGET", name, "field"),
        pack_command(b"EVAL", "return redis.error_reply('STALE fence')", 0),
        pack_command(b"GET", name)])
    assert replies[0] == b"OK" and replies[2] == 42 and replies[5] == b"42"
    assert isinstance(replies[1], NoScriptError)
    assert isinstance(replies[3], ResponseError) and "WRONGTYPE" in str(replies[3])
    assert isinstance(replies[4], ResponseError) and str(replies[4]) == "STALE fence"
    assert await channel.execute([pack_command(b"ECHO", b"next")]) == [b"next"]


async def test_a_batch_is_sent_before_the_one_before_it_is_answered_and_answered_after_it(
        channel: AppendChannel, admin: aioredis.Redis) -> None:
    name = key()
    answered: list[str] = []

    async def batch(label: str, command: bytes) -> list[Any]:
        replies = await channel.execute([command])
        answered.append(label)
        return replies

    first = asyncio.ensure_future(batch("first", pack_command(b"BLPOP", name, 0)))
    second = asyncio.ensure_future(batch("second", pack_command(b"ECHO", b"second")))
    await until_blocked(admin, "blpop")
    assert not second.done()  # written, queued in Redis behind the BLPOP
    await admin.lpush(name, b"value")
    assert await second == [b"second"]
    assert await first == [[name.encode(), b"value"]]
    assert answered == ["first", "second"]


async def test_a_cancelled_callers_replies_never_reach_the_next_caller(
        channel: AppendChannel, admin: aioredis.Redis) -> None:
    name = key()
    blocked = asyncio.ensure_future(channel.execute([pack_command(b"BLPOP", name, 0)]))
    await until_blocked(admin, "blpop")
    blocked.cancel()
    with pytest.raises(asyncio.CancelledError):
        await blocked
    await admin.lpush(name, b"for the abandoned BLPOP")  # its reply comes, and is dropped
    assert await channel.execute([pack_command(b"ECHO", b"fresh")]) == [b"fresh"]
    assert await admin.llen(name) == 0, "the BLPOP was served on the same connection"


async def test_replies_that_do_not_come_in_time_fail_every_waiting_batch_and_the_next_reconnects(
        redis_server: RedisProcess, admin: aioredis.Redis) -> None:
    impatient = channel_to(redis_server.url, socket_timeout=0.2)
    try:
        await impatient.connect()
        await impatient.execute([pack_command(b"CLIENT", b"SETNAME", b"impatient")])
        before = {c["id"] for c in await admin.client_list() if c["name"] == "impatient"}
        name = key()
        waiting = [asyncio.ensure_future(impatient.execute(commands)) for commands in (
            [pack_command(b"ECHO", b"on time"), pack_command(b"BLPOP", name, 0)],
            [pack_command(b"ECHO", b"behind it")])]
        for batch in waiting:
            with pytest.raises(RedisTimeoutError):
                await batch
        await admin.lpush(name, b"for the abandoned BLPOP")
        with pytest.raises(RedisConnectionError):  # until it connects again
            await impatient.execute([pack_command(b"ECHO", b"fresh")])
        await impatient.connect()
        assert await impatient.execute([pack_command(b"ECHO", b"fresh")]) == [b"fresh"]
        assert await admin.llen(name) == 1, "the abandoned connection's BLPOP took nothing"
        after = {c["id"] for c in await admin.client_list() if c["cmd"] == "echo"}
        assert before and not before & after
    finally:
        await impatient.close()


@pytest.mark.slow  # kill drill
async def test_a_redis_killed_under_a_batch_fails_it_and_the_next_batch_reconnects(
        tmp_path: Path) -> None:
    server = RedisProcess(tmp_path / "redis")
    server.start()
    killed = channel_to(server.url)
    admin = aioredis.Redis.from_url(server.url)
    try:
        await killed.connect()
        in_flight = asyncio.ensure_future(killed.execute([pack_command(b"BLPOP", key(), 0)]))
        await until_blocked(admin, "blpop")
        await admin.aclose()
        server.kill()
        with pytest.raises(RedisConnectionError):
            await in_flight
        with pytest.raises(RedisConnectionError):
            await killed.connect()  # Redis is down: refused
        server.start()
        await killed.connect()
        assert await killed.execute([pack_command(b"ECHO", b"back")]) == [b"back"]
    finally:
        await killed.close()
        server.stop()


async def test_an_unreachable_redis_is_a_connection_error() -> None:
    nowhere = channel_to(f"redis://127.0.0.1:{free_port()}/0")
    with pytest.raises(RedisConnectionError):
        await nowhere.connect()
    with pytest.raises(RedisConnectionError):
        await nowhere.execute([pack_command(b"PING")])


@pytest.mark.slow  # redis-servers of its own
async def test_it_connects_as_the_url_says(tmp_path: Path) -> None:
    socket_path = tmp_path / "redis.sock"
    server = RedisProcess(tmp_path / "redis", extra_args=[
        "--unixsocket", str(socket_path), "--requirepass", "s3cret"])
    server.start()
    admin = aioredis.Redis.from_url(f"redis://:s3cret@127.0.0.1:{server.port}/0")
    try:
        await admin.acl_setuser("appender", enabled=True, passwords=["+pw"],
                                commands=["+@all"], keys=["*"])
        urls = (f"unix://:s3cret@{socket_path}?db=3&client_name=by-unix",
                f"redis://appender:pw@127.0.0.1:{server.port}/4?client_name=by-user")
        channels = [channel_to(url) for url in urls]
        try:
            for url, via in zip(urls, channels, strict=True):
                await via.connect()
                assert await via.execute([pack_command(b"SET", "where", url)]) == [b"OK"]
            names = {c["name"]: c for c in await admin.client_list()}
            assert names["by-unix"]["db"] == "3" and names["by-user"]["user"] == "appender"
        finally:
            for via in channels:
                await via.close()
        for db, url in zip((3, 4), urls, strict=True):
            in_db = aioredis.Redis.from_url(f"redis://:s3cret@127.0.0.1:{server.port}/{db}")
            try:
                assert await in_db.get("where") == url.encode()
            finally:
                await in_db.aclose()
        wrong = channel_to(f"unix://:wrong@{socket_path}")
        with pytest.raises(RedisConnectionError, match=r"WRONGPASS|invalid"):
            await wrong.connect()
    finally:
        await admin.aclose()
        server.stop()


@pytest.mark.slow  # a redis-server of its own, with TLS
@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs openssl to make a certificate")
async def test_it_connects_over_tls_and_checks_the_certificate(tmp_path: Path) -> None:
    cert, private_key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-keyout", str(private_key), "-out", str(cert), "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost"], check=True, capture_output=True)
    tls_port = free_port()
    server = RedisProcess(tmp_path / "redis", extra_args=[
        "--tls-port", str(tls_port), "--tls-cert-file", str(cert), "--tls-key-file",
        str(private_key), "--tls-ca-cert-file", str(cert), "--tls-auth-clients", "no"])
    try:
        server.start()
    except RuntimeError as error:  # a redis-server built without TLS
        pytest.skip(f"redis-server without TLS: {error}")
    try:
        trusted = channel_to(f"rediss://localhost:{tls_port}/5?ssl_ca_certs={cert}")
        try:
            await trusted.connect()
            assert await trusted.execute([pack_command(b"ECHO", b"sealed")]) == [b"sealed"]
        finally:
            await trusted.close()
        untrusted = channel_to(f"rediss://localhost:{tls_port}/5")  # the system's CAs only
        with pytest.raises(RedisConnectionError, match="CERTIFICATE_VERIFY_FAILED"):
            await untrusted.connect()
    finally:
        server.stop()
