"""``python -m bench.handshake_cost``: the server's CPU per joining websocket, the referee's
against the baseline's, in one run: the join path of a restart (every member reconnects at
once) without the rest of ``bench.run``.

The referee (``python -m server``, ``REFEREE_STORAGE=memory`` by default, or ``--redis``: its
own ``redis-server`` as ``bench.run`` starts one), then the baseline
(``bench/baseline_server.py``: the ``websockets`` library's own server), then the stack's
baseline (``bench/stack_server.py``: the same fan-out under uvicorn's websocket protocol, as
the referee is served) run pinned to the server core with ``taskset`` (core 0), this process
on the other core (core 1). Per target:

- a warm-up pass (``--warmup`` sockets, joined and closed, not counted);
- ``--passes`` measured passes of ``--connections`` sockets each: the referee's rooms are
  created over HTTP first (two seats and ``--spectators`` spectators a room, as the bench's
  rooms), then every socket connects (at most ``REJOIN_HANDSHAKES`` handshakes in flight,
  as ``bench.loadgen``'s rejoin), sends the ``hello`` a returning bench member sends (its
  seat's token or none, ``since`` = the room's version) and waits for its ``welcome``. The
  baselines send nothing on connect: a socket there is joined when its handshake completed
  (it is sent the same ``hello``, read and relayed to no one: each socket has a room path of
  its own). The server's CPU time (``/proc/<pid>/stat``, user + system, as ``bench.run``
  reads it) from before the first connect to after the last join, over the sockets, is the
  pass's figure; the sockets are closed after it.

Printed (or ``--json``): each target's least CPU per socket over the passes, in
microseconds (a noisy host errs high, never low), every pass's figure, and the ratios
referee / baseline (``ratio``), stack / baseline (``stack_ratio``: what the web stack the
referee must run on adds to a join) and referee / stack (``referee_vs_stack``: what the
referee's own join path adds: the ``hello``, the room's join, the first frames, the claims
and presence in the store). The clock ticks at ``1 / SC_CLK_TCK`` (10 ms): use enough sockets that a
pass takes a second or more of the server's CPU.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
import tempfile
from asyncio.subprocess import Process
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx
import msgpack
from websockets.asyncio.client import ClientConnection, connect

from bench.loadgen import REJOIN_HANDSHAKES
from bench.measure import cpu_seconds
from bench.run import (
    cores,
    free_port,
    redis_server,
    start_baseline,
    start_referee,
    start_stack,
    stop,
)
from protocol import codec
from protocol.constants import PROTOCOL_VERSION, WS_PATH
from protocol.messages import Hello
from testkit.scripted_game import RULESET, TABLE

CONNECTIONS = 1200
SPECTATORS = 4
PASSES = 3
WARMUP = 120


@dataclass(frozen=True)
class Joiner:
    """One socket of a pass: where it connects and the hello it sends (None: baseline)."""

    url: str
    hello: bytes


async def connect_one(joiner: Joiner, referee: bool) -> ClientConnection:
    # As bench.loadgen connects: no compression, no keepalive, no proxy lookup.
    ws = await connect(joiner.url, max_size=None, ping_interval=None, compression=None,
                       open_timeout=60, proxy=None)
    await ws.send(joiner.hello)
    if referee:
        while True:  # the referee's first frame to a joining member is its welcome
            frame = await asyncio.wait_for(ws.recv(), 60)
            assert isinstance(frame, bytes)
            tag = msgpack.unpackb(frame, raw=False).get("type")
            if tag == "welcome":
                break
            if tag == "error":
                raise RuntimeError(f"the referee refused a hello: {frame!r}")
    return ws


async def joined_pass(pid: int, joiners: list[Joiner], referee: bool) -> float:
    """The server's CPU seconds while ``joiners`` connect and join; closes them after."""
    handshakes = asyncio.Semaphore(REJOIN_HANDSHAKES)

    async def one(joiner: Joiner) -> ClientConnection:
        async with handshakes:
            return await connect_one(joiner, referee)

    before = cpu_seconds(pid)
    sockets = await asyncio.gather(*(one(joiner) for joiner in joiners))
    used = cpu_seconds(pid) - before
    await asyncio.gather(*(ws.close() for ws in sockets))
    return used


