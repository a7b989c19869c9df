"""``python -m bench.abuse``: how a bystander room fares while others abuse the node.

``.venv/bin/python -m bench.abuse --duration 10 [--no-budgets]``

Starts Redis and the referee (``python -m server`` pinned to core 0 with its default
limits, which ``bench.run`` lifts) and, in this process on the other core, a bystander
room: its two seats play the bench's scripted game (``testkit.scripted_game``) one command a second,
and a spectator pings every 100 ms. Then one phase of ``--duration`` seconds each:

- ``quiet``: no abuse.
- ``options``: ``--flood-rooms`` rooms (2 seats each) play the scripted game planned on N5
  and the Ashfall Refinery (where ``options`` costs ~5 ms) as fast as the answers come, and
  both seats ask for ``options`` with every token of the rate limit left: each new version
  makes the next request a computation.
- ``rooms``: ``--clients`` connections create rooms as fast as they are answered from this
  address, as many again naming a new address each time in ``X-Forwarded-For`` (loopback
  is a trusted proxy).
- ``bodies``: ``--clients`` connections declare 100 MB bodies and stream them, as many send
  chunked bodies with no length.
- ``json``: ``--clients`` connections post bodies that are no JSON object (60 KiB nested
  30,000 deep, ``NaN``, 4,300-digit numbers).
- ``all``: all of it at once.

Per phase: the bystander's ping round trip and its commands' latency (sent to seen by both
seats), the referee's CPU share, and what the abuse got (answers by status, ``options``
frames, closes). ``--no-budgets`` runs the referee without the loop-time budgets of the
queries (``REFEREE_WORK_*=0``), to compare. Results: ``bench/results/abuse-<time>.json``
and ``.md``; docs/performance.md, "Abuse". Each run appends its record (kind ``abuse``) to
``bench/history.jsonl`` like ``bench.run`` (``--history FILE``, ``--no-history``); its
figures are named by their path in the results file (``phases/all/ping_ms/p50``), and
``python -m bench.summarize --kind abuse`` shows them a row per phase, as the report does.

It reaches past the server's public seams on purpose: each seat paces itself with the
server's own rate-limit bucket and message costs (``server.transport.rate_limit.TokenBucket``,
``server.transport.endpoint.MESSAGE_TOKENS``, the defaults of ``server.config.Settings``) so
that it is never refused for its pace, and the body flood sizes its bodies from the lobby's
limit (``server.lobby.routes.MAX_BODY_BYTES``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import itertools
import json
import os
import random
import re
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import msgpack
import uvloop
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from bench.measure import cpu_seconds, percentiles
from bench.run import (
    PYTHON,
    REPO,
    RESULTS,
    cores,
    free_port,
    git_commit,
    git_dirty,
    pinned,
    redis_server,
    stop,
    wait_http,
)
from bench.run_history import HISTORY, record_run
from protocol import codec
from protocol.constants import PROTOCOL_VERSION, WS_PATH
from protocol.messages import Command, Hello, OptionsRequest, Ping
from server.config import Settings
from server.lobby.http import MAX_BODY_BYTES
from server.rules.ids import Side
from server.transport.endpoint import MESSAGE_TOKENS
from server.transport.rate_limit import TokenBucket
from testkit import scripted_game

PHASES = ("quiet", "options", "rooms", "bodies", "json", "all")
TARGET_P50_MS = 20.0
"""Issue 18: the bystander's ping p50 under each abuse."""
PING_EVERY_S = 0.1
BYSTANDER_COMMAND_EVERY_S = 1.0
FLOOD_TABLE = "n5-ashfall-refinery"
FLOOD_ARMIES = {Side.A: "helion-vanguard", Side.B: "vesper-raiders"}
DEFAULTS = Settings()
MARGIN = 0.95
"""The flooding seats keep to this share of the rate limit, so the server never closes
them for it (its clock and ours differ by the network's jitter)."""


