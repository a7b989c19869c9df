"""Connection protocols still alive after their connection ended: the node's own count of
what closed sockets left behind.

Every HTTP connection's protocol and every websocket's is counted from its making until it
is freed (``born``), by a weak reference (a ``WeakSet`` entry, ~100 bytes a connection:
counting keeps nothing alive). uvicorn keeps the ones whose connection is open in its
server's ``connections`` set. A closed connection's protocol should be freed as it closes,
by reference counting (none of a socket's objects is left in a reference cycle:
tests/transport/test_socket_cycles.py); one that some way of ending a socket leaves in a
cycle stays alive until a collection finds it, and if a crowd's freeze put it out of the
collector's reach (``server.node.crowd_gc``), until the node collects what the crowd
left. ``unfreed`` (alive, less connected) says whether a crowd that left did leave anything.
"""

from __future__ import annotations

import weakref
from collections.abc import Sized

_ALIVE: weakref.WeakSet[object] = weakref.WeakSet()
_CONNECTED: list[Sized] = []
"""uvicorn's set of the server's connected protocols (the same for every connection)."""


def born(protocol: object, connected: Sized) -> None:
    """``protocol`` serves a connection from now on; ``connected`` is its server's set of
    connected protocols."""
    _ALIVE.add(protocol)
    if not _CONNECTED or _CONNECTED[0] is not connected:
        _CONNECTED[:] = [connected]


def unfreed() -> int:
    """Protocols made and not yet freed, beyond those whose connection is open."""
    connected = len(_CONNECTED[0]) if _CONNECTED else 0
    return max(0, len(_ALIVE) - connected)
