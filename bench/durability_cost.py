"""What durability costs: the referee's game against a Redis that fsyncs every write
(``appendfsync always``, what production runs and a node demands by default) and against
one that fsyncs once a second (``everysec``, what the other benches run), in one run; with
``--configs everysec,always,cluster`` also against a Redis Cluster as production runs it.

``flock /tmp/bench.lock .venv/bin/python -m bench.durability_cost --rooms 300 --spectators 4``

One Redis (append-only), switched between the two settings with ``CONFIG SET appendfsync``
and flushed between runs; each round plays ``bench.loadgen``'s game (the paced and max-rate
phases of ``bench.run``, no restart) once per setting, ``everysec`` first. Each round's
ratios (``always``/``everysec``: the node's CPU per Order, the players' p50 and p99, Redis's
CPU per Order, the Orders per second at the maximum rate) pair runs minutes apart on the
same host, so they survive its drift; the record holds their medians over the rounds.
Redis runs on the load core, as in ``bench.run``: its fsyncs' CPU is Redis's, their waits
are the players' latency.

``cluster`` (``bench.redis_cluster_run``): each round, after the single Redis's runs, the
same game against a fresh local Redis Cluster (3 masters, 3 replicas, ``appendfsync
always`` on all, on the load core), the node started with ``REFEREE_REDIS_CLUSTER=1`` and
every append confirmed on a replica (``WAIT`` on Debian's Redis, as production runs it;
``--cluster-server valkey``: ``WAITAOF`` on Valkey). Its ratios
``cluster_over_always/...`` and ``cluster_over_everysec/...``; its Redis CPU is all six
nodes' (``redis_cpu_us_per_order``) and the masters' only (``redis_masters_cpu_us_per_order``,
also set over the single Redis's CPU).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import json
import sys
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import redis

from bench import paired_runs, redis_cluster_run
from bench.run import cores, git_commit, git_dirty, redis_server, run_referee

SETTINGS = ("everysec", "always")
"""The ``appendfsync`` settings of the single Redis, in the order each round plays them
(the ratios are ``always`` over ``everysec``)."""

CONFIGS = (*SETTINGS, "cluster")
"""Every configuration, in the order each round plays those asked for."""

DEFAULT_CONFIGS = SETTINGS
"""What a run plays unless told (its records stay comparable with the earlier ones)."""

PAIRS = (("always", "everysec", ""), ("cluster", "always", "cluster_over_always/"),
         ("cluster", "everysec", "cluster_over_everysec/"))
"""(numerator, denominator, the ratios' prefix): ``always``/``everysec`` keep their
unprefixed names, as in the records before the cluster."""

RATIO_FIGURES = ("cpu_us_per_order", "p50_ms", "p99_ms", "redis_cpu_us_per_order",
                 "orders_per_s")


def pick(result: dict[str, Any],
         cluster_cpu: dict[str, dict[str, float]] | None = None) -> dict[str, Any]:
    """Per phase: what durability may change (the Redis figures are absent when the bench
    could not read Redis's INFO). ``cluster_cpu``: per phase, the CPU seconds of a cluster's
    nodes (``all``, ``masters``), which then are the run's Redis CPU."""
    out: dict[str, Any] = {}
    for phase in ("paced", "max"):
        figures = result[phase]
        redis_figures = figures.get("redis") or {}
        orders = figures["orders"]
        redis_cpu_s = redis_figures.get("cpu_share", 0.0) * figures["elapsed_s"]
        if cluster_cpu is not None:
            redis_cpu_s = cluster_cpu[phase]["all"]
        out[phase] = {
            "cpu_us_per_order": figures["cpu_us_per_order"],
            "p50_ms": figures["latency_ms"]["p50"], "p99_ms": figures["latency_ms"]["p99"],
            "orders_per_s": figures["orders_per_s"],
            "redis_cpu_us_per_order": round(redis_cpu_s / orders * 1e6, 1) if orders else None,
            "errors": figures["errors"],
        }
        if cluster_cpu is not None:
            masters_s = cluster_cpu[phase]["masters"]
            out[phase]["redis_masters_cpu_us_per_order"] = (
                round(masters_s / orders * 1e6, 1) if orders else None)
    out["setup"] = {"errors": result.get("setup_errors", 0)}
    return out


def ratios(round_: dict[str, Any]) -> dict[str, float]:
    """Each pair of ``PAIRS`` the round played, per phase and figure (a figure missing or
    zero in either run has no ratio); a cluster's masters-only Redis CPU is also set over
    the single Redis's."""
    out: dict[str, float] = {}
    for numerator, denominator, prefix in PAIRS:
        if numerator not in round_ or denominator not in round_:
            continue
        for phase in ("paced", "max"):
            ours_figures, theirs_figures = round_[numerator][phase], round_[denominator][phase]
            pairs = [(name, name, name) for name in RATIO_FIGURES]
            if "redis_masters_cpu_us_per_order" in ours_figures:
                pairs.append(("redis_masters_cpu_us_per_order",
                              "redis_masters_cpu_us_per_order", "redis_cpu_us_per_order"))
            for key, ours_name, theirs_name in pairs:
                ours, theirs = ours_figures.get(ours_name), theirs_figures.get(theirs_name)
                if ours and theirs:
                    out[f"{prefix}{phase}/{key}"] = round(ours / theirs, 3)
    return out


def errors(picked: dict[str, Any]) -> int:
    """A run's errors: its setup's and its phases'."""
    return sum(int(figures.get("errors") or 0) for figures in picked.values())


def medians(rounds: list[dict[str, Any]],
            configs: tuple[str, ...] = SETTINGS) -> dict[str, float]:
    """Every figure's median over the rounds, each ratio's min and max, and each
    configuration's errors summed over the rounds (``<config>/errors_total``: a median
    would hide one round's errors)."""
    figures = paired_runs.medians(rounds, configs)
    for config in configs:
        figures[f"{config}/errors_total"] = sum(
            errors(round_[config]) for round_ in rounds if config in round_)
    return figures


def parse_configs(text: str) -> tuple[str, ...]:
    asked = [part.strip() for part in text.split(",") if part.strip()]
    unknown = [name for name in asked if name not in CONFIGS]
    if unknown or not asked:
        raise argparse.ArgumentTypeError(
            f"configurations are some of {', '.join(CONFIGS)} (got {text!r})")
    return tuple(name for name in CONFIGS if name in asked)


@contextlib.asynccontextmanager
async def single_redis(workdir: Path, core: str | None,
                       configs: tuple[str, ...]) -> AsyncIterator[str | None]:
    """The single Redis the settings' runs share, if any of them is asked for."""
    if not set(configs) & set(SETTINGS):
        yield None
        return
    async with redis_server(workdir, core) as url:
        yield url


async def cluster_run(args: argparse.Namespace, workdir: Path, server_core: str | None,
                      load_core: str | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """One run against a fresh cluster: the run's figures and what ran (confirm mode,
    server)."""
    async with redis_cluster_run.local_cluster(workdir, load_core,
                                               args.cluster_server) as cluster:
        cpu: dict[str, dict[str, float]] = {}

        def sample(phase: str) -> None:
            if phase in ("setup", "paced", "max"):
                cpu[phase] = cluster.cpu_seconds()

        result = await run_referee(paired_runs.referee_args(args), cluster.url, workdir,
                                   server_core, load_core, cluster.node_env(), sample)
        per_phase = {phase: {part: cpu[phase][part] - cpu[previous][part]
                             for part in ("all", "masters")}
                     for phase, previous in (("paced", "setup"), ("max", "paced"))}
        return pick(result, per_phase), cluster.describe()


async def compare(args: argparse.Namespace) -> dict[str, Any]:
    configs: tuple[str, ...] = args.configs
    server_core, load_core = cores()
    started = datetime.datetime.now(datetime.UTC)
    rounds: list[dict[str, Any]] = []
    described: dict[str, Any] | None = None
    with tempfile.TemporaryDirectory(prefix="bench-durability-") as tmp:
        workdir = Path(tmp)
        async with single_redis(workdir, load_core, configs) as redis_url:
            client = redis.Redis.from_url(redis_url) if redis_url else None
            for number in range(args.rounds):
                round_: dict[str, Any] = {}
                for config in configs:
                    if config == "cluster":
                        round_[config], described = await cluster_run(
                            args, workdir / f"cluster-{number}", server_core, load_core)
                        round_["cluster_redis"] = described
                    else:
                        assert client is not None and redis_url is not None
                        client.config_set("appendfsync", config)
                        client.flushall()
                        result = await run_referee(paired_runs.referee_args(args), redis_url,
                                                   workdir, server_core, load_core)
                        round_[config] = pick(result)
                    if errors(round_[config]):
                        print(f"round {number}, {config}: {errors(round_[config])} errors "
                              "(kept in the record)", file=sys.stderr, flush=True)
                    shown = {config: round_[config]}
                    if config == "cluster":
                        shown["cluster_redis"] = round_["cluster_redis"]
                    print(json.dumps({"round": number, **shown}), flush=True)
                round_["ratios"] = ratios(round_)
                print(json.dumps({"round": number, "ratios": round_["ratios"]}), flush=True)
                rounds.append(round_)
    more: dict[str, Any] = {}
    if configs != DEFAULT_CONFIGS:
        more["configs"] = ",".join(configs)
    if described is not None:
        more["cluster_confirm"] = described["confirm"]
        more["cluster_server"] = described["server"]
    return {"date": started.isoformat(timespec="seconds"), "commit": git_commit(),
            "uncommitted_server_changes": git_dirty(),
            "params": paired_runs.params(args, **more),
            "configs": configs, "cluster": described,
            "rounds": rounds}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Run, print and record; returns the result with its medians (``figures``)."""
    parser = argparse.ArgumentParser(prog="python -m bench.durability_cost", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    paired_runs.add_run_arguments(parser)
    parser.add_argument("--configs", type=parse_configs, default=DEFAULT_CONFIGS,
                        help="comma-separated, of everysec, always, cluster (default "
                             "everysec,always; each round plays them in that order)")
    parser.add_argument("--cluster", dest="configs", action="store_const", const=CONFIGS,
                        help="the same as --configs everysec,always,cluster")
    redis_cluster_run.add_server_argument(parser)
    args = parser.parse_args(argv)
    result = asyncio.run(compare(args))
    figures = medians(result["rounds"], result["configs"])
    result["figures"] = figures
    print(json.dumps(figures, indent=1))
    paired_runs.record(result, figures, "durability_cost", args)
    return result

if __name__ == "__main__":
    main(sys.argv[1:])
