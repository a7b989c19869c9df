"""What the benches that pair runs within one round share (``bench.routing_cost``: one node,
routed, relayed; ``bench.durability_cost``: ``everysec``, ``always``): their options, the
``bench.run`` options each run is made with, the medians over the rounds and the history
record. Pairing runs minutes apart on the same host makes their ratios survive its drift."""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from bench.run_history import HISTORY, append


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    """The game each run plays, the rounds, and the history record's options."""
    parser.add_argument("--rooms", type=int, default=300)
    parser.add_argument("--spectators", type=int, default=4)
    parser.add_argument("--duration", type=float, default=20.0,
                        help="seconds of the paced phase and of the max-rate phase, each")
    parser.add_argument("--pace", type=float, default=10.0)
    parser.add_argument("--aro-window", type=float, default=2.0)
    parser.add_argument("--timeout-every", type=int, default=2)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--history", type=Path, default=HISTORY)
    parser.add_argument("--no-history", dest="history", action="store_const", const=None)
    parser.add_argument("--note", default=None, help="kept in the history record")


def referee_args(args: argparse.Namespace, nodes: int = 1,
                 balancer: bool = False) -> argparse.Namespace:
    """The ``bench.run`` options ``run_referee`` reads, for one run (no restart, no profile)."""
    return argparse.Namespace(
        rooms=args.rooms, spectators=args.spectators, duration=args.duration, pace=args.pace,
        aro_window=args.aro_window, timeout_every=args.timeout_every, seed=args.seed,
        workers=1, sockets_per_worker=12_000, nodes=nodes, balancer=balancer, restart=False,
        profile=None, profile_phase="max", profile_perf=False, profile_native=False)


def params(args: argparse.Namespace, **more: Any) -> dict[str, Any]:
    """The run's parameters, as its record keeps them."""
    return {"rooms": args.rooms, "spectators": args.spectators, "duration_s": args.duration,
            "pace_s": args.pace, "aro_window_s": args.aro_window, "rounds": args.rounds,
            "seed": args.seed, **more}


def medians(rounds: list[dict[str, Any]], names: Iterable[str]) -> dict[str, float]:
    """Every figure's median over the rounds (``<name>/<phase>/<figure>``, for each run
    ``names`` lists), and each ratio's (``ratios/...``) min and max."""
    values: dict[str, list[float]] = {}
    for round_ in rounds:
        for key, value in round_["ratios"].items():
            values.setdefault(f"ratios/{key}", []).append(value)
        for name in names:
            for phase, figures in round_.get(name, {}).items():
                for figure, value in figures.items():
                    if isinstance(value, int | float):
                        values.setdefault(f"{name}/{phase}/{figure}", []).append(value)
    out = {key: round(statistics.median(found), 3) for key, found in values.items()}
    for key, found in values.items():
        if key.startswith("ratios/"):
            out[f"{key}/min"], out[f"{key}/max"] = min(found), max(found)
    return out


def record(result: dict[str, Any], figures: dict[str, float], kind: str,
           args: argparse.Namespace) -> None:
    """Append the run's medians to the history (unless ``--no-history``)."""
    if args.history is None:
        return
    entry: dict[str, Any] = {
        "date": result["date"], "commit": result["commit"],
        "uncommitted_server_changes": result["uncommitted_server_changes"],
        "kind": kind, "config": result["params"], "runs": args.rounds,
        "aggregate": "median", "source": f"bench.{kind}", "figures": figures}
    if args.note:
        entry["note"] = args.note
    append(entry, args.history)
