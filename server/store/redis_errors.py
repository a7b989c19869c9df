"""The one error the Redis store adds to the storage seam: Redis cannot be reached now.

``StorageUnavailable`` means "nothing was decided, try again": the write was not confirmed
(it was either not applied, or applied without the answer reaching us, in which case the
fencing check refuses any later write from the stale in-memory state and the room reloads).
A room turns it into a rejection whose message says to try again; it never acknowledges a
command whose events are not confirmed stored.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager

from redis.exceptions import BusyLoadingError, ConnectionError, TimeoutError

from server.store.interface import TRY_AGAIN, StorageUnavailable

__all__ = ["TRY_AGAIN", "StorageUnavailable", "storage_call", "sync_storage_call"]

_TRANSPORT_ERRORS = (ConnectionError, TimeoutError, BusyLoadingError, OSError)


@asynccontextmanager
async def storage_call(what: str) -> AsyncIterator[None]:
    """Turn the Redis client's transport failures into ``StorageUnavailable``."""
    try:
        yield
    except _TRANSPORT_ERRORS as error:
        raise StorageUnavailable(f"{what}: {error}") from error


@contextmanager
def sync_storage_call(what: str) -> Iterator[None]:
    """The same for the synchronous client (the lease renewal thread)."""
    try:
        yield
    except _TRANSPORT_ERRORS as error:
        raise StorageUnavailable(f"{what}: {error}") from error
