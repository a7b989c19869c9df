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
(a subclass signals when the outbox is empty after one), the one hook the bench needs.

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

LOOPS: dict[str, Callable[[], asyncio.AbstractEventLoop]] = {
    "uvloop": uvloop.new_event_loop, "asyncio": asyncio.new_event_loop}
CHANNEL = "{room:bus-cost}:out"
FLUSHES = (1, 32)


class _DrainedBus(RoomBus):
    """A ``RoomBus`` that says when a flush left its outbox empty."""

    drained: asyncio.Event | None = None

    async def _flush(self) -> None:
        await super()._flush()
        if not self._outbox and self.drained is not None:
            self.drained.set()


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


def _payload(seq: int, size: int) -> bytes:
    return seq.to_bytes(8, "big") + b"x" * max(0, size - 8)


async def _publish(bus: _DrainedBus, first: int, count: int, flush: int, size: int) -> None:
    drained = bus.drained = asyncio.Event()
    seq = first
    while seq < first + count:
        for _ in range(min(flush, first + count - seq)):
            bus.publish(CHANNEL, _payload(seq, size))
            seq += 1
        await drained.wait()
        drained.clear()


def _read(url: str, loop: str, passes: int, count: int, pipe: Connection) -> None:
    """The subscribing node: for each pass, its CPU from the pass's first message to its
    last, sent back through ``pipe``."""

    async def main() -> None:
        client = aioredis.Redis.from_url(url)
        bus = RoomBus(client, "bus-cost-reader", lambda: None)
        await bus.start()
        done = asyncio.get_running_loop().create_future()
        state = {"seen": 0, "started": 0.0, "next": 0}
        results: list[float] = []

        def heard(data: bytes) -> None:
            seq = int.from_bytes(data[:8], "big")
            if seq != state["next"]:
                raise SystemExit(f"out of order: {seq} after {state['next'] - 1}")
            state["next"] = seq + 1
            seen = state["seen"] = state["seen"] + 1
            if seen % count == 1:
                state["started"] = time.process_time()
            elif seen % count == 0:
                results.append((time.process_time() - state["started"]) / (count - 1) * 1e6)
                pipe.send(results[-1])
                if len(results) == passes:
                    done.set_result(None)

        await bus.subscribe(CHANNEL, heard)
        pipe.send("ready")
        await done
        await bus.close()
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
            bus = _DrainedBus(client, "bus-cost-writer", lambda: None)
            await bus.start()
            seq = 0
            for flush in FLUSHES:
                for _ in range(args.repeat):
                    started = time.process_time()
                    await _publish(bus, seq, args.messages, flush, args.size)
                    spent = (time.process_time() - started) / args.messages * 1e6
                    seq += args.messages
                    publish[flush] = min(publish.get(flush, float("inf")), spent)
                    # (the reader's figure comes through the pipe; read it outside the pass)
                    reader_us = await asyncio.to_thread(ours.recv)
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
