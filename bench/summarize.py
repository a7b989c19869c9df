"""``python -m bench.summarize``: the medians per configuration and commit, from the history.

::

    python -m bench.summarize                   # every kind of run in bench/history.jsonl
    python -m bench.summarize --kind run        # one kind: run, broadcast, abuse, restart, ...
    python -m bench.summarize --broadcast       # the same as --kind broadcast
    python -m bench.summarize --since 2026-11-26 --commit f514736
    python -m bench.summarize --kind run --latest   # the newest commit of each configuration
    python -m bench.summarize bench/results/*.json other-history.jsonl

With no file named it reads ``bench/history.jsonl`` (``--history`` for another); files named
may be results JSON files (``bench/results/``; each read as the record its bench would have
appended) or JSON-lines histories. A run found twice (same kind, date, commit and
configuration) counts once.

Records are grouped by kind, configuration (for ``bench.run``: rooms, spectators, server
processes, phase length, pace, variant) and the server code they ran (the commit, or the
record's ``server_code`` when its commit changed nothing the bench exercises), and whether the
tree had uncommitted server changes (unless the record names its server code). Every cell is
the median over the group's records; ``runs`` says how many runs they stand for, with ``*``
when a record is itself an aggregate over its runs (a table of docs/performance.md from before
the history was kept): a median of medians then. Groups come newest first; the records' notes
follow each table. ``bench.abuse`` groups get a row per phase, with the columns of its report.
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from bench.broadcast_report import COLUMNS as BROADCAST_COLUMNS
from bench.run_history import ABUSE_PHASES, HISTORY, read, record

COLUMNS = (
    ("p50 paced ms", "referee/paced/latency_ms/p50"),
    ("p99 paced ms", "referee/paced/latency_ms/p99"),
    ("p99.9 paced ms", "referee/paced/latency_ms/p99.9"),
    ("max paced ms", "referee/paced/latency_ms/max"),
    ("baseline p99 paced ms", "baseline/paced/latency_ms/p99"),
    ("ARO close late p50 ms", "referee/paced/window_close_lateness_ms/p50"),
    ("ARO close late p99 ms", "referee/paced/window_close_lateness_ms/p99"),
    ("ARO close late max ms", "referee/paced/window_close_lateness_ms/max"),
    ("paced server CPU share", "referee/paced/server_cpu_share"),
    ("paced CPU µs/order", "referee/paced/cpu_us_per_order"),
    ("paced CPU µs/command", "referee/paced/cpu_us_per_command"),
    ("max orders/s", "referee/max/orders_per_s"),
    ("max deliveries/s", "referee/max/deliveries_per_s"),
    ("baseline max deliveries/s", "baseline/max/deliveries_per_s"),
    ("p99 at max ms", "referee/max/latency_ms/p99"),
    ("CPU µs/order", "referee/max/cpu_us_per_order"),
    ("CPU µs/delivery", "referee/max/cpu_us_per_delivery"),
    ("baseline CPU µs/delivery", "baseline/max/cpu_us_per_delivery"),
    ("CPU/delivery ratio", "ratios/cpu_per_delivery_max"),
    ("floor paced µs/order", "floor/paced_cpu_us_per_order"),
    ("floor CPU/delivery ratio", "floor/cpu_per_delivery_max_ratio"),
    ("B/connection", "referee/memory/bytes_per_connection"),
    ("baseline B/connection", "baseline/memory/bytes_per_connection"),
    ("B/room in play", "referee/memory/bytes_per_room_in_play"),
    ("Redis cmds/order", "referee/max/redis/commands_per_order"),
    ("Redis bytes/order", "referee/max/redis/bytes_per_order"),
    ("restart: all rooms back s", "restart/kill_to_all_rooms_back_s"),
    ("greeted restart ratio", "floor/restart_greeted_ratio"),
    ("floor restart s", "floor/restart_all_back_s"),
    ("floor restart ratio", "floor/restart_all_back_ratio"),
    ("errors", "referee/max/errors"),
)
"""``bench.run``'s table: the columns of docs/performance.md's tables."""

ABUSE_COLUMNS = (
    ("ping p50 ms", "ping_ms/p50"),
    ("ping p90", "ping_ms/p90"),
    ("ping p99", "ping_ms/p99"),
    ("ping max", "ping_ms/max"),
    ("command p50 ms", "command_ms/p50"),
    ("command p99", "command_ms/p99"),
    ("server CPU", "server_cpu_share"),
    ("its core busy", "server_core_busy_share"),
    ("server loop stalls >= 20 ms", "server_loop_stalls_ms/count"),
    ("longest stall ms", "server_loop_stalls_ms/max"),
    ("bench loop lag p50 ms", "bench_loop_lag_ms/p50"),
    ("bench loop lag p99", "bench_loop_lag_ms/p99"),
    ("lost", "lost"),
)
"""``bench.abuse``'s table, a row per phase: its report's columns (each the path of a figure
under ``phases/<phase>/``), then whether the ping p50 met the record's ``target_p50_ms``."""