class Socket:
    """One websocket of the bench: follows its version, answers, options frames, pongs."""

    def __init__(self, ws: ClientConnection, on_change: Callable[[], None]) -> None:
        self.ws = ws
        self.version = -1
        self.answers: dict[str, tuple[bool, int, str]] = {}
        self.options = 0
        self.pongs: dict[int, float] = {}
        self.closed: int | None = None
        self._on_change = on_change
        self.reader = asyncio.create_task(self._read())

    @classmethod
    async def open(cls, base: str, room: str, token: str | None,
                   on_change: Callable[[], None]) -> Socket:
        ws = await connect("ws" + base.removeprefix("http") + WS_PATH, max_size=None,
                           ping_interval=None, compression=None, open_timeout=60)
        await ws.send(codec.encode(Hello(PROTOCOL_VERSION, room, token)))
        return cls(ws, on_change)

    async def _read(self) -> None:
        try:
            async for frame in self.ws:
                message = msgpack.unpackb(frame, raw=False)
                tag = message["type"]
                if tag == "events":
                    self.version = message["first"] + len(message["events"]) - 1
                    if message.get("accepted") is not None:
                        self.answers[message["accepted"]] = (True, self.version, "")
                elif tag == "snapshot":
                    self.version = message["version"]
                elif tag == "accepted":
                    self.answers[message["id"]] = (True, message["version"], "")
                elif tag == "rejected":
                    self.answers[message["id"]] = (False, -1, message["code"])
                elif tag == "options":
                    self.options += 1
                elif tag == "pong":
                    self.pongs[message["nonce"]] = time.perf_counter()
                self._on_change()
        except ConnectionClosed as closed:
            self.closed = closed.rcvd.code if closed.rcvd is not None else 1006
            self._on_change()

    async def close(self) -> None:
        await self.ws.close()
        with contextlib.suppress(Exception):
            await self.reader


class Room:
    """A room's two seats, playing a script one command after the other."""

    _ids = itertools.count(1)

    def __init__(self, room_id: str, commands: list[tuple[str | None, dict[str, Any]]]) -> None:
        self.room_id = room_id
        self.commands = commands
        self.next = 0
        self.seats: dict[str, Socket] = {}
        self.buckets: dict[str, TokenBucket] = {}
        self._changed = asyncio.Event()

    def changed(self) -> None:
        self._changed.set()

    async def until(self, condition: Callable[[], bool], timeout: float = 60.0) -> None:
        async with asyncio.timeout(timeout):
            while not condition():
                self._changed.clear()
                await self._changed.wait()

    async def open(self, base: str, tokens: dict[str, str]) -> None:
        for side, token in tokens.items():
            self.seats[side] = await Socket.open(base, self.room_id, token, self.changed)
            self.buckets[side] = TokenBucket(DEFAULTS.rate_per_s * MARGIN,
                                             DEFAULTS.rate_burst * MARGIN)
        await self.until(lambda: all(s.version >= 0 for s in self.seats.values()))

    async def play_next(self) -> float:
        """Send the script's next command (skipping the clock's) and wait until both seats
        hold its events; the seconds that took."""
        while self.commands[self.next][0] is None:
            self.next += 1
        side, body = self.commands[self.next]
        assert side is not None
        self.next += 1
        seat = self.seats[side]
        await take(self.buckets[side], MESSAGE_TOKENS[Command])
        command_id = f"c{next(self._ids)}"
        sent = time.perf_counter()
        await seat.ws.send(codec.encode(Command(command_id, seat.version, body)))
        await self.until(lambda: command_id in seat.answers)
        accepted, version, code = seat.answers.pop(command_id)
        if not accepted:
            raise RuntimeError(f"{body['type']} rejected: {code}")
        await self.until(lambda: all(s.version >= version for s in self.seats.values()))
        return time.perf_counter() - sent

    @property
    def done(self) -> bool:
        return self.next >= len(self.commands)


async def take(bucket: TokenBucket, cost: float) -> None:
    """Wait until ``bucket`` holds ``cost`` tokens, and take them."""
    while not bucket.allow(cost):
        await asyncio.sleep(bucket.wait_s(cost))


