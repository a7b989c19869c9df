"""``python -m bench.bus_cost``: the room bus's CPU per message (``server.cluster.bus``)
against a real Redis, without rooms or sockets to clients.

Two processes, as two nodes: this one publishes ``--messages`` messages of ``--size`` bytes
on one channel through a ``RoomBus``; a child process subscribes to that channel through a
``RoomBus`` of its own and receives them (checking their order).

* ``publish, flushes of 1``: one message, then wait until the writer has had Redis confirm
  it, then the next (the room at a human pace: every message its own flush);
* ``publish, flushes of 32``: 32 messages at once, then wait for them (a busy room: the
  writer sends the 32 in one flush);
* ``read``: the subscribing process's CPU from the first message of a pass to its last,
  per message (for both publishing paces: at 32 per flush, a read brings several).

Figures are µs of process CPU per message, the least of ``--repeat`` passes (the machine is
shared: the least disturbed pass). "Confirmed" is read from the bus's private ``_flush``
(wrapped to signal when the outbox is empty after one), the one hook the bench needs.

redis-server is started here on a free loopback port unless ``--redis-url``. The event loop
is uvloop's, as the referee's (``--loop asyncio`` for the standard library's).

A micro-benchmark of ``server.cluster.bus.RoomBus``, reached on purpose.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import multiprocessing
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from multiprocessing.connection import Connection
from typing import Any

import redis.asyncio as aioredis
import uvloop

from server.cluster.bus import RoomBus
from server.cluster.sharded_bus import ShardedRoomBus

LOOPS: dict[str, Callable[[], asyncio.AbstractEventLoop]] = {
    "uvloop": uvloop.new_event_loop, "asyncio": asyncio.new_event_loop}
CHANNEL = "{room:bus-cost}:out"
FLUSHES = (1, 32)


def signal_drained(bus: RoomBus | ShardedRoomBus) -> asyncio.Event:
    """An event set each time a flush of ``bus`` leaves its outbox empty (before ``start``:
    the writer takes the bus's ``_flush`` when it starts)."""
    drained = asyncio.Event()
    flush = bus._flush

    async def flushed() -> None:
        await flush()
        if not bus._outbox:
            drained.set()

    bus._flush = flushed  # type: ignore[method-assign]
    return drained


class PassReader:
    """A subscriber's handler: checks that messages come in order and, at the end of each
    pass of ``count``, hands ``report`` its CPU per message over the pass (from the pass's
    first message to its last) and the wall time of its last message; ``done`` once
    ``passes`` passes are in."""

    def __init__(self, count: int, passes: int,
                 report: Callable[[float, float], None]) -> None:
        self._count = count
        self._passes = passes
        self._report = report
        self._seen = 0
        self._next = 0
        self._started = 0.0
        self.done = asyncio.get_running_loop().create_future()

    def __call__(self, data: bytes) -> None:
        seq = int.from_bytes(data[:8], "big")
        if seq != self._next:
            raise SystemExit(f"out of order: {seq} after {self._next - 1}")
        self._next = seq + 1
        self._seen += 1
        if self._seen % self._count == 1:
            self._started = time.process_time()
        elif self._seen % self._count == 0:
            self._report((time.process_time() - self._started) / (self._count - 1) * 1e6,
                         time.time())
            if self._seen == self._count * self._passes:
                self.done.set_result(None)


@contextlib.contextmanager
def redis_server() -> Iterator[str]:
    """A throw-away redis-server on a free loopback port, as ``bench.run`` starts it (here
    rather than imported: this bench loads no rules engine, so it runs on any checkout)."""
    binary = shutil.which("redis-server") or "/usr/bin/redis-server"
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with tempfile.TemporaryDirectory(prefix="bus-cost-") as workdir:
        process = subprocess.Popen(
            [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "yes", "--appendfsync", "everysec", "--dir", workdir,
             "--daemonize", "no", "--logfile", ""], stdout=subprocess.PIPE)
        try:
            assert process.stdout is not None
            for line in process.stdout:  # until it says it listens
                if b"ready to accept connections" in line.lower():
                    break
            else:
                raise RuntimeError("redis-server did not start")
            # Keep reading its log, so that a full pipe never stops it.
            threading.Thread(target=process.stdout.read, daemon=True).start()
            yield f"redis://127.0.0.1:{port}/0"
        finally:
            process.terminate()
            process.wait()


def payload(seq: int, size: int) -> bytes:
    return seq.to_bytes(8, "big") + b"x" * max(0, size - 8)


async def publish_pass(bus: RoomBus | ShardedRoomBus, drained: asyncio.Event, channel: str,
                       first: int, count: int, flush: int, size: int) -> None:
    """Publish messages ``first`` to ``first + count - 1``, ``flush`` at a time, each batch
    confirmed by Redis before the next (``drained``: ``signal_drained``'s)."""
    seq = first
    while seq < first + count:
        for _ in range(min(flush, first + count - seq)):
            bus.publish(channel, payload(seq, size))
            seq += 1
        await drained.wait()
        drained.clear()


async def read_passes(bus: RoomBus | ShardedRoomBus, channel: str, count: int, passes: int,
                      pipe: Connection) -> None:
    """A subscribing node's part: start ``bus``, subscribe to ``channel``, say "ready"
    through ``pipe``, then send back, for each pass of ``count`` messages, its CPU per
    message and when the pass's last one came (``PassReader``); close ``bus`` once
    ``passes`` are in."""
    await bus.start()
    heard = PassReader(count, passes, lambda spent, at: pipe.send((spent, at)))
    await bus.subscribe(channel, heard)
    pipe.send("ready")
    await heard.done
    await bus.close()


def _read(url: str, loop: str, passes: int, count: int, pipe: Connection) -> None:
    """The subscribing node: for each pass, its CPU from the pass's first message to its
    last, sent back through ``pipe``."""

    async def main() -> None:
        client = aioredis.Redis.from_url(url)
        await read_passes(RoomBus(client, "bus-cost-reader", lambda: None), CHANNEL, count,
                          passes, pipe)
        await client.aclose()

    with asyncio.Runner(loop_factory=LOOPS[loop]) as runner:
        runner.run(main())


def measure(url: str, args: argparse.Namespace) -> dict[str, Any]:
    passes = len(FLUSHES) * args.repeat
    ours, theirs = multiprocessing.get_context("spawn").Pipe()
    reader = multiprocessing.get_context("spawn").Process(
        target=_read, args=(url, args.loop, passes, args.messages, theirs), daemon=True)
    reader.start()
    try:
        if ours.recv() != "ready":
            raise RuntimeError("the reader did not start")
        publish: dict[int, float] = {}
        read: dict[int, float] = {}

        async def run() -> None:
            client = aioredis.Redis.from_url(url)
            bus = RoomBus(client, "bus-cost-writer", lambda: None)
            drained = signal_drained(bus)
            await bus.start()
            seq = 0
            for flush in FLUSHES:
                for _ in range(args.repeat):
                    started = time.process_time()
                    await publish_pass(bus, drained, CHANNEL, seq, args.messages, flush,
                                       args.size)
                    spent = (time.process_time() - started) / args.messages * 1e6
                    seq += args.messages
                    publish[flush] = min(publish.get(flush, float("inf")), spent)
                    # (the reader's figure comes through the pipe; read it outside the pass)
                    reader_us, _ = await asyncio.to_thread(ours.recv)
                    read[flush] = min(read.get(flush, float("inf")), reader_us)
            await bus.close()
            await client.aclose()

        with asyncio.Runner(loop_factory=LOOPS[args.loop]) as runner:
            runner.run(run())
    finally:
        reader.join(timeout=10)
        if reader.is_alive():
            reader.terminate()
    return {"publish_us": {f: round(v, 2) for f, v in publish.items()},
            "read_us": {f: round(v, 2) for f, v in read.items()}}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.bus_cost", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--messages", type=int, default=20_000, help="per pass")
    parser.add_argument("--size", type=int, default=200, help="bytes per message (>= 8)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--redis-url", help="an existing Redis (default: start one)")
    parser.add_argument("--loop", choices=sorted(LOOPS), default="uvloop",
                        help="the event loop (default: uvloop, as the referee runs)")
    args = parser.parse_args(argv)
    with contextlib.ExitStack() as stack:
        url = args.redis_url or stack.enter_context(redis_server())
        result = measure(url, args)
    print(f"{args.messages} messages of {args.size} bytes per pass, {args.repeat} passes "
          f"({args.loop}); µs of process CPU per message, least of the passes")
    for flush in FLUSHES:
        print(f"publish, flushes of {flush:2d}: {result['publish_us'][flush]:7.2f} µs/message"
              f"   read: {result['read_us'][flush]:7.2f} µs/message")


if __name__ == "__main__":
    main()
