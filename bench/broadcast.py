"""The broadcast bench: one room, two players, thousands of spectators on two nodes.

``.venv/bin/python -m bench.broadcast --spectators 10000``

Issue 20's "audiences of thousands": one room played by two scripted players and watched
by ``--spectators`` spectators spread over two referee nodes sharing one Redis (the room is
created on node 1, which owns it; node 2 relays its frames to its own half of the crowd),
then the same against two raw-``websockets`` baseline processes (the second relays the
first's room to its own half), in the same run:

1. Redis, the nodes (pinned to core 0 as in ``bench.run``), the room, the two players
   (``bench.players``: A on node 1, B on node 2) play the game's setup;
2. ``joins``: the crowd processes (``bench.spectators``, on the load core, at niceness
   ``--crowd-nice``: they stand in for remote machines, so Redis and the players go first) connect their
   spectators evenly over ``--join-s`` while the players play one command every
   ``--join-pace`` s: the players' command latency while the crowd joins, each
   spectator's time to its snapshot, and the nodes' RSS growth per spectator;
3. ``events``: the players play ``--events`` commands, one every ``--pace`` s; for each
   frame every spectator received, the time from the command's send to its arrival at the
   last spectator (one clock, ``time.time``, for every process on the host), and the
   nodes' CPU time per spectator delivery;
3b. ``leaves``: the whole crowd closes its sockets at once (the final is over) while the
   players play one command every ``--join-pace`` s, until ``--leave-settle-s`` after the
   last socket closed: the players' latency while a node lets go of its crowd, and, from
   the nodes' log, the collections that stalled them;
4. the baseline: the same joins and the same number of frames, each padded to the mean
   size of the spectators' ``events`` frames in the referee's run.

Results go to ``bench/results/broadcast-<timestamp>-s<spectators>.json`` and ``.md``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import itertools
import json
import os
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx

import bench.run as bench_run
from bench.abuse import core_busy
from bench.broadcast_report import TARGETS, markdown
from bench.measure import machine_steal_seconds, percentiles
from bench.referee_log import slow_collections
from bench.run import (
    PYTHON,
    REPO,
    RESULTS,
    Server,
    cores,
    free_port,
    git_commit,
    git_dirty,
    pinned,
    ratio,
    redis_server,
    start_referee,
    stop,
)
from bench.run_history import HISTORY, record_run
from server.rules import native
from testkit.scripted_game import RULESET, TABLE

ARO_WINDOW_S = 600.0  # the players close every window themselves: the clock never does


class Worker:
    """A load process stepped through its phases over stdin/stdout."""

    def __init__(self, process: asyncio.subprocess.Process, out: Path) -> None:
        self.process = process
        self.out = out

    @classmethod
    async def start(cls, core: str | None, argv: list[str], out: Path, nice: int = 0
                    ) -> Worker:
        command = pinned(core, [PYTHON, "-m", *argv, "--out", str(out)])
        if nice:
            command = ["nice", "-n", str(nice), *command]
        process = await asyncio.create_subprocess_exec(*command, cwd=REPO,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
        return cls(process, out)

    def say(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line.encode() + b"\n")

    async def done(self, phase: str) -> dict[str, Any]:
        assert self.process.stdout is not None
        while True:
            line = await self.process.stdout.readline()
            if not line:
                raise RuntimeError(f"a load process exited during {phase}")
            with contextlib.suppress(ValueError):
                message: dict[str, Any] = json.loads(line)
                if message.get("done") == phase:
                    return message

    async def finish(self) -> dict[str, Any]:
        self.say("end")
        await self.process.wait()
        result: dict[str, Any] = json.loads(self.out.read_text())
        return result


HISTOGRAMS = ("referee_command_latency_seconds", "referee_loop_lag_seconds")
"""Read from each referee node's /metrics at each sample: where a seat's command waits."""


def sample(server: Server, loop_cpu: bool = False, metrics: Sequence[str] = ()
           ) -> dict[str, Any]:
    """The nodes' CPU and memory, the core's and the machine's, now; with ``loop_cpu``,
    each node (under ``bench.loop_cpu``) keeps its callbacks' figures so far apart; from
    each of the ``metrics`` base URLs, the ``HISTOGRAMS``' cumulative buckets."""
    if loop_cpu:
        for process in server.processes:
            process.send_signal(signal.SIGUSR1)
    busy, total = core_busy(cores()[0])
    return {"t": time.time(), "steal_s": machine_steal_seconds(),
            "core_busy": busy, "core_total": total,
            "nodes": [dict(Server([p]).sample()) for p in server.processes],
            "histograms": [histograms(url) for url in metrics]}