async def create_room(http: httpx.AsyncClient, ruleset: str, table: str, seed: int) -> dict[str, Any]:
    response = await http.post("/api/rooms", json={
        "ruleset": ruleset, "table": table, "seed": seed, "aro_window_s": 600,
        "visibility": "private"})
    response.raise_for_status()
    data: dict[str, Any] = response.json()
    return data


async def scripted_room(base: str, http: httpx.AsyncClient, game: scripted_game.Script,
                        ruleset: str, table: str) -> Room:
    """A room created, both seats connected and the script's setup played."""
    created = await create_room(http, ruleset, table, game.seed)
    room = Room(created["room"], game.commands())
    await room.open(base, {side: created["seats"][side]["token"] for side in ("A", "B")})
    for _ in game.setup:
        await room.play_next()
    return room


# --- the bystander ------------------------------------------------------------------------


class Bystander:
    """A room going about its game, and a spectator of it pinging: what is measured."""

    def __init__(self, room: Room, spectator: Socket) -> None:
        self.room = room
        self.spectator = spectator
        self.pings_ms: list[float] = []
        self.commands_ms: list[float] = []
        self.lost = 0
        self._nonces = itertools.count(1)

    async def run(self, until: float) -> None:
        await asyncio.gather(self._ping(until), self._play(until))

    async def _ping(self, until: float) -> None:
        while time.perf_counter() < until:
            nonce = next(self._nonces)
            sent = time.perf_counter()
            await self.spectator.ws.send(codec.encode(Ping(nonce)))
            try:
                await self.room.until(self._ponged(nonce), 30.0)
            except TimeoutError:
                self.lost += 1
                continue
            self.pings_ms.append((self.spectator.pongs.pop(nonce) - sent) * 1000.0)
            await asyncio.sleep(max(0.0, sent + PING_EVERY_S - time.perf_counter()))

    async def _play(self, until: float) -> None:
        while time.perf_counter() < until and not self.room.done:
            started = time.perf_counter()
            try:
                self.commands_ms.append(await self.room.play_next() * 1000.0)
            except (RuntimeError, TimeoutError):
                self.lost += 1
            await asyncio.sleep(max(0.0, started + BYSTANDER_COMMAND_EVERY_S
                                    - time.perf_counter()))

    def _ponged(self, nonce: int) -> Callable[[], bool]:
        return lambda: nonce in self.spectator.pongs

    def figures(self) -> dict[str, Any]:
        return {"ping_ms": percentiles(self.pings_ms), "command_ms": percentiles(self.commands_ms),
                "lost": self.lost}


# --- the abuses ---------------------------------------------------------------------------


async def flood_options(rooms: list[Room], until: float, got: Counter[str]) -> None:
    """Each room plays its script as fast as the answers and the rate limit allow, and
    after every command both seats ask for options (each new version makes that a
    computation); the tokens left go to more options requests."""
    cost = MESSAGE_TOKENS[OptionsRequest]
    reserve = cost * 2 + MESSAGE_TOKENS[Command]  # what the next version needs

    async def ask(room: Room, side: str) -> None:
        await take(room.buckets[side], cost)
        await room.seats[side].ws.send(codec.encode(OptionsRequest()))
        got["options_asked"] += 1

    async def play(room: Room, answered: asyncio.Event) -> None:
        try:
            while time.perf_counter() < until and not room.done:
                try:
                    await room.play_next()
                except (RuntimeError, TimeoutError) as error:
                    got[f"flood_command_error: {error}"[:80]] += 1
                    return
                finally:
                    answered.set()
                got["flood_commands"] += 1
                await asyncio.gather(*(ask(room, side) for side in room.seats))
        finally:
            answered.set()

    async def more(room: Room, side: str, answered: asyncio.Event) -> None:
        # Only once the room's first command was answered: the flood may use up a seat's
        # loop-time budget (closed with 4008), and on a slow host it did so before that
        # answer came, and the room played no command.
        await answered.wait()
        bucket = room.buckets[side]
        while time.perf_counter() < until and room.seats[side].closed is None:
            if bucket.wait_s(reserve) > 0:
                await asyncio.sleep(bucket.wait_s(reserve))
                continue
            await ask(room, side)

    before = sum(seat.options for room in rooms for seat in room.seats.values())
    answered = {room: asyncio.Event() for room in rooms}
    with contextlib.suppress(ConnectionClosed):
        await asyncio.gather(*(play(room, answered[room]) for room in rooms),
                             *(more(room, side, answered[room])
                               for room in rooms for side in room.seats))
    got["options_answered"] += sum(seat.options for room in rooms
                                   for seat in room.seats.values()) - before
    for seat in (seat for room in rooms for seat in room.seats.values()):
        if seat.closed is not None:
            got[f"seat_closed_{seat.closed}"] += 1


