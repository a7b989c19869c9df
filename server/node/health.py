"""Is this node alive, and should players be sent to it: ``/livez`` and ``/readyz``.

- ``GET /livez`` -- liveness: 200 ``{"status": "alive", "node"}`` whenever the process
  answers HTTP at all, also while its storage is down or it drains. For a restart policy
  (Docker ``HEALTHCHECK``, a Kubernetes liveness probe): restarting a node helps only when
  it no longer answers, never because Redis is away.
- ``GET /readyz`` -- readiness: 200 ``{"status": "ready", "node", "rooms"}`` only while the
  node serves (start-up over, no shutdown begun), its room store takes writes, and (with
  several nodes) it still holds its node id and its last lease renewal round went
  through; else 503 ``{"status": "not ready", "node", "problems": [...]}``. For a load
  balancer: stop sending players here, and send them again when it answers 200, which it
  does by itself once the cause is gone.
- ``GET /healthz`` -- as before issue 18, for the checks that already use it: 200
  ``{"status": "ok", "node", "rooms"}`` while serving, 503 while starting or draining; it
  does not look at the storage.

**The write probe** (``StorageProbe``): the room store "can write" when the probe's last
write to Redis succeeded: ``SET {node:<id>}:probe <ms> PX 60000`` every ``ready_probe_s``
(default 1 s; four times as often while it fails, so the node is ready again soon after
Redis is), on a connection of its own with a 2 s timeout. A write, not a PING: it also
catches a Redis that answers but refuses writes (a full disk, ``maxmemory``, a read-only
replica). So a dead, hung or refusing Redis, embedded or external, makes the node unready
within about ``ready_probe_s`` + 2 s; an embedded Redis that dies says so at once
(``storage_down``, from its supervisor). The in-memory store always writes.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import RedisError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from server.rooms.registry import RoomRegistry
from server.store import RoomStore
from server.store.redis_errors import transport_failure
from server.store.redis_store import RedisRoomStore

log = logging.getLogger("server.health")  # log lines keep their logger name

PROBE_TIMEOUT_S = 2.0
PROBE_TTL_MS = 60_000


def probe_key(node_id: str) -> str:
    return f"{{node:{node_id}}}:probe"


class StorageProbe:
    """Whether the room store took the last probe write (see the module's docstring)."""

    def __init__(self, store: RoomStore, node_id: str, interval_s: float) -> None:
        self._store = store
        self._key = probe_key(node_id)
        self._interval_s = interval_s
        self._client: aioredis.Redis | None = None
        self._shared: aioredis.Redis | None = None  # the store's own client (not closed here)
        self._task: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._poke = asyncio.Event()
        self.problem: str | None = "storage not checked yet"
        """None while the store writes; else why not."""
        self.probes = 0
        self._failing = False
        self._waiters: list[asyncio.Future[str | None]] = []

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        if not isinstance(self._store, RedisRoomStore):
            self.problem = None
            return
        client = self._shared = self._store.client
        if self._store.url and self._store.cluster:
            # On a Redis Cluster: a client of its own (the probe key's slot, on its master;
            # it offers the one command the probe sends).
            client = RedisCluster.from_url(  # type: ignore[assignment]
                self._store.url, socket_timeout=PROBE_TIMEOUT_S,
                socket_connect_timeout=PROBE_TIMEOUT_S)
        elif self._store.url:  # a connection of its own: a busy pool does not look like an outage
            client = aioredis.Redis.from_url(
                self._store.url, socket_timeout=PROBE_TIMEOUT_S,
                socket_connect_timeout=PROBE_TIMEOUT_S, retry=Retry(NoBackoff(), 0),
                health_check_interval=0, single_connection_client=True)
        self._client = client
        self._task = asyncio.create_task(self._run(client), name="storage-probe")

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if self._client is not None and self._client is not self._shared:
            with contextlib.suppress(RedisError, OSError):
                await self._client.aclose()

    async def next_outcome(self) -> str | None:
        """The outcome (``problem``) of the next probe to finish (for tests and tools)."""
        waiter: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        return await waiter

    def storage_down(self, reason: str) -> None:
        """The storage is known to be down now (any thread): unready at once, probe again."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(self._down, reason)

    def _down(self, reason: str) -> None:
        self._set(f"storage cannot write: {reason}")
        self._poke.set()

    async def _run(self, client: aioredis.Redis) -> None:
        while True:
            self._poke.clear()
            self._set(await self._probe(client))
            self.probes += 1
            waiters, self._waiters = self._waiters, []
            for waiter in waiters:
                if not waiter.done():
                    waiter.set_result(self.problem)
            pause = self._interval_s if self.problem is None else self._interval_s / 4
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(pause):
                    await self._poke.wait()

    async def _probe(self, client: aioredis.Redis) -> str | None:
        try:
            async with asyncio.timeout(PROBE_TIMEOUT_S):
                await client.set(self._key, int(time.time() * 1000), px=PROBE_TTL_MS)
        except Exception as error:
            # Any failure is an answer: redis-py's cluster client raises more than
            # RedisError (no node answering, a closed transport's own error), and a probe
            # task that died would leave readiness as it last stood.
            if not isinstance(error, RedisError | TimeoutError) and not transport_failure(error):
                log.exception("readiness probe: an unforeseen failure")
            return f"storage cannot write: {error or type(error).__name__}"
        return None

    def _set(self, problem: str | None) -> None:
        if problem == self.problem:
            return
        self.problem = problem
        if problem is None:
            if self._failing:
                log.info("readiness: the room store writes again")
            self._failing = False
        elif not self._failing:
            self._failing = True
            log.warning("readiness: not ready, %s", problem)


class Health:
    """What ``/readyz`` checks: the app's ``serving`` flag, the write probe, and any other
    check (a cluster node's hold on its node id) that returns a problem or None."""

    def __init__(self, probe: StorageProbe,
                 checks: tuple[Callable[[], str | None], ...] = ()) -> None:
        self.probe = probe
        self._checks = checks

    def problems(self, serving: bool) -> list[str]:
        found = [] if serving else ["starting or shutting down"]
        if self.probe.problem is not None:
            found.append(self.probe.problem)
        found += [problem for check in self._checks if (problem := check()) is not None]
        return found


def _node(request: Request) -> str:
    registry: RoomRegistry = request.app.state.registry
    return registry.node_id


def _serving(request: Request) -> bool:
    return bool(getattr(request.app.state, "serving", False))


async def livez(request: Request) -> Response:
    return JSONResponse({"status": "alive", "node": _node(request)})


async def readyz(request: Request) -> Response:
    health: Health | None = getattr(request.app.state, "health", None)
    problems = (health.problems(_serving(request)) if health is not None
                else [] if _serving(request) else ["starting or shutting down"])
    if problems:
        return JSONResponse({"status": "not ready", "node": _node(request),
                             "problems": problems}, status_code=503)
    registry: RoomRegistry = request.app.state.registry
    return JSONResponse({"status": "ready", "node": registry.node_id,
                         "rooms": registry.live_rooms()})


async def healthz(request: Request) -> Response:
    """200 while serving; 503 before start-up completes and once a shutdown has begun.
    ``node`` names the node that answered (several nodes behind one load balancer)."""
    registry: RoomRegistry = request.app.state.registry
    if not _serving(request):
        return JSONResponse({"status": "starting or stopping", "node": registry.node_id},
                            status_code=503)
    return JSONResponse({"status": "ok", "node": registry.node_id,
                         "rooms": registry.live_rooms()})


routes = [
    Route("/livez", livez, methods=["GET"]),
    Route("/readyz", readyz, methods=["GET"]),
    Route("/healthz", healthz, methods=["GET"]),
]
