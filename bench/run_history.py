"""The benchmark's history: ``bench/history.jsonl``, one JSON object per run, oldest first.

``bench.run``, ``bench.broadcast`` and ``bench.abuse`` append their run's record when they
finish (``--no-history`` for a throwaway run, ``--history FILE`` for another file);
``python -m bench.summarize`` reads the file and prints the medians per configuration and
commit. The raw results (``bench/results/``)
are git-ignored; this file is what the repository keeps of every run.

A record::

    {"date": "2026-11-26T07:52:14+00:00", "commit": "f514736", "uncommitted_server_changes": false,
     "kind": "run", "config": {"rooms": 3000, "spectators": 4, "nodes": 1, "duration_s": 30.0, ...},
     "runs": 1, "source": "bench.run", "figures": {"referee/paced/latency_ms/p99": 711.4, ...}}

- ``kind``: ``run`` (``bench.run``), ``broadcast`` (``bench.broadcast``), ``abuse`` (``bench.abuse``),
  ``restart`` (only the restart phase's figures of a ``bench.run`` are known), ``restart_load``
  (``bench.restart_load``), ``routing_cost`` (``bench.routing_cost``: its rounds' medians).
- ``figures``: numbers only, each named by its path in the run's results JSON (``/``-separated),
  so a figure means exactly what the results file and its report mean by it.
- ``runs`` and ``aggregate``: a record made from a table of docs/performance.md may stand for
  several runs (``"runs": 3, "aggregate": "median"``: each figure the median over them); a record
  a bench appends is one raw run (``"runs": 1``, no ``aggregate``).
- ``config.variant``: what sets the run apart from another of the same size and commit (a
  setting switched, a profiler attached); runs differing in it are never pooled.
- ``note``: what else a reader should know of the run (a busy host, a disturbed phase).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HISTORY = Path(__file__).resolve().parent / "history.jsonl"

RUN_FIGURES = tuple(
    f"{server}/{phase}/{name}"
    for server in ("referee", "baseline")
    for phase in ("paced", "max")
    for name in ("latency_ms/p50", "latency_ms/p99", "latency_ms/p99.9", "latency_ms/max",
                 "orders_per_s", "commands_per_s", "deliveries_per_s", "server_cpu_share",
                 "cpu_us_per_order", "cpu_us_per_command", "cpu_us_per_delivery",
                 "server_system_cpu_share", "load_cpu_share", "machine_steal_share",
                 "load_loop_lag_ms/p99", "load_loop_lag_ms/max", "errors")
) + tuple(
    f"referee/{phase}/{name}"
    for phase in ("paced", "max")
    for name in ("window_close_lateness_ms/p50", "window_close_lateness_ms/p99",
                 "window_close_lateness_ms/max", "redis/commands_per_order",
                 "redis/bytes_per_order", "redis/cpu_share", "redis/forks",
                 "mean_event_frame_bytes")
) + (
    "referee/paced/latency_by_second/seconds_over",
    "referee/setup_s", "referee/connect_s",
    "referee/memory/bytes_per_connection", "referee/memory/bytes_per_room_created",
    "referee/memory/bytes_per_room_in_play", "referee/memory/rss_in_play_mb",
    "baseline/memory/bytes_per_connection",
    "ratios/cpu_per_delivery_max", "ratios/cpu_per_delivery_paced",
    "ratios/max_deliveries_per_s", "ratios/p99_paced", "ratios/bytes_per_connection",
    "referee/balancer_cpu/connected/cpu_us_per_socket",
    "referee/balancer_cpu/paced/cpu_us_per_order",
    "referee/balancer_cpu/paced/cpu_us_per_delivery",
    "referee/balancer_cpu/paced/over_referee_cpu",
    "referee/balancer_cpu/max/cpu_us_per_delivery",
    "referee/balancer_cpu/max/over_referee_cpu",
    "restart/process_start_s", "restart/rooms_back_s", "restart/kill_to_all_rooms_back_s",
    "restart/server_cpu_s", "restart/load_cpu_s", "restart/rss_all_back_mb", "restart/errors",
    "restart/redis/cpu_s", "restart/redis/cpu_us_per_socket", "restart/redis/commands_per_room",
) + tuple(
    f"{server}/{name}"
    for server in ("restart", "baseline/restart", "baseline/greeted_restart")
    for name in ("server_cpu_serving_s", "server_cpu_us_per_socket", "server_cpu_share",
                 "load_cpu_reconnecting_s", "load_cpu_us_per_socket", "load_cpu_share",
                 "listen_overflows", "bytes_per_socket", "cores_bound_s/server_bound_s",
                 "cores_bound_s/load_bound_s")
) + (
    "baseline/restart/process_start_s", "baseline/restart/rooms_back_s",
    "baseline/restart/kill_to_all_rooms_back_s", "baseline/restart/server_cpu_s",
    "baseline/restart/load_cpu_s", "baseline/restart/errors",
    "baseline/greeted_restart/greeting_bytes", "baseline/greeted_restart/process_start_s",
    "baseline/greeted_restart/kill_to_all_rooms_back_s",
    "baseline/greeted_restart/server_cpu_s", "baseline/greeted_restart/errors",
    "ratios/restart_all_back", "ratios/restart_server_cpu_per_socket",
    "ratios/restart_load_cpu_per_socket",
) + tuple(
    f"floor/{name}"
    for name in ("rules_us_per_command", "rules_commands", "snapshots_taken",
                 "referee_commands_per_order", "clock_closes_per_order",
                 "room_commands_per_order", "baseline_commands_per_order",
                 "referee_deliveries_per_command", "baseline_deliveries_per_command",
                 "paced_cpu_us_per_order", "paced_overhead_us_per_order",
                 "max_cpu_us_per_delivery", "max_cpu_us_per_delivery_low",
                 "cpu_per_delivery_max_ratio", "max_overhead_us_per_delivery",
                 # the restart's floor (bench/restart_floor.py)
                 "restart_orders_at_kill", "restart_us_per_room", "restart_in_process_s",
                 "restart_greeted_s", "restart_greeted_ratio",
                 "restart_cpu_bound_s", "restart_all_back_s", "restart_all_back_ratio",
                 "restart_all_back_serial_s", "restart_all_back_serial_ratio",
                 "restart_overhead_s", "restart_startup_overhead_cpu_s",
                 "restart_overhead_cpu_s", "restart_replay_cpu_s",
                 "restart_referee_load_us_per_room", "restart_snapshot_frames_us_per_room")
)
"""The figures of a ``bench.run`` kept in its record."""

BROADCAST_FIGURES = (*(
    f"{server}/{name}"
    for server in ("referee", "baseline")
    for name in ("joined", "errors", "spectator_resyncs",
                 "joins/wall_s", "joins/spectator_join_ms/p50", "joins/spectator_join_ms/p99",
                 "joins/players_latency_ms/p50", "joins/players_latency_ms/p99",
                 "joins/server_cpu_share", "joins/cpu_us_per_join", "joins/bytes_per_spectator",
                 "joins/others_on_server_core_share",
                 "events/frames", "events/frames_incomplete",
                 "events/to_last_spectator_ms/p50", "events/to_last_spectator_ms/p99",
                 "events/to_first_spectator_ms/p50", "events/to_first_spectator_ms/p99",
                 "events/players_latency_ms/p50", "events/players_latency_ms/p99",
                 "events/mean_event_frame_bytes", "events/cpu_us_per_spectator_delivery",
                 "events/others_on_server_core_share", "events/machine_steal_share")
), "ratios/cpu_per_spectator_delivery", "ratios/p99_to_last_spectator",
    "ratios/bytes_per_spectator")
"""The figures of a ``bench.broadcast`` kept in its record."""

ABUSE_PHASES = ("quiet", "options", "rooms", "bodies", "json", "all")
ABUSE_FIGURES = ("target_p50_ms", *(
    f"phases/{phase}/{name}"
    for phase in ABUSE_PHASES
    for name in ("ping_ms/p50", "ping_ms/p90", "ping_ms/p99", "ping_ms/max", "command_ms/p50",
                 "command_ms/p99", "lost", "server_cpu_share", "server_core_busy_share",
                 "server_loop_stalls_ms/count", "server_loop_stalls_ms/max",
                 "bench_loop_lag_ms/p50", "bench_loop_lag_ms/p99")
))
"""The figures of a ``bench.abuse`` kept in its record: every number of its report's table."""