async def flood_rooms(base: str, clients: int, until: float, got: Counter[str]) -> None:
    """Create rooms as fast as answered: half from this address, half each time from a
    new one (X-Forwarded-For, believed from loopback)."""
    async def one(spoof: bool) -> None:
        async with httpx.AsyncClient(base_url=base, timeout=30) as http:
            while time.perf_counter() < until:
                headers = {"x-forwarded-for": f"10.{random.randrange(256)}."
                           f"{random.randrange(256)}.{random.randrange(1, 255)}"} if spoof else {}
                response = await http.post("/api/rooms", json={"ruleset": "codeone"},
                                           headers=headers)
                got[f"rooms_{response.status_code}"] += 1
    await asyncio.gather(*(one(spoof) for spoof in (False, True) for _ in range(clients)))


def _head(path: str, extra: str) -> bytes:
    return (f"POST {path} HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n"
            f"{extra}\r\n\r\n").encode()


async def flood_bodies(base: str, path: str, clients: int, until: float,
                       got: Counter[str]) -> None:
    """Bodies over the limit, sent to ``path`` (a route that reads its body) as fast as
    the server takes them: a declared 100 MB (streamed on after the answer), and chunked
    ones with no length."""
    host, port = base.removeprefix("http://").split(":")
    piece = b"x" * 65536

    async def one(chunked: bool) -> None:
        while time.perf_counter() < until:
            reader, writer = await asyncio.open_connection(host, int(port))
            try:
                writer.write(_head(path, "Transfer-Encoding: chunked" if chunked
                                   else "Content-Length: 100000000"))
                answer = asyncio.ensure_future(reader.readline())
                # A reset while sending fails this read too: its error is the one counted
                # below, not one for the loop to log as never retrieved.
                answer.add_done_callback(lambda read: read.cancelled() or read.exception())
                sent = 0
                while not answer.done() and sent < 16 * MAX_BODY_BYTES:
                    writer.write(b"%x\r\n%s\r\n" % (len(piece), piece) if chunked else piece)
                    await writer.drain()
                    sent += len(piece)
                    await asyncio.sleep(0)
                status = (await asyncio.wait_for(answer, 30)).split(b" ")[1].decode()
                got[f"bodies_{status}"] += 1
                got["body_bytes_sent"] += sent
            except (OSError, TimeoutError, IndexError):
                got["bodies_connection_error"] += 1
            finally:
                writer.close()
    await asyncio.gather(*(one(chunked) for chunked in (False, True) for _ in range(clients)))


NOT_JSON = (
    b"[" * 30_000 + b"]" * 30_000,
    b'{"table": ' + b'{"a":' * 10_000 + b"1" + b"}" * 10_000 + b"}",
    b'{"aro_window_s": NaN}',
    b'{"seed": ' + b"9" * 4_300 + b"}",
)