def histograms(base: str) -> dict[str, dict[str, float]]:
    """``{name: {le: cumulative count}}`` of the ``HISTOGRAMS`` on one node."""
    found: dict[str, dict[str, float]] = {name: {} for name in HISTOGRAMS}
    with contextlib.suppress(httpx.HTTPError):
        text = httpx.get(f"{base}/metrics", timeout=10,
                         headers={"Authorization": f"Bearer {bench_run.METRICS_TOKEN}"}).text
        for line in text.splitlines():
            for name in HISTOGRAMS:
                if line.startswith(f"{name}_bucket{{"):
                    le = line.split('le="', 1)[1].split('"', 1)[0]
                    found[name][le] = found[name].get(le, 0.0) + float(line.rsplit(" ", 1)[1])
    return found


def histogram_phase(before: dict[str, Any], after: dict[str, Any]
                    ) -> list[dict[str, dict[str, float]]]:
    """Per node, per histogram, the counts at or under each bound between two samples."""
    return [{name: {le: count - b[name].get(le, 0.0) for le, count in a[name].items()}
             for name in HISTOGRAMS}
            for b, a in zip(before.get("histograms", []), after.get("histograms", []),
                            strict=True)]


def others_share(before: dict[str, Any], after: dict[str, Any]) -> float | None:
    """The share of the nodes' core that other processes used between two samples (the
    machine is shared: a busy core makes the nodes wait, which latency then counts)."""
    total = float(after["core_total"] - before["core_total"])
    if not total:
        return None
    busy = float(after["core_busy"] - before["core_busy"])
    nodes = (_sum(after, "cpu_s") - _sum(before, "cpu_s")) * 100  # jiffies (USER_HZ 100)
    return round(max(0.0, busy - nodes) / total, 3)


def _sum(snapshot: dict[str, Any], key: str) -> float:
    return float(sum(node[key] for node in snapshot["nodes"]))


