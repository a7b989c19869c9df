"""What losing a Redis Cluster master costs the games on it: ``kill -9`` of a master under
live games, against the same games on a cluster that loses nothing.

``flock /tmp/bench.lock .venv/bin/python -m bench.failover_cost --rooms 300 --spectators 4``

Each round plays ``bench.loadgen``'s game (``bench.run``'s paced and max-rate phases, one
node on the server core) twice, each time on a fresh local Redis Cluster as production runs
it to write through a master's loss (``bench.redis_cluster_run``: three masters with two
replicas each, ``appendfsync always``, every append confirmed on a replica; the nodes'
``cluster-node-timeout`` 1 s unless ``--node-timeout-ms`` says otherwise, Redis's default
is 15,000): ``failing``, in which a master is
killed with -9 ``--kill-after`` seconds into the paced phase and one of its replicas takes
its slots over (``RedisClusterProcesses.wait_promoted``: every surviving node agrees and
the cluster is ``ok``), then ``still``, in which nothing fails. The max-rate phase starts
once the failover is over, so it shows whether anything of it lingers. With ``--relayed``
both runs have two nodes, each room's sockets spread over them, so some of every room's
members are relayed through the room bus (sharded pub/sub on the room's slot), which the
kill resets for the rooms of the dead master: those members' sockets are closed with 4011
and opened again.

The players' clients send a command answered ``storage_unavailable`` again under its id
(``--tries``, ``bench.loadgen.TRY_AGAIN_PAUSE_S`` apart), as the protocol asks; a command's
latency runs from its first send until every member holds its events, so the waits count.
Figures per run are ``bench.cluster_event_runs.pick``'s: the paced phase's (the node's
CPU per Order, the players' latency, the commands sent again, the errors), the latency of
the commands sent from the kill until ``SETTLE_S`` after the promotion (``during``; in the
``still`` run, those sent in the same seconds of its phase), and the max-rate phase's
Orders per second; and the failover's own (seconds from the kill to the promotion, the
rooms whose keys were on the killed master). Redis's CPU is not compared: the killed
master's is lost with it. Each round's ratios (``failing``/``still``) pair runs a minute
apart on the same host; the record holds their medians over the rounds
(``bench.cluster_event_runs``).
"""

from __future__ import annotations

import argparse
import asyncio
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from bench import paired_runs, redis_cluster_run
from bench.cluster_event_runs import (
    Window,
    add_round_arguments,
    paced_started,
    pick,
    play_rounds,
    run_main,
)
from bench.run import cores, run_referee
from testkit.redis_cluster import NODE_TIMEOUT_MS, RedisClusterProcesses

REPLICAS_PER_MASTER = 2
"""With one, the promoted replica has none of its own and its rooms' writes are refused
until the dead node is back (docs/deploy.md, "After a failover the shard refuses writes
until it has a replica again"): two is what keeps a shard writing through a failover."""
SETTLE_S = 1.0
"""How long after the promotion a command still counts as sent during the failover: the
node learns the new master from its first command's redirection or failed connection."""


class MasterLoss:
    """The kill of one ``failing`` run, in the background of its paced phase."""

    def __init__(self, cluster: RedisClusterProcesses, kill_after_s: float) -> None:
        """The master killed is not the node the bench's URL names (the referee's and the
        bench's own samples start there)."""
        self._cluster = cluster
        self._spared = urlsplit(cluster.url).port
        self._kill_after_s = kill_after_s
        self._task: asyncio.Task[None] | None = None
        self.killed = self.promoted = 0.0
        self.rooms = 0

    def start(self) -> None:
        """Arrange the kill (the paced phase begins right after this)."""
        self._task = asyncio.create_task(self._fail())

    async def _fail(self) -> None:
        await asyncio.sleep(self._kill_after_s)
        dead = max((node for node in self._cluster.masters() if node.port != self._spared),
                   key=lambda node: node.port)
        self.rooms = await asyncio.to_thread(self._rooms_on, dead.port)
        self._cluster.kill(dead.port)
        self.killed = time.time()
        await asyncio.to_thread(self._cluster.wait_promoted, dead)
        self.promoted = time.time()

    def _rooms_on(self, port: int) -> int:
        with self._cluster.client(port) as client:
            return sum(1 for _ in client.scan_iter(match="{room:*}:state", count=1000))

    async def finish(self) -> None:
        """``drive``'s hook before the max-rate phase: that phase starts once the failover
        is over (a failover that never completes fails the run)."""
        assert self._task is not None
        await self._task

    def figures(self) -> dict[str, Any]:
        return {"seconds_to_promotion": round(self.promoted - self.killed, 3),
                "rooms": self.rooms}


