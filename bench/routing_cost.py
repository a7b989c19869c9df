"""What a room costs on two nodes behind the load balancer against one node, in one run.

``flock /tmp/bench.lock .venv/bin/python -m bench.routing_cost --rooms 300 --spectators 4``

Against one Redis (flushed between runs), in turn, ``--rounds`` times: the referee's game
(``bench.loadgen``, the paced and max-rate phases of ``bench.run``, no restart) on

- ``one``: one node, every socket on it;
- ``routed``: two nodes behind the shipped nginx (``bench.balancer``): every socket names
  its room, so all of a room's sockets reach one node, which owns the room;
- ``relayed``: two nodes, each room's players and spectators spread over them (``bench.run
  --nodes 2``): the relay's cost, for comparison.

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
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

import redis

from bench.run import cores, git_commit, git_dirty, redis_server, run_referee
from bench.run_history import HISTORY, append

CONFIGS = {"one": (1, False), "routed": (2, True), "relayed": (2, False)}
"""name -> (nodes, through the balancer)"""
FIGURES = ("cpu_us_per_order", "cpu_us_per_delivery", "orders_per_s", "errors")


def run_args(args: argparse.Namespace, nodes: int, balancer: bool) -> argparse.Namespace:
    """The ``bench.run`` options ``run_referee`` reads, for one configuration."""
    return argparse.Namespace(
        rooms=args.rooms, spectators=args.spectators, duration=args.duration, pace=args.pace,
        aro_window=args.aro_window, timeout_every=args.timeout_every, seed=args.seed,
        workers=1, sockets_per_worker=12_000, nodes=nodes, balancer=balancer, restart=False,
        profile=None, profile_phase="max", profile_perf=False, profile_native=False)


def pick(result: dict[str, Any]) -> dict[str, Any]:
    return {phase: {name: result[phase][name] for name in FIGURES}
            for phase in ("paced", "max")}


def ratios(round_: dict[str, Any]) -> dict[str, float]:
    """``routed``/``one`` and ``relayed``/``one`` per phase and figure, in one round."""
    out: dict[str, float] = {}
    for config in ("routed", "relayed"):
        if config not in round_:
            continue  # not asked for (--configs)
        for phase in ("paced", "max"):
            for name in ("cpu_us_per_order", "cpu_us_per_delivery"):
                ours, theirs = round_[config][phase][name], round_["one"][phase][name]
                if ours and theirs:
                    out[f"{config}/{phase}/{name}"] = round(ours / theirs, 3)
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
                    nodes, balancer = CONFIGS[name]
                    redis.Redis.from_url(redis_url).flushall()
                    result = await run_referee(run_args(args, nodes, balancer), redis_url,
                                               workdir, server_core, load_core)
                    round_[name] = pick(result)
                    print(json.dumps({"round": number, name: round_[name], "error_examples": [
                        result[phase]["error_examples"] for phase in ("paced", "max")]}),
                        flush=True)
                round_["ratios"] = ratios(round_)
                print(json.dumps({"round": number, "ratios": round_["ratios"]}), flush=True)
                rounds.append(round_)
    return {"date": started.isoformat(timespec="seconds"), "commit": git_commit(),
            "uncommitted_server_changes": git_dirty(),
            "params": {"rooms": args.rooms, "spectators": args.spectators,
                       "duration_s": args.duration, "pace_s": args.pace,
                       "aro_window_s": args.aro_window, "rounds": args.rounds,
                       "configs": args.configs, "seed": args.seed},
            "rounds": rounds}


def medians(result: dict[str, Any]) -> dict[str, float]:
    """Every figure's median over the rounds, and each ratio's min and max."""
    values: dict[str, list[float]] = {}
    for round_ in result["rounds"]:
        for key, value in round_["ratios"].items():
            values.setdefault(f"ratios/{key}", []).append(value)
        for config in CONFIGS:
            for phase, figures in round_.get(config, {}).items():
                for name, value in figures.items():
                    if isinstance(value, int | float):
                        values.setdefault(f"{config}/{phase}/{name}", []).append(value)
    out = {key: round(statistics.median(found), 3) for key, found in values.items()}
    for key, found in values.items():
        if key.startswith("ratios/"):
            out[f"{key}/min"], out[f"{key}/max"] = min(found), max(found)
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.routing_cost", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rooms", type=int, default=300)
    parser.add_argument("--spectators", type=int, default=4)
    parser.add_argument("--duration", type=float, default=20.0,
                        help="seconds of the paced phase and of the max-rate phase, each")
    parser.add_argument("--pace", type=float, default=10.0)
    parser.add_argument("--aro-window", type=float, default=2.0)
    parser.add_argument("--timeout-every", type=int, default=2)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--configs", default="one,routed,relayed",
                        help="which configurations, in this order each round (one first: "
                             "the ratios are against it)")
    parser.add_argument("--history", type=Path, default=HISTORY)
    parser.add_argument("--no-history", dest="history", action="store_const", const=None)
    parser.add_argument("--note", default=None, help="kept in the history record")
    args = parser.parse_args(argv)
    names = args.configs.split(",")
    if names[0] != "one" or any(name not in CONFIGS for name in names):
        parser.error(f"--configs: 'one' first, then any of {', '.join(CONFIGS)}")
    # Each config's sockets through one nginx worker (4,096 connections, two per socket).
    if "routed" in names and args.rooms * (2 + args.spectators) > 2_000:
        parser.error("at most 2,000 sockets through the loopback nginx's one worker")
    result = asyncio.run(compare(args))
    figures = medians(result)
    print(json.dumps(figures, indent=1))
    if args.history is not None:
        entry: dict[str, Any] = {
            "date": result["date"], "commit": result["commit"],
            "uncommitted_server_changes": result["uncommitted_server_changes"],
            "kind": "routing_cost", "config": result["params"], "runs": args.rounds,
            "aggregate": "median",
            "source": "bench.routing_cost", "figures": figures}
        if args.note:
            entry["note"] = args.note
        append(entry, args.history)


if __name__ == "__main__":
    main(sys.argv[1:])
