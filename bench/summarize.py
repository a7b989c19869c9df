"""``python -m bench.summarize [results...]``: one markdown table over many runs.

``python -m bench.summarize --broadcast [results...]``: the same for ``bench.broadcast``'s
runs (``bench.broadcast_report.table``); each table leaves the other kind's files out.

Rows are grouped by (rooms, spectators, server processes, commit); every cell is the median over the runs of
that group, and the ``runs`` column says how many there were. This is the table kept in
docs/performance.md.
"""

from __future__ import annotations

import json
import statistics
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

from bench.run import RESULTS


def _get(result: dict[str, Any], path: str) -> float | None:
    value: Any = result
    for part in path.split("/"):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value if isinstance(value, int | float) else None


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
    ("max orders/s", "referee/max/orders_per_s"),
    ("max deliveries/s", "referee/max/deliveries_per_s"),
    ("baseline max deliveries/s", "baseline/max/deliveries_per_s"),
    ("p99 at max ms", "referee/max/latency_ms/p99"),
    ("CPU µs/order", "referee/max/cpu_us_per_order"),
    ("CPU µs/delivery", "referee/max/cpu_us_per_delivery"),
    ("baseline CPU µs/delivery", "baseline/max/cpu_us_per_delivery"),
    ("CPU/delivery ratio", "ratios/cpu_per_delivery_max"),
    ("B/connection", "referee/memory/bytes_per_connection"),
    ("baseline B/connection", "baseline/memory/bytes_per_connection"),
    ("B/room in play", "referee/memory/bytes_per_room_in_play"),
    ("Redis cmds/order", "referee/max/redis/commands_per_order"),
    ("Redis bytes/order", "referee/max/redis/bytes_per_order"),
    ("restart: all rooms back s", "restart/kill_to_all_rooms_back_s"),
    ("errors", "referee/max/errors"),
)


def _number(value: float) -> str:
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3g}"


def table(paths: list[Path]) -> str:
    groups: dict[tuple[int, int, int, str], list[dict[str, Any]]] = defaultdict(list)
    dates: dict[tuple[int, int, int, str], str] = {}
    for path in paths:
        result = json.loads(path.read_text())
        if result.get("kind") == "broadcast" or "referee" not in result:
            continue  # bench.broadcast's runs have their own table (--broadcast)
        params = result["params"]
        key = (params["rooms"], params["spectators"], params.get("nodes", 1), result["commit"])
        groups[key].append(result)
        dates[key] = result["date"][:10]
    head = ["rooms × spectators", "date", "commit", "runs", *(name for name, _ in COLUMNS)]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for key in sorted(groups):
        runs = groups[key]
        nodes = f" on {key[2]} processes" if key[2] > 1 else ""
        cells = [f"{key[0]:,} × {key[1]}{nodes}", dates[key], f"`{key[3]}`", str(len(runs))]
        for _, path in COLUMNS:
            values = [v for v in (_get(r, path) for r in runs) if v is not None]
            cells.append(_number(statistics.median(values)) if values else "-")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    names = sys.argv[1:]
    if names[:1] == ["--broadcast"]:
        from bench.broadcast_report import table as broadcast_table

        print(broadcast_table([Path(a) for a in names[1:]]
                              or sorted(RESULTS.glob("broadcast-*.json"))))
    else:
        print(table([Path(a) for a in names] or sorted(RESULTS.glob("*.json"))))
