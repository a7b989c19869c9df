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
import datetime
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench import paired_runs, redis_cluster_run
from bench.measure import percentiles
from bench.run import cores, git_commit, git_dirty, run_referee
from server.cluster.lease import text
from testkit import cluster_rebalance
from testkit.redis_cluster import RedisClusterProcesses

CONFIGS = ("still", "moving")
RATIO_FIGURES = {"paced": ("cpu_us_per_order", "p50_ms", "p99_ms", "redis_cpu_us_per_order"),
                 "during": ("p50_ms", "p99_ms", "max_ms"),
                 "max": ("orders_per_s", "cpu_us_per_order")}
"""The figures of each part whose ``moving``/``still`` ratio a round keeps."""
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


def window_latencies(raw: dict[str, list[float]], start: float,
                     end: float) -> dict[str, Any]:
    """The latency of the commands sent between ``start`` and ``end`` (wall clock)."""
    inside = [latency for at, latency in zip(raw["sent_at"], raw["latencies_ms"], strict=True)
              if start <= at <= end]
    if not inside:
        return {"commands": 0}
    spread = percentiles(inside)
    return {"commands": len(inside), "p50_ms": spread["p50"], "p99_ms": spread["p99"],
            "max_ms": spread["max"]}


def paced_started(result: dict[str, Any]) -> float:
    """When a ``bench.run`` result's paced phase started (wall clock, s)."""
    return datetime.datetime.fromisoformat(result["paced"]["started_at"]).timestamp()


def pick(result: dict[str, Any], redis_cpu_s: dict[str, float] | None,
         window: tuple[float, float]) -> dict[str, Any]:
    """One run's figures: its paced phase (``redis_cpu_s``: the six nodes' CPU per phase, or
    None), the commands sent in ``window`` (offsets from the paced phase's start, s), the
    max-rate phase."""
    paced, fastest = result["paced"], result["max"]
    started = paced_started(result)
    orders = paced["orders"]
    return {
        "paced": {"cpu_us_per_order": paced["cpu_us_per_order"],
                  "p50_ms": paced["latency_ms"]["p50"], "p99_ms": paced["latency_ms"]["p99"],
                  "max_ms": paced["latency_ms"]["max"], "orders": orders,
                  "tried_again": paced["tried_again"], "reopened": paced["reopened"],
                  "errors": paced["errors"],
                  "redis_cpu_us_per_order": (round(redis_cpu_s["paced"] / orders * 1e6, 1)
                                             if orders and redis_cpu_s else None)},
        "during": window_latencies(paced["raw"], started + window[0], started + window[1]),
        "max": {"orders_per_s": fastest["orders_per_s"],
                "cpu_us_per_order": fastest["cpu_us_per_order"],
                "tried_again": fastest["tried_again"], "reopened": fastest["reopened"],
                "errors": fastest["errors"]},
    }


async def one_run(args: argparse.Namespace, workdir: Path, server_core: str | None,
                  load_core: str | None, move_window: tuple[float, float] | None
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


def ratios(round_: dict[str, Any], changed: str = "moving") -> dict[str, float]:
    """Each of ``RATIO_FIGURES``' figures of the ``changed`` run over the ``still`` run's."""
    out: dict[str, float] = {}
    for part, names in RATIO_FIGURES.items():
        for name in names:
            ours = round_[changed][part].get(name)
            theirs = round_["still"][part].get(name)
            if ours and theirs:
                out[f"{part}/{name}"] = round(ours / theirs, 3)
    return out


def errors(picked: dict[str, Any]) -> int:
    return int(picked["paced"]["errors"]) + int(picked["max"]["errors"])


async def compare(args: argparse.Namespace) -> dict[str, Any]:
    server_core, load_core = cores()
    started = datetime.datetime.now(datetime.UTC)
    rounds: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="bench-reshard-") as tmp:
        for number in range(args.rounds):
            # The move first: the still run's ``during`` is the same seconds of its phase.
            workdir = Path(tmp) / f"round-{number}"
            moving = await one_run(args, workdir / "moving", server_core, load_core, None)
            window = (0.0, moving["move"]["seconds"])
            still = await one_run(args, workdir / "still", server_core, load_core, window)
            round_ = {"moving": moving, "still": still}
            for config in CONFIGS:
                if errors(round_[config]):
                    print(f"round {number}, {config}: {errors(round_[config])} errors (kept "
                          "in the record)", file=sys.stderr, flush=True)
            round_["ratios"] = ratios(round_)
            print(json.dumps({"round": number, **round_}), flush=True)
            rounds.append(round_)
    return {"date": started.isoformat(timespec="seconds"), "commit": git_commit(),
            "uncommitted_server_changes": git_dirty(),
            "params": paired_runs.params(args, slots=args.slots, ballast=args.ballast,
                                         tries=args.tries,
                                         cluster_server=args.cluster_server),
            "rounds": rounds}


def medians(rounds: list[dict[str, Any]],
            configs: tuple[str, ...] = CONFIGS) -> dict[str, float]:
    """``bench.paired_runs.medians`` over both runs' figures and the move's (or the other
    event's), and each run's errors summed over the rounds (a median would hide one
    round's)."""
    figures = paired_runs.medians(rounds, configs)
    for config in configs:
        figures[f"{config}/errors_total"] = sum(errors(round_[config]) for round_ in rounds)
    return figures


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
    parser.add_argument("--tries", type=int, default=50,
                        help="sends of a command, under its id, while it is answered "
                             "storage_unavailable")
    redis_cluster_run.add_server_argument(parser)
    args = parser.parse_args(argv)
    result = asyncio.run(compare(args))
    figures = medians(result["rounds"])
    result["figures"] = figures
    print(json.dumps(figures, indent=1))
    paired_runs.record(result, figures, "reshard_cost", args)
    return result


if __name__ == "__main__":
    main()