async def crowd_and_players(args: argparse.Namespace, target: str, urls: list[str],
                            room: str, tokens: tuple[str | None, str | None],
                            server: Server, workdir: Path, load_core: str | None,
                            frame_size: int) -> dict[str, Any]:
    """The phases against one target: players' setup, joins, events; the samples between."""
    players_argv = ["bench.players", "--target", target, "--urls", ",".join(urls),
                    f"--room={room}", "--seed", str(args.seed), "--frame-size", str(frame_size),
                    "--join-pace", str(args.join_pace), "--pace", str(args.pace),
                    "--events", str(args.events)]
    if tokens[0] is not None:
        # "=": a token may begin with "-", which argparse would take for an option
        players_argv += [f"--token-a={tokens[0]}", f"--token-b={tokens[1]}"]
    players = await Worker.start(load_core, players_argv, workdir / f"{target}-players.json",
                                 args.players_nice)
    crowd: list[Worker] = []
    try:
        await players.done("setup")
        share, extra = divmod(args.spectators, args.crowd_workers)
        first = 0
        for index in range(args.crowd_workers):
            count = share + (1 if index < extra else 0)
            crowd.append(await Worker.start(load_core, [
                "bench.spectators", "--target", target, "--urls", ",".join(urls),
                f"--room={room}", "--count", str(count), "--first", str(first),
                "--join-s", str(args.join_s), "--join-timeout-s", str(args.join_timeout_s),
                "--worker", str(index),
                "--workers", str(args.crowd_workers)], workdir / f"{target}-crowd-{index}.json",
                args.crowd_nice))
            first += count
        marks = args.loop_cpu is not None and target == "referee"
        scraped = urls if target == "referee" else []
        samples = {"start": sample(server, marks, scraped)}
        spies = await profile(args, target, server, "joins", args.join_s)
        players.say("go")
        for worker in crowd:
            worker.say("go")
        joins = [await worker.done("joins") for worker in crowd]
        players.say("stop")
        await players.done("joins")
        samples["joins"] = sample(server, marks, scraped)
        for worker in crowd:
            worker.say("go")
        for worker in crowd:
            await worker.done("ready")
        spies += await profile(args, target, server, "events", args.events * args.pace)
        players.say("go")
        await players.done("events")
        # The last frames may still be on their way to the last spectators: the crowd
        # counts what arrived until told to stop, and the CPU sample follows.
        await asyncio.sleep(args.settle_s)
        for worker in crowd:
            worker.say("stop")
        for worker in crowd:
            await worker.done("events")
        samples["events"] = sample(server, marks, scraped)
        # leaves: the whole crowd closes at once while the players play on; they go on for
        # --leave-settle-s after the last socket closed, as a node reckons what a crowd left
        # once a second (server/node/crowd_gc.py).
        players.say("go")
        for worker in crowd:
            worker.say("go")
        leaves = [await worker.done("leaves") for worker in crowd]
        await asyncio.sleep(args.leave_settle_s)
        players.say("stop")
        await players.done("leaves")
        samples["leaves"] = sample(server, marks, scraped)
        if args.loop_cpu is not None and target == "referee":
            (args.loop_cpu / "phases.json").write_text(json.dumps(
                {phase: snapshot["t"] for phase, snapshot in samples.items()}))
        crowd_results = [await worker.finish() for worker in crowd]
        player_results = await players.finish()
        for spy in spies:
            await spy.wait()
    finally:
        for worker in [players, *crowd]:
            if worker.process.returncode is None:
                worker.process.kill()
                await worker.process.wait()
    result = figures(args, samples, joins, crowd_results, player_results, leaves)
    if target == "referee":  # the nodes' collections of 20 ms or more, phase by phase
        phases = list(samples)
        result["slow_collections"] = {
            phase: slow_collections(workdir / "referee.log", samples[before]["t"],
                                    samples[phase]["t"])
            for before, phase in itertools.pairwise(phases)}
    return result


async def profile(args: argparse.Namespace, target: str, server: Server, phase: str,
                  seconds: float) -> list[asyncio.subprocess.Process]:
    """With ``--profile FILE``: py-spy records each referee node during ``phase`` (raw
    folded stacks to FILE.node1, FILE.node2, ...; the node paused for each sample)."""
    if args.profile is None or target != "referee" or phase != args.profile_phase:
        return []
    spy = shutil.which("py-spy") or str(Path(PYTHON).parent / "py-spy")
    return [await asyncio.create_subprocess_exec(
        spy, "record", "-r", "50", "-d", str(max(1, int(seconds))), "-f", "raw",
        "-o", f"{args.profile}.node{n}", "-p", str(process.pid),
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL)
        for n, process in enumerate(server.processes, 1)]


def event_latencies(crowd: list[dict[str, Any]], sent_at: list[float], spectators: int
                    ) -> dict[str, Any]:
    """Per frame the spectators received in ``events``: the time from the command that
    made it (the last one sent before its first arrival) to its arrival at the first and
    at the last spectator; and whether every spectator got every frame."""
    frames: dict[int, list[int]] = {}
    for part in crowd:
        for number, (count, first, last) in part["events"]["frames"].items():
            entry = frames.setdefault(int(number), [0, first, last])
            if entry[0]:
                entry[1], entry[2] = min(entry[1], first), max(entry[2], last)
            entry[0] += count
    sends = sorted(int(s * 1e9) for s in sent_at)
    to_last: list[float] = []
    to_first: list[float] = []
    incomplete = earlier = arrivals = 0
    for number in sorted(frames):
        count, first, last = frames[number]
        before = [s for s in sends if s <= first]
        if not before:
            earlier += 1  # a frame of the joins phase, still arriving: not this phase's
            continue
        arrivals += count
        if count != spectators:
            incomplete += 1
        sent = before[-1]
        to_last.append((last - sent) / 1e6)
        to_first.append((first - sent) / 1e6)
    return {"frames": len(frames) - earlier, "frames_incomplete": incomplete,
            "frames_of_the_joins_phase": earlier,
            # (this phase's frames as the spectators received them: a frame of the joins
            # phase that reached some spectators only after the phase began is not one)
            "spectator_event_frames": arrivals,
            "to_last_spectator_ms": percentiles(to_last),
            "to_first_spectator_ms": percentiles(to_first)}


