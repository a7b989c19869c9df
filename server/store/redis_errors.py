"""The one error the Redis store adds to the storage seam: Redis cannot be reached now.

``StorageUnavailable`` means "nothing was decided, try again": the write was not confirmed
(it was either not applied, or applied without the answer reaching us, in which case the
fencing check refuses any later write from the stale in-memory state and the room reloads).
A room turns it into a rejection whose message says to try again; it never acknowledges a
command whose events are not confirmed stored.

On a Redis Cluster the slot of a room may be moving to another master (resharding): a
script on several of the room's keys is answered ``TRYAGAIN`` while they are split between
the two masters (or while one of them does not exist yet), and redis-py, after following
``ASK``/``MOVED`` and retrying ``TRYAGAIN`` a few times, gives up with ``ClusterError``
("TTL exhausted"). Nothing was decided either: those are ``StorageUnavailable`` too.

A write on a connection the peer closed (a master killed, its connection torn down between
redis-py's ``connect`` and its first command, or under a command another task was sending)
is not always a ``ConnectionError`` either: redis-py 8.1 lets through the transport's own
error (redis/redis-py#4287), uvloop's ``RuntimeError`` ("unable to perform operation on
<TCPTransport closed=True ...>; the handler is closed"), or an ``AttributeError`` on the
connection's writer set to None. Any such error raised while redis-py was sending a command
is a transport failure (``transport_failure``): taken for a bug, it once left an ARO window
whose deadline it met open for good. So is the cluster client's ``RedisClusterException``
when it could reach no node to read the slot map from (every master and replica down, or
cut off).
"""

from __future__ import annotations

from types import TracebackType

from redis.asyncio.connection import AbstractConnection
from redis.exceptions import (
    AskError,
    BusyLoadingError,
    ClusterError,
    ConnectionError,
    RedisClusterException,
    SlotNotCoveredError,
    TimeoutError,
    TryAgainError,
)

from server.store.interface import TRY_AGAIN, StorageUnavailable

__all__ = ["TRY_AGAIN", "StorageUnavailable", "storage_call", "transport_failure", "unavailable"]

_TRANSPORT_ERRORS = (ConnectionError, TimeoutError, BusyLoadingError, OSError,
                     # a slot moving between masters, or a cluster without a master for it
                     # (ClusterDownError is a ClusterError; MovedError an AskError; the
                     # slot map read while a master's slots were unassigned)
                     ClusterError, TryAgainError, AskError, SlotNotCoveredError)


_SENDING = frozenset({AbstractConnection.send_packed_command.__code__,
                      AbstractConnection._send_packed_command.__code__})
"""redis-py's writes of a command on its connection (inline, or under ``socket_timeout``)."""
_LEAKED = (RuntimeError, AttributeError, TypeError)
"""What a write on a closed transport raises where redis-py does not catch it."""


def _raised_sending(error: BaseException) -> bool:
    traceback = error.__traceback__
    while traceback is not None:
        if traceback.tb_frame.f_code in _SENDING:
            return True
        traceback = traceback.tb_next
    return False


def transport_failure(error: BaseException) -> bool:
    """``error`` says Redis could not be reached or did not answer (nothing decided)."""
    if isinstance(error, _TRANSPORT_ERRORS):
        return True
    if isinstance(error, _LEAKED):
        return _raised_sending(error)
    # redis-py's cluster client reading its slot map when no node answers raises a
    # RedisClusterException (not a RedisError) from the last node's connection error; its
    # others (keys of several slots, a command it cannot route) are the caller's bugs.
    return (isinstance(error, RedisClusterException) and error.__cause__ is not None
            and transport_failure(error.__cause__))


def unavailable(what: str, error: BaseException) -> BaseException:
    """``error`` as ``StorageUnavailable`` if it is a transport failure, else as it is."""
    if transport_failure(error):
        return StorageUnavailable(f"{what}: {error}")
    return error


class storage_call:
    """Turn the Redis client's transport failures into ``StorageUnavailable``: ``async with
    storage_call(what)``, or ``with`` (the synchronous client; or where the cost of an
    asynchronous context manager per call shows, the group-committed appends)."""

    __slots__ = ("what",)

    def __init__(self, what: str) -> None:
        self.what = what

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        if error is not None and transport_failure(error):
            raise unavailable(self.what, error) from error

    async def __aenter__(self) -> None:
        return None

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None,
                        traceback: TracebackType | None) -> None:
        self.__exit__(kind, error, traceback)
