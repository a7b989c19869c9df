"""The Starlette application, and the one place that wires the node together: it builds
every service (the room registry, health, the tournaments) and mounts every route (health,
the lobby, caster links, tournaments, metrics, the websocket endpoint, the browser client).

``create_app`` takes its collaborators as arguments so tests can inject a fake engine, a
store or a tournaments service; by default it uses the real rules core, the in-memory store
and local fan-out. With a ``cluster`` (``server.cluster.node.ClusterNode``, Redis only) rooms
are leased and shared with the other nodes: its fan-out and ownership replace the
single-node ones. The services are kept on ``app.state``, where the routes find them.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import logging
from collections.abc import AsyncIterator
from pathlib import Path

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import BaseRoute, Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles

from protocol.constants import WS_PATH
from server.bot.seating import Bots
from server.cluster.node import ClusterNode
from server.cluster.warm_up import WarmUp
from server.config import Settings
from server.fanout import Fanout, LocalFanout
from server.lobby.caster_routes import routes as caster_routes
from server.lobby.http_errors import api_fallback, exception_handlers
from server.lobby.routes import routes as lobby_routes
from server.metrics import MetricsListener
from server.metrics import routes as metrics_routes
from server.node.collection_watch import CollectionWatch
from server.node.crowd_gc import CrowdFreeze
from server.node.health import Health, StorageProbe
from server.node.health import routes as health_routes
from server.node.loop_watch import LoopLagWatch
from server.node.shutdown import close_within
from server.rooms.engine_port import Engine
from server.rooms.registry import RoomRegistry
from server.rooms.rules_engine import ArmyCodeReader
from server.store import MemoryRoomStore, RoomStore
from server.store.redis_store import RedisRoomStore
from server.store.tournament_store import (
    MemoryTournamentStore,
    RedisTournamentStore,
    TournamentStore,
)
from server.tournaments.lobby_labels import RoundLabels
from server.tournaments.routes import routes as tournament_routes
from server.tournaments.service import Tournaments
from server.transport.caster_sessions import caster_sessions_for
from server.transport.direct_frames import KeepServerSend
from server.transport.endpoint import WebsocketApp
from server.transport.open_sockets import OpenSockets

log = logging.getLogger(__name__)


def create_app(
    settings: Settings | None = None,
    *,
    engine: Engine | None = None,
    store: RoomStore | None = None,
    fanout: Fanout | None = None,
    cluster: ClusterNode | None = None,
    tournaments: Tournaments | None = None,
) -> Starlette:
    settings = settings or Settings.from_env()
    settings.gc_thresholds()  # a malformed REFEREE_GC_THRESHOLD stops the start, not later
    if engine is None:
        engine = _rules_core(settings.army_data)
    store = store or MemoryRoomStore()
    if cluster is not None:
        registry = RoomRegistry(store, cluster.fanout, engine, settings, cluster)
        cluster.open_rooms = registry.open
        # The node's stamps in the rooms' time (tests move the registry's clock).
        cluster.renewer.room_clock = lambda: registry.clock()
    else:
        registry = RoomRegistry(store, fanout or LocalFanout(), engine, settings)
    # The practice bot plays from the node that runs its room (server/bot/seating.py).
    bots = registry.hooks = Bots(settings)
    # /readyz: serving, the store's write probe, a cluster node's hold on its id and leases.
    health = Health(StorageProbe(store, registry.node_id, settings.ready_probe_s),
                    () if cluster is None else (cluster.identity_problem, cluster.lease_problem))
    if tournaments is None:
        # Registrations read army codes as the rooms do, with the same operator's data.
        tournaments = _tournaments(registry, _army_codes(settings.army_data))

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        app.state.settings = settings
        app.state.registry = registry
        app.state.bots = bots
        if settings.allow_fixed_seed:
            log.warning("REFEREE_ALLOW_FIXED_SEED is on: the lobby accepts a seed that fixes a "
                        "room's dice (such rooms say fixed_dice). Never on a public server.")
        if cluster is not None:
            await cluster.start()
            # A caster link withdrawn through any node closes its sockets on this one too.
            await caster_sessions_for(app.state).join_bus(cluster.bus)
        # ... and an announcement this node missed is made good from the store.
        rechecks = asyncio.create_task(caster_sessions_for(app.state).recheck_forever(store),
                                       name="caster-rechecks")
        await health.probe.start()
        if settings.freeze_gc:
            thresholds = settings.gc_thresholds()
            if thresholds is not None:
                gc.set_threshold(*thresholds)
            # Everything alive now lives as long as the server: keep the collector off it
            # (collection pauses grow with the heap: docs/performance.md, "Garbage-collection stalls").
            gc.collect()
            gc.freeze()
            # ... and so is a crowd of sockets arriving later (server.node.crowd_gc).
            crowd = CrowdFreeze(lambda: len(app.state.open_sockets))
            app.state.crowd_freeze = asyncio.create_task(crowd.run(), name="crowd-gc")
        # After the deliberate collection above: only the ones that stall rooms are logged.
        watch = CollectionWatch(settings.gc_warn_ms / 1000) if settings.gc_warn_ms > 0 else None
        if watch is not None:
            watch.install()
        lag_watch = (LoopLagWatch(settings.loop_lag_warn_ms / 1000)
                     if settings.loop_lag_warn_ms > 0 else None)
        if lag_watch is not None:
            lag_watch.start()
        app.state.loop_watch = lag_watch
        # /metrics on an address of its own, off the game's port (server/metrics.py).
        listener = (MetricsListener.start(settings.metrics_listen)
                    if settings.metrics_listen else None)
        app.state.metrics_listener = listener
        app.state.serving = True
        # A warm restart: the rooms this node id ran start now, not on their first hellos
        # (server/cluster/warm_up.py); in the background, so nothing waits for it.
        warm_up = app.state.warm_up = (
            WarmUp(cluster.room_index, registry.warm, cluster.unindex,
                   after_batch=gc.freeze if settings.freeze_gc else lambda: None)
            if cluster is not None and settings.warm_restart else None)
        if warm_up is not None:
            warm_up.start()
        try:
            yield
        finally:
            app.state.serving = False
            if warm_up is not None:
                warm_up.stop()  # no further batch; the registry's shutdown ends this one
            if listener is not None:
                listener.stop()
            rechecks.cancel()
            bots.stop()  # the practice bots playing from this node (server/bot)
            crowd_task = getattr(app.state, "crowd_freeze", None)
            if crowd_task is not None:
                crowd_task.cancel()
            if lag_watch is not None:
                lag_watch.stop()
            if watch is not None:
                watch.uninstall()
            await registry.shutdown()  # stops the rooms, then releases this node's leases
            await close_within(health.probe.close(), "the readiness probe's connection")
            await close_within(store.close(), "the room store")

    # /metrics: only with the bearer token (or on metrics_listen); nginx denies it too.
    # /livez, /readyz, /healthz: server/node/health.py; the lobby: server/lobby/routes.py;
    # caster links: server/lobby/caster_routes.py; tournaments: server/tournaments/routes.py
    api_routes = [*health_routes, *lobby_routes, *caster_routes, *tournament_routes]
    routes: list[BaseRoute] = [*api_routes, *metrics_routes,
                               WebSocketRoute(WS_PATH, websocket_app := WebsocketApp()),
                               api_fallback(api_routes)]
    client_dir = settings.client_dir()
    if client_dir is not None:
        # The stream overlay at /overlay (StaticFiles serves it only as /overlay.html).
        overlay_page = client_dir / "overlay.html"

        async def overlay(request: Request) -> Response:
            return FileResponse(overlay_page)

        routes.append(Route("/overlay", overlay, methods=["GET", "HEAD"]))
        routes.append(Mount("/", StaticFiles(directory=client_dir, html=True), name="client"))
    # KeepServerSend lets sessions write frames straight to uvicorn's transport
    # (server.transport.direct_frames): spectators always do, seats unless direct_frames is off.
    # It also takes the game's websocket straight to its endpoint (past Starlette's router).
    middleware = [Middleware(KeepServerSend, websocket_app=websocket_app,
                             websocket_path=WS_PATH)]
    app = Starlette(routes=routes, lifespan=lifespan, middleware=middleware,
                    exception_handlers=exception_handlers)
    app.state.settings = settings
    app.state.registry = registry
    app.state.health = health
    # The tournaments' routes and the lobby's room list (server/tournaments/app_service.py).
    app.state.tournaments = tournaments
    app.state.tournament_labels = RoundLabels(tournaments.store)
    # A graceful shutdown waits for them (server.node.shutdown).
    app.state.open_sockets = OpenSockets()
    return app


def _tournaments(registry: RoomRegistry, army_codes: ArmyCodeReader | None) -> Tournaments:
    """The app's tournaments: on the rooms' Redis when the rooms are on Redis. One for the
    app's life, so the dashboard's kept folds (``server.tournaments.folds``) last from one
    request to the next."""
    store: TournamentStore
    if isinstance(registry.store, RedisRoomStore):
        store = RedisTournamentStore(registry.store.client)
    else:
        store = MemoryTournamentStore()
    # The dashboard folds the tables' games with the real rules whatever the rooms use.
    return Tournaments(store, registry.store, lambda: registry.clock(),  # tests move the clock
                       engine=_rules_core(None), army_codes=army_codes)


@functools.cache
def _rules_core(army_data: Path | None) -> Engine:
    """The real rules core's adapter, with the army code reader of the operator's army data
    folder (``REFEREE_ARMY_DATA``; None: codes are refused). It keeps no game state, so one
    per folder serves every app of the process (the rooms' and the tournaments' folds), and
    what it makes at its start (``server.rules.engine.prepare``) and the data are read once."""
    from server.rooms.rules_engine import RulesCoreEngine

    return RulesCoreEngine(army_codes=_army_codes(army_data))


@functools.cache
def _army_codes(army_data: Path | None) -> ArmyCodeReader | None:
    """The army code reader of the operator's army data folder (None: none configured, codes
    are refused), read once per folder: the rooms' edge and the tournaments' registrations
    share it."""
    from server.node.army_codes import army_code_reader, load_operator_army_data

    return army_code_reader(load_operator_army_data(army_data))