def figures(args: argparse.Namespace, samples: dict[str, Any], joins: list[dict[str, Any]],
            crowd: list[dict[str, Any]], players: dict[str, Any],
            leaves: list[dict[str, Any]]) -> dict[str, Any]:
    start, joined_at, end = samples["start"], samples["joins"], samples["events"]
    joined = sum(part["joined"] for part in crowd)
    resyncs = sum(part.get("resyncs", 0) for part in crowd)
    deliveries = sum(part["events"]["deliveries"] for part in crowd)
    event_frames = sum(part["events"]["event_frames"] for part in crowd)
    event_bytes = sum(part["events"]["event_bytes"] for part in crowd)
    cpu_events = _sum(end, "cpu_s") - _sum(joined_at, "cpu_s")
    cpu_joins = _sum(joined_at, "cpu_s") - _sum(start, "cpu_s")
    join_wall = joined_at["t"] - start["t"]
    events_wall = end["t"] - joined_at["t"]
    join_ms = [ms for part in crowd for ms in part["join_ms"]]
    errors = [e for part in crowd for e in part["errors"]] + [
        e for phase in ("joins", "events", "leaves") for e in players[phase]["errors"]]
    error_count = sum(part["error_count"] for part in crowd) + sum(
        players[phase]["error_count"] for phase in ("joins", "events", "leaves"))
    return {
        "joined": joined,
        "joins": {
            "wall_s": round(join_wall, 3),
            "crowd_s": max(j["s"] for j in joins),
            "spectator_join_ms": percentiles(join_ms),
            "players_latency_ms": percentiles(players["joins"]["latencies_ms"]),
            **players_breakdown(players["joins"]),
            "players_commands": players["joins"]["commands"],
            "players_errors": players["joins"]["error_count"],
            "server_cpu_s": round(cpu_joins, 3),
            "server_cpu_share": round(cpu_joins / join_wall, 3) if join_wall else None,
            "cpu_us_per_join": round(cpu_joins / joined * 1e6, 1) if joined else None,
            "rss_start_mb": round(_sum(start, "rss") / 2**20, 1),
            "rss_joined_mb": round(_sum(joined_at, "rss") / 2**20, 1),
            "bytes_per_spectator": round((_sum(joined_at, "rss") - _sum(start, "rss"))
                                         / joined) if joined else None,
            "nodes_rss_mb": [round(n["rss"] / 2**20, 1) for n in joined_at["nodes"]],
            "others_on_server_core_share": others_share(start, joined_at),
            # Per node: the owner's command latency in the room (inbox to answer) and the
            # loop watch's lateness, as cumulative counts at or under each bound (s).
            "nodes_histograms": histogram_phase(start, joined_at),
        },
        "events": {
            "wall_s": round(events_wall, 3),
            "commands": players["events"]["commands"],
            **event_latencies(crowd, players["events"]["sent_at"], joined),
            "players_latency_ms": percentiles(players["events"]["latencies_ms"]),
            **players_breakdown(players["events"]),
            "spectator_deliveries": deliveries,  # every frame (a spectator count too)
            "mean_event_frame_bytes": round(event_bytes / event_frames, 1)
            if event_frames else None,
            "server_cpu_s": round(cpu_events, 3),
            "nodes_cpu_s": [round(e["cpu_s"] - j["cpu_s"], 3)
                            for e, j in zip(end["nodes"], joined_at["nodes"], strict=True)],
            "cpu_us_per_spectator_delivery": round(cpu_events / deliveries * 1e6, 2)
            if deliveries else None,
            "others_on_server_core_share": others_share(joined_at, end),
            "nodes_histograms": histogram_phase(joined_at, end),
            "machine_steal_share": round((end["steal_s"] - joined_at["steal_s"])
                                         / events_wall, 3) if events_wall else None,
        },
        "leaves": {
            "wall_s": round(samples["leaves"]["t"] - end["t"], 3),
            "crowd_s": max(leave["s"] for leave in leaves),
            "still_open": sum(leave["still_open"] for leave in leaves),
            "players_latency_ms": percentiles(players["leaves"]["latencies_ms"]),
            "players_commands": players["leaves"]["commands"],
            "players_errors": players["leaves"]["error_count"],
            "server_cpu_s": round(_sum(samples["leaves"], "cpu_s") - _sum(end, "cpu_s"), 3),
            "nodes_rss_mb": [round(n["rss"] / 2**20, 1) for n in samples["leaves"]["nodes"]],
        },
        "errors": error_count, "error_examples": errors[:5],
        "spectator_resyncs": resyncs,  # snapshots after the first: dropped behind, resynced
    }


