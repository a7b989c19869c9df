"""What a room costs on two nodes behind the load balancer against one node, in one run.

``flock /tmp/bench.lock .venv/bin/python -m bench.routing_cost --rooms 300 --spectators 4``

Against one Redis (flushed between runs), in turn, ``--rounds`` times: the referee's game
(``bench.loadgen``, the paced and max-rate phases of ``bench.run``, no restart) on

- ``one``: one node, every socket on it;
- ``routed``: two nodes behind the shipped nginx (``bench.balancer``): every socket names
  its room, so all of a room's sockets reach one node, which owns the room;
- ``relayed``: two nodes, each room's players and spectators spread over them (``bench.run
  --nodes 2``): the relay's cost, for comparison;
- ``half``: one node with half the rooms, the load each routed node carries. Both routed
  nodes share the server core (as in ``bench.run --nodes 2``), and a node's CPU per Order
  grows as its load falls (its loop turns, timers, lease round and collector spread over
  fewer Orders), so ``routed``/``one`` mixes what routing costs with that;
  ``routed``/``half`` (``ratios/routed_vs_half/...``) compares nodes at equal load: what a
  room costs for being one of two nodes' rather than one node's.

Each round's ratios (``routed``/``one``, ``relayed``/``one``: the nodes' CPU per Order and per
delivery) pair runs minutes apart on the same host, so they survive its drift; the record
holds their medians over the rounds (and each configuration's median figures). nginx runs on
the load cores and its CPU is not counted as the referee's.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import redis

from bench import paired_runs
from bench.balancer import balancer_sockets
from bench.paired_runs import referee_args
from bench.run import cores, git_commit, git_dirty, redis_server, run_referee

CONFIGS = {"one": (1, False, 1), "routed": (2, True, 1), "relayed": (2, False, 1),
           "half": (1, False, 2)}
"""name -> (nodes, through the balancer, the rooms divided by)"""
FIGURES = ("cpu_us_per_order", "cpu_us_per_delivery", "orders_per_s", "errors")


def pick(result: dict[str, Any]) -> dict[str, Any]:
    return {phase: {name: result[phase][name] for name in FIGURES}
            for phase in ("paced", "max")}


def ratios(round_: dict[str, Any]) -> dict[str, float]:
    """``routed``/``one`` and ``relayed``/``one`` per phase and figure, in one round, and
    ``routed``/``half`` as ``routed_vs_half``."""
    out: dict[str, float] = {}
    pairs = [(config, config, "one") for config in ("routed", "relayed")]
    pairs.append(("routed_vs_half", "routed", "half"))
    for key, config, against in pairs:
        if config not in round_ or against not in round_:
            continue  # not asked for (--configs)
        for phase in ("paced", "max"):
            for name in ("cpu_us_per_order", "cpu_us_per_delivery"):
                ours, theirs = round_[config][phase][name], round_[against][phase][name]
                if ours and theirs:
                    out[f"{key}/{phase}/{name}"] = round(ours / theirs, 3)
    return out


async def compare(args: argparse.Namespace) -> dict[str, Any]:
    server_core, load_core = cores()
    started = datetime.datetime.now(datetime.UTC)
    rounds: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="bench-routing-") as tmp:
        workdir = Path(tmp)
        async with redis_server(workdir, load_core) as redis_url:
            for number in range(args.rounds):
                round_: dict[str, Any] = {}
                for name in args.configs.split(","):
                    nodes, balancer, share = CONFIGS[name]
                    redis.Redis.from_url(redis_url).flushall()
                    run_args = referee_args(args, nodes, balancer)
                    run_args.rooms = max(1, args.rooms // share)
                    result = await run_referee(run_args, redis_url, workdir, server_core,
                                               load_core)
                    round_[name] = pick(result)
                    print(json.dumps({"round": number, name: round_[name], "error_examples": [
                        result[phase]["error_examples"] for phase in ("paced", "max")]}),
                        flush=True)
                round_["ratios"] = ratios(round_)
                print(json.dumps({"round": number, "ratios": round_["ratios"]}), flush=True)
                rounds.append(round_)
    return {"date": started.isoformat(timespec="seconds"), "commit": git_commit(),
            "uncommitted_server_changes": git_dirty(),
            "params": paired_runs.params(args, configs=args.configs),
            "rounds": rounds}


def medians(result: dict[str, Any]) -> dict[str, float]:
    """Every figure's median over the rounds, and each ratio's min and max."""
    return paired_runs.medians(result["rounds"], CONFIGS)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.routing_cost", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    paired_runs.add_run_arguments(parser)
    parser.add_argument("--configs", default="one,routed,relayed",
                        help="which configurations (one, routed, relayed, half), in this "
                             "order each round (one first: the ratios are against it)")
    args = parser.parse_args(argv)
    names = args.configs.split(",")
    if names[0] != "one" or any(name not in CONFIGS for name in names):
        parser.error(f"--configs: 'one' first, then any of {', '.join(CONFIGS)}")
    # Each config's sockets through one nginx worker (two connections per socket).
    most = balancer_sockets()
    if "routed" in names and args.rooms * (2 + args.spectators) > most:
        parser.error(f"at most {most:,} sockets through the loopback nginx's one worker")
    result = asyncio.run(compare(args))
    figures = medians(result)
    print(json.dumps(figures, indent=1))
    paired_runs.record(result, figures, "routing_cost", args)

if __name__ == "__main__":
    main(sys.argv[1:])