async def one_run(args: argparse.Namespace, workdir: Path, server_core: str | None,
                  load_core: str | None, window: Window | None
                  ) -> dict[str, Any]:
    """One run on a fresh cluster: ``window`` None kills a master (and the run's ``during``
    is from the kill to ``SETTLE_S`` after the promotion), else nothing fails and
    ``during`` is that window of its paced phase."""
    async with redis_cluster_run.local_cluster(workdir, load_core, args.cluster_server,
                                               REPLICAS_PER_MASTER,
                                               args.node_timeout_ms) as cluster:
        loss = None if window is not None else MasterLoss(cluster.processes, args.kill_after)

        async def before_paced() -> None:
            if loss is not None:
                loss.start()

        hooks = {"paced": before_paced}
        if loss is not None:
            hooks["max"] = loss.finish
        run_args = paired_runs.referee_args(args, nodes=2 if args.relayed else 1)
        run_args.tries = args.tries
        run_args.backoff = args.backoff
        result = await run_referee(run_args, cluster.url, workdir, server_core, load_core,
                                   cluster.node_env(), None, hooks, raw=("paced",))
        if loss is None:
            assert window is not None
            return pick(result, None, window)
        started = paced_started(result)
        picked = pick(result, None, (loss.killed - started,
                                     loss.promoted + SETTLE_S - started))
        picked["failover"] = loss.figures()
        return picked


async def compare(args: argparse.Namespace) -> dict[str, Any]:
    server_core, load_core = cores()

    async def run(workdir: Path, window: Window | None) -> dict[str, Any]:
        return await one_run(args, workdir, server_core, load_core, window)

    def window_of(failing: dict[str, Any]) -> Window:
        """From the kill to ``SETTLE_S`` after the promotion, as the failing run's."""
        return (args.kill_after,
                args.kill_after + failing["failover"]["seconds_to_promotion"] + SETTLE_S)

    # The failure first: the still run's ``during`` is the same seconds of its phase.
    return await play_rounds(args, "failing", run, window_of, kill_after=args.kill_after,
                             tries=args.tries, backoff=args.backoff,
                             replicas_per_master=REPLICAS_PER_MASTER,
                             cluster_server=args.cluster_server,
                             node_timeout_ms=args.node_timeout_ms, relayed=args.relayed)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Run, print and record; returns the result with its medians (``figures``)."""
    parser = argparse.ArgumentParser(prog="python -m bench.failover_cost", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    paired_runs.add_run_arguments(parser)
    parser.add_argument("--kill-after", type=float, default=2.0,
                        help="seconds into the paced phase when a master is killed")
    parser.add_argument("--node-timeout-ms", type=int, default=NODE_TIMEOUT_MS,
                        help="the cluster nodes' cluster-node-timeout (Redis's default is "
                             "15000: give --tries enough for the election, 0.1 s apart)")
    parser.add_argument("--relayed", action="store_true",
                        help="two nodes on the server core, each room's sockets spread over "
                             "them (bench.run --nodes 2 without its balancer): the seats and "
                             "spectators on the node that does not own the room are relayed "
                             "through its bus, which the master's loss resets too")
    add_round_arguments(parser)
    redis_cluster_run.add_server_argument(parser)
    return run_main(compare, parser.parse_args(argv), "failing", "failover_cost")


if __name__ == "__main__":
    main()