async def create_room(base: str, seed: int) -> tuple[str, str, str]:
    async with httpx.AsyncClient(base_url=base, timeout=60) as http:
        response = await http.post("/api/rooms", json={
            "ruleset": RULESET, "table": TABLE, "seed": seed, "aro_window_s": ARO_WINDOW_S,
            "visibility": "public"})
        response.raise_for_status()
        data = response.json()
    return data["room"], data["seats"]["A"]["token"], data["seats"]["B"]["token"]


async def run_referee(args: argparse.Namespace, redis_url: str, workdir: Path,
                      server_core: str | None, load_core: str | None) -> dict[str, Any]:
    ports = [free_port() for _ in range(args.nodes)]
    log = workdir / "referee.log"
    server = Server([await start_node(args, port, redis_url, server_core, log, n)
                     for n, port in enumerate(ports, 1)])
    urls = [f"http://127.0.0.1:{port}" for port in ports]
    try:
        room, token_a, token_b = await create_room(urls[0], args.seed)
        return await crowd_and_players(args, "referee", urls, room, (token_a, token_b),
                                       server, workdir, load_core, 0)
    finally:
        for process in server.processes:
            await stop(process)


async def start_node(args: argparse.Namespace, port: int, redis_url: str, core: str | None,
                     log: Path, n: int) -> asyncio.subprocess.Process:
    """A referee node (``bench.run.start_referee``); with ``--loop-cpu DIR``, run under
    ``bench.loop_cpu`` (asyncio's loop, every callback's CPU time to DIR/nodeN.json)."""
    if args.loop_cpu is None:
        return await start_referee(port, redis_url, core, log, f"bench-node-{n}")
    args.loop_cpu.mkdir(parents=True, exist_ok=True)
    out = str(args.loop_cpu.resolve() / f"node{n}.json")

    def under_watch(core: str | None, argv: list[str]) -> list[str]:
        assert argv[1:3] == ["-m", "server"], argv
        return pinned(core, [argv[0], "-m", "bench.loop_cpu", out, *argv[1:]])

    bench_run.pinned = under_watch  # start_referee's own argv, wrapped
    try:
        return await start_referee(port, redis_url, core, log, f"bench-node-{n}")
    finally:
        bench_run.pinned = pinned


async def start_baseline_node(port: int, core: str | None, upstream: str | None
                              ) -> asyncio.subprocess.Process:
    argv = [PYTHON, "-m", "bench.baseline_server", "--port", str(port)]
    if upstream is not None:
        argv += ["--upstream", upstream]
    process = await asyncio.create_subprocess_exec(*pinned(core, argv), cwd=REPO,
                                                   stdout=asyncio.subprocess.PIPE)
    assert process.stdout is not None
    if (await asyncio.wait_for(process.stdout.readline(), 30)).strip() != b"ready":
        raise RuntimeError("baseline server did not start")
    return process


