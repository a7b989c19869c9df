"""What moving a Redis Cluster's slots costs the games on it: ``redis-cli --cluster reshard``
under live games, against the same games on a cluster whose slots stay where they are.

``flock /tmp/bench.lock .venv/bin/python -m bench.reshard_cost --rooms 300 --spectators 4``

Each round plays ``bench.loadgen``'s game (``bench.run``'s paced and max-rate phases, one
node on the server core) twice, each time on a fresh local Redis Cluster as production runs
it (``bench.redis_cluster_run``: three masters, three replicas, ``appendfsync always``,
every append confirmed on a replica): ``moving``, in which ``redis-cli --cluster reshard``
moves ``--slots`` slots from two masters to the third as the paced phase starts, then
``still``, with no move (``testkit.cluster_rebalance.reshard``: slot after slot, each one's keys by
``MIGRATE``, as an operator moves them). Before the paced phase of both runs each room's slot
gets ``--ballast`` keys more (a slot in service holds other rooms' keys too, finished games
kept for days: its keys move in many ``MIGRATE`` batches, and meanwhile a room of that slot
has its keys split). The max-rate phase starts once the move is over, so it shows whether
anything of the move lingers.

The players' clients do what the protocol asks of a command answered ``storage_unavailable``
(which a room whose keys are split between two masters is, for the moment its slot moves):
they send it again under its id, ``bench.loadgen.TRY_AGAIN_PAUSE_S`` later
(``--tries``); a command's latency runs from its first send until every member holds its
events, so the waits count. Figures per run: the paced phase's (the node's CPU per Order,
the players' latency, the commands sent again, Redis's CPU per Order over all six nodes,
the move's included), the latency of the commands sent while the move ran (``during``; in
the ``still`` run, those sent in the same seconds of its phase), the move itself (its
seconds, slots, keys and the rooms whose slot moved), and the max-rate phase's Orders per
second. Each round's ratios (``moving``/``still``) pair runs a minute apart on the same
host; the record holds their medians over the rounds (``bench.paired_runs``).
"""

from __future__ import annotations

import argparse
import asyncio
import time
from pathlib import Path
from typing import Any

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
from server.cluster.lease import text
from testkit import cluster_rebalance
from testkit.redis_cluster import RedisClusterProcesses

KEYS_PER_SLOT_READ = 100_000
"""``CLUSTER GETKEYSINSLOT``'s count when the rooms of a moved slot are counted: more than a
slot holds here, ballast included."""
BALLAST_BYTES = 64


def add_ballast(cluster: RedisClusterProcesses, per_room: int) -> None:
    """``per_room`` keys more in each room's slot (``{room:<id>}:ballast:<n>``), as a slot of
    a cluster in service holds other rooms' keys too (finished games are kept for days:
    docs/capacity.md); ``redis-cli`` moves a slot's keys in batches, and a room's commands
    are "try again" while its keys are split."""
    for master in cluster.masters():
        with cluster.client(master.port) as client:
            tags = [text(key).removesuffix(":state")
                    for key in client.scan_iter(match="{room:*}:state", count=1000)]
            pipe = client.pipeline(transaction=False)
            for tag in tags:
                pipe.mset({f"{tag}:ballast:{n}": b"x" * BALLAST_BYTES
                           for n in range(per_room)})
            pipe.execute()


