"""At start: refuse an external Redis that may lose acknowledged commands, unless accepted.

A command is acknowledged once Redis has answered its append (docs/deploy.md,
"Durability"); what Redis then does with it is its persistence setting:

- ``appendonly yes`` + ``appendfsync always``: on disk before the answer; survives a kill
  of Redis and a power cut. What the embedded Redis and compose's Redis run.
- ``appendfsync everysec``: written to the kernel before the answer, flushed to the disk
  about once a second. A kill of Redis loses nothing; a power cut or kernel crash loses the
  commands of the last second or so (Redis documents up to two) -- players would see them
  undone after the restart.
- ``appendfsync no`` (the kernel flushes when it likes, typically within 30 s) or
  ``appendonly no`` (only RDB snapshots, if any): a restart may lose minutes of games.

``REFEREE_ACCEPT_REDIS_DURABILITY`` names the weakest setting the operator accepts:
``always`` (the default), ``everysec``, or ``unchecked`` (anything, including a Redis that
forbids ``CONFIG``, as managed services often do: the server cannot tell and trusts the
operator). The check reads ``CONFIG GET appendonly`` / ``appendfsync`` once at start; a
Redis reconfigured later is not noticed.
"""

from __future__ import annotations

import logging
import time
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import redis
from redis.cluster import RedisCluster
from redis.exceptions import BusyLoadingError, RedisClusterException, ResponseError

log = logging.getLogger("server.redis_durability")  # log lines keep their logger name

ACCEPT_LEVELS = ("always", "everysec", "unchecked")
SETTING = "REFEREE_ACCEPT_REDIS_DURABILITY"
REDIS_WAIT_S = 30.0
"""How long a starting node waits for an unreachable Redis before it gives up (a restart
policy starts it again)."""
_RETRY_PAUSE_S = 0.5


class DurabilityRefused(Exception):
    """The Redis may lose acknowledged commands and the operator did not accept that."""


