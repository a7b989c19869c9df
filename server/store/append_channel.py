"""One dedicated, pipelined Redis connection for the store's group-committed appends.

Why: redis-py's asyncio round trip (pool checkout, a send wrapped in ``asyncio.wait_for`` --
a task per send --, StreamWriter ``writelines``/``drain``, ``read_response`` per reply under
a timeout, pool release) cost several times this path's CPU per single-append round
trip, the referee's usual case when rooms play at a human pace (``bench.append_cost``,
docs/performance.md). Here a round trip is one
``transport.write`` and, when the replies arrive, hiredis parsing them inside
``data_received``, which hands them to the batch's callback right there.

Pipelined: a batch is written at once, without waiting for the replies of the batches before
it. Redis answers in request order, so replies are matched to batches by position (a FIFO of
waiting batches). A caller that is cancelled leaves its batch in the FIFO: its replies are
read and dropped there, never handed to the batch after it, and the connection stays usable.

Failures: when the connection is lost, or when the oldest waiting batch has not had all its
replies ``socket_timeout`` after it was written, every waiting batch fails (redis-py's
``ConnectionError`` / ``TimeoutError``: what ``storage_call`` turns into
``StorageUnavailable``) and the connection is dropped, to be opened again by ``connect``. One
timer for all that: it is armed for the oldest batch's deadline and, when it fires with that
batch answered, re-armed for the oldest one then waiting (not a timer per batch or reply).

Where it connects is read from the store's redis-py pool (which parsed the URL:
``redis://``, ``rediss://`` with its ``ssl_*`` options, ``unix://``, user, password, db,
``client_name``, ``socket_timeout``, ``socket_connect_timeout``, ``socket_keepalive``): the
same Redis and settings as the store's other commands, with AUTH, CLIENT SETNAME and SELECT
sent on connect. It always speaks RESP2 (a ``protocol=3`` URL changes the pool's connections
only; the appends' replies read the same in both).
"""

from __future__ import annotations

import asyncio
import socket
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

import hiredis
from redis.asyncio.connection import (
    AbstractConnection,
    Connection,
    ConnectionPool,
    SSLConnection,
    UnixDomainSocketConnection,
)
from redis.credentials import UsernamePasswordCredentialProvider
from redis.exceptions import BusyLoadingError, NoScriptError, ResponseError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from server.store.resp import pack_command

_INCOMPLETE = object()
"""What hiredis' ``gets`` returns while no whole reply is buffered."""


def error_reply(message: str) -> Exception:
    """An error reply as the outcome the store tells apart: ``NOSCRIPT`` (reload the script
    and retry), ``LOADING`` (Redis is replaying its append-only file after a restart: a
    ``ConnectionError`` for redis-py, so "try again" for the store), any other (a script's
    ``error_reply`` such as ``STALE``) a ``ResponseError`` with the whole message."""
    code = message.split(" ", 1)[0]
    if code == "NOSCRIPT":
        return NoScriptError(message)
    if code == "LOADING":
        return BusyLoadingError(message)
    return ResponseError(message)


Replied = Callable[[list[Any] | Exception], None]
"""Gets a batch's replies, or the transport failure that is every reply's outcome."""


class _Batch:
    __slots__ = ("count", "deadline", "replied", "replies")

    def __init__(self, replied: Replied, count: int, deadline: float) -> None:
        self.replied = replied
        self.count = count
        self.replies: list[Any] = []
        self.deadline = deadline


