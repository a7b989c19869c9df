"""What the orchestrator reads about a process or Redis between phases, percentiles, and the
least CPU time of repeated passes (the micro-benchmarks' measure)."""

from __future__ import annotations

import asyncio
import itertools
import math
import os
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_times(pid: int) -> tuple[float, float]:
    """User and system CPU seconds the process has used so far (from /proc/<pid>/stat)."""
    with open(f"/proc/{pid}/stat") as handle:
        text = handle.read()
    fields = text[text.rindex(")") + 2:].split()
    # fields[0] is field 3 (state); utime and stime are fields 14 and 15.
    return int(fields[11]) / CLOCK_TICKS, int(fields[12]) / CLOCK_TICKS


def cpu_seconds(pid: int) -> float:
    """User + system CPU time the process has used so far."""
    return sum(cpu_times(pid))


def tree_cpu_seconds(pid: int) -> float:
    """User + system CPU time used so far by the process and its children now running (a
    master process and its workers: nginx's)."""
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return cpu_seconds(pid) + sum(cpu_seconds(int(child)) for child in children)


def machine_steal_seconds() -> float:
    """CPU time the hypervisor gave to others while this machine's CPUs wanted it, summed
    over the CPUs (the ``steal`` column of /proc/stat's ``cpu`` line): a noisy-neighbour
    reading for a run whose figures differ from another's at the same code."""
    with open("/proc/stat") as handle:
        fields = handle.readline().split()
    return int(fields[8]) / CLOCK_TICKS if len(fields) > 8 else 0.0


def core_jiffies() -> dict[str, tuple[int, int]]:
    """Each CPU's (busy, total) clock ticks since boot (/proc/stat's ``cpuN`` lines; busy is
    everything but idle and iowait, steal included): two readings give each core's busy
    share in between, whatever runs on it (the load generators, Redis, the kernel's network
    work)."""
    cores: dict[str, tuple[int, int]] = {}
    with open("/proc/stat") as handle:
        for line in handle:
            if line.startswith("cpu") and line[3:4].isdigit():
                name, *values = line.split()
                ticks = [int(value) for value in values[:8]]
                idle = ticks[3] + ticks[4]
                cores[name[3:]] = (sum(ticks) - idle, sum(ticks))
    return cores


def cores_busy_share(before: dict[str, tuple[int, int]],
                     after: dict[str, tuple[int, int]]) -> dict[str, float]:
    """Each core's busy share between two ``core_jiffies`` readings."""
    return {core: round((after[core][0] - before[core][0])
                        / max(after[core][1] - before[core][1], 1), 3)
            for core in sorted(after) if core in before}


TIMELINE_EVERY_S = 0.2
"""How often ``CoreTimeline`` reads the cores (/proc/stat counts in 10 ms ticks: 20 a core
per reading)."""


class CoreTimeline:
    """Every core's busy share in each ``TIMELINE_EVERY_S`` from ``start`` on (an asyncio
    task reading /proc/stat): which side a phase waited on, and when. A phase's totals say
    how busy each core was on average; this says whether the server's core was full while the
    load core waited (the server set the pace then) or the other way round."""

    def __init__(self) -> None:
        self.readings: list[tuple[float, dict[str, tuple[int, int]]]] = []
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._read())

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()

    async def _read(self) -> None:
        while True:
            self.readings.append((time.time(), core_jiffies()))
            await asyncio.sleep(TIMELINE_EVERY_S)

    def bound(self, until: float, server_core: str | None, load_cores: list[str],
              full: float = 0.9, waiting: float = 0.75) -> dict[str, float] | None:
        """Seconds, up to ``until``, in which the server's core was at least ``full`` busy
        while the load cores (their mean) were under ``waiting`` (``server_bound_s``), and
        in which the load cores were at least ``full`` busy (``load_bound_s``); None without
        a server core (one CPU) or readings."""
        readings = [(t, cores) for t, cores in self.readings if t <= until]
        if server_core is None or not load_cores or len(readings) < 2:
            return None
        server_bound = load_bound = 0.0
        for (t0, before), (t1, after) in itertools.pairwise(readings):
            shares = cores_busy_share(before, after)
            load = sum(shares.get(core, 0.0) for core in load_cores) / len(load_cores)
            if shares.get(server_core, 0.0) >= full and load < waiting:
                server_bound += t1 - t0
            if load >= full:
                load_bound += t1 - t0
        return {"server_bound_s": round(server_bound, 2), "load_bound_s": round(load_bound, 2),
                "measured_s": round(readings[-1][0] - readings[0][0], 2)}


def core_list(cores: str | None) -> list[str]:
    """A ``taskset`` core list ("1", "1-3", "1,3") as core names."""
    if not cores:
        return []
    names: list[str] = []
    for part in cores.split(","):
        first, _, last = part.partition("-")
        names += [str(n) for n in range(int(first), int(last or first) + 1)]
    return names


def rss_bytes(pid: int) -> int:
    with open(f"/proc/{pid}/status") as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def process_sample(pid: int) -> dict[str, float]:
    user, system = cpu_times(pid)
    return {"cpu_s": user + system, "system_cpu_s": system, "rss": float(rss_bytes(pid))}


