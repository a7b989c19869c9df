"""What the referee's log says about a phase: its slow garbage collections.

The node logs every collection of ``REFEREE_GC_WARN_MS`` (20 ms) or more as a ``server.gc``
warning (``server/node/collection_watch.py``): every room of the node waited that long. The
bench keeps the referee's log and counts, per phase, those stalls from the lines stamped
within the phase (the log's times are the host's local time, as ``time.time()`` reads it).
"""

from __future__ import annotations

import datetime
import re
from pathlib import Path
from typing import Any

_COLLECTION = re.compile(
    r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),(\d{3}) WARNING server\.gc: garbage collection of "
    r"generation (\d) took ([\d.]+) ms")


def slow_collections(log: Path, start_t: float, end_t: float) -> dict[str, Any]:
    """The ``server.gc`` warnings stamped in [start_t, end_t]: how many, their total and
    longest pause, and how many of each generation."""
    pauses: list[float] = []
    by_generation = [0, 0, 0]
    if log.exists():
        with log.open(encoding="utf-8", errors="replace") as lines:
            for line in lines:
                match = _COLLECTION.match(line)
                if match is None:
                    continue
                stamp = datetime.datetime.strptime(match[1], "%Y-%m-%d %H:%M:%S").timestamp()
                stamp += int(match[2]) / 1000
                if start_t <= stamp <= end_t:
                    pauses.append(float(match[4]))
                    by_generation[int(match[3])] += 1
    return {"count": len(pauses), "total_ms": round(sum(pauses), 1),
            "max_ms": round(max(pauses, default=0.0), 1), "by_generation": by_generation}