class _Link(asyncio.Protocol):
    """One connection: the batches written on it wait in a FIFO for their replies."""

    def __init__(self, reply_timeout: float | None) -> None:
        self._loop = asyncio.get_running_loop()
        self._timeout = reply_timeout
        self._reader = hiredis.Reader(replyError=error_reply, notEnoughData=_INCOMPLETE)
        self._waiting: deque[_Batch] = deque()
        self._transport: asyncio.Transport | None = None
        self._timer: asyncio.TimerHandle | None = None
        self.failure: str | None = None
        """Why it can no longer be used (None while it can)."""
        self.closed: asyncio.Future[None] = self._loop.create_future()

    def send(self, data: bytes, count: int, replied: Replied) -> None:
        """Write ``data`` (``count`` packed commands); ``replied`` gets their replies."""
        if self.failure is not None or self._transport is None:
            replied(RedisConnectionError(self.failure or "not connected"))
            return
        loop = self._loop
        deadline = loop.time() + self._timeout if self._timeout is not None else 0.0
        self._waiting.append(_Batch(replied, count, deadline))
        try:
            self._transport.write(data)
        except Exception as error:  # uvloop: the transport closed under us
            self._fail(RedisConnectionError, f"cannot write to Redis: {error}")
            return
        if self._timer is None and self._timeout is not None:
            self._timer = loop.call_at(deadline, self._check_deadline)

    def close(self) -> None:
        self._fail(RedisConnectionError, "closed")

    # --- asyncio.Protocol -------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = transport  # type: ignore[assignment]  # (uvloop's: no subclass)

    def data_received(self, data: bytes) -> None:
        reader = self._reader
        try:
            reader.feed(data)
            while (reply := reader.gets()) is not _INCOMPLETE:
                if not self._answer(reply):
                    return
        except hiredis.ProtocolError as error:
            self._fail(RedisConnectionError, f"unreadable reply from Redis: {error}")

    def _answer(self, reply: Any) -> bool:
        """Hand ``reply`` to the oldest waiting batch; False if nobody asked for it (the
        connection is dropped then). A subclass reading pushes as well (the room bus's
        subscriber) calls it for the replies that are not pushes."""
        waiting = self._waiting
        if not waiting:
            self._fail(RedisConnectionError, "Redis sent a reply nobody asked for")
            return False
        batch = waiting[0]
        batch.replies.append(reply)
        if len(batch.replies) == batch.count:
            waiting.popleft()
            _call(batch.replied, batch.replies)
        return True

    def eof_received(self) -> bool:
        self._fail(RedisConnectionError, "Redis closed the connection")
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self._fail(RedisConnectionError,
                   "Redis closed the connection" + (f": {exc}" if exc else ""))
        if not self.closed.done():
            self.closed.set_result(None)

    # --- failures ---------------------------------------------------------------------

    def _check_deadline(self) -> None:
        self._timer = None
        if not self._waiting:
            return  # the next send arms it again
        oldest = self._waiting[0].deadline
        if oldest <= self._loop.time():
            self._fail(RedisTimeoutError, f"no reply from Redis within {self._timeout} s")
        else:
            self._timer = self._loop.call_at(oldest, self._check_deadline)

    def _fail(self, kind: type[Exception], message: str) -> None:
        """Fail every waiting batch (each its own exception) and drop the connection."""
        if self.failure is None:
            self.failure = message
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._transport is not None:
            self._transport.abort()  # replies may be on their way: never read them
        waiting, self._waiting = self._waiting, deque()
        for batch in waiting:
            _call(batch.replied, kind(message))


def _call(replied: Replied, outcome: list[Any] | Exception) -> None:
    """A failing callback must not stop the replies of the batches after it."""
    try:
        replied(outcome)
    except Exception as error:
        asyncio.get_running_loop().call_exception_handler(
            {"message": "a batch's reply callback failed", "exception": error})


