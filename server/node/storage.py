"""Which room store the run command uses: Redis at ``REDIS_URL``, else an embedded Redis.

``REFEREE_REDIS_CLUSTER=1``: ``REDIS_URL`` names any node of a Redis Cluster
(``server.store.cluster_store``); every node's persistence is checked, and every master
must have ``REFEREE_REDIS_WAIT_REPLICAS`` replicas.

``REFEREE_STORAGE`` chooses: ``auto`` (default: ``REDIS_URL`` if set, else the embedded
Redis in ``./var/redis``), ``redis`` (``REDIS_URL`` required) or ``memory`` (nothing
survives a restart; for quick local tries and the room server's own tests, which pass
their store to ``create_app`` directly).

An external Redis must keep what it acknowledges: its persistence is checked before the
node starts (``server.node.redis_durability``, ``REFEREE_ACCEPT_REDIS_DURABILITY``). The embedded
one is started with ``appendfsync always`` and supervised (``server.node.embedded_redis``).
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from server.config import REPO_ROOT, Settings
from server.node.embedded_redis import EmbeddedRedis
from server.node.redis_durability import check_cluster_durability, check_external_redis
from server.store import MemoryRoomStore, RoomStore
from server.store.cluster_store import ClusterRoomStore
from server.store.redis_store import RedisRoomStore

EMBEDDED_DATA_DIR = REPO_ROOT / "var" / "redis"


@dataclass(frozen=True, slots=True)
class Storage:
    store: RoomStore
    embedded: EmbeddedRedis | None = None
    """The embedded Redis when it is the store's (its ``on_down`` may be set)."""


@contextlib.contextmanager
def room_storage(settings: Settings,
                 environ: Mapping[str, str] | None = None) -> Iterator[Storage]:
    """The store for this process; an embedded Redis lives exactly as long as the block."""
    env = os.environ if environ is None else environ
    mode = env.get("REFEREE_STORAGE", "auto").strip().lower()
    url = env.get("REDIS_URL", "").strip()
    if mode == "memory":
        yield Storage(MemoryRoomStore())
        return
    if settings.redis_cluster:
        if not url:
            raise SystemExit("REFEREE_REDIS_CLUSTER=1 needs REDIS_URL (any node of the cluster)")
        check_cluster_durability(url, settings.accept_redis_durability,
                                 settings.redis_wait_replicas, settings.redis_wait_aof)
        yield Storage(ClusterRoomStore.from_url(url, wait_replicas=settings.redis_wait_replicas,
                                                wait_ms=settings.redis_wait_ms,
                                                aof=settings.redis_wait_aof))
        return
    if url:
        check_external_redis(url, settings.accept_redis_durability)
        yield Storage(RedisRoomStore.from_url(url))
        return
    if mode == "redis":
        raise SystemExit("REFEREE_STORAGE=redis needs REDIS_URL")
    # uvicorn re-raises SIGTERM after its graceful shutdown; as SystemExit it unwinds this
    # block, so the embedded Redis is stopped (and flushed) before the process ends.
    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _exit_on_sigterm)
    embedded = EmbeddedRedis(Path(env.get("REFEREE_REDIS_DIR", str(EMBEDDED_DATA_DIR))))
    try:
        yield Storage(RedisRoomStore.from_url(embedded.start()), embedded)
    finally:
        embedded.stop()


def _exit_on_sigterm(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)
