"""``python -m bench.shard_fanout_cost``: one room's sharded channel read by several nodes --
what a crowd's relay nodes cost Redis (``server.cluster.sharded_bus``) on a real local Redis
Cluster, without rooms or sockets to clients.

The 50,000-viewer final of docs/capacity.md puts its spectators on relay nodes that all
subscribe to the room's ``{room:<id>}:out``: every message the owner publishes, the room's
master sends once per subscribed node. Here one process publishes ``--messages`` messages of
``--size`` bytes on one channel through a ``ShardedRoomBus``, and ``--subscribers`` child
processes (each a node: its own ``ShardedRoomBus``, one connection to the master) receive
them and check their order. For each count of subscribers, each pace:

* ``flushes of 1``: one message, then wait until the master confirmed it, then the next (a
  room at a human pace: every frame its own flush);
* ``flushes of 32``: 32 at once, then wait (a busy owner: one write for the 32).

Figures per pass, the least of ``--repeat`` passes (the machine is shared): the publisher's
CPU per message; the subscribers' CPU per message received (their median); **Redis's CPU per
message published and per delivery** (per message and subscriber), read from every node's
``INFO cpu`` (the whole cluster: the master sends each message to its replica too, and the
subscribers' connections are the master's); and the messages per second the pass ran at
(the slowest subscriber's last message).

The cluster is ``testkit.redis_cluster``'s (three masters, three replicas, on loopback): all
its processes, the publisher and the subscribers share this host's cores, so the rate is a
floor, not a cluster's capacity; the CPU figures are per message and survive that.

A micro-benchmark of ``server.cluster.sharded_bus.ShardedRoomBus``, reached on purpose.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import multiprocessing
import statistics
import tempfile
import time
from collections.abc import Iterator
from multiprocessing.connection import Connection
from pathlib import Path

import redis
from redis.asyncio.cluster import RedisCluster

from bench.bus_cost import LOOPS, publish_pass, read_passes, signal_drained
from server.cluster.sharded_bus import ShardedRoomBus
from testkit.redis_cluster import RedisClusterProcesses

CHANNEL = "{room:fanout-cost}:out"
FLUSHES = (1, 32)


def _read(url: str, loop: str, passes: int, count: int, pipe: Connection) -> None:
    """A subscribing node: for each pass, its CPU per message (from the pass's first message
    to its last) and when its last one came, sent back through ``pipe``."""

    async def main() -> None:
        client = RedisCluster.from_url(url)
        await read_passes(ShardedRoomBus(client, "fanout-cost-reader", lambda _: None),
                          CHANNEL, count, passes, pipe)
        await client.aclose()

    with asyncio.Runner(loop_factory=LOOPS[loop]) as runner:
        runner.run(main())


def _redis_cpu_s(ports: list[int]) -> float:
    """Every cluster node's CPU so far (user + system, its threads included)."""
    total = 0.0
    for port in ports:
        with redis.Redis(host="127.0.0.1", port=port) as client:
            info = client.info("cpu")
        total += float(info["used_cpu_user"]) + float(info["used_cpu_sys"])
    return total


@contextlib.contextmanager
def _readers(url: str, loop: str, subscribers: int, passes: int,
             count: int) -> Iterator[list[Connection]]:
    context = multiprocessing.get_context("spawn")
    pipes: list[Connection] = []
    processes = []
    try:
        for _ in range(subscribers):
            ours, theirs = context.Pipe()
            process = context.Process(target=_read, args=(url, loop, passes, count, theirs),
                                      daemon=True)
            process.start()
            pipes.append(ours)
            processes.append(process)
        for pipe in pipes:
            if pipe.recv() != "ready":
                raise RuntimeError("a subscriber did not start")
        yield pipes
    finally:
        for process in processes:
            process.join(timeout=10)
            if process.is_alive():
                process.terminate()


def measure(url: str, ports: list[int], subscribers: int,
            args: argparse.Namespace) -> dict[int, dict[str, float]]:
    """One count of subscribers: each pace ``--repeat`` times, the least of each figure."""
    figures: dict[int, dict[str, float]] = {}
    with _readers(url, args.loop, subscribers, len(FLUSHES) * args.repeat,
                  args.messages) as pipes:

        async def run() -> None:
            client = RedisCluster.from_url(url)
            bus = ShardedRoomBus(client, "fanout-cost-writer", lambda _: None)
            drained = signal_drained(bus)
            await bus.start()
            seq = 0
            for flush in FLUSHES:
                for _ in range(args.repeat):
                    redis_before, wall_before = _redis_cpu_s(ports), time.time()
                    started = time.process_time()
                    await publish_pass(bus, drained, CHANNEL, seq, args.messages, flush,
                                       args.size)
                    seq += args.messages
                    published = (time.process_time() - started) / args.messages * 1e6
                    read = [await asyncio.to_thread(pipe.recv) for pipe in pipes]
                    redis_us = (_redis_cpu_s(ports) - redis_before) / args.messages * 1e6
                    rate = args.messages / (max(last for _, last in read) - wall_before)
                    pass_figures = {
                        "publish_us": published,
                        "read_us": statistics.median(spent for spent, _ in read),
                        "redis_us_per_message": redis_us,
                        "redis_us_per_delivery": redis_us / subscribers,
                        "messages_per_s": -rate}  # (negated: the least is the best)
                    best = figures.setdefault(flush, dict(pass_figures))
                    for name, value in pass_figures.items():
                        best[name] = min(best[name], value)
            await bus.close()
            await client.aclose()

        with asyncio.Runner(loop_factory=LOOPS[args.loop]) as runner:
            runner.run(run())
    return {flush: {name: round(abs(value), 2) for name, value in values.items()}
            for flush, values in figures.items()}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.shard_fanout_cost",
                                     description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--messages", type=int, default=10_000, help="per pass")
    parser.add_argument("--size", type=int, default=260,
                        help="bytes per message (>= 8; default: a spectator's frame of an "
                             "Order, docs/capacity.md)")
    parser.add_argument("--subscribers", default="1,5",
                        help="the counts of subscribing nodes to measure, comma-separated")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--loop", choices=sorted(LOOPS), default="uvloop",
                        help="the event loop (default: uvloop, as the referee runs)")
    args = parser.parse_args(argv)
    counts = [int(count) for count in args.subscribers.split(",")]
    results: dict[int, dict[int, dict[str, float]]] = {}
    with tempfile.TemporaryDirectory(prefix="fanout-cost-") as workdir, \
            RedisClusterProcesses(Path(workdir)) as cluster:
        ports = cluster.alive_ports()
        for count in counts:
            results[count] = measure(cluster.url, ports, count, args)
    print(f"{args.messages} messages of {args.size} bytes per pass on one sharded channel, "
          f"{args.repeat} passes ({args.loop}); the least of the passes")
    print("| subscribers | flush | publisher µs/msg | subscriber µs/msg | Redis µs/msg "
          "| Redis µs/delivery | msg/s |")
    print("|---|---|---|---|---|---|---|")
    for count, by_flush in results.items():
        for flush, f in by_flush.items():
            print(f"| {count} | {flush} | {f['publish_us']} | {f['read_us']} | "
                  f"{f['redis_us_per_message']} | {f['redis_us_per_delivery']} | "
                  f"{f['messages_per_s']:,.0f} |")


if __name__ == "__main__":
    main()
