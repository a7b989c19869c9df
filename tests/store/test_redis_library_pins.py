"""The redis-py code the store reaches into beyond its public API, pinned as read when our
code was written (as tests/transport/test_library_pins.py pins uvicorn's and websockets'):
a redis-py upgrade that changes any of it fails here, and the module named beside it must be
read again against the new version before its digest is updated (pyproject.toml bounds
redis-py to the minor version read)."""

from __future__ import annotations

import hashlib
import inspect
from collections.abc import Callable
from typing import Any

import pytest
from redis.asyncio.cluster import ClusterNode, NodesManager
from redis.asyncio.connection import AbstractConnection, ConnectionPool

PINNED: dict[str, tuple[Callable[..., Any], str, str]] = {
    # name: (the library's function, sha256 of its source (16 hex digits), who relies on it)
    "redis-py AbstractConnection.send_packed_command": (
        AbstractConnection.send_packed_command, "baaeabd916209157",
        "server/store/redis_errors.py: _SENDING (an error raised while writing a command is "
        "a transport failure)"),
    "redis-py AbstractConnection._send_packed_command": (
        AbstractConnection._send_packed_command, "875d11f341700316",
        "server/store/redis_errors.py: _SENDING"),
    "redis-py ConnectionPool.__init__": (
        ConnectionPool.__init__, "304ac575a7176814",
        "server/store/append_channel.py: AppendChannel reads connection_class and "
        "connection_kwargs"),
    "redis-py ClusterNode.__init__": (
        ClusterNode.__init__, "ca4b2204289ccd2b",
        "server/store/append_channel.py and cluster_router.py: a ClusterNode read as a pool "
        "(connection_class, connection_kwargs)"),
    "redis-py NodesManager.__init__": (
        NodesManager.__init__, "ac342d350f9ec477",
        "server/store/cluster_router.py: slots_cache, connection_kwargs"),
}


@pytest.mark.parametrize("name", sorted(PINNED))
def test_the_redis_code_relied_on_is_the_code_read(name: str) -> None:
    function, digest, reader = PINNED[name]
    source = inspect.getsource(function)
    assert hashlib.sha256(source.encode()).hexdigest()[:16] == digest, \
        f"{name} changed: read {reader} against it again, then update its digest"
