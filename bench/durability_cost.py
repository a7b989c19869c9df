"""What durability costs: the referee's game against a Redis that fsyncs every write
(``appendfsync always``, what production runs and a node demands by default) and against
one that fsyncs once a second (``everysec``, what the other benches run), in one run.

``flock /tmp/bench.lock .venv/bin/python -m bench.durability_cost --rooms 300 --spectators 4``

One Redis (append-only), switched between the two settings with ``CONFIG SET appendfsync``
and flushed between runs; each round plays ``bench.loadgen``'s game (the paced and max-rate
phases of ``bench.run``, no restart) once per setting, ``everysec`` first. Each round's
ratios (``always``/``everysec``: the node's CPU per Order, the players' p50 and p99, Redis's
CPU per Order, the Orders per second at the maximum rate) pair runs minutes apart on the
same host, so they survive its drift; the record holds their medians over the rounds.
Redis runs on the load core, as in ``bench.run``: its fsyncs' CPU is Redis's, their waits
are the players' latency.
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
from bench.run import cores, git_commit, git_dirty, redis_server, run_referee

SETTINGS = ("everysec", "always")
"""The ``appendfsync`` settings, in the order each round plays them (the ratios are
``always`` over ``everysec``)."""


def pick(result: dict[str, Any]) -> dict[str, Any]:
    """Per phase: what durability may change (the Redis figures are absent when the bench
    could not read Redis's INFO)."""
    out: dict[str, Any] = {}
    for phase in ("paced", "max"):
        figures = result[phase]
        redis_figures = figures.get("redis") or {}
        orders = figures["orders"]
        redis_cpu_s = redis_figures.get("cpu_share", 0.0) * figures["elapsed_s"]
        out[phase] = {
            "cpu_us_per_order": figures["cpu_us_per_order"],
            "p50_ms": figures["latency_ms"]["p50"], "p99_ms": figures["latency_ms"]["p99"],
            "orders_per_s": figures["orders_per_s"],
            "redis_cpu_us_per_order": round(redis_cpu_s / orders * 1e6, 1) if orders else None,
            "errors": figures["errors"],
        }
    return out


def ratios(round_: dict[str, Any]) -> dict[str, float]:
    """``always``/``everysec`` per phase and figure, in one round (a figure missing or zero in
    either run has no ratio)."""
    out: dict[str, float] = {}
    for phase in ("paced", "max"):
        for name in ("cpu_us_per_order", "p50_ms", "p99_ms", "redis_cpu_us_per_order",
                     "orders_per_s"):
            ours, theirs = round_["always"][phase].get(name), round_["everysec"][phase].get(name)
            if ours and theirs:
                out[f"{phase}/{name}"] = round(ours / theirs, 3)
    return out


def medians(rounds: list[dict[str, Any]]) -> dict[str, float]:
    """Every figure's median over the rounds, and each ratio's min and max."""
    return paired_runs.medians(rounds, SETTINGS)


async def compare(args: argparse.Namespace) -> dict[str, Any]:
    server_core, load_core = cores()
    started = datetime.datetime.now(datetime.UTC)
    rounds: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="bench-durability-") as tmp:
        workdir = Path(tmp)
        async with redis_server(workdir, load_core) as redis_url:
            client = redis.Redis.from_url(redis_url)
            for number in range(args.rounds):
                round_: dict[str, Any] = {}
                for setting in SETTINGS:
                    client.config_set("appendfsync", setting)
                    client.flushall()
                    result = await run_referee(paired_runs.referee_args(args), redis_url, workdir,
                                               server_core, load_core)
                    round_[setting] = pick(result)
                    print(json.dumps({"round": number, setting: round_[setting]}), flush=True)
                round_["ratios"] = ratios(round_)
                print(json.dumps({"round": number, "ratios": round_["ratios"]}), flush=True)
                rounds.append(round_)
    return {"date": started.isoformat(timespec="seconds"), "commit": git_commit(),
            "uncommitted_server_changes": git_dirty(),
            "params": paired_runs.params(args),
            "rounds": rounds}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.durability_cost", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    paired_runs.add_run_arguments(parser)
    args = parser.parse_args(argv)
    result = asyncio.run(compare(args))
    figures = medians(result["rounds"])
    print(json.dumps(figures, indent=1))
    paired_runs.record(result, figures, "durability_cost", args)

if __name__ == "__main__":
    main(sys.argv[1:])