async def run_baseline(args: argparse.Namespace, workdir: Path, frame_size: int,
                       server_core: str | None, load_core: str | None) -> dict[str, Any]:
    ports = [free_port() for _ in range(args.nodes)]
    first = f"ws://127.0.0.1:{ports[0]}"
    server = Server([await start_baseline_node(port, server_core, None if n == 0 else first)
                     for n, port in enumerate(ports)])
    try:
        result = await crowd_and_players(args, "baseline",
                                         [f"http://127.0.0.1:{port}" for port in ports],
                                         "broadcast", (None, None), server, workdir,
                                         load_core, frame_size)
        result["frame_bytes"] = frame_size
        return result
    finally:
        for process in server.processes:
            await stop(process)


def load_average() -> list[float]:
    with contextlib.suppress(OSError):
        return [round(x, 2) for x in os.getloadavg()]
    return []


async def benchmark(args: argparse.Namespace) -> dict[str, Any]:
    server_core, load_core = cores()
    started = datetime.datetime.now(datetime.UTC)
    load_before = load_average()
    with tempfile.TemporaryDirectory(prefix="bench-broadcast-") as tmp:
        workdir = Path(tmp)
        try:
            async with redis_server(workdir, load_core) as redis_url:
                referee = await run_referee(args, redis_url, workdir, server_core, load_core)
        finally:
            args.results_dir.mkdir(parents=True, exist_ok=True)
            with contextlib.suppress(OSError):
                (args.results_dir / f"{result_name(started, args)}-referee.log").write_bytes(
                    (workdir / "referee.log").read_bytes())
        frame = int(referee["events"]["mean_event_frame_bytes"] or 200)
        baseline = await run_baseline(args, workdir, frame, server_core, load_core)
    ref_events, base_events = referee["events"], baseline["events"]
    return {
        "kind": "broadcast",
        "date": started.isoformat(timespec="seconds"),
        "commit": git_commit(),
        "uncommitted_server_changes": git_dirty(),
        "rules_core": native.status(),
        "machine": {"cpus": os.cpu_count(), "server_core": server_core,
                    "load_cores": load_core, "python": sys.version.split()[0],
                    "load_average_before": load_before, "load_average_after": load_average()},
        "params": {"spectators": args.spectators, "nodes": args.nodes,
                   "crowd_workers": args.crowd_workers, "join_s": args.join_s,
                   "join_pace_s": args.join_pace, "pace_s": args.pace,
                   "events": args.events, "seed": args.seed,
                   "players_nice": args.players_nice, "crowd_nice": args.crowd_nice},
        "targets": TARGETS,
        "referee": referee,
        "baseline": baseline,
        "ratios": {
            "cpu_per_spectator_delivery": ratio(
                ref_events["cpu_us_per_spectator_delivery"],
                base_events["cpu_us_per_spectator_delivery"]),
            "p99_to_last_spectator": ratio(ref_events["to_last_spectator_ms"]["p99"],
                                            base_events["to_last_spectator_ms"]["p99"]),
            "bytes_per_spectator": ratio(referee["joins"]["bytes_per_spectator"],
                                          baseline["joins"]["bytes_per_spectator"]),
        },
        "referee_log": f"{result_name(started, args)}-referee.log",
    }


def result_name(started: datetime.datetime, args: argparse.Namespace) -> str:
    return f"broadcast-{started:%Y-%m-%dT%H%M%SZ}-s{args.spectators}"


def players_breakdown(phase: dict[str, Any]) -> dict[str, Any]:
    """Where the players' latency went: per side that sent the command (player B's crosses
    the room bus both ways), until the commander had its own answer, and how late the
    players' own process ran (a late reader counts as latency)."""
    commanders = phase.get("commanders", [])
    by_side = {side: percentiles([ms for (s, _), ms in zip(commanders, phase["latencies_ms"],
                                                          strict=True) if s == side])
               for side in ("A", "B")} if commanders else {}
    sent = phase.get("sent_at", [])
    return {
        # Every command as it went (the JSON only, not the history): when it was sent, in s
        # from the phase's first, who sent it and how long until both players had it; with
        # a few dozen commands a phase's p99 is its maximum, and runs are pooled from these.
        "players_commands_raw": [
            [round(at - sent[0], 3), side, round(ms, 2)]
            for at, (side, _), ms in zip(sent, commanders, phase["latencies_ms"], strict=True)
        ] if commanders and len(sent) == len(commanders) else [],
        "players_latency_by_commander_ms": by_side,
        "players_answer_ms": percentiles([ms for _, ms in commanders]) if commanders else None,
        "players_loop_lag_ms": percentiles(phase.get("loop_lag_ms", [])),
        "players_gc_max_ms": max(phase.get("gc_pauses_ms", []), default=0.0),
    }


