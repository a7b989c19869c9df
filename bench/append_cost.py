"""``python -m bench.append_cost``: the referee's CPU per stored command on Redis, without
sockets or rules: ``--rooms`` rooms store the scripted game's commands through
``RedisRoomStore.append``, all rooms at once each round, so each round's appends share one
group commit (one pipeline) as the rooms of a busy referee do.

Each command's append carries what the room stores for it (``Room._commit``): the command's
events as msgpack, one open deadline, and a snapshot when the room would take one (every
``snapshot_every`` versions and at every change of phase, round or turn). Rooms are private,
as the benchmark's are, unless ``--public`` (then each append also carries a listing).

The event loop is uvloop's, as the referee's (``--loop asyncio`` for the standard library's).
``--rooms 1`` is the referee at a human pace: one append per round trip.

Figures are the minimum over ``--repeat`` passes of process CPU time (the machine is shared:
the minimum is the least disturbed pass), per append:

* ``redis``: the appends through ``RedisRoomStore`` (redis-server started here, on a free
  loopback port, unless ``--redis-url``);
* ``memory``: the same rounds through ``MemoryRoomStore`` -- the tasks, the gather and the
  store's own bookkeeping, with no Redis client at all;
* ``redis client``: the difference, the Redis client's share of an append;
* ``socket round trip``: for scale, a bare ``PING`` round trip on a blocking socket (the
  kernel's part of any round trip, which varies with the machine's state: 9 to 25 µs on the
  shared 2-core VMs), per append (each round is one round trip for all its rooms).

Redis commands per append are read from ``INFO commandstats`` around one pass.

A micro-benchmark of ``server.store.redis_store.RedisRoomStore.append`` (the Redis
implementation behind the ``RoomStore`` interface), reached on purpose.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import redis
import uvloop

from bench.measure import min_cpu_us
from bench.rules_cost import ENGINE, commands
from bench.run import free_port
from protocol import codec
from server.config import Settings
from server.rooms.numbering import NONE_SEEN
from server.rooms.snapshot_policy import SnapshotPolicy
from server.store import Deadline, Listing, MemoryRoomStore, RoomMeta, RoomSettings, RoomStore
from server.store.redis_store import RedisRoomStore

LOOPS: dict[str, Callable[[], asyncio.AbstractEventLoop]] = {
    "uvloop": uvloop.new_event_loop, "asyncio": asyncio.new_event_loop}
SNAPSHOT_EVERY = Settings().snapshot_every  # server.config's default
SCRIPT_COMMANDS = {"hmget", "hget", "hset", "hdel", "xadd", "xtrim"}
"""Commands the append script runs inside Redis (INFO counts them too)."""


@dataclass(frozen=True, slots=True)
class Write:
    """One accepted command as the room stores it."""

    events: list[bytes]
    snapshot: bytes | None
    armies: bytes | None = None


def game_writes(seed: int) -> list[Write]:
    """The scripted game's commands as appends, snapshots taken as the room takes them."""
    writes: list[Write] = []
    state = ENGINE.new_game("codeone", seed)
    policy = SnapshotPolicy(ENGINE, SNAPSHOT_EVERY, 0)
    version = 0
    for side, body in commands(seed):
        events = ENGINE.decide(state, side, ENGINE.parse_command(body)).events or ()
        after = ENGINE.apply_all(state, events)
        version += len(events)
        taken = None
        if policy.due(state, ENGINE.public_summary(after), version):
            taken = policy.take(after, NONE_SEEN)
            policy.stored(version, taken)
        writes.append(Write([codec.pack_plain(ENGINE.event_to_plain(e)) for e in events],
                            None if taken is None else taken.snapshot,
                            None if taken is None else taken.armies))
        state = after
    return [write for write in writes if write.events]


class Rooms:
    """``count`` rooms of one store, each at its own version, writing the game in turn."""

    def __init__(self, store: RoomStore, count: int, public: bool) -> None:
        self.store = store
        self.public = public
        visibility = "public" if public else "private"
        run = uuid.uuid4().hex[:8]  # rooms of an earlier run on the same --redis-url differ
        settings = RoomSettings("codeone", 2.0, visibility, fixed_seed=7)  # type: ignore[arg-type]
        self.metas = [RoomMeta(f"cost-{run}-{n}", settings, "a" * 64, "b" * 64, 1) for n in range(count)]
        self.fences: list[int] = []
        self.versions = [0] * count
        self.step = 0

    async def create(self) -> None:
        for meta in self.metas:
            await self.store.create_room(meta, b"snapshot-0", self._listing(meta, 0))
            fence = await self.store.claim_room(meta.room_id, "bench")
            assert fence is not None
            self.fences.append(fence)

    async def round(self, writes: list[Write]) -> None:
        """Every room appends its next write, all in the same loop iteration."""
        write = writes[self.step % len(writes)]
        self.step += 1
        await asyncio.gather(*(self._append(n, write) for n in range(len(self.metas))))

    async def _append(self, n: int, write: Write) -> None:
        meta = self.metas[n]
        version = self.versions[n]
        self.versions[n] = await self.store.append(
            meta.room_id, fence=self.fences[n], expected_version=version, events=write.events,
            snapshot=write.snapshot, armies=write.armies,
            deadlines=(Deadline("aro_window", f"{version}:1", 10**12),),
            listing=self._listing(meta, version + 1))

    def _listing(self, meta: RoomMeta, version: int) -> Listing | None:
        if not self.public:
            return None
        return Listing(meta.room_id, "codeone", "orders", 1, 1, "A", 4, 2, 10**12 + version)