async def referee_joiners(base: str, count: int, spectators: int) -> list[Joiner]:
    """``count`` joiners over fresh rooms created over HTTP (two seats and ``spectators``
    spectators a room, the last room maybe fewer), each with ``since`` = its room's
    version, as a bench member returning after a restart."""
    per_room = 2 + spectators
    rooms = -(-count // per_room)
    async with httpx.AsyncClient(base_url=base, timeout=60) as http:
        async def create(_: int) -> tuple[str, str, str]:
            response = await http.post("/api/rooms", json={
                "ruleset": RULESET, "table": TABLE, "visibility": "private"})
            response.raise_for_status()
            data = response.json()
            return data["room"], data["seats"]["A"]["token"], data["seats"]["B"]["token"]
        created = await asyncio.gather(*(create(i) for i in range(rooms)))
    ws_base = "ws" + base.removeprefix("http") + WS_PATH
    joiners = []
    for room, token_a, token_b in created:
        url = ws_base + "?" + urlencode({"room": room})
        tokens: list[str | None] = [token_a, token_b, *([None] * spectators)]
        joiners += [Joiner(url, codec.encode(Hello(PROTOCOL_VERSION, room, token, 0)))
                    for token in tokens]
    return joiners[:count]


def baseline_joiners(base: str, count: int, referee_like: list[Joiner], tag: str
                     ) -> list[Joiner]:
    """``count`` joiners of the baseline, each on a room path of its own, sending the same
    hellos as the referee's."""
    ws_base = "ws" + base.removeprefix("http")
    return [Joiner(f"{ws_base}/{tag}-{i}", referee_like[i % len(referee_like)].hello)
            for i in range(count)]


async def measure(pid: int, passes: int, make: Callable[[int], Awaitable[list[Joiner]]],
                  referee: bool, connections: int, warmup: int) -> list[float]:
    """CPU microseconds per socket of each measured pass, after a warm-up pass."""
    if warmup:
        await joined_pass(pid, await make(warmup), referee)
    figures = []
    for _ in range(passes):
        joiners = await make(connections)
        figures.append(await joined_pass(pid, joiners, referee) / connections * 1e6)
    return figures


@contextlib.asynccontextmanager
async def store_url(use_redis: bool, workdir: Path, core: str | None
                    ) -> AsyncIterator[str | None]:
    if not use_redis:
        yield None
        return
    async with redis_server(workdir, core) as url:
        yield url


async def run(args: argparse.Namespace) -> dict[str, Any]:
    server_core, client_core = cores()
    if client_core is not None:
        os.sched_setaffinity(0, {int(c) for c in client_core.split("-")[:1]})
    result: dict[str, Any] = {"connections": args.connections, "passes": args.passes,
                              "spectators": args.spectators,
                              "store": "redis" if args.redis else "memory"}
    with tempfile.TemporaryDirectory(prefix="handshake-cost-") as tmp:
        workdir = Path(tmp)
        async with store_url(args.redis, workdir, client_core) as url:
            port = free_port()
            extra = {} if url else {"REFEREE_STORAGE": "memory"}
            referee = await start_referee(port, url or "", server_core,
                                          workdir / "referee.log", extra_env=extra)
            base = f"http://127.0.0.1:{port}"
            try:
                figures = await measure(
                    referee.pid, args.passes,
                    lambda n: referee_joiners(base, n, args.spectators),
                    True, args.connections, args.warmup)
            finally:
                await stop(referee)
            errors = [line for line in (workdir / "referee.log").read_text().splitlines()
                      if "ERROR" in line or "Traceback" in line]
            result["referee_errors"] = errors[:20]
        result["referee"] = {"cpu_us_per_socket": min(figures), "passes_us": figures}
        hellos = await _sample_hellos(args.spectators)
        for name, start in (("baseline", start_baseline), ("stack", start_stack)):
            result[name] = await _unanswered_joins(start, server_core, hellos, args)
    per_socket = {name: max(result[name]["cpu_us_per_socket"], 1e-9)
                  for name in ("referee", "baseline", "stack")}
    result["ratio"] = per_socket["referee"] / per_socket["baseline"]
    result["stack_ratio"] = per_socket["stack"] / per_socket["baseline"]
    result["referee_vs_stack"] = per_socket["referee"] / per_socket["stack"]
    return result


async def _unanswered_joins(start: Callable[[int, str | None], Awaitable[Process]],
                            core: str | None, hellos: list[Joiner], args: argparse.Namespace
                            ) -> dict[str, Any]:
    """A server that answers nothing (the baseline, the stack's baseline), started with
    ``start`` on ``core``: its figures, each pass's sockets on room paths of their own."""
    port = free_port()
    server = await start(port, core)
    base = f"http://127.0.0.1:{port}"
    tags = iter(range(1 + args.passes))
    try:
        figures = await measure(
            server.pid, args.passes,
            lambda n: _ready(baseline_joiners(base, n, hellos, f"p{next(tags)}")),
            False, args.connections, args.warmup)
    finally:
        await stop(server)
    return {"cpu_us_per_socket": min(figures), "passes_us": figures}


async def _ready(joiners: list[Joiner]) -> list[Joiner]:
    return joiners


async def _sample_hellos(spectators: int) -> list[Joiner]:
    """Hellos of the referee's form (a made-up room and tokens of its length) for the
    baseline to be sent: the same bytes on the wire, give or take an id's digits."""
    room, token = "r" * 10, "t" * 32
    tokens: list[str | None] = [token, token, *([None] * spectators)]
    return [Joiner("", codec.encode(Hello(PROTOCOL_VERSION, room, t, 0))) for t in tokens]


def report(result: dict[str, Any]) -> str:
    referee, baseline, stack = result["referee"], result["baseline"], result["stack"]

    def passes(figures: list[float]) -> str:
        return ", ".join(f"{f:.0f}" for f in figures)
    return "\n".join([
        f"{result['connections']} sockets a pass, {result['passes']} passes, "
        f"store {result['store']}; server CPU per joining socket (least of the passes):",
        f"  referee:  {referee['cpu_us_per_socket']:.0f} us  ({passes(referee['passes_us'])})",
        f"  baseline: {baseline['cpu_us_per_socket']:.0f} us  ({passes(baseline['passes_us'])})",
        f"  stack:    {stack['cpu_us_per_socket']:.0f} us  ({passes(stack['passes_us'])})",
        f"  ratio:    {result['ratio']:.2f} (referee / baseline)",
        f"  stack:    {result['stack_ratio']:.2f} (stack / baseline); "
        f"referee / stack {result['referee_vs_stack']:.2f}",
    ])


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--connections", type=int, default=CONNECTIONS,
                        help=f"sockets per measured pass (default {CONNECTIONS})")
    parser.add_argument("--passes", type=int, default=PASSES,
                        help=f"measured passes per target (default {PASSES})")
    parser.add_argument("--warmup", type=int, default=WARMUP,
                        help=f"sockets of the uncounted first pass (default {WARMUP})")
    parser.add_argument("--spectators", type=int, default=SPECTATORS,
                        help=f"spectators per referee room (default {SPECTATORS})")
    parser.add_argument("--redis", action="store_true",
                        help="the referee on its own redis-server (default: memory store)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args(argv)
    result = asyncio.run(run(args))
    print(json.dumps(result) if args.json else report(result), flush=True)
    return result


if __name__ == "__main__":
    main(sys.argv[1:])