RESTART_COLUMNS = (
    ("process serving s", "restart/process_start_s"),
    ("rooms back after serving s", "restart/rooms_back_s"),
    ("all rooms back s", "restart/kill_to_all_rooms_back_s"),
    ("new process CPU s", "restart/server_cpu_s"),
    ("errors", "restart/errors"),
)

KIND_COLUMNS: dict[str, tuple[tuple[str, str], ...]] = {
    "run": COLUMNS, "broadcast": BROADCAST_COLUMNS, "restart": RESTART_COLUMNS,
}
KINDS = ("run", "broadcast", "restart", "restart_load", "abuse", "table_cost")
"""The order the kinds' tables are printed in (any other kind follows)."""

_CONFIG_KEYS = {
    "run": ("rooms", "spectators", "nodes", "duration_s", "pace_s", "variant"),
    "broadcast": ("rooms", "spectators", "nodes", "join_s", "variant"),
    "abuse": ("budgets", "flood_rooms", "clients", "duration_s", "variant"),
    "restart": ("rooms", "spectators", "nodes", "variant"),
}


def _number(value: float) -> str:
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3g}"


def load(paths: Iterable[Path]) -> list[dict[str, Any]]:
    """The records in these files: JSON-lines histories, or results JSON files."""
    records: list[dict[str, Any]] = []
    for path in paths:
        if path.suffix == ".jsonl":
            records += read(path)
        else:
            records.append(record(json.loads(path.read_text()), source=f"results file {path.name}"))
    seen: set[tuple[str, str, str | None, str]] = set()
    unique = []
    for entry in records:
        key = (entry["kind"], entry["date"], entry.get("commit"),
               json.dumps(entry["config"], sort_keys=True))
        if key not in seen:
            seen.add(key)
            unique.append(entry)
    return unique