class SlotMove:
    """The reshard of one ``moving`` run, in the background of its paced phase."""

    def __init__(self, cluster: RedisClusterProcesses, slots: int) -> None:
        self._cluster = cluster
        self._slots = slots
        self._task: asyncio.Task[None] | None = None
        self.started = self.ended = 0.0
        self.slots: list[int] = []
        self.steps = 0  # redis-cli's: a slot begun, and each key moved

    async def start(self) -> None:
        """Begin the move in the background (before the paced phase: it begins with it)."""
        masters = sorted(self._cluster.masters(), key=lambda node: node.port)
        target, sources = masters[-1], masters[:-1]

        def progress(steps: int, begun: list[int]) -> None:
            self.steps += steps
            self.slots += begun

        async def move() -> None:
            await cluster_rebalance.reshard(self._cluster, sources, target, self._slots,
                                            progress)
            self.ended = time.time()

        self.started = time.time()
        self._task = asyncio.create_task(move())

    async def finish(self) -> None:
        """``drive``'s hook before the max-rate phase: that phase starts once the move is
        over (its failure fails the run)."""
        assert self._task is not None
        await self._task

    def figures(self, paced_ended: float) -> dict[str, Any]:
        keys = self.steps - len(self.slots)
        seconds = self.ended - self.started
        return {"seconds": round(seconds, 3), "slots": len(self.slots), "keys": keys,
                "rooms": len(self._rooms_moved()),
                "slots_per_s": round(len(self.slots) / seconds, 1) if seconds else None,
                "outlasted_paced_phase": self.ended > paced_ended}

    def _rooms_moved(self) -> set[str]:
        """The rooms whose keys are now in the moved slots (each room's keys share one)."""
        rooms: set[str] = set()
        for slot in self.slots:
            port = self._cluster.master_of_slot(slot).port
            with self._cluster.client(port) as client:
                keys = client.execute_command("CLUSTER", "GETKEYSINSLOT", slot,
                                              KEYS_PER_SLOT_READ)
            names = (text(key) for key in keys)
            rooms.update(name.split("}", 1)[0] for name in names if name.startswith("{room:"))
        return rooms


async def one_run(args: argparse.Namespace, workdir: Path, server_core: str | None,
                  load_core: str | None, move_window: Window | None
                  ) -> dict[str, Any]:
    """One run on a fresh cluster: ``move_window`` None moves ``--slots`` slots (and the
    run's ``during`` is the move's own seconds), else no slot moves and ``during`` is that
    window of its paced phase."""
    async with redis_cluster_run.local_cluster(workdir, load_core,
                                               args.cluster_server) as cluster:
        cpu: dict[str, float] = {}
        stamps: dict[str, float] = {}

        def sample(phase: str) -> None:
            stamps[phase] = time.time()
            if phase in ("setup", "paced"):
                cpu[phase] = cluster.cpu_seconds()["all"]

        move = None if move_window is not None else SlotMove(cluster.processes, args.slots)

        async def before_paced() -> None:
            await asyncio.to_thread(add_ballast, cluster.processes, args.ballast)
            if move is not None:
                await move.start()

        hooks = {"paced": before_paced}
        if move is not None:
            hooks["max"] = move.finish
        run_args = paired_runs.referee_args(args)
        run_args.tries = args.tries
        run_args.backoff = args.backoff
        result = await run_referee(run_args, cluster.url, workdir, server_core, load_core,
                                   cluster.node_env(), sample, hooks, raw=("paced",))
        redis_cpu = {"paced": cpu["paced"] - cpu["setup"]}
        if move is None:
            assert move_window is not None
            return pick(result, redis_cpu, move_window)
        started = paced_started(result)
        picked = pick(result, redis_cpu, (move.started - started, move.ended - started))
        picked["move"] = move.figures(stamps["paced"])
        return picked


async def compare(args: argparse.Namespace) -> dict[str, Any]:
    server_core, load_core = cores()

    async def run(workdir: Path, window: Window | None) -> dict[str, Any]:
        return await one_run(args, workdir, server_core, load_core, window)

    # The move first: the still run's ``during`` is the same seconds of its phase.
    return await play_rounds(args, "moving", run,
                             lambda moving: (0.0, moving["move"]["seconds"]),
                             slots=args.slots, ballast=args.ballast, tries=args.tries,
                             backoff=args.backoff, cluster_server=args.cluster_server)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Run, print and record; returns the result with its medians (``figures``)."""
    parser = argparse.ArgumentParser(prog="python -m bench.reshard_cost", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    paired_runs.add_run_arguments(parser)
    parser.add_argument("--slots", type=int, default=2000,
                        help="slots moved from two masters to the third in the moving run")
    parser.add_argument("--ballast", type=int, default=200,
                        help="keys added to each room's slot before the paced phase, in both "
                             "runs (a slot's other rooms' keys)")
    add_round_arguments(parser)
    redis_cluster_run.add_server_argument(parser)
    return run_main(compare, parser.parse_args(argv), "moving", "reshard_cost")


if __name__ == "__main__":
    main()
