"""The whole benchmark in one command: Redis, the referee, the baseline, the load, the report.

``.venv/bin/python -m bench.run --rooms 100 --spectators 4 --duration 30``

1. starts ``redis-server`` on a free loopback port (no snapshots, appendonly as asked),
2. starts the referee (``python -m server``) pinned with taskset to core 0, with
   ``REDIS_URL`` set (the server uses Redis if it supports it; the report says whether
   Redis saw any traffic), and per-client rate limits lifted so the load is not refused,
3. starts load-generator processes (``bench.loadgen``) pinned to the other cores, each
   holding whole rooms and at most ``--sockets-per-worker`` sockets, and steps them through
   their phases, reading the server's CPU time (/proc/<pid>/stat), RSS and Redis's counters
   between phases,
4. does the same against the baseline (``bench.baseline_server``), same room sizes, same
   Orders, frames padded to the referee's mean events-frame size, and the same restart
   (kill -9, start again, every member reconnects): the floor of the referee's restart,
5. measures the floor (``bench.floor``): the rules core's in-process work per command
   (``bench.rules_cost``, pinned to the referee's core) added to the baseline's socket work,
   per paced Order and per delivery at the maximum rate (``--no-floor`` skips it), and with
   the restart phase the restart's floor (``bench.restart_floor``: the baseline's restart and
   ``bench.restart_cost``, the rooms read back at the kill's point of the game),
6. writes ``bench/results/<timestamp>.json`` and ``bench/results/<timestamp>.md``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx

from bench import floor, restart_floor
from bench.balancer import NODE_ENV as BALANCED_NODE_ENV
from bench.balancer import balancer, balancer_sockets
from bench.bytecode import compile_project
from bench.measure import (
    REDIS_LATENCY_THRESHOLD_MS,
    CoreTimeline,
    by_second,
    commands_between,
    core_jiffies,
    core_list,
    cores_busy_share,
    cpu_seconds,
    delta,
    events_between,
    machine_steal_seconds,
    percentiles,
    process_sample,
    progress,
    redis_latency_events,
    redis_sample,
    tree_cpu_seconds,
)
from bench.referee_log import slow_collections
from bench.report import markdown
from bench.run_history import HISTORY, record_run
from server.rules import native
from testkit.redis_process import free_port

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "bench" / "results"
PYTHON = sys.executable
P99_TARGET_MS = 20.0  # issue 7: command to every viewer, and ARO close after its deadline


def pinned(core: str | None, argv: list[str]) -> list[str]:
    if core is None or shutil.which("taskset") is None:
        return argv
    return ["taskset", "-c", core, *argv]


def cores() -> tuple[str | None, str | None]:
    """(server core, load-generator cores): core 0 for the server, the rest for load."""
    count = os.cpu_count() or 1
    if count < 2:
        return None, None
    return "0", f"1-{count - 1}" if count > 2 else "1"


async def wait_http(url: str, process: asyncio.subprocess.Process, timeout: float = 60) -> None:
    end = time.monotonic() + timeout
    async with httpx.AsyncClient(timeout=2) as http:
        while time.monotonic() < end:
            if process.returncode is not None:
                raise RuntimeError(f"{url} exited with {process.returncode}")
            with contextlib.suppress(httpx.HTTPError):
                if (await http.get(url)).status_code == 200:
                    return
            await asyncio.sleep(0.05)
    raise RuntimeError(f"{url} did not come up")


@contextlib.asynccontextmanager
async def redis_server(workdir: Path, core: str | None) -> AsyncIterator[str]:
    port = free_port()
    binary = shutil.which("redis-server") or "/usr/bin/redis-server"
    process = await asyncio.create_subprocess_exec(
        *pinned(core, [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                       "--appendonly", "yes", "--appendfsync", "everysec",
                       "--latency-monitor-threshold", str(REDIS_LATENCY_THRESHOLD_MS),
                       "--dir", str(workdir), "--daemonize", "no", "--loglevel", "warning"]),
        stdout=asyncio.subprocess.DEVNULL)
    url = f"redis://127.0.0.1:{port}/0"
    try:
        import redis

        for _ in range(200):
            try:
                redis.Redis.from_url(url).ping()
                break
            except redis.ConnectionError:
                await asyncio.sleep(0.025)
        yield url
    finally:
        process.terminate()
        await process.wait()


METRICS_TOKEN = "bench-metrics"
"""The bench nodes' ``REFEREE_METRICS_TOKEN``: ``Authorization: Bearer bench-metrics``."""


NODE_LOG_LEVEL = os.environ.get("BENCH_NODE_LOG_LEVEL", "warning")
"""The nodes' ``--log-level``: ``info`` (the rooms' own lines, e.g. an ARO window that runs
again) to find a failure in a run's ``referee.log``; ``warning`` otherwise, as its lines cost
the node CPU that the bench measures."""


async def start_referee(port: int, redis_url: str, core: str | None,
                        log: Path, node_id: str = "bench-node-1",
                        extra_env: dict[str, str] | None = None) -> asyncio.subprocess.Process:
    env = dict(os.environ, REDIS_URL=redis_url, REFEREE_REDIS_URL=redis_url,
               REFEREE_RATE_PER_S="1000000", REFEREE_RATE_BURST="1000000",
               REFEREE_ALLOW_FIXED_SEED="1",  # the scripted games replay fixed dice
               REFEREE_INBOX_SIZE="1024", REFEREE_NODE_ID=node_id, PYTHONPATH=str(REPO),
               # The bench's Redis runs appendfsync everysec (it measures the referee, not
               # the disk), which a node refuses unless told to accept it.
               REFEREE_ACCEPT_REDIS_DURABILITY="everysec",
               # Thousands of rooms from one address in seconds: the lobby's abuse limits
               # (docs/server.md, "Limits") would refuse them; the bench is not abuse.
               REFEREE_CLIENT_ROOM_BURST="0", REFEREE_NODE_ROOM_BURST="0",
               REFEREE_MAX_UNSTARTED_ROOMS="0",
               # /metrics on the game's port (bench.broadcast reads it), with this token.
               REFEREE_METRICS_TOKEN=METRICS_TOKEN)
    env.update(extra_env or {})  # e.g. a Redis Cluster's settings, its durability demand
    compile_project()  # read from bytecode, as an installed server is (bench/bytecode.py)
    process = await asyncio.create_subprocess_exec(
        *pinned(core, [PYTHON, "-m", "server", "--port", str(port), "--log-level", NODE_LOG_LEVEL]),
        cwd=REPO, env=env, stdout=log.open("ab"), stderr=subprocess.STDOUT)
    await wait_http(f"http://127.0.0.1:{port}/healthz", process)
    return process