class AppendChannel:
    """``send(commands, replied)``: ``replied`` gets the replies of packed commands
    (``pack_command``) in order, an error reply as its exception (see ``error_reply``), or
    the transport failure; ``execute`` awaits them. Every caller shares one connection,
    opened by ``connect`` (again after a failure: until then both fail at once)."""

    def __init__(self, pool: ConnectionPool,
                 link: Callable[[float | None], _Link] = _Link) -> None:
        """``link`` makes each connection's protocol from the reply timeout: a ``_Link``
        subclass for a connection that also reads pushes (the room bus's subscriber)."""
        # A connection of the pool's class and settings, never connected: we only read
        # where and how it would connect.
        self._settings: AbstractConnection = pool.connection_class(**pool.connection_kwargs)
        self._make_link = link
        self._link: _Link | None = None
        self._opened = 0
        self._connecting = asyncio.Lock()

    @property
    def connection(self) -> int | None:
        """Which connection ``send`` writes on (numbered from 1 in the order they were
        opened), or None if none is open."""
        link = self._link
        return self._opened if link is not None and link.failure is None else None

    def send(self, commands: Sequence[bytes], replied: Replied) -> None:
        if self._link is None:
            replied(RedisConnectionError("not connected"))
        else:
            self._link.send(b"".join(commands), len(commands), replied)

    async def execute(self, commands: Sequence[bytes]) -> list[Any]:
        """The replies; a transport failure raises."""
        if self._link is None:
            raise RedisConnectionError("not connected")
        return await _replies(self._link, b"".join(commands), len(commands))

    async def connect(self) -> None:
        """Open a connection unless one is open (one connect at a time: the callers that
        wait for it use the one it opened)."""
        async with self._connecting:
            if self.connection is None:
                self._link = await self._connect()
                self._opened += 1

    async def close(self) -> None:
        link, self._link = self._link, None
        if link is not None:
            link.close()
            await link.closed

    async def _connect(self) -> _Link:
        settings = self._settings
        try:
            async with asyncio.timeout(settings.socket_connect_timeout):
                _transport, link = await self._open()
        except TimeoutError:  # the builtin one, from asyncio.timeout
            raise RedisTimeoutError("Timeout connecting to Redis") from None
        except OSError as error:
            raise RedisConnectionError(f"Error connecting to Redis: {error}") from error
        try:
            await self._handshake(link)
        except BaseException:
            link.close()
            raise
        return link

    async def _open(self) -> tuple[asyncio.BaseTransport, _Link]:
        loop = asyncio.get_running_loop()
        settings = self._settings
        timeout = settings.socket_timeout

        def link() -> _Link:
            return self._make_link(timeout)

        if isinstance(settings, UnixDomainSocketConnection):
            return await loop.create_unix_connection(link, settings.path)
        if not isinstance(settings, Connection):
            raise ValueError(f"cannot connect like {type(settings).__name__}")
        tls = settings.ssl_context.get() if isinstance(settings, SSLConnection) else None
        transport, protocol = await loop.create_connection(
            link, settings.host, settings.port, ssl=tls)
        if settings.socket_keepalive:  # (a URL sets no keepalive options: the OS's apply)
            sock = transport.get_extra_info("socket")
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
        return transport, protocol

    async def _handshake(self, link: _Link) -> None:
        """AUTH, CLIENT SETNAME and SELECT as redis-py's connections send them."""
        settings = self._settings
        commands = []
        provider = settings.credential_provider
        if provider is None and (settings.username or settings.password):
            provider = UsernamePasswordCredentialProvider(settings.username, settings.password)
        if provider is not None:
            commands.append(pack_command("AUTH", *await provider.get_credentials_async()))
        if settings.client_name:
            commands.append(pack_command("CLIENT", "SETNAME", settings.client_name))
        if settings.db:
            commands.append(pack_command("SELECT", settings.db))
        if not commands:
            return
        for reply in await _replies(link, b"".join(commands), len(commands)):
            if isinstance(reply, Exception):
                raise RedisConnectionError(f"Redis refused the connection's setup: {reply}")


async def _replies(link: _Link, data: bytes, count: int) -> list[Any]:
    future: asyncio.Future[list[Any]] = asyncio.get_running_loop().create_future()

    def replied(outcome: list[Any] | Exception) -> None:
        if future.done():
            return  # its caller was cancelled: the replies were read and are dropped
        if isinstance(outcome, Exception):
            future.set_exception(outcome)
        else:
            future.set_result(outcome)

    link.send(data, count, replied)
    return await future
