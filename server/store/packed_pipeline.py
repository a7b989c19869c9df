"""A pipeline of commands we pack into RESP bytes ourselves, for the store's hottest path.

Why: redis-py's pipeline packs every argument through its encoder and then the commands
again into chunks, runs the call inside its retry wrapper and hands each reply through the
command's callback. The group-committed appends (``EVALSHA`` with ~10 arguments each) pay
that on every accepted command; their arguments are all bytes, str or int already, so one
join per command packs them (``bench.append_cost`` has the figures). ``pack_command`` is
also the lease renewal thread's packer (``server.cluster.renewal``, synchronous client).

Everything else stays redis-py's: the connection pool (waiting for a free connection,
connecting), the write (``send_packed_command``) and each reply's parsing (``read_response``,
hiredis when installed) and their errors (``ConnectionError``, ``TimeoutError``; a
connection that failed is disconnected before it goes back to the pool). The replies share
one socket timeout (``read_response(timeout=math.inf)`` inside one ``asyncio.timeout``).
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Sequence
from typing import Any

from redis.asyncio.connection import AbstractConnection, ConnectionPool
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

Arg = bytes | str | int


def pack_command(*args: Arg) -> bytes:
    """One command as RESP: an array of bulk strings (str as UTF-8, int in decimal)."""
    out = [b"*%d\r\n" % len(args)]
    for arg in args:
        data = arg if type(arg) is bytes else _as_bytes(arg)
        out.append(b"$%d\r\n%b\r\n" % (len(data), data))
    return b"".join(out)


def _as_bytes(arg: Arg) -> bytes:
    if isinstance(arg, str):
        return arg.encode()
    if isinstance(arg, int):
        return b"%d" % arg
    return arg


async def execute(pool: ConnectionPool, commands: Sequence[bytes]) -> list[Any]:
    """Send ``commands`` (each made by ``pack_command``) in one write on one pooled
    connection and return their replies in order; a reply that is an error (``NOSCRIPT``,
    a script's ``error_reply``) comes back as its ``ResponseError``, like redis-py's
    ``execute(raise_on_error=False)``. A transport failure or a cancellation raises."""
    connection: AbstractConnection = await pool.get_connection()  # type: ignore[no-untyped-call]
    try:
        await connection.send_packed_command(commands)
        return await _replies(connection, len(commands))
    except BaseException:
        # Replies may be left unread on it: never hand it out again connected. (redis-py's
        # send and read already disconnect on their own failures; this covers the rest.)
        await connection.disconnect(nowait=True)
        raise
    finally:
        await pool.release(connection)


async def _replies(connection: AbstractConnection, count: int) -> list[Any]:
    """``count`` replies, all within one socket timeout: one deadline for the batch, not
    one per reply as ``read_response`` sets by default (a timer armed and cancelled per
    reply, a few µs each). Redis answers a pipeline as one batch anyway."""
    replies: list[Any] = []
    try:
        async with asyncio.timeout(connection.socket_timeout):
            for _ in range(count):
                try:
                    replies.append(await connection.read_response(timeout=math.inf))
                except ResponseError as error:  # the reply itself: still in step
                    replies.append(error)
    except TimeoutError:  # the builtin one, from asyncio.timeout
        raise RedisTimeoutError(f"Timeout reading {count} replies") from None
    return replies