def _config_key(entry: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
    config = entry["config"]
    keys = _CONFIG_KEYS.get(entry["kind"], tuple(sorted(k for k in config if k != "seed")))
    return tuple((k, config.get(k)) for k in keys)


def _code(entry: dict[str, Any]) -> str:
    return str(entry.get("server_code") or entry.get("commit") or entry.get("commit_range") or "?")


def _label(kind: str, config: dict[str, Any]) -> str:
    if kind in ("run", "restart"):
        text = f"{config['rooms']:,} × {config['spectators']}"
        if config.get("nodes", 1) > 1:
            text += f" on {config['nodes']} processes"
        if config.get("duration_s") not in (None, 30.0):
            text += f", {config['duration_s']:g} s phases"
        if config.get("pace_s") not in (None, 10.0):
            text += f", an Order per room every {config['pace_s']:g} s"
    elif kind == "broadcast":
        text = f"{config['spectators']:,} spectators on {config.get('nodes', 2)} nodes"
        if config.get("join_s") is not None:
            text += f", joins over {config['join_s']:g} s"
    elif kind == "abuse":
        text = "budgets on" if config.get("budgets") else "budgets off"
        if (config.get("flood_rooms"), config.get("clients")) not in ((None, None), (4, 4)):
            text += (f", {config.get('flood_rooms')} flooding rooms, {config.get('clients')} "
                     "clients a flood")
        if config.get("duration_s") not in (None, 10.0):
            text += f", {config['duration_s']:g} s phases"
    else:
        text = ", ".join(f"{k} {v}" for k, v in config.items() if k not in ("variant", "seed"))
    if config.get("variant"):
        text += f" ({config['variant']})"
    return text


def _commits(group: list[dict[str, Any]]) -> str:
    commits = list(dict.fromkeys(e.get("commit") or e.get("commit_range") or "?" for e in group))
    text = ", ".join(f"`{c}`" for c in commits)
    code = group[0].get("server_code")
    if code and commits != [code]:
        text += f" (server `{code}`)"
    dirty = sum(bool(e.get("uncommitted_server_changes")) for e in group)
    if dirty:
        text += " + uncommitted changes" + (f" ({dirty} of {len(group)})" if dirty < len(group)
                                            else "")
    return text


def _columns(kind: str, group_figures: Iterable[dict[str, Any]]) -> tuple[tuple[str, str], ...]:
    if kind in KIND_COLUMNS:
        return KIND_COLUMNS[kind]
    names: dict[str, None] = {}
    for figures in group_figures:
        names.update(dict.fromkeys(figures))
    return tuple((name, name) for name in names)


def groups(records: list[dict[str, Any]]) -> dict[tuple[Any, ...], list[dict[str, Any]]]:
    """The records by (kind, configuration, server code, uncommitted changes), in file order."""
    grouped: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for entry in records:
        # A record naming its server code vouches that what else the tree held did not run.
        dirty = bool(entry.get("uncommitted_server_changes")) and not entry.get("server_code")
        key = (entry["kind"], _config_key(entry), _code(entry), dirty)
        grouped.setdefault(key, []).append(entry)
    return grouped


def median(group: list[dict[str, Any]], path: str) -> float | None:
    """The median of one figure over a group's records that have it."""
    values = [e["figures"][path] for e in group if path in e["figures"]]
    return float(statistics.median(values)) if values else None


def _cell(value: float | None) -> str:
    return _number(value) if value is not None else "-"


def _abuse_rows(group: list[dict[str, Any]]) -> list[list[str]]:
    """A row of cells per phase the group's records measured, in the bench's order."""
    found = {path.split("/")[1] for e in group for path in e["figures"]
             if path.startswith("phases/")}
    target = median(group, "target_p50_ms")
    rows = []
    for phase in (p for p in ABUSE_PHASES if p in found):
        p50 = median(group, f"phases/{phase}/ping_ms/p50")
        met = "-" if target is None or p50 is None else "yes" if p50 < target else "NO"
        rows.append([phase, *(_cell(median(group, f"phases/{phase}/{path}"))
                              for _, path in ABUSE_COLUMNS), met])
    return rows


def table(records: list[dict[str, Any]], kind: str = "run", *, latest: bool = False) -> str:
    """One markdown table of one kind: a row per group (per group and phase for ``abuse``),
    newest first; then the notes. ``latest``: only the newest group of each configuration."""
    chosen = {k: g for k, g in groups(records).items() if k[0] == kind}
    # Of records of one date (a day, for those from the former tables), the later in the file
    # is the newer: the history is kept oldest first.
    position = {id(e): i for i, e in enumerate(records)}
    ordered = sorted(chosen.values(), reverse=True,
                     key=lambda g: max((e["date"][:10], position[id(e)]) for e in g))
    if latest:
        newest: dict[tuple[tuple[str, Any], ...], list[dict[str, Any]]] = {}
        for group in ordered:
            newest.setdefault(_config_key(group[0]), group)
        ordered = list(newest.values())
    columns = () if kind == "abuse" else _columns(kind, (e["figures"] for g in ordered for e in g))
    head = ["configuration", "date", "commit", "runs", *(
        ("phase", *(name for name, _ in ABUSE_COLUMNS), "ping p50 < target") if kind == "abuse"
        else (name for name, _ in columns))]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    notes = []
    for group in ordered:
        config = group[0]["config"]
        runs = sum(int(e.get("runs", 1)) for e in group)
        pooled = any(e.get("aggregate") for e in group)
        cells = [_label(kind, config), max(e["date"] for e in group)[:10], _commits(group),
                 f"{runs}{'*' if pooled else ''}"]
        if kind == "abuse":
            lines += ["| " + " | ".join([*cells, *row]) + " |" for row in _abuse_rows(group)]
        else:
            cells += [_cell(median(group, path)) for _, path in columns]
            lines.append("| " + " | ".join(cells) + " |")
        for note in dict.fromkeys(e["note"] for e in group if e.get("note")):
            notes.append(f"- {_label(kind, config)} at {_commits(group)}: {note}")
    if any("*" in line.split(" | ")[3] for line in lines[2:]):
        lines += ["", "`*`: some records are already aggregates over their runs (`aggregate`: the "
                  "median, or the least for CPU costs), so a cell may be a median of medians."]
    if notes:
        lines += ["", *notes]
    return "\n".join(lines)


def report(records: list[dict[str, Any]], kinds: Iterable[str] | None = None, *,
           latest: bool = False) -> str:
    """Every kind's table, each under its heading."""
    present = list(dict.fromkeys(e["kind"] for e in records))
    wanted = list(kinds) if kinds else sorted(
        present, key=lambda k: (KINDS.index(k) if k in KINDS else len(KINDS), k))
    return "\n\n".join(f"## {kind}\n\n{table(records, kind, latest=latest)}"
                       for kind in wanted)


def select(records: list[dict[str, Any]], *, since: str | None = None,
           commit: str | None = None) -> list[dict[str, Any]]:
    """The records from a date on (``YYYY-MM-DD``) and of one commit (or server code)."""
    return [e for e in records
            if (since is None or e["date"][:len(since)] >= since)
            and (commit is None or commit in (e.get("commit"), e.get("server_code")))]


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(prog="python -m bench.summarize", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="*", type=Path,
                        help="results JSON files or JSON-lines histories (default: --history)")
    parser.add_argument("--history", type=Path, default=HISTORY)
    parser.add_argument("--kind", action="append", help="only this kind (repeatable)")
    parser.add_argument("--broadcast", action="store_true", help="the same as --kind broadcast")
    parser.add_argument("--since", help="only records from this date on (YYYY-MM-DD)")
    parser.add_argument("--commit", help="only records of this commit or server code")
    parser.add_argument("--latest", action="store_true",
                        help="only the newest commit of each configuration")
    args = parser.parse_args(argv)
    kinds = (args.kind or []) + (["broadcast"] if args.broadcast else [])
    records = select(load(args.files or [args.history]), since=args.since, commit=args.commit)
    text = report(records, kinds or None, latest=args.latest)
    print(text)
    return text


if __name__ == "__main__":
    main()