@contextlib.contextmanager
def redis_server() -> Iterator[str]:
    """A throw-away redis-server on a free loopback port (append-only file on, as the
    benchmark runs it)."""
    binary = shutil.which("redis-server") or "/usr/bin/redis-server"
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="append-cost-") as workdir:
        process = subprocess.Popen(
            [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "yes", "--appendfsync", "everysec", "--dir", workdir,
             "--daemonize", "no", "--loglevel", "warning"], stdout=subprocess.DEVNULL)
        url = f"redis://127.0.0.1:{port}/0"
        try:
            client = redis.Redis.from_url(url)
            for _ in range(400):  # until it listens (at most ~10 s)
                with contextlib.suppress(redis.ConnectionError):
                    client.ping()
                    break
                time.sleep(0.025)
            client.close()
            yield url
        finally:
            process.terminate()
            process.wait()


def command_counts(url: str) -> Counter[str]:
    """Commands Redis has run so far by name (those a script runs included), INFO excepted."""
    client = redis.Redis.from_url(url)
    try:
        stats: dict[str, Any] = client.info("commandstats")
    finally:
        client.close()
    return Counter({name.removeprefix("cmdstat_"): int(v["calls"])
                    for name, v in stats.items() if name != "cmdstat_info"})


def cost(store: RoomStore, writes: list[Write], args: argparse.Namespace,
         commands_so_far: Callable[[], Counter[str]] = Counter) -> tuple[float, dict[str, float]]:
    """µs of process CPU per append (the least of ``args.repeat`` passes), and the store's
    commands per append by name (as ``commands_so_far`` counts them) over those passes."""
    with asyncio.Runner(loop_factory=LOOPS[args.loop]) as runner:
        rooms = Rooms(store, args.rooms, args.public)
        runner.run(rooms.create())
        runner.run(rooms.round(writes))  # connections opened, script loaded

        async def rounds() -> None:
            for _ in range(args.rounds):
                await rooms.round(writes)

        before = commands_so_far()
        appends = args.rooms * args.rounds
        spent = min_cpu_us(lambda: runner.run(rounds()), args.repeat, appends)
        commands_run = commands_so_far() - before
        runner.run(store.close())
    total = appends * args.repeat
    return spent, {name: round(calls / total, 2) for name, calls in commands_run.items()}


def socket_round_trip_us(url: str, repeat: int, count: int = 2000) -> float:
    """µs of process CPU per ``PING`` round trip on a blocking socket (least of ``repeat``)."""
    address = redis.connection.parse_url(url)
    if "path" in address:  # unix://
        sock = socket.socket(socket.AF_UNIX)
        sock.connect(address["path"])
    else:
        sock = socket.create_connection((address.get("host", "127.0.0.1"),
                                         address.get("port", 6379)))
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    with sock:

        def ping() -> None:
            for _ in range(count):
                sock.sendall(b"*1\r\n$4\r\nPING\r\n")
                sock.recv(64)

        return min_cpu_us(ping, repeat, count)


def measure(args: argparse.Namespace) -> dict[str, Any]:
    writes = game_writes(args.seed)
    with contextlib.ExitStack() as stack:
        url = args.redis_url or stack.enter_context(redis_server())
        redis_us, per_append = cost(RedisRoomStore.from_url(url), writes, args,
                                    lambda: command_counts(url))
        floor_us = socket_round_trip_us(url, args.repeat) / args.rooms
    memory_us, _ = cost(MemoryRoomStore(), writes, args)
    return {
        "events_per_append": sum(len(w.events) for w in writes) / len(writes),
        "snapshots_per_append": sum(w.snapshot is not None for w in writes) / len(writes),
        "commands_per_append": per_append,
        "us": {"redis": redis_us, "memory": memory_us,
               "redis client": round(redis_us - memory_us, 1),
               "socket round trip": round(floor_us, 1)},
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.append_cost", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rooms", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--public", action="store_true", help="public rooms (with a listing)")
    parser.add_argument("--redis-url", help="an existing Redis (default: start one)")
    parser.add_argument("--loop", choices=sorted(LOOPS), default="uvloop",
                        help="the event loop (default: uvloop, as the referee runs)")
    args = parser.parse_args(argv)
    result = measure(args)
    print(f"{args.rooms} {'public' if args.public else 'private'} rooms x {args.rounds} "
          f"rounds ({args.loop}); {result['events_per_append']:.2f} events and "
          f"{result['snapshots_per_append']:.2f} snapshots per append")
    per_append = result["commands_per_append"]
    sent = {name: n for name, n in per_append.items() if name not in SCRIPT_COMMANDS and n}
    print(f"Redis commands per append: {sum(sent.values()):.2f} sent "
          f"({', '.join(f'{name} {n:g}' for name, n in sorted(sent.items()))}), "
          f"{sum(per_append.values()) - sum(sent.values()):.2f} run by the script")
    for name, value in result["us"].items():
        print(f"{name:17s} {value:8,.1f} µs/append")


if __name__ == "__main__":
    main()