def figure(data: dict[str, Any], path: str) -> float | None:
    """The number at ``path`` (``a/b/c``) in a results dictionary, or None."""
    value: Any = data
    for part in path.split("/"):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def kind_of(result: dict[str, Any]) -> str:
    """Which bench wrote a results dictionary."""
    if result.get("kind"):
        return str(result["kind"])
    if "phases" in result:
        return "abuse"
    return "run"


def _config(result: dict[str, Any], kind: str) -> dict[str, Any]:
    params = result.get("params", {})
    keys: tuple[str, ...]
    if kind == "run":
        keys = ("rooms", "spectators", "nodes", "sockets", "duration_s", "pace_s", "aro_window_s",
                "timeout_every", "seed")
        config = {k: params[k] for k in keys if k in params}
        config.setdefault("nodes", 1)
        if params.get("balancer"):  # sockets through nginx, routed by room (bench.balancer)
            config["balancer"] = True
        config["restart"] = bool(result.get("restart", {}).get("measured"))
        return config
    if kind == "broadcast":
        keys = ("spectators", "nodes", "crowd_workers", "join_s", "join_pace_s", "pace_s",
                "events", "seed", "players_nice", "crowd_nice")
        return {"rooms": 1, **{k: params[k] for k in keys if k in params}}
    if kind == "abuse":
        keys = ("duration_s", "flood_rooms", "clients", "budgets", "seed")
        return {k: params[k] for k in keys if k in params}
    return dict(params)