def redacted(url: str) -> str:
    """``url`` without its password (for messages and logs)."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{parts.username or ''}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


def check_durability(client: redis.Redis, accept: str, where: str) -> str:
    """What ``client``'s Redis does with an acknowledged write, if ``accept`` allows it (a
    line for the log); else ``DurabilityRefused`` saying why and what to do."""
    if accept not in ACCEPT_LEVELS:
        raise DurabilityRefused(f"{SETTING}={accept!r}: expected one of "
                                f"{', '.join(ACCEPT_LEVELS)}")
    try:
        appendonly = _config(client, "appendonly")
        appendfsync = _config(client, "appendfsync")
    except ResponseError as error:
        if accept == "unchecked":
            return f"Redis at {where}: persistence not checked (CONFIG GET refused: {error})"
        raise DurabilityRefused(
            f"Redis at {where} does not let this node read its persistence settings "
            f"(CONFIG GET: {error}); managed Redis services often forbid CONFIG. If its "
            f"append-only file is on with appendfsync always, or you accept less, start with "
            f"{SETTING}=unchecked (docs/deploy.md, 'Durability').") from error
    found = f"Redis at {where}: appendonly {appendonly}, appendfsync {appendfsync}"
    problem = _problem(appendonly, appendfsync, accept)
    if problem is None:
        return found
    if accept == "unchecked":
        return f"{found} -- accepted ({SETTING}=unchecked): {problem}"
    raise DurabilityRefused(f"{found}: {problem}")


def _problem(appendonly: str, appendfsync: str, accept: str) -> str | None:
    if appendonly != "yes":
        return ("without the append-only file a restart of Redis loses every command since "
                "its last snapshot. Run Redis with appendonly yes and appendfsync always, or "
                f"accept the loss with {SETTING}=unchecked.")
    if appendfsync == "always":
        return None
    if appendfsync == "everysec":
        if accept == "everysec":
            return None
        return ("a power cut or kernel crash loses the acknowledged commands of about the "
                "last second (a kill of Redis alone loses nothing). Set appendfsync always, "
                f"or accept that with {SETTING}=everysec.")
    return (f"appendfsync {appendfsync}: the kernel writes when it likes, and a power cut "
            "may lose many seconds of acknowledged commands. Set appendfsync always, or "
            f"accept the loss with {SETTING}=unchecked.")


def _config(client: redis.Redis, name: str) -> str:
    reply: dict[Any, Any] = dict(client.config_get(name))
    value = reply.get(name, reply.get(name.encode(), ""))
    return value.decode() if isinstance(value, bytes) else str(value)


def check_external_redis(url: str, accept: str, wait_s: float = REDIS_WAIT_S) -> None:
    """Wait up to ``wait_s`` for the Redis at ``url`` to answer, then ``check_durability``;
    SystemExit with the reason when the node must not start."""
    where = redacted(url)
    client = redis.Redis.from_url(url, socket_connect_timeout=2.0, socket_timeout=5.0)
    deadline = time.monotonic() + wait_s
    try:
        while True:
            try:
                log.info(check_durability(client, accept, where))
                return
            except DurabilityRefused as refused:
                log.error("refusing to start: %s", refused)
                raise SystemExit(f"refusing to start: {refused}") from None
            except redis.AuthenticationError as error:  # waiting would not help
                raise SystemExit(f"refusing to start: Redis at {where}: {error}") from None
            except (redis.ConnectionError, redis.TimeoutError, BusyLoadingError, OSError) as error:
                if time.monotonic() >= deadline:
                    raise SystemExit(f"refusing to start: Redis at {where} did not answer "
                                     f"within {wait_s:.0f} s: {error}") from None
                log.warning("Redis at %s does not answer yet (%s); waiting", where, error)
                time.sleep(_RETRY_PAUSE_S)
    finally:
        client.close()


def check_cluster_durability(url: str, accept: str, wait_replicas: int, aof: bool = False,
                             wait_s: float = REDIS_WAIT_S) -> None:
    """``check_durability`` on every node of the Redis Cluster that ``url`` names, replicas
    included (a replica promoted by a failover is the master of its slots from then on);
    SystemExit with the reason when the node must not start. A master with fewer than
    ``wait_replicas`` replicas is logged, not refused: its rooms' writes are answered "try
    again" until it has them (with one replica per master, a failover leaves the promoted
    replica alone until its old master is back; with two, the other replica follows it),
    and refusing to start would not bring them. A failed master, or one without slots, is
    not such a master. With
    ``aof`` (``WAITAOF``) every node must be Redis or Valkey 7.2 or later."""
    where = redacted(url)
    deadline = time.monotonic() + wait_s
    while True:
        try:
            client = RedisCluster.from_url(url, socket_connect_timeout=2.0, socket_timeout=5.0)
            try:
                _check_every_node(client, url, accept, where, wait_replicas, aof)
            finally:
                client.close()
            return
        except DurabilityRefused as refused:
            log.error("refusing to start: %s", refused)
            raise SystemExit(f"refusing to start: {refused}") from None
        except redis.AuthenticationError as error:
            raise SystemExit(f"refusing to start: Redis Cluster at {where}: {error}") from None
        except (redis.ConnectionError, redis.TimeoutError, BusyLoadingError, OSError,
                RedisClusterException) as error:
            if time.monotonic() >= deadline:
                raise SystemExit(f"refusing to start: Redis Cluster at {where} did not answer "
                                 f"within {wait_s:.0f} s: {error}") from None
            log.warning("Redis Cluster at %s does not answer yet (%s); waiting", where, error)
            time.sleep(_RETRY_PAUSE_S)


WAITAOF_SINCE = (7, 2)


def _check_every_node(client: RedisCluster, url: str, accept: str, where: str,
                      wait_replicas: int, aof: bool) -> None:
    """Each node ``CLUSTER NODES`` names (the client's own map knows the masters only),
    reached with the URL's credentials and TLS settings."""
    cluster: Any = client  # (some of its methods are untyped)
    nodes: dict[str, dict[str, Any]] = cluster.cluster_nodes()
    template = redis.Redis.from_url(url).connection_pool
    # The masters that serve rooms: a failed master is logged as down below, and one left
    # without slots by a failover (its replica promoted) serves none, needing no replica.
    replicas = {node["node_id"]: 0 for node in nodes.values()
                if "master" in node["flags"] and "fail" not in node["flags"] and node["slots"]}
    for address, node in sorted(nodes.items()):
        if "fail" in node["flags"] or not node.get("connected", True):
            log.warning("Redis Cluster node %s is down (%s): not checked", address,
                        node["flags"])
            continue
        host, _, port = address.rpartition(":")
        one = redis.Redis(connection_pool=redis.ConnectionPool(
            connection_class=template.connection_class,
            **{**template.connection_kwargs, "host": host, "port": int(port)}))
        try:
            log.info(check_durability(one, accept, f"{where} (node {address})"))
            if aof:
                _refuse_without_waitaof(one, address)
        finally:
            one.close()
        if node["master_id"] in replicas:
            replicas[node["master_id"]] += 1
    for master, count in sorted(replicas.items()):
        if count < wait_replicas:
            log.warning("Redis Cluster master %s has %d replica(s), fewer than "
                        "REFEREE_REDIS_WAIT_REPLICAS=%d: writes to its rooms are answered "
                        "'try again' until it has them (docs/deploy.md, 'Redis Cluster')",
                        _address_of(nodes, master), count, wait_replicas)


def _address_of(nodes: dict[str, dict[str, Any]], node_id: str) -> str:
    return next((address for address, node in nodes.items() if node["node_id"] == node_id),
                node_id)


def _refuse_without_waitaof(one: redis.Redis, address: str) -> None:
    version = str(one.info("server").get("redis_version", "0"))
    if tuple(int(part) for part in version.split(".")[:2]) < WAITAOF_SINCE:
        raise DurabilityRefused(
            f"Redis Cluster node {address} is Redis {version}: REFEREE_REDIS_WAIT_AOF=1 "
            "needs WAITAOF (Redis or Valkey 7.2 and later). Upgrade it, or confirm with "
            "WAIT (REFEREE_REDIS_WAIT_AOF=0, docs/deploy.md, 'Redis Cluster').")