async def start_baseline(port: int, core: str | None, loop: str = "asyncio",
                         collect: bool = True, greet: int = 0) -> asyncio.subprocess.Process:
    """``greet``: bytes of the frame it sends every new socket first (0: none)."""
    return await _start_ready(core, ["bench.baseline_server", "--port", str(port),
                                     "--loop", loop, *([] if collect else ["--no-gc"]),
                                     *(["--greet", str(greet)] if greet else [])])


async def start_stack(port: int, core: str | None) -> asyncio.subprocess.Process:
    """The baseline's fan-out on the referee's web stack (``bench/stack_server.py``)."""
    return await _start_ready(core, ["bench.stack_server", "--port", str(port)])


async def _start_ready(core: str | None, module_argv: list[str]) -> asyncio.subprocess.Process:
    """``python -m <module_argv>`` pinned to ``core``, once it printed ``ready``."""
    compile_project()
    process = await asyncio.create_subprocess_exec(
        *pinned(core, [PYTHON, "-m", *module_argv]), cwd=REPO, stdout=asyncio.subprocess.PIPE)
    assert process.stdout is not None
    line = await asyncio.wait_for(process.stdout.readline(), 30)
    if line.strip() != b"ready":
        raise RuntimeError(f"{module_argv[0]} did not start")
    return process


async def stop(process: asyncio.subprocess.Process) -> None:
    if process.returncode is None:
        process.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(process.wait(), 15)
        except TimeoutError:
            process.kill()
            await process.wait()


class Fleet:
    """The load-generator processes of one target, stepped through phases together."""

    def __init__(self, args: argparse.Namespace, target: str, urls: list[str],
                 core: str | None, workdir: Path, frame_size: int,
                 ws_url: str | None = None) -> None:
        self.args = args
        self.target = target
        self.urls = urls
        self.ws_url = ws_url  # every socket through this balancer (else the nodes' urls)
        self.core = core
        self.workdir = workdir
        self.frame_size = frame_size
        sockets = args.rooms * (2 + args.spectators)
        count = max(args.workers, math.ceil(sockets / args.sockets_per_worker))
        # A multiple of the server processes: each baseline process then holds the same
        # number of load processes' rooms (and stays under its own socket limit).
        count = math.ceil(count / len(urls)) * len(urls)
        count = min(count, args.rooms)
        share, extra = divmod(args.rooms, count)
        self.shares = [share + (1 if i < extra else 0) for i in range(count)]
        self.processes: list[asyncio.subprocess.Process] = []

    async def start(self) -> None:
        for index, rooms in enumerate(self.shares):
            # The referee's nodes serve every room (members spread over them); baseline
            # servers cannot relay, so each load process keeps its rooms on one of them.
            urls = self.urls if self.target == "referee" else [
                self.urls[index % len(self.urls)]]
            argv = [PYTHON, "-m", "bench.loadgen", "--target", self.target,
                    "--url", ",".join(urls),
                    "--rooms", str(rooms), "--spectators", str(self.args.spectators),
                    "--duration", str(self.args.duration), "--pace", str(self.args.pace),
                    "--timeout-every", str(self.args.timeout_every),
                    "--aro-window", str(self.args.aro_window),
                    "--frame-size", str(self.frame_size), "--seed", str(self.args.seed),
                    "--worker", str(index), "--out", str(self.out(index))]
            if self.args.restart:
                argv.append("--restart")
                if self.target == "baseline" and self.args.greeted_restart:
                    argv.append("--greeted-restart")
            if self.ws_url is not None:
                argv += ["--ws-url", self.ws_url]
            if getattr(self.args, "tries", 1) != 1:  # (bench.reshard_cost's "try again")
                argv += ["--tries", str(self.args.tries)]
            if getattr(self.args, "backoff", "fixed") != "fixed":
                argv += ["--backoff", self.args.backoff]
            self.processes.append(await asyncio.create_subprocess_exec(
                *pinned(self.core, argv), cwd=REPO, stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE))

    def out(self, index: int) -> Path:
        return self.workdir / f"{self.target}-{index}.json"

    async def until_done(self, phase: str) -> None:
        for process in self.processes:
            assert process.stdout is not None
            while True:
                line = await process.stdout.readline()
                if not line:
                    raise RuntimeError(f"a load generator exited during {phase}")
                with contextlib.suppress(ValueError):
                    if json.loads(line).get("done") == phase:
                        break

    def cpu_seconds(self) -> float:
        """CPU time used so far by all load-generator processes (they share the load core
        with Redis: if they saturate it, latency measures the load generator too)."""
        return sum(cpu_seconds(process.pid) for process in self.processes
                   if process.returncode is None)

    def go(self) -> None:
        for process in self.processes:
            assert process.stdin is not None
            process.stdin.write(b"go\n")

    async def finish(self) -> list[dict[str, Any]]:
        self.go()
        for process in self.processes:
            await process.wait()
        return [json.loads(self.out(i).read_text()) for i in range(len(self.processes))]


class Server:
    """The server processes under test (one per node); replaced when restarted."""

    def __init__(self, processes: list[asyncio.subprocess.Process]) -> None:
        self.processes = processes

    def sample(self) -> dict[str, float]:
        """CPU seconds and RSS summed over the processes."""
        total = {"cpu_s": 0.0, "system_cpu_s": 0.0, "rss": 0.0}
        for process in self.processes:
            for key, value in process_sample(process.pid).items():
                total[key] += value
        return total


Hook = Callable[[], Awaitable[None]]


async def end_profiles(profilers: list[asyncio.subprocess.Process]) -> None:
    """Stop py-spy now (SIGINT: it writes what it recorded), so that a restart profile ends
    with the phase: the load generators then close every socket, and the server's side of
    that (its sessions' ends, a full collection once the crowd has left) is no restart."""
    for profiler in profilers:
        if profiler.returncode is None:
            profiler.send_signal(signal.SIGINT)
    for profiler in profilers:
        await profiler.wait()