async def flood_json(base: str, path: str, clients: int, until: float,
                     got: Counter[str]) -> None:
    """Bodies that are no JSON object, posted to ``path`` as fast as answered."""
    async def one(index: int) -> None:
        async with httpx.AsyncClient(base_url=base, timeout=30) as http:
            for body in itertools.cycle(NOT_JSON[index % len(NOT_JSON):] + NOT_JSON):
                if time.perf_counter() >= until:
                    return
                response = await http.post(path, content=body,
                                           headers={"content-type": "application/json"})
                got[f"json_{response.status_code}"] += 1
    await asyncio.gather(*(one(i) for i in range(clients)))


# --- the run ------------------------------------------------------------------------------


@contextlib.asynccontextmanager
async def referee(redis_url: str, core: str | None, log: Path,
                  budgets: bool) -> AsyncIterator[tuple[str, int]]:
    port = free_port()
    env = dict(os.environ, REDIS_URL=redis_url, REFEREE_ALLOW_FIXED_SEED="1",
               REFEREE_NODE_ID="abuse-node", PYTHONPATH=str(REPO),
               REFEREE_ACCEPT_REDIS_DURABILITY="everysec")  # bench.run's Redis
    if not budgets:
        env.update(REFEREE_WORK_SEAT_MS_PER_S="0", REFEREE_WORK_SPECTATORS_MS_PER_S="0",
                   REFEREE_WORK_NODE_SHARE="0")
    process = await asyncio.create_subprocess_exec(
        *pinned(core, [PYTHON, "-m", "server", "--port", str(port), "--log-level", "warning"]),
        cwd=REPO, env=env, stdout=log.open("ab"), stderr=asyncio.subprocess.STDOUT)
    try:
        await wait_http(f"http://127.0.0.1:{port}/healthz", process)
        yield f"http://127.0.0.1:{port}", process.pid
    finally:
        await stop(process)


HTTP_ABUSES = ("rooms", "bodies", "json")


def abuses(phase: str, args: argparse.Namespace, base: str, path: str, flood: list[Room],
           until: float, got: Counter[str]) -> Iterator[Awaitable[None]]:
    """The phase's abuses: the options flood from this process (its 8 sockets cost little
    here), each HTTP flood from a process of its own (a Python client's CPU would
    otherwise be the bystander's loop lag)."""
    if phase in ("options", "all"):
        yield flood_options(flood, until, got)
    for kind in HTTP_ABUSES:
        if phase in (kind, "all"):
            yield http_abuse(kind, base, path, args.clients, until - time.perf_counter(), got)


async def http_abuse(kind: str, base: str, path: str, clients: int, seconds: float,
                     got: Counter[str]) -> None:
    _, load_core = cores()
    process = await asyncio.create_subprocess_exec(
        *pinned(load_core, [PYTHON, "-m", "bench.abuse", "--http-abuse", kind, "--base", base,
                            "--path", path, "--clients", str(clients),
                            "--duration", str(seconds)]),
        cwd=REPO, stdout=asyncio.subprocess.PIPE)
    out, _ = await process.communicate()
    lines = out.decode().strip().splitlines()
    if process.returncode != 0 or not lines:
        got[f"{kind}_flood_failed_{process.returncode}"] += 1
        return
    got.update(json.loads(lines[-1]))


async def run_http_abuse(args: argparse.Namespace) -> dict[str, int]:
    got: Counter[str] = Counter()
    until = time.perf_counter() + args.duration
    if args.http_abuse == "rooms":
        await flood_rooms(args.base, args.clients, until, got)
    elif args.http_abuse == "bodies":
        await flood_bodies(args.base, args.path, args.clients, until, got)
    else:
        await flood_json(args.base, args.path, args.clients, until, got)
    return dict(got)


def core_busy(core: str | None) -> tuple[float, float]:
    """(busy, total) jiffies of ``core`` so far (/proc/stat), or of the machine."""
    name = f"cpu{core}" if core is not None and core.isdigit() else "cpu"
    with open("/proc/stat") as handle:
        for line in handle:
            fields = line.split()
            if fields[0] == name:
                values = [int(v) for v in fields[1:9]]
                idle = values[3] + values[4]
                return float(sum(values) - idle), float(sum(values))
    return 0.0, 0.0