def main(argv: list[str] | None = None) -> Path:
    parser = argparse.ArgumentParser(prog="python -m bench.broadcast", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--spectators", type=int, default=10_000)
    parser.add_argument("--nodes", type=int, default=2,
                        help="referee nodes (and baseline processes); the room is on the "
                             "first, the spectators round robin over all")
    parser.add_argument("--crowd-workers", type=int, default=4,
                        help="spectator processes (each under its own file limit)")
    parser.add_argument("--join-s", type=float, default=30.0,
                        help="the spectators join evenly over this many seconds")
    parser.add_argument("--join-pace", type=float, default=0.5,
                        help="seconds between the players' commands while the crowd joins")
    parser.add_argument("--pace", type=float, default=0.5,
                        help="seconds between the players' commands in the events phase")
    parser.add_argument("--events", type=int, default=60,
                        help="commands the players play in the events phase")
    parser.add_argument("--settle-s", type=float, default=2.0,
                        help="after the last command, how long the crowd keeps counting")
    parser.add_argument("--join-timeout-s", type=float, default=120.0,
                        help="how long after the last connect the crowd waits for snapshots")
    parser.add_argument("--profile", type=Path, default=None,
                        help="record each referee node with py-spy during --profile-phase "
                             "(raw folded stacks, FILE.node1, FILE.node2; group them with "
                             "`python -m bench.profile_groups`)")
    parser.add_argument("--leave-settle-s", type=float, default=3.0,
                        help="seconds the players play on after the crowd left (a node "
                             "reckons a crowd's leaving once a second)")
    parser.add_argument("--profile-phase", choices=("joins", "events"), default="events")
    parser.add_argument("--loop-cpu", type=Path, default=None, metavar="DIR",
                        help="diagnosis: run the referee nodes on asyncio's loop with every "
                             "callback's CPU time recorded (bench/loop_cpu.py) to "
                             "DIR/node1.json, DIR/node2.json, and the phases' times to "
                             "DIR/phases.json")
    parser.add_argument("--players-nice", type=int, default=0, metavar="N",
                        help="run the players' process at this niceness (e.g. -10: before "
                             "the crowd processes on the load core, as players on machines of "
                             "their own would be; negative needs root)")
    parser.add_argument("--crowd-nice", type=int, default=10, metavar="N",
                        help="run the crowd's processes at this niceness (default 10): they "
                             "stand in for thousands of remote machines, so on the load core "
                             "they yield to Redis and the players, which have resources of "
                             "their own in production; 0 shares the core evenly")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--results-dir", type=Path, default=RESULTS)
    parser.add_argument("--history", type=Path, default=HISTORY,
                        help="append the run's record to this JSON-lines file (default: "
                             "bench/history.jsonl, read by `python -m bench.summarize`)")
    parser.add_argument("--no-history", dest="history", action="store_const", const=None,
                        help="a throwaway run: keep no record of it in the history")
    args = parser.parse_args(argv)
    result = asyncio.run(benchmark(args))
    results_dir: Path = args.results_dir
    results_dir.mkdir(parents=True, exist_ok=True)
    name = result_name(datetime.datetime.fromisoformat(result["date"]), args)
    path = results_dir / f"{name}.json"
    path.write_text(json.dumps(result, indent=2))
    (results_dir / f"{name}.md").write_text(markdown(result))
    profile = f"{args.profile_phase} phase, py-spy" if args.profile else None
    record_run(result, args.history, source="bench.broadcast", profile=profile)
    print(markdown(result))
    print(f"results: {path}")
    return path


if __name__ == "__main__":
    main()
