"""``python -m server``: serve the referee on http://127.0.0.1:8000 (see --help)."""

from __future__ import annotations

import argparse
import logging

import redis
import redis.asyncio as aioredis
import uvicorn
from redis.asyncio.cluster import RedisCluster as AsyncRedisCluster
from redis.cluster import RedisCluster

from server import log_format
from server.app import create_app
from server.cluster.cluster_renewal import connect_sync_cluster
from server.cluster.identity import establish
from server.cluster.node import ClusterNode
from server.cluster.renewal import connect_sync
from server.config import Settings
from server.node.shutdown import GracefulServer
from server.node.storage import Storage, room_storage
from server.rules import native
from server.store.cluster_store import ClusterRoomStore
from server.store.redis_store import RedisRoomStore
from server.transport.uvicorn_options import websocket_options


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m server", description=__doc__)
    parser.add_argument("--host", help="interface to bind (default 127.0.0.1, env REFEREE_HOST)")
    parser.add_argument("--port", type=int, help="port (default 8000, env REFEREE_PORT)")
    parser.add_argument("--log-level", default="info")
    args = parser.parse_args(argv)
    overrides: dict[str, object] = {}
    if args.host is not None:
        overrides["host"] = args.host
    if args.port is not None:
        overrides["port"] = args.port
    settings = Settings.from_env(None, **overrides)
    # Text with the time, or JSON lines carrying the room (REFEREE_LOG_FORMAT).
    log_format.configure(args.log_level, settings.log_format)
    logging.getLogger("server").info(native.status())
    try:
        with room_storage(settings) as storage:  # Redis (REDIS_URL or embedded) unless memory
            _serve(settings, storage, args.log_level)
    except KeyboardInterrupt:
        # Ctrl-C: uvicorn re-raises it once its graceful shutdown is over (rooms stopped,
        # leases released), and the block above has stopped an embedded Redis. End as a
        # shell expects of an interrupted program, without a traceback.
        raise SystemExit(130) from None


def _serve(settings: Settings, storage: Storage, log_level: str) -> None:
    store = storage.store
    # On Redis, rooms are leased: any number of nodes may share one Redis.
    cluster, identity = None, None
    if isinstance(store, RedisRoomStore):
        renewal_client: redis.Redis | RedisCluster
        client: aioredis.Redis | AsyncRedisCluster
        if isinstance(store, ClusterRoomStore):  # REFEREE_REDIS_CLUSTER=1
            renewal_client = connect_sync_cluster(store.url, settings.lease_s)
            client = store.cluster_client
        else:
            renewal_client = connect_sync(store.url, settings.lease_s)
            client = store.client
        # The same id as the last run (taking its rooms back at once), never a live one's.
        # (On a cluster the identity's GET/EVAL go to the slot of its {node:<id>} keys.)
        identity = establish(settings, store.url, renewal_client,  # type: ignore[arg-type]
                             int(settings.lease_s * 1000))
        cluster = ClusterNode(client, identity.node_id, settings, renewal_client,
                              identity.instance)
    app = create_app(settings, store=store, cluster=cluster)
    if storage.embedded is not None:  # a Redis that died makes the node unready at once
        storage.embedded.on_down = app.state.health.probe.storage_down
    config = uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        loop="uvloop",  # named, not "auto": a missing uvloop must fail the start, not slow it
        **websocket_options(settings),  # type: ignore[arg-type]
        lifespan="on",
        log_level=log_level,
        **log_format.uvicorn_options(settings.log_format),
    )
    # SIGTERM: drain rooms and websockets first (GOING_AWAY), see server/node/shutdown.py.
    try:
        GracefulServer(config, app, settings.shutdown_timeout_s).run()
    finally:
        if identity is not None:
            identity.close()


if __name__ == "__main__":
    main()
