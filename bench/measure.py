"""What the orchestrator reads about a process or Redis between phases, and percentiles."""

from __future__ import annotations

import os
from typing import Any

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time the process has used so far (from /proc/<pid>/stat)."""
    with open(f"/proc/{pid}/stat") as handle:
        text = handle.read()
    fields = text[text.rindex(")") + 2:].split()
    # fields[0] is field 3 (state); utime and stime are fields 14 and 15.
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def rss_bytes(pid: int) -> int:
    with open(f"/proc/{pid}/status") as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def process_sample(pid: int) -> dict[str, float]:
    return {"cpu_s": cpu_seconds(pid), "rss": float(rss_bytes(pid))}


def redis_sample(url: str | None) -> dict[str, float]:
    """Commands processed and network bytes so far, or {} without Redis."""
    if not url:
        return {}
    import redis

    client = redis.Redis.from_url(url)
    try:
        stats = client.info("stats")
        commandstats = client.info("commandstats")
        keyspace = client.info("keyspace")
        memory = client.info("memory")
        cpu = client.info("cpu")
    finally:
        client.close()
    # INFO itself is counted: remove our own four calls per sample from the totals.
    calls = sum(int(v["calls"]) for k, v in commandstats.items() if k != "cmdstat_info")
    keys = sum(int(v.get("keys", 0)) for v in keyspace.values() if isinstance(v, dict))
    return {
        "commands": float(calls),
        "net_in": float(stats["total_net_input_bytes"]),
        "net_out": float(stats["total_net_output_bytes"]),
        "keys": float(keys),
        "used_memory": float(memory["used_memory"]),
        "cpu_s": float(cpu["used_cpu_user"]) + float(cpu["used_cpu_sys"]),
    }


def delta(after: dict[str, float], before: dict[str, float]) -> dict[str, float]:
    return {key: after[key] - before.get(key, 0.0) for key in after}


def percentiles(samples: list[float]) -> dict[str, Any]:
    """p50/p90/p99/p99.9/max of ``samples`` (nearest rank), with the count."""
    if not samples:
        return {"count": 0, "p50": None, "p90": None, "p99": None, "p99.9": None, "max": None}
    ordered = sorted(samples)
    n = len(ordered)

    def rank(q: float) -> float:
        return round(ordered[min(n - 1, max(0, int(q * n + 0.999999) - 1))], 3)

    return {"count": n, "p50": rank(0.50), "p90": rank(0.90), "p99": rank(0.99),
            "p99.9": rank(0.999), "max": round(ordered[-1], 3)}