def _figures(result: dict[str, Any], kind: str) -> dict[str, float]:
    paths = {"run": RUN_FIGURES, "broadcast": BROADCAST_FIGURES,
             "abuse": ABUSE_FIGURES}.get(kind, ())
    found = {path: figure(result, path) for path in paths}
    return {path: value for path, value in found.items() if value is not None}


def record(result: dict[str, Any], *, source: str, variant: str | None = None,
           note: str | None = None) -> dict[str, Any]:
    """The history record of one run, from its results dictionary."""
    kind = kind_of(result)
    config = _config(result, kind)
    if variant:
        config["variant"] = variant
    entry: dict[str, Any] = {
        "date": result["date"],
        "commit": result.get("commit"),
        "uncommitted_server_changes": bool(result.get("uncommitted_server_changes",
                                                      result.get("dirty", False))),
        "kind": kind,
        "config": config,
        "runs": 1,
        "source": source,
        "figures": _figures(result, kind),
    }
    machine = result.get("machine", {})
    host = {k: machine[k] for k in ("cpus", "load_average_before", "load_average_after")
            if k in machine}
    if host:
        entry["host"] = host
    if note:
        entry["note"] = note
    return entry


def append(entry: dict[str, Any], path: Path = HISTORY) -> None:
    """Add one record at the end of the history file (made if missing)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as out:
        out.write(json.dumps(entry, ensure_ascii=False, sort_keys=False) + "\n")


def read(path: Path = HISTORY) -> list[dict[str, Any]]:
    """Every record of a history file, in its order; blank lines are skipped."""
    if not path.exists():
        return []
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def record_run(result: dict[str, Any], path: Path | None, *, source: str,
               profile: str | None = None, variant: str | None = None) -> dict[str, Any] | None:
    """What ``bench.run``, ``bench.broadcast`` and ``bench.abuse`` call once their results are
    written: append the run's record to ``path`` (None: keep no history of this run).
    ``variant``: a setting that sets the run apart (never pooled with runs without it)."""
    if path is None:
        return None
    variants = ([f"profiled, {profile}"] if profile else []) + ([variant] if variant else [])
    entry = record(result, source=source, variant="; ".join(variants) or None)
    append(entry, path)
    return entry
