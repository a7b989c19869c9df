"""Graceful shutdown of one node on SIGTERM (or Ctrl-C), so its players reconnect elsewhere.

uvicorn's own shutdown closes every websocket at once with 1012 and only then runs the
application's shutdown, which would cut off answers still in flight. ``GracefulServer``
puts ``drain`` first, in this order:

1. stop accepting connections (the listening socket closes: a load balancer sends new
   connections to the other nodes) and answer /healthz with 503;
2. stop every room: each one first handles what is already in its inbox, so a command in
   flight is stored in Redis and answered; then its websockets are closed with GOING_AWAY
   (1001), which tells clients to reconnect (through the balancer, to another node, which
   loads the room from Redis and resumes them from their last version);
3. wait until every websocket of this node has gone;

all of it within ``Settings.shutdown_timeout_s``. Then uvicorn's shutdown closes whatever
is left (idle HTTP connections) within the rest of that time, and the application's
shutdown closes the store.
"""

from __future__ import annotations

import asyncio
import logging
import math
import socket
import time
from collections.abc import Awaitable

import uvicorn
from starlette.applications import Starlette

from server.rooms.registry import RoomRegistry
from server.transport.open_sockets import OpenSockets

log = logging.getLogger("server.shutdown")  # log lines keep their logger name


async def drain(app: Starlette, timeout_s: float) -> bool:
    """Steps 2 and 3 above; True if everything closed within ``timeout_s``."""
    app.state.serving = False
    registry: RoomRegistry = app.state.registry
    open_sockets: OpenSockets = app.state.open_sockets
    try:
        async with asyncio.timeout(timeout_s):
            await registry.shutdown()
            await open_sockets.wait_all_closed()
    except TimeoutError:
        log.warning("shutdown: %d websocket(s) still open after %.1f s; closing them anyway",
                    len(open_sockets), timeout_s)
        return False
    log.info("shutdown: every room stopped and every websocket closed")
    return True


class GracefulServer(uvicorn.Server):
    """A uvicorn server whose shutdown drains the referee application first."""

    def __init__(self, config: uvicorn.Config, app: Starlette, timeout_s: float) -> None:
        super().__init__(config)
        self._app = app
        self._timeout_s = timeout_s

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        started = time.monotonic()
        for server in self.servers:  # step 1: no new connections (uvicorn repeats it, harmless)
            server.close()
        await drain(self._app, self._timeout_s)
        # uvicorn's wait for the remaining connections gets what is left of the budget.
        left = self._timeout_s - (time.monotonic() - started)
        self.config.timeout_graceful_shutdown = max(1, math.ceil(left))
        await super().shutdown(sockets)


STORAGE_CLOSE_S = 5.0
"""How long the application's shutdown waits for each connection to Redis to close."""


async def close_within(close: Awaitable[None], what: str,
                       seconds: float = STORAGE_CLOSE_S) -> None:
    """Await one closing step of the application's shutdown, at most ``seconds``.

    Closing a socket waits for the transport to report it closed (redis-py's
    ``disconnect`` awaits ``StreamWriter.wait_closed``, without a bound for a client made
    without a connect timeout); a socket to a Redis that was killed and restarted meanwhile
    can keep that wait from ending (redis/redis-py#3941 is one such report). The process is
    ending: a close that does not finish is logged and left behind, never waited for."""
    try:
        async with asyncio.timeout(seconds):
            await close
    except TimeoutError:
        log.warning("shutdown: %s did not close within %.0f s; going on without it", what,
                    seconds)