def listen_overflows() -> int | None:
    """The kernel's count of connections a full listen queue turned away (``TcpExt:
    ListenOverflows``, this network namespace, since boot); None where it cannot be read.
    Each costs the client a retransmission a second or more later: a restart that overflows
    its listen queue is slowed by the queue, not by the CPU."""
    try:
        lines = [line.split() for line in Path("/proc/net/netstat").read_text().splitlines()
                 if line.startswith("TcpExt:")]
        names, values = lines[0], lines[1]
        return int(values[names.index("ListenOverflows")])
    except (OSError, IndexError, ValueError):
        return None


async def drive(fleet: Fleet, phases: list[str], server: Server, redis_url: str | None,
                before: dict[str, Hook] | None = None, after_last: Hook | None = None,
                on_sample: Callable[[str], None] | None = None,
                ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Step the fleet through ``phases``; server and Redis samples at every boundary.
    ``before[phase]`` runs after the previous phase's sample, before the fleet starts it;
    ``after_last`` after the last phase's sample, before the fleet closes its sockets;
    ``on_sample(phase)`` right after each phase's sample (e.g. more processes' CPU)."""
    hooks = before or {}
    samples: dict[str, Any] = {"start": {"server": server.sample(),
                                         "redis": redis_sample(redis_url), "t": time.time(),
                                         "steal_s": machine_steal_seconds()}}
    await fleet.start()
    samples["start"]["load_cpu_s"] = fleet.cpu_seconds()
    for index, phase in enumerate(phases):
        await fleet.until_done(phase)
        samples[phase] = {"server": server.sample(), "load_cpu_s": fleet.cpu_seconds(),
                          "redis": redis_sample(redis_url), "t": time.time(),
                          "steal_s": machine_steal_seconds(),
                          "redis_latency": redis_latency_events(redis_url),
                          "listen_overflows": listen_overflows(), "cores": core_jiffies()}
        if on_sample is not None:
            on_sample(phase)
        if phase != phases[-1]:
            following = phases[index + 1]
            if following in hooks:
                await hooks[following]()
            samples[f"{following}_start"] = {"t": time.time(),
                                             "load_cpu_s": fleet.cpu_seconds(),
                                             "listen_overflows": listen_overflows(),
                                             "cores": core_jiffies()}
            fleet.go()
    if after_last is not None:
        await after_last()
    return samples, await fleet.finish()


def merge(workers: list[dict[str, Any]], phase: str) -> dict[str, Any]:
    parts = [w[phase] for w in workers if phase in w]
    total: dict[str, Any] = {"latencies_ms": [], "sent_at": [], "lateness_ms": [],
                             "errors": [], "gc_pauses_ms": [], "loop_lag_ms": [],
                             "opened_at": [], "back_at": []}
    for key in ("orders", "commands", "frames_in", "bytes_in", "event_frames", "event_bytes",
                "error_count", "windows_closed_late"):
        total[key] = sum(p[key] for p in parts)
    total["tried_again"] = sum(p.get("tried_again", 0) for p in parts)
    total["reopened"] = sum(p.get("reopened", 0) for p in parts)
    by_type: Counter[str] = Counter()
    for part in parts:
        total["latencies_ms"] += part["latencies_ms"]
        total["sent_at"] += part["sent_at"]
        total["gc_pauses_ms"] += part["gc_pauses_ms"]
        total["loop_lag_ms"] += part.get("loop_lag_ms", [])
        total["lateness_ms"] += part["lateness_ms"]
        total["errors"] += part["errors"]
        total["opened_at"] += part.get("opened_at", [])
        total["back_at"] += part.get("back_at", [])
        by_type.update(part.get("frames_by_type", {}))
    total["frames_by_type"] = dict(by_type)
    total["elapsed_s"] = max((p["elapsed_s"] for p in parts), default=0.0)
    return total


def phase_figures(samples: dict[str, Any], workers: list[dict[str, Any]], phase: str,
                  previous: str) -> dict[str, Any]:
    tally = merge(workers, phase)
    server = delta(samples[phase]["server"], samples[previous]["server"])
    redis = delta(samples[phase]["redis"], samples[previous]["redis"])
    elapsed = tally["elapsed_s"] or 1e-9
    orders, deliveries, commands = tally["orders"], tally["frames_in"], tally["commands"]
    started = samples.get(f"{phase}_start", samples[previous])["t"]
    figures: dict[str, Any] = {
        "started_at": datetime.datetime.fromtimestamp(started, datetime.UTC).isoformat(),
        "elapsed_s": round(elapsed, 3),
        "orders": orders, "commands": commands, "deliveries": deliveries,
        "orders_per_s": round(orders / elapsed, 1),
        "commands_per_s": round(commands / elapsed, 1),
        "deliveries_per_s": round(deliveries / elapsed, 1),
        "server_cpu_s": round(server["cpu_s"], 3),
        "server_cpu_share": round(server["cpu_s"] / elapsed, 3),
        "cpu_us_per_order": round(server["cpu_s"] / orders * 1e6, 1) if orders else None,
        "cpu_us_per_command": round(server["cpu_s"] / commands * 1e6, 1) if commands else None,
        "cpu_us_per_delivery": (round(server["cpu_s"] / deliveries * 1e6, 2)
                                if deliveries else None),
        "latency_ms": percentiles(tally["latencies_ms"]),
        "latency_by_second": by_second(tally["sent_at"], tally["latencies_ms"],
                                       started, P99_TARGET_MS),
        "server_system_cpu_share": round(server["system_cpu_s"] / elapsed, 3),
        "machine_steal_share": round((samples[phase]["steal_s"]
                                      - samples[previous]["steal_s"]) / elapsed, 3),
        "window_close_lateness_ms": percentiles(tally["lateness_ms"]),
        "load_gc_pauses": {"count": len(tally["gc_pauses_ms"]),
                           "total_ms": round(sum(tally["gc_pauses_ms"]), 1),
                           "max_ms": round(max(tally["gc_pauses_ms"], default=0.0), 1)},
        "load_loop_lag_ms": percentiles(tally["loop_lag_ms"]),
        "load_cpu_share": round((samples[phase]["load_cpu_s"]
                                 - samples[previous].get("load_cpu_s", 0.0)) / elapsed, 3),
        "mean_event_frame_bytes": (round(tally["event_bytes"] / tally["event_frames"], 1)
                                   if tally["event_frames"] and tally["event_bytes"] else None),
        "windows_closed_by_clock_before_player": tally["windows_closed_late"],
        "tried_again": tally["tried_again"], "reopened": tally["reopened"],
        "errors": tally["error_count"], "error_examples": tally["errors"][:5],
    }
    if redis:
        figures["redis"] = {
            "commands": redis["commands"], "bytes_in": redis["net_in"],
            "bytes_out": redis["net_out"],
            "cpu_share": round(redis.get("cpu_s", 0.0) / elapsed, 3),
            "forks": int(redis.get("forks", 0)),
            "latency_events": events_between(samples[phase].get("redis_latency", []),
                                             started, samples[phase]["t"]),
            "commands_per_order": round(redis["commands"] / orders, 2) if orders else None,
            "bytes_per_order": round((redis["net_in"] + redis["net_out"]) / orders, 1)
            if orders else None,
        }
    return figures


def memory_figures(samples: dict[str, Any], rooms: int, sockets: int) -> dict[str, Any]:
    rss = {name: sample["server"]["rss"] for name, sample in samples.items()
           if "server" in sample}
    figures: dict[str, Any] = {"rss_start_mb": round(rss["start"] / 2**20, 1)}
    if "connected" in rss:
        before = rss.get("created", rss["start"])
        figures["bytes_per_connection"] = round((rss["connected"] - before) / sockets)
        figures["rss_connected_mb"] = round(rss["connected"] / 2**20, 1)
    if "created" in rss:
        figures["bytes_per_room_created"] = round((rss["created"] - rss["start"]) / rooms)
    if "setup" in rss:
        figures["bytes_per_room_in_play"] = round(
            (rss["setup"] - rss["start"] - (rss["connected"] - rss["created"])) / rooms)
        figures["rss_in_play_mb"] = round(rss["setup"] / 2**20, 1)
    return figures


async def run_referee(args: argparse.Namespace, redis_url: str, workdir: Path,
                      server_core: str | None, load_core: str | None,
                      node_env: dict[str, str] | None = None,
                      on_sample: Callable[[str], None] | None = None,
                      before: dict[str, Hook] | None = None,
                      raw: tuple[str, ...] = ()) -> dict[str, Any]:
    """``node_env``: more environment for the nodes (it wins over the bench's own);
    ``on_sample``: as ``drive``'s; ``before``: more of ``drive``'s hooks (a phase's own
    work, e.g. a slot move while it runs); ``raw``: the phases whose figures also keep
    every command's send time and latency (``sent_at``, ``latencies_ms``)."""
    ports = [free_port() for _ in range(args.nodes)]
    log = workdir / "referee.log"
    routed = bool(getattr(args, "balancer", False))
    env = {**(BALANCED_NODE_ENV if routed else {}), **(node_env or {})}

    async def start_all() -> list[asyncio.subprocess.Process]:
        return [await start_referee(port, redis_url, server_core, log, f"bench-node-{n}", env)
                for n, port in enumerate(ports, 1)]

    server = Server(await start_all())
    balancing = contextlib.AsyncExitStack()
    ws_url: str | None = None
    balancer_cpu: dict[str, float] = {}  # phase -> nginx's CPU seconds at its end
    if routed:
        balancer_port = free_port()
        ws_url = f"http://127.0.0.1:{balancer_port}"
        nginx = await balancing.enter_async_context(
            balancer(workdir, balancer_port, ports, load_core))
        balancer_cpu["start"] = tree_cpu_seconds(nginx.pid)
        then = on_sample

        def on_sample(phase: str) -> None:
            balancer_cpu[phase] = tree_cpu_seconds(nginx.pid)
            if then is not None:
                then(phase)
    restart: dict[str, Any] = {}

    async def kill_and_restart() -> None:
        """kill -9 every referee node (every room's state is in Redis only), start them
        again under the same names."""
        killed = time.time()
        for process in server.processes:
            process.kill()
        for process in server.processes:
            await process.wait()
        server.processes = await start_all()
        restart["killed_t"], restart["up_t"] = killed, time.time()
        restart["timeline"] = timeline = CoreTimeline()
        restart["cores"] = (server_core, load_core)
        timeline.start()
        serving = server.sample()
        restart["rss_new_process_mb"] = round(serving["rss"] / 2**20, 1)
        restart["cpu_serving_s"] = serving["cpu_s"]
        if args.profile is not None and args.profile_phase == "restart":
            await profile_phase()  # the new process, from before the clients reconnect

    profile: list[asyncio.subprocess.Process] = []

    async def profile_phase() -> None:
        if args.profile_perf:
            # perf samples the kernel and every shared object (uvloop, libpython, the
            # compiled rules core) without pausing the referee; Python 3.11's frames are
            # not named (the interpreter's own functions are).
            profile.append(await asyncio.create_subprocess_exec(
                "perf", "record", "-F", "499", "-g", "-o", str(args.profile),
                "-p", str(server.processes[0].pid), "--", "sleep", str(int(args.duration)),
                stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL))
            return
        spy = shutil.which("py-spy") or str(Path(PYTHON).parent / "py-spy")
        profile.append(await asyncio.create_subprocess_exec(
            # The referee is paused for each sample: the profiled phase's latency is then not
            # its own, but the stacks are whole. Unpaused (--nonblocking), py-spy often reads
            # a stack while the interpreter changes it and keeps only its base frame (43% of
            # a paced profile's samples: bench/profile_groups.py).
            spy, "record", *(["--native"] if args.profile_native else []),
            # (the restart phase ends when every room is back: record until then, at most
            # two minutes)
            "-r", "50", "-d", str(120 if args.profile_phase == "restart" else int(args.duration)),
            "-f", "raw", "-o", str(args.profile), "-p", str(server.processes[0].pid),
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL))

    hooks: dict[str, Hook] = dict(before or {})
    if args.profile is not None and args.profile_phase != "restart":
        hooks[args.profile_phase] = profile_phase
    phases = ["created", "connected", "setup", "paced", "max"]
    if args.restart:
        phases.append("restart")
        hooks["restart"] = kill_and_restart
    try:
        fleet = Fleet(args, "referee", [f"http://127.0.0.1:{port}" for port in ports],
                      load_core, workdir, 0, ws_url)
        samples, workers = await drive(
            fleet, phases, server, redis_url, hooks,
            (lambda: end_profiles(profile)) if args.profile_phase == "restart" else None,
            on_sample)
    finally:
        await balancing.aclose()
        for process in server.processes:
            await stop(process)
        for spy_process in profile:
            await spy_process.wait()
    sockets = args.rooms * (2 + args.spectators)
    setup = merge(workers, "setup")
    result = {
        "workers": len(fleet.shares), "nodes": args.nodes, "balancer": routed,
        "setup_s": round(samples["setup"]["t"] - samples["connected"]["t"], 3),
        "setup_commands": setup["commands"], "setup_errors": setup["error_count"],
        "connect_s": round(samples["connected"]["t"] - samples["created"]["t"], 3),
        "memory": memory_figures(samples, args.rooms, sockets),
        "paced": phase_figures(samples, workers, "paced", "setup"),
        "max": phase_figures(samples, workers, "max", "paced"),
    }
    if args.restart:
        result["restart"] = restart_figures(samples, restart, workers, args.rooms, sockets)
    if balancer_cpu:
        result["balancer_cpu"] = balancer_figures(balancer_cpu, result, sockets)
    for phase in raw:
        tally = merge(workers, phase)
        result[phase]["raw"] = {"sent_at": tally["sent_at"],
                                "latencies_ms": tally["latencies_ms"]}
    for phase, previous in (("paced", "setup"), ("max", "paced"), ("restart", "max")):
        if phase in result:
            started = samples.get(f"{phase}_start", samples[previous])["t"]
            result[phase]["slow_collections"] = slow_collections(log, started,
                                                                 samples[phase]["t"])
    redis_after = samples["max"]["redis"]
    result["redis_active"] = bool(redis_after and redis_after.get("keys", 0) > 0)
    return result


def balancer_figures(cpu_s: dict[str, float], result: dict[str, Any], sockets: int
                     ) -> dict[str, Any]:
    """What the load balancer (nginx, on the load core) spent in each phase: its CPU seconds
    (``cpu_s``: at each phase's end), per socket opened (``connected``), per Order and per
    delivery (``paced``, ``max``), and against the referee nodes' CPU in the same phase."""
    def spent(phase: str, previous: str) -> float:
        return cpu_s[phase] - cpu_s[previous]

    connected = spent("connected", "created")
    figures: dict[str, Any] = {
        "connected": {"cpu_s": round(connected, 3),
                      "cpu_us_per_socket": round(connected / sockets * 1e6, 1)}}
    for phase, previous in (("paced", "setup"), ("max", "paced")):
        used, done = spent(phase, previous), result[phase]
        figures[phase] = {
            "cpu_s": round(used, 3),
            "cpu_us_per_order": round(used / done["orders"] * 1e6, 1) if done["orders"] else None,
            "cpu_us_per_delivery": (round(used / done["deliveries"] * 1e6, 2)
                                    if done["deliveries"] else None),
            "over_referee_cpu": (round(used / done["server_cpu_s"], 3)
                                 if done["server_cpu_s"] else None)}
    return figures


def restart_figures(samples: dict[str, Any], restart: dict[str, Any],
                    workers: list[dict[str, Any]], rooms: int, sockets: int,
                    phase: str = "restart", previous: str = "max") -> dict[str, Any]:
    """The restart phase of one server (the referee or the baseline), from the kill
    (``phase``: the baseline's greeted restart is ``greeted``, after ``restart``).

    ``server_cpu_s`` is the new process's whole CPU until every member is back (its start-up
    included); ``server_cpu_us_per_socket`` only what it spent after it began serving, per
    reconnected socket. ``load_cpu_s`` is the load generators' CPU from the end of the
    max-rate phase (their side of the kill included); ``load_cpu_us_per_socket`` only what
    they spent reconnecting, from the new process's serving on: on one core, the phase
    cannot end sooner than that CPU time."""
    back = merge(workers, phase)
    end, start = samples[phase], samples[f"{phase}_start"]
    timeline: CoreTimeline = restart["timeline"]
    timeline.stop()
    server_core, load_core = restart["cores"]
    server_cpu = end["server"]["cpu_s"]  # the new process's
    load_reconnecting = end["load_cpu_s"] - start["load_cpu_s"]
    rooms_back = end["t"] - start["t"]
    return {
        "measured": True, "rooms": rooms, "sockets": sockets,
        "process_start_s": round(restart["up_t"] - restart["killed_t"], 3),
        "rooms_back_s": round(rooms_back, 3),
        "kill_to_all_rooms_back_s": round(end["t"] - restart["killed_t"], 3),
        "server_cpu_s": round(server_cpu, 3),
        "server_cpu_serving_s": round(restart["cpu_serving_s"], 3),
        "server_cpu_us_per_socket": round((server_cpu - restart["cpu_serving_s"])
                                          / sockets * 1e6, 1),
        "server_cpu_share": round((server_cpu - restart["cpu_serving_s"])
                                  / (rooms_back or 1e-9), 3),
        # the load generators' CPU in the phase (their core's share: cpu / rooms_back_s)
        "load_cpu_s": round(end["load_cpu_s"] - samples[previous]["load_cpu_s"], 3),
        "load_cpu_reconnecting_s": round(load_reconnecting, 3),
        "load_cpu_us_per_socket": round(load_reconnecting / sockets * 1e6, 1),
        "load_cpu_share": round(load_reconnecting / (rooms_back or 1e-9), 3),
        # connections turned away by a full listen queue while reconnecting (whole host)
        "listen_overflows": (end["listen_overflows"] - start["listen_overflows"]
                             if end["listen_overflows"] is not None
                             and start["listen_overflows"] is not None else None),
        # every core's busy share while reconnecting, whatever ran on it: the load core busy
        # all the time says the load side (load generators, Redis, the kernel) set the pace
        "cores_busy_share": cores_busy_share(start["cores"], end["cores"]),
        # the same in steps of 0.2 s: how long the server's core was full while the load
        # core waited (the server set the pace), how long the load core was full
        "cores_bound_s": timeline.bound(end["t"], server_core, core_list(load_core)),
        "rss_new_process_mb": restart["rss_new_process_mb"],
        "rss_all_back_mb": round(end["server"]["rss"] / 2**20, 1),
        # what the members read while reconnecting, per reconnected socket (the referee's
        # frames by type; the baseline sends none, its greeted restart one)
        "frames_per_socket": round(back["frames_in"] / sockets, 2),
        "bytes_per_socket": round(back["bytes_in"] / sockets, 1),
        "frames_per_socket_by_type": {kind: round(count / sockets, 2) for kind, count
                                      in sorted(back["frames_by_type"].items())},
        # s after the new process served by which shares of the sockets were open again
        # and of the rooms back: an even pace, or a few late rooms holding the phase open
        "sockets_open_progress_s": progress(back["opened_at"], start["t"]),
        "rooms_back_progress_s": progress(back["back_at"], start["t"]),
        "errors": back["error_count"], "error_examples": back["errors"][:5],
        **restart_redis(samples[phase].get("redis"), samples[previous].get("redis"),
                        rooms, sockets),
    }


def restart_redis(end: dict[str, Any] | None, before: dict[str, Any] | None, rooms: int,
                  sockets: int) -> dict[str, Any]:
    """What Redis did from the kill until every member was back (nothing for a server
    without Redis): it runs on the load core, so its CPU is load-side time the baseline's
    restart does not have."""
    if not end or not before:
        return {}
    grew = delta(end, before)
    by_command = commands_between(end, before)
    return {"redis": {
        "cpu_s": round(grew["cpu_s"], 3),
        "cpu_us_per_socket": round(grew["cpu_s"] / sockets * 1e6, 1),
        "commands": int(grew["commands"]),
        "commands_per_room": round(grew["commands"] / rooms, 2),
        "commands_per_room_by_name": {name: round(calls / rooms, 2)
                                      for name, calls in by_command.items()},
        "bytes_per_room": round((grew["net_in"] + grew["net_out"]) / rooms, 1),
    }}


async def run_baseline(args: argparse.Namespace, workdir: Path, frame_size: int,
                       server_core: str | None, load_core: str | None,
                       greeting: int = 0) -> dict[str, Any]:
    """``greeting``: with ``args.greeted_restart``, the bytes of the one frame the baseline
    restarted a second time sends each returning member (the referee's bytes per reconnected
    socket in its restart)."""
    ports = [free_port() for _ in range(args.nodes)]
    server = Server([await start_baseline(port, server_core, args.baseline_loop,
                                          args.baseline_gc) for port in ports])
    restart: dict[str, Any] = {}
    greeted: dict[str, Any] = {}

    async def kill_and_restart(figures: dict[str, Any], greet: int = 0) -> None:
        """kill -9 every baseline process and start it again on the same port and core, as
        the referee's restart phase does (the baseline has no state to load); its times
        and CPU at serving go to ``figures``."""
        killed = time.time()
        for process in server.processes:
            process.kill()
        for process in server.processes:
            await process.wait()
        server.processes = [await start_baseline(port, server_core, args.baseline_loop,
                                                 args.baseline_gc, greet) for port in ports]
        figures["killed_t"], figures["up_t"] = killed, time.time()
        figures["timeline"] = timeline = CoreTimeline()
        figures["cores"] = (server_core, load_core)
        timeline.start()
        serving = server.sample()
        figures["rss_new_process_mb"] = round(serving["rss"] / 2**20, 1)
        figures["cpu_serving_s"] = serving["cpu_s"]
        if args.profile_baseline is not None and not greet:
            # as the referee's restart profile: paused samples, until the phase ends (at
            # most two minutes)
            spy = shutil.which("py-spy") or str(Path(PYTHON).parent / "py-spy")
            profile.append(await asyncio.create_subprocess_exec(
                spy, "record", *(["--native"] if args.profile_native else []),
                "-r", "50", "-d", "120", "-f", "raw", "-o", str(args.profile_baseline),
                "-p", str(server.processes[0].pid),
                stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL))

    profile: list[asyncio.subprocess.Process] = []
    phases = ["connected", "paced", "max"]
    hooks: dict[str, Hook] = {}
    if args.restart:
        phases.append("restart")
        hooks["restart"] = lambda: kill_and_restart(restart)
        if args.greeted_restart:
            phases.append("greeted")
            hooks["greeted"] = lambda: kill_and_restart(greeted, max(1, greeting))
    try:
        fleet = Fleet(args, "baseline", [f"http://127.0.0.1:{port}" for port in ports],
                      load_core, workdir, frame_size)
        samples, workers = await drive(fleet, phases, server, None, hooks,
                                       lambda: end_profiles(profile))
    finally:
        for process in server.processes:
            await stop(process)
        for spy_process in profile:
            await spy_process.wait()
    sockets = args.rooms * (2 + args.spectators)
    result = {
        "workers": len(fleet.shares),
        "loop": args.baseline_loop, "gc": args.baseline_gc,
        "frame_bytes": frame_size,
        "memory": memory_figures(samples, args.rooms, sockets),
        "paced": phase_figures(samples, workers, "paced", "connected"),
        "max": phase_figures(samples, workers, "max", "paced"),
    }
    if args.restart:
        result["restart"] = restart_figures(samples, restart, workers, args.rooms, sockets)
        if args.greeted_restart:
            result["greeted_restart"] = {
                "greeting_bytes": max(1, greeting),
                **restart_figures(samples, greeted, workers, args.rooms, sockets,
                                  "greeted", "restart")}
    return result


def ratio(ours: float | None, theirs: float | None) -> float | None:
    if not ours or not theirs:
        return None
    return round(ours / theirs, 2)


def restart_ratios(referee: dict[str, Any] | None, baseline: dict[str, Any] | None,
                   greeted: dict[str, Any] | None = None) -> dict[str, float | None]:
    """The referee's restart against the baseline's in the same run (none without one), and
    the baseline's greeted restart against its own when there is one."""
    if not referee or not baseline:
        return {}
    greeted_ratio = {} if not greeted else {
        "restart_greeted_all_back": ratio(greeted["kill_to_all_rooms_back_s"],
                                          baseline["kill_to_all_rooms_back_s"])}
    return {
        **greeted_ratio,
        "restart_all_back": ratio(referee["kill_to_all_rooms_back_s"],
                                  baseline["kill_to_all_rooms_back_s"]),
        "restart_server_cpu_per_socket": ratio(referee["server_cpu_us_per_socket"],
                                               baseline["server_cpu_us_per_socket"]),
        "restart_load_cpu_per_socket": ratio(referee["load_cpu_us_per_socket"],
                                             baseline["load_cpu_us_per_socket"]),
    }


def git_commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, check=True,
                              capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def git_dirty() -> bool:
    try:
        out = subprocess.run(["git", "status", "--porcelain", "--", "server", "protocol"],
                             cwd=REPO, capture_output=True, text=True).stdout
    except OSError:
        return False
    return bool(out.strip())


async def benchmark(args: argparse.Namespace) -> dict[str, Any]:
    server_core, load_core = cores()
    started = datetime.datetime.now(datetime.UTC)
    with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
        workdir = Path(tmp)
        try:
            async with redis_server(workdir, load_core) as redis_url:
                referee = await run_referee(args, redis_url, workdir, server_core, load_core)
        except BaseException:
            # Keep the referee's log of a failed run: the temporary directory goes away.
            args.results_dir.mkdir(parents=True, exist_ok=True)
            kept = args.results_dir / f"failed-{started:%Y%m%dT%H%M%S}-referee.log"
            with contextlib.suppress(OSError):
                shutil.copy(workdir / "referee.log", kept)
            raise
        # Keep the referee's log beside the results: warnings during the run are read there.
        args.results_dir.mkdir(parents=True, exist_ok=True)
        referee_log = args.results_dir / f"{result_name(started, args)}-referee.log"
        with contextlib.suppress(OSError):
            shutil.copy(workdir / "referee.log", referee_log)
        frame = int(referee["max"]["mean_event_frame_bytes"]
                    or referee["paced"]["mean_event_frame_bytes"] or 200)
        greeting = round(referee.get("restart", {}).get("bytes_per_socket", 0))
        baseline = await run_baseline(args, workdir, frame, server_core, load_core, greeting)
    if args.floor:
        # On the referee's core, now quiet: the rules part of the floor (bench/floor.py).
        rules = await floor.measure_rules(pinned(server_core, floor.rules_cost_argv(args.seed)),
                                          str(REPO), dict(os.environ, PYTHONPATH=str(REPO)))
        floor_section = floor.figures(referee, baseline, rules)
        if args.restart:
            # The restart's floor (bench/restart_floor.py): the rooms' in-process reading
            # back at the point of the game they stood at when killed, on the same core.
            orders = restart_floor.orders_at_kill(referee, args.rooms)
            argv = pinned(server_core, restart_floor.restart_cost_argv(args.seed, orders))
            cost = await floor.measure_rules(argv, str(REPO),
                                             dict(os.environ, PYTHONPATH=str(REPO)))
            floor_section.update(restart_floor.figures(
                referee.get("restart"), baseline.get("restart"), cost, args.rooms,
                baseline.get("greeted_restart")))
    else:
        floor_section = floor.not_measured("run with --no-floor")
    return {
        "date": started.isoformat(timespec="seconds"),
        "commit": git_commit(),
        "uncommitted_server_changes": git_dirty(),
        "rules_core": native.status(),
        "machine": {"cpus": os.cpu_count(), "server_core": server_core,
                    "load_cores": load_core, "python": sys.version.split()[0]},
        "params": {"rooms": args.rooms, "spectators": args.spectators, "nodes": args.nodes,
                   "balancer": args.balancer,
                   "sockets": args.rooms * (2 + args.spectators),
                   "duration_s": args.duration, "pace_s": args.pace,
                   "aro_window_s": args.aro_window, "timeout_every": args.timeout_every,
                   "seed": args.seed, "baseline_loop": args.baseline_loop,
                   "baseline_gc": args.baseline_gc},
        "referee": referee,
        "baseline": baseline,
        "ratios": {
            "cpu_per_delivery_max": ratio(referee["max"]["cpu_us_per_delivery"],
                                          baseline["max"]["cpu_us_per_delivery"]),
            "cpu_per_delivery_paced": ratio(referee["paced"]["cpu_us_per_delivery"],
                                            baseline["paced"]["cpu_us_per_delivery"]),
            "max_deliveries_per_s": ratio(referee["max"]["deliveries_per_s"],
                                          baseline["max"]["deliveries_per_s"]),
            "p99_paced": ratio(referee["paced"]["latency_ms"]["p99"],
                               baseline["paced"]["latency_ms"]["p99"]),
            "bytes_per_connection": ratio(
                referee["memory"].get("bytes_per_connection"),
                baseline["memory"].get("bytes_per_connection")),
            **restart_ratios(referee.get("restart"), baseline.get("restart"),
                             baseline.get("greeted_restart")),
        },
        "restart": referee.get("restart", {"measured": False, "why": "run with --no-restart"}),
        "floor": floor_section,
        "referee_log": referee_log.name,
    }


def rules_core_compiled() -> bool:
    """Every module ``setup.py`` compiles is built beside its source (an editable install
    that ran ``setup.py`` without building, e.g. ``pip install --dry-run -e .``, removes
    them)."""
    return all(native.extension_of(module) is not None for module in native.COMPILED_MODULES)


def result_name(started: datetime.datetime, args: argparse.Namespace) -> str:
    """The stem of a run's files in the results directory."""
    return f"{started:%Y-%m-%dT%H%M%SZ}-r{args.rooms}-s{args.spectators}"


def main(argv: list[str] | None = None) -> Path:
    parser = argparse.ArgumentParser(prog="python -m bench.run", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rooms", type=int, default=100)
    parser.add_argument("--spectators", type=int, default=4)
    parser.add_argument("--duration", type=float, default=30.0,
                        help="seconds of the paced phase and of the max-rate phase each")
    parser.add_argument("--pace", type=float, default=10.0,
                        help="seconds between Orders of one room in the paced phase")
    parser.add_argument("--aro-window", type=float, default=2.0,
                        help="the rooms' ARO window in seconds")
    parser.add_argument("--timeout-every", type=int, default=2,
                        help="in the paced phase, every N-th ARO window is left to time out")
    parser.add_argument("--workers", type=int, default=1, help="minimum load processes")
    parser.add_argument("--sockets-per-worker", type=int, default=12_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--results-dir", type=Path, default=RESULTS)
    parser.add_argument("--history", type=Path, default=HISTORY,
                        help="append the run's record to this JSON-lines file (default: "
                             "bench/history.jsonl, read by `python -m bench.summarize`)")
    parser.add_argument("--no-history", dest="history", action="store_const", const=None,
                        help="a throwaway run: keep no record of it in the history")
    parser.add_argument("--nodes", type=int, default=1,
                        help="referee processes sharing the Redis (all on the server core); "
                             "each room's players and spectators are spread over them. The "
                             "baseline runs as many processes, each holding whole rooms")
    parser.add_argument("--balancer", action="store_true",
                        help="with --nodes 2: the shipped nginx (deploy/nginx.conf) in front "
                             "of the nodes; every socket goes through it naming its room, so "
                             "all of a room's sockets reach one node, which owns the room "
                             "(REFEREE_CLAIM_ON_CREATE=0); rooms are created on the nodes "
                             "round robin. Without it, --nodes N spreads each room's sockets "
                             "over the nodes (relayed)")
    parser.add_argument("--restart", action=argparse.BooleanOptionalAction, default=True,
                        help="after max: kill -9 the referee, start it again and time how "
                             "long until every member of every room holds its version again; "
                             "the same for the baseline after its max-rate phase (every "
                             "member's socket open again): the floor of the restart")
    parser.add_argument("--greeted-restart", action=argparse.BooleanOptionalAction,
                        default=True,
                        help="with --restart: kill -9 the baseline once more and start it "
                             "greeting each new socket with one frame of the referee's bytes "
                             "per reconnected socket; every member back once it has read it "
                             "(the least a referee sends a returning member: the restart's "
                             "floor)")
    parser.add_argument("--profile", type=Path, default=None,
                        help="record the referee with py-spy (raw folded stacks, the referee "
                             "paused for each sample) to this file during one phase "
                             "(--profile-phase); group it with `python -m bench.profile_groups`")
    parser.add_argument("--profile-native", action="store_true",
                        help="with --profile: C frames too (uvloop, the compiled rules core, "
                             "the system calls' entry points): py-spy --native")
    parser.add_argument("--profile-perf", action="store_true",
                        help="with --profile: record with Linux perf instead (kernel, C and "
                             "the interpreter's functions, at 499 Hz, not pausing the "
                             "referee); read the file with `perf report -i FILE`")
    parser.add_argument("--profile-phase", choices=("paced", "max", "restart"), default="max",
                        help="the phase --profile records (default: max; restart: the new "
                             "referee process from its start until every member is back)")
    parser.add_argument("--profile-baseline", type=Path, default=None,
                        help="record the baseline's new process in its restart phase with "
                             "py-spy to this file (raw folded stacks, paused samples, "
                             "--profile-native honoured), to set beside a referee's "
                             "--profile-phase restart")
    parser.add_argument("--baseline-loop", choices=("asyncio", "uvloop"), default="asyncio",
                        help="the baseline's event loop (default asyncio, as every baseline "
                             "figure so far; uvloop, the referee's, e.g. for the floor of the "
                             "restart with the loop the referee runs)")
    parser.add_argument("--baseline-no-gc", dest="baseline_gc", action="store_false",
                        help="the baseline with its garbage collector disabled once started "
                             "(a floor: the collector no longer walks its sockets as they pile "
                             "up, e.g. while every member reconnects after its restart)")
    parser.add_argument("--floor", action=argparse.BooleanOptionalAction, default=True,
                        help="after the baseline: the floor of the referee's CPU, the "
                             "baseline's socket work plus the rules core's in-process work "
                             "per command (bench.rules_cost on the server core; bench/floor.py)")
    args = parser.parse_args(argv)
    if args.balancer and args.nodes != 2:
        parser.error("--balancer is nginx in front of two nodes: give --nodes 2")
    if args.balancer and args.rooms * (2 + args.spectators) > (most := balancer_sockets()):
        parser.error(f"at most {most:,} sockets through the loopback nginx's one worker (its "
                     "open-file limit)")
    if args.profile_baseline is not None and not args.restart:
        parser.error("--profile-baseline records the baseline's restart: drop --no-restart")
    if args.profile_phase == "restart" and (not args.restart or args.profile_perf):
        parser.error("--profile-phase restart needs the restart phase and py-spy")
    if args.profile_perf and shutil.which("perf") is None:
        parser.error("--profile-perf needs Linux perf (apt-get install linux-perf)")
    if not rules_core_compiled():
        print(f"bench.run: {native.status()}; build it first (bench/README.md) unless that is "
              "what is measured: the run is recorded as a variant of its own", file=sys.stderr)
    result = asyncio.run(benchmark(args))
    args.results_dir.mkdir(parents=True, exist_ok=True)
    name = result_name(datetime.datetime.fromisoformat(result["date"]), args)
    path = args.results_dir / f"{name}.json"
    path.write_text(json.dumps(result, indent=2))
    (args.results_dir / f"{name}.md").write_text(markdown(result))
    profiled = ([f"{args.profile_phase} phase, {'perf' if args.profile_perf else 'py-spy'}"]
                if args.profile else [])
    if args.profile_baseline:
        profiled.append("the baseline's restart, py-spy")
    profile = "; ".join(profiled) or None
    variants = ([f"baseline on {args.baseline_loop}"] if args.baseline_loop != "asyncio"
                else []) + ([] if args.baseline_gc else ["baseline without gc"])
    if not rules_core_compiled():
        # (never pooled with the records of a compiled core: its CPU per Order is another's)
        variants.append(native.status())
    record_run(result, args.history, source="bench.run", profile=profile,
               variant="; ".join(variants) or None)
    print(markdown(result))
    print(f"results: {path}")
    return path


if __name__ == "__main__":
    main()