def load_average() -> list[float]:
    """The machine's 1, 5 and 15 minute load averages (what else ran shows in them)."""
    return [round(x, 2) for x in os.getloadavg()]


STALL = re.compile(r"event loop ran ([0-9.]+) ms late")


def stalls(log: Path, offset: int) -> tuple[list[float], int]:
    """The referee's loop stalls of 20 ms or more logged after ``offset`` (its
    ``server.loop`` warnings), and the log's new end."""
    with log.open("rb") as handle:
        handle.seek(offset)
        text = handle.read().decode(errors="replace")
    return [float(m) for m in STALL.findall(text)], offset + len(text.encode())


class LoopLag:
    """How late a 50 ms timer of this process fires: what of the bystander's latency is
    this process's own (the load core is shared with Redis and the HTTP floods)."""

    def __init__(self) -> None:
        self.lags_ms: list[float] = []

    async def run(self, until: float) -> None:
        while time.perf_counter() < until:
            due = time.perf_counter() + 0.05
            await asyncio.sleep(0.05)
            self.lags_ms.append((time.perf_counter() - due) * 1000.0)


async def measure(args: argparse.Namespace) -> dict[str, Any]:
    server_core, load_core = cores()
    if load_core is not None and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {int(c) for c in load_core.split("-")})
    bystander_game = scripted_game.plan(args.seed, max_orders=400)
    flood_game = scripted_game.plan(args.seed, ruleset="n5", table=FLOOD_TABLE,
                                    armies=FLOOD_ARMIES)
    started = datetime.datetime.now(datetime.UTC)
    load_before = load_average()
    phases: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="bench-abuse-") as tmp:
        workdir = Path(tmp)
        log = args.results_dir / f"abuse-{started:%Y-%m-%dT%H%M%SZ}-referee.log"
        args.results_dir.mkdir(parents=True, exist_ok=True)
        async with redis_server(workdir, load_core) as redis_url, \
                referee(redis_url, server_core, log, not args.no_budgets) as (base, pid):
            async with httpx.AsyncClient(base_url=base, timeout=60) as http:
                room = await scripted_room(base, http, bystander_game, scripted_game.RULESET,
                                           scripted_game.TABLE)
                spectator = await Socket.open(base, room.room_id, None, room.changed)
                flood = [await scripted_room(base, http, flood_game, "n5", FLOOD_TABLE)
                         for _ in range(args.flood_rooms)]
            bystander = Bystander(room, spectator)
            join_path = f"/api/rooms/{room.room_id}/join"  # a route that reads its body
            _, log_offset = stalls(log, 0)
            for phase in args.phases:
                got: Counter[str] = Counter()
                lag = LoopLag()
                bystander.pings_ms, bystander.commands_ms, bystander.lost = [], [], 0
                core_before = core_busy(server_core)
                cpu_before, wall_before = cpu_seconds(pid), time.perf_counter()
                until = wall_before + args.duration
                await asyncio.gather(bystander.run(until), lag.run(until),
                                     *abuses(phase, args, base, join_path, flood, until, got))
                wall = time.perf_counter() - wall_before
                busy, total = (after - before for after, before
                               in zip(core_busy(server_core), core_before, strict=True))
                late, log_offset = stalls(log, log_offset)
                phases[phase] = {
                    **bystander.figures(), "bench_loop_lag_ms": percentiles(lag.lags_ms),
                    "server_cpu_share": round((cpu_seconds(pid) - cpu_before) / wall, 3),
                    "server_core_busy_share": round(busy / total, 3) if total else None,
                    "server_loop_stalls_ms": percentiles(late),
                    "seconds": round(wall, 2), "abuse": dict(sorted(got.items()))}
                print(f"{phase}: ping p50 {phases[phase]['ping_ms']['p50']} ms", flush=True)
    return {"kind": "abuse", "date": started.isoformat(), "commit": git_commit(),
            "uncommitted_server_changes": git_dirty(),
            "machine": {"cpus": os.cpu_count(), "server_core": server_core,
                        "load_cores": load_core, "load_average_before": load_before,
                        "load_average_after": load_average()},
            "params": {"duration_s": args.duration, "flood_rooms": args.flood_rooms,
                       "clients": args.clients, "budgets": not args.no_budgets,
                       "seed": args.seed, "phases": list(args.phases)},
            "target_p50_ms": TARGET_P50_MS, "referee_log": log.name, "phases": phases}