def redis_sample(url: str | None) -> dict[str, Any]:
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
        # An AOF rewrite forks Redis; the fork stalls it (every append waits) for a time
        # that grows with its memory.
        "forks": float(stats.get("total_forks", 0)),
        # calls by command (``commands_between``), apart: ``delta`` takes numbers only
        "by_command": {name.removeprefix("cmdstat_"): float(v["calls"])
                       for name, v in commandstats.items() if name != "cmdstat_info"},
    }


REDIS_LATENCY_THRESHOLD_MS = 10
"""Redis's latency monitor records every event (a slow AOF write, fsync or fork, a slow
command) that takes at least this long; the bench's Redis is started with it."""


def redis_latency_events(url: str | None) -> list[tuple[str, int, int]]:
    """(event, unix second, ms) of every event Redis's latency monitor still holds (up to
    160 per event name): a stalled Redis delays every room's appends at once."""
    if not url:
        return []
    import redis

    client = redis.Redis.from_url(url)
    try:
        names = [entry[0] for entry in client.execute_command("LATENCY", "LATEST")]
        events = []
        for name in names:
            name = name.decode() if isinstance(name, bytes) else str(name)
            for at, ms in client.execute_command("LATENCY", "HISTORY", name):
                events.append((name, int(at), int(ms)))
    finally:
        client.close()
    return sorted(events, key=lambda event: event[1])


def events_between(events: list[tuple[str, int, int]], started: float,
                   ended: float) -> list[dict[str, Any]]:
    """The events of one phase, slowest first: the second they ended in, counted from the
    phase's start (Redis stamps them to the second), and their milliseconds."""
    inside = [{"event": name, "second": at - int(started), "ms": ms}
              for name, at, ms in events if int(started) <= at <= ended]
    return sorted(inside, key=lambda event: -event["ms"])


def delta(after: dict[str, Any], before: dict[str, Any]) -> dict[str, float]:
    """What the numbers of a sample grew by (its nested parts left out)."""
    return {key: value - before.get(key, 0.0) for key, value in after.items()
            if not isinstance(value, dict)}


def grown(after: Mapping[str, float], before: Mapping[str, float]) -> dict[str, float]:
    """How much each of ``after``'s counters grew since ``before`` (those that did not grow
    left out): Redis's calls by command between two readings of ``INFO commandstats``."""
    out = {name: value - before.get(name, 0) for name, value in after.items()}
    return {name: value for name, value in out.items() if value > 0}


def commands_between(after: dict[str, Any], before: dict[str, Any]) -> dict[str, float]:
    """Redis's calls by command between two ``redis_sample``s, most first."""
    grew = grown(after.get("by_command", {}), before.get("by_command", {}))
    return dict(sorted(grew.items(), key=lambda item: -item[1]))


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


PROGRESS_SHARES = (0.1, 0.25, 0.5, 0.75, 0.9, 1.0)


def progress(done_at: list[float], started: float) -> dict[str, float | None]:
    """Seconds after ``started`` by which each of ``PROGRESS_SHARES`` of ``done_at`` was
    done: a restart whose members return at an even pace and one held back by a few late
    rooms end at the same time and differ here."""
    ordered = sorted(done_at)
    n = len(ordered)
    return {f"{round(share * 100)}%": (round(ordered[max(0, math.ceil(share * n) - 1)]
                                          - started, 3) if n else None)
            for share in PROGRESS_SHARES}


def by_second(sent_at: list[float], latencies_ms: list[float], started: float,
              threshold_ms: float) -> dict[str, Any]:
    """The latency tail second by second of a phase: how many of its seconds had a p99 over
    ``threshold_ms``, and the worst five (second from ``started``, p99, commands sent in it).
    A spread tail (queueing at a busy core) and a few bad seconds (a stall) look alike in the
    phase's p99 and apart here. ``commands_per_s``: the mean and the largest number of
    commands sent in one second (the last, partial second left out), i.e. how bursty the
    offered load was."""
    buckets: dict[int, list[float]] = {}
    for at, latency in zip(sent_at, latencies_ms, strict=True):
        buckets.setdefault(int(at - started), []).append(latency)
    p99s = {second: percentiles(samples)["p99"] for second, samples in buckets.items()}
    worst = sorted(p99s.items(), key=lambda item: -item[1])[:5]
    full = [len(buckets[second]) for second in sorted(buckets)[:-1]] or [
        len(samples) for samples in buckets.values()]
    return {"seconds": len(p99s), "threshold_ms": threshold_ms,
            "seconds_over": sum(1 for p99 in p99s.values() if p99 > threshold_ms),
            "worst": [{"second": second, "p99": p99, "count": len(buckets[second])}
                      for second, p99 in worst],
            "commands_per_s": {"mean": round(sum(full) / len(full), 1) if full else 0.0,
                               "max": max(full, default=0)}}


def min_cpu_us(work: Callable[[], object], repeat: int, count: int) -> float:
    """The least process CPU time of ``repeat`` runs of ``work``, per item of ``count``, in
    µs (the machine is shared: the least disturbed pass)."""
    fastest = float("inf")
    for _ in range(repeat):
        started = time.process_time()
        work()
        fastest = min(fastest, time.process_time() - started)
    return round(fastest / count * 1e6, 1)
