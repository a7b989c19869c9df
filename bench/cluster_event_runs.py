"""Paired runs around one event on a Redis Cluster under live games: what
``bench.reshard_cost`` (slots moved) and ``bench.failover_cost`` (a master killed) share.

Each round runs the game once with the event (the ``changed`` run, first) and once without
(``still``), each on a fresh cluster; the ``still`` run's ``during`` is the same seconds of
its paced phase as the event's. A run keeps ``pick``'s figures; a round keeps both runs and
their ratios (``changed``/``still``); the record holds the medians over the rounds
(``bench.paired_runs``) and each run's errors summed: those the load generator met, and
the nodes' own (``node_errors``: the ``ERROR`` lines of the run's ``referee.log``, such as a
room's message that failed, which a room may get over without a player seeing it).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import json
import re
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from bench import paired_runs
from bench.loadgen import add_backoff_argument
from bench.measure import percentiles
from bench.run import git_commit, git_dirty

RATIO_FIGURES = {"paced": ("cpu_us_per_order", "p50_ms", "p99_ms", "redis_cpu_us_per_order"),
                 "during": ("p50_ms", "p99_ms", "max_ms"),
                 "max": ("orders_per_s", "cpu_us_per_order")}
"""The figures of each part whose ``changed``/``still`` ratio a round keeps."""

Window = tuple[float, float]
"""Seconds from the paced phase's start: the commands sent while the event ran."""
OneRun = Callable[[Path, Window | None], Awaitable[dict[str, Any]]]
"""One run in a work folder: ``None`` plays the event (its ``during`` is the event's own
seconds), a window plays none (its ``during`` is that window)."""


NODE_ERROR = re.compile(r"^\S+ \S+ ERROR |^ERROR:")
"""An ``ERROR`` line of a node's log: its own (``<date> <time> ERROR <logger>: ...``) or
uvicorn's (``ERROR:    ...``)."""
NODE_ERROR_EXAMPLES = 3


def node_errors(log: Path) -> dict[str, Any]:
    """The ``ERROR`` lines in a run's nodes' log: how many, and the first few."""
    found: list[str] = []
    if log.exists():
        with log.open(errors="replace") as lines:
            found = [line.rstrip("\n") for line in lines if NODE_ERROR.match(line)]
    return {"errors": len(found), "error_examples": found[:NODE_ERROR_EXAMPLES]}


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
         window: Window) -> dict[str, Any]:
    """One run's figures: its paced phase (``redis_cpu_s``: the cluster's CPU per phase, or
    None), the commands sent in ``window``, the max-rate phase; each phase's first errors
    as the load generator said them (``error_examples``: printed with each round, not
    in the medians)."""
    paced, fastest = result["paced"], result["max"]
    started = paced_started(result)
    orders = paced["orders"]
    return {
        "paced": {"cpu_us_per_order": paced["cpu_us_per_order"],
                  "p50_ms": paced["latency_ms"]["p50"], "p99_ms": paced["latency_ms"]["p99"],
                  "max_ms": paced["latency_ms"]["max"], "orders": orders,
                  "tried_again": paced["tried_again"], "reopened": paced["reopened"],
                  "errors": paced["errors"], "error_examples": paced["error_examples"],
                  "redis_cpu_us_per_order": (round(redis_cpu_s["paced"] / orders * 1e6, 1)
                                             if orders and redis_cpu_s else None)},
        "during": window_latencies(paced["raw"], started + window[0], started + window[1]),
        "max": {"orders_per_s": fastest["orders_per_s"],
                "cpu_us_per_order": fastest["cpu_us_per_order"],
                "tried_again": fastest["tried_again"], "reopened": fastest["reopened"],
                "errors": fastest["errors"], "error_examples": fastest["error_examples"]},
    }


def ratios(round_: dict[str, Any], changed: str) -> dict[str, float]:
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


def medians(rounds: list[dict[str, Any]], configs: tuple[str, ...]) -> dict[str, float]:
    """``bench.paired_runs.medians`` over both runs' figures and the event's, and each
    run's errors summed over the rounds (a median would hide one round's)."""
    figures = paired_runs.medians(rounds, configs)
    for config in configs:
        figures[f"{config}/errors_total"] = sum(errors(round_[config]) for round_ in rounds)
        figures[f"{config}/node_errors_total"] = sum(
            int(round_[config]["node"]["errors"]) for round_ in rounds)
    return figures


async def play_rounds(args: argparse.Namespace, changed: str, one_run: OneRun,
                      window_of: Callable[[dict[str, Any]], Window],
                      **params: Any) -> dict[str, Any]:
    """``args.rounds`` rounds: the ``changed`` run, then the ``still`` run over
    ``window_of`` the changed run's figures. The result as ``bench.paired_runs.record``
    keeps it (``params``: this bench's own, beside the game's)."""
    started = datetime.datetime.now(datetime.UTC)
    rounds: list[dict[str, Any]] = []
    with contextlib.ExitStack() as files:
        top = args.keep if args.keep is not None else Path(
            files.enter_context(tempfile.TemporaryDirectory(prefix=f"bench-{changed}-")))
        for number in range(args.rounds):
            workdir = top / f"round-{number}"
            first = await one_run(workdir / changed, None)
            first["node"] = node_errors(workdir / changed / "referee.log")
            still = await one_run(workdir / "still", window_of(first))
            still["node"] = node_errors(workdir / "still" / "referee.log")
            round_ = {changed: first, "still": still}
            for config in ("still", changed):
                if errors(round_[config]) or round_[config]["node"]["errors"]:
                    print(f"round {number}, {config}: {errors(round_[config])} errors, "
                          f"{round_[config]['node']['errors']} in the nodes' log (kept in "
                          "the record)", file=sys.stderr, flush=True)
            round_["ratios"] = ratios(round_, changed)
            print(json.dumps({"round": number, **round_}), flush=True)
            rounds.append(round_)
    return {"date": started.isoformat(timespec="seconds"), "commit": git_commit(),
            "uncommitted_server_changes": git_dirty(),
            "params": paired_runs.params(args, **params), "rounds": rounds}


def add_round_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tries", type=int, default=50,
                        help="sends of a command, under its id, while it is answered "
                             "storage_unavailable")
    add_backoff_argument(parser)
    parser.add_argument("--keep", type=Path, metavar="DIR",
                        help="keep each run's files (its nodes' referee.log, its Redis "
                             "nodes' logs) under DIR/round-N/<run> instead of a temporary "
                             "directory removed at the end")


def run_main(compare: Callable[[argparse.Namespace], Awaitable[dict[str, Any]]],
             args: argparse.Namespace, changed: str, kind: str) -> dict[str, Any]:
    """A bench's ``main`` once its arguments are parsed: run, print and record the medians
    over the rounds; the result with them (``figures``)."""
    result = asyncio.run(compare(args))
    figures = medians(result["rounds"], ("still", changed))
    result["figures"] = figures
    print(json.dumps(figures, indent=1))
    paired_runs.record(result, figures, kind, args)
    return result