def markdown(result: dict[str, Any]) -> str:
    params = result["params"]
    lines = [
        f"# Abuse: a bystander room's latency ({result['date'][:10]}, `{result['commit']}`"
        f"{', uncommitted server changes' if result['uncommitted_server_changes'] else ''})",
        "",
        f"{params['flood_rooms']} flooding rooms ({2 * params['flood_rooms']} seats), "
        f"{params['clients']} clients per kind of HTTP abuse, {params['duration_s']:g} s a "
        f"phase; loop-time budgets {'on' if params['budgets'] else 'OFF'}.", "",
        "| phase | ping p50 ms | p90 | p99 | max | command p50 ms | p99 | server CPU "
        "(its core busy) | server loop stalls >= 20 ms (max ms) | bench loop lag p50/p99 ms | "
        f"p50 < {result['target_p50_ms']:g} ms | what the abuse got |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for phase, figures in result["phases"].items():
        ping, command = figures["ping_ms"], figures["command_ms"]
        met = ping["p50"] is not None and ping["p50"] < result["target_p50_ms"]
        got = ", ".join(f"{key} {value}" for key, value in figures["abuse"].items()) or "-"
        lag, late = figures["bench_loop_lag_ms"], figures["server_loop_stalls_ms"]
        lines.append(f"| {phase} | {ping['p50']} | {ping['p90']} | {ping['p99']} | "
                     f"{ping['max']} | {command['p50']} | {command['p99']} | "
                     f"{figures['server_cpu_share']} ({figures['server_core_busy_share']}) | "
                     f"{late['count']} ({late['max'] or '-'}) | {lag['p50']}/{lag['p99']} | "
                     f"{'yes' if met else 'NO'} | {got} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> Path:
    parser = argparse.ArgumentParser(prog="python -m bench.abuse", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", type=float, default=10.0, help="seconds per phase")
    parser.add_argument("--flood-rooms", type=int, default=4,
                        help="rooms whose seats flood options (2 seats each)")
    parser.add_argument("--clients", type=int, default=4,
                        help="connections per kind of HTTP abuse")
    parser.add_argument("--phases", nargs="+", choices=PHASES, default=list(PHASES))
    parser.add_argument("--no-budgets", action="store_true",
                        help="run the referee without the queries' loop-time budgets")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--results-dir", type=Path, default=RESULTS)
    parser.add_argument("--history", type=Path, default=HISTORY,
                        help="append the run's record to this JSON-lines file (default: "
                             "bench/history.jsonl, read by `python -m bench.summarize`)")
    parser.add_argument("--no-history", dest="history", action="store_const", const=None,
                        help="a throwaway run: keep no record of it in the history")
    parser.add_argument("--http-abuse", choices=HTTP_ABUSES, help=argparse.SUPPRESS)
    parser.add_argument("--base", help=argparse.SUPPRESS)
    parser.add_argument("--path", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.http_abuse:  # one HTTP flood, in a process of its own: its tally on stdout
        print(json.dumps(uvloop.run(run_http_abuse(args))), flush=True)
        return args.results_dir  # type: ignore[no-any-return]
    result = uvloop.run(measure(args))
    stem = f"abuse-{result['date'][:19].replace(':', '')}Z"
    path: Path = args.results_dir / f"{stem}.json"
    path.write_text(json.dumps(result, indent=2))
    text = markdown(result)
    path.with_suffix(".md").write_text(text)
    print(text)
    print(f"results: {path}")
    record_run(result, args.history, source="bench.abuse")
    return path


if __name__ == "__main__":
    main()
