"""``python -m bench.memory_rounds``: whether a node gives back what rooms and sockets that
come and go took. Each round creates ``--rooms`` rooms over HTTP on node 1, joins each with
its two seats through node 1 (which so runs the room) and then ``--spectators`` spectators
(a ``hello``, its ``welcome`` and first frame read), closes every socket, and waits until no
room is left in memory on either node (their idle countdown, ``--idle-s``); then each node's
RSS is read. With ``--relay`` the spectators join through node 2, which relays them.

Two nodes and a ``redis-server`` as ``bench.run`` starts them (the node on core 0, this
process and Redis on core 1). A node that keeps nothing levels off after its first rounds
(its allocator's arenas and caches filled); one that keeps something of every room or socket
grows by about as much each round: before a closed socket's protocol (a reference cycle with
its parser) and a room that left memory (cycles with its parts) were freed by reference
counting, a node grew 4 MB for every 3,000 spectators and 15 MB for every 300 rooms, round
after round (docs/server.md, "A frozen object in a reference cycle is never freed").

Printed (or ``--json``): each node's RSS after start-up and after each round, and its growth
per round over the last half of the rounds (the median of the round-to-round differences).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import statistics
import tempfile
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect

from bench.measure import rss_bytes
from bench.run import METRICS_TOKEN, cores, free_port, redis_server, start_referee, stop
from protocol import codec
from protocol.constants import PROTOCOL_VERSION, WS_PATH
from protocol.messages import Hello

HANDSHAKES = 100
"""Sockets opening at once."""
LEFT_WAIT_S = 120.0
"""How long the rooms of a round may take to leave memory on both nodes."""


def rss_mb(pid: int) -> float:
    return rss_bytes(pid) / 2**20


async def live_rooms(http: httpx.AsyncClient) -> int:
    """The rooms a node runs now (its ``referee_rooms`` gauge)."""
    text = (await http.get("/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"})
            ).text
    for line in text.splitlines():
        if line.startswith("referee_rooms "):
            return int(float(line.split()[1]))
    raise RuntimeError("no referee_rooms in /metrics")


async def one_round(nodes: list[httpx.AsyncClient], ws_bases: list[str],
                    args: argparse.Namespace) -> None:
    """``ws_bases``: where the seats join (the room's node), and where the spectators do."""
    rooms = []
    for _ in range(args.rooms):
        response = await nodes[0].post("/api/rooms", json={"ruleset": "codeone",
                                                           "visibility": "private"})
        response.raise_for_status()
        data = response.json()
        rooms.append((data["room"], data["seats"]["A"]["token"], data["seats"]["B"]["token"]))
    handshakes = asyncio.Semaphore(HANDSHAKES)

    async def joined(base: str, room: str, token: str | None) -> ClientConnection:
        async with handshakes:
            ws = await connect(f"{base}{WS_PATH}?room={room}", max_size=None,
                               ping_interval=None, compression=None, proxy=None)
            await ws.send(codec.encode(Hello(PROTOCOL_VERSION, room, token)))
            await ws.recv()  # the welcome
            await ws.recv()  # the snapshot
            return ws

    seats, crowd = ws_bases
    sockets = await asyncio.gather(*(
        joined(seats, room, token) for room, a, b in rooms for token in (a, b)))
    sockets += await asyncio.gather(*(
        joined(crowd, room, None) for room, _, _ in rooms for _ in range(args.spectators)))
    await asyncio.gather(*(ws.close() for ws in sockets))
    async with asyncio.timeout(LEFT_WAIT_S):
        while any([await live_rooms(node) for node in nodes]):
            await asyncio.sleep(0.2)


def growth_per_round(rss: list[float]) -> float:
    """The median round-to-round growth over the last half of the rounds (``rss[0]`` is
    after start-up, before any round)."""
    steps = [after - before for before, after in itertools.pairwise(rss)]
    return statistics.median(steps[len(steps) // 2:]) if steps else 0.0


async def measure(args: argparse.Namespace) -> dict[str, Any]:
    server_core, load_core = cores()
    with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
        async with redis_server(Path(tmp), load_core) as url:
            ports = [free_port(), free_port()]
            idle = {"REFEREE_IDLE_ROOM_S": str(args.idle_s)}
            processes = [await start_referee(port, url, server_core, Path(tmp) / f"node-{n}.log",
                                             node_id=f"bench-node-{n}", extra_env=idle)
                         for n, port in enumerate(ports, start=1)]
            clients = [httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=60)
                       for port in ports]
            rss = [[rss_mb(process.pid)] for process in processes]
            try:
                ws_bases = [f"ws://127.0.0.1:{port}" for port in ports]
                if not args.relay:
                    ws_bases[1] = ws_bases[0]
                for _ in range(args.rounds):
                    await one_round(clients, ws_bases, args)
                    for node, process in zip(rss, processes, strict=True):
                        node.append(rss_mb(process.pid))
            finally:
                for client in clients:
                    await client.aclose()
                for process in processes:
                    await stop(process)
    return {"rooms": args.rooms, "spectators": args.spectators, "rounds": args.rounds,
            "relay": args.relay,
            "nodes": [{"rss_mb": [round(mb, 1) for mb in node],
                       "growth_mb_per_round": round(growth_per_round(node), 2)}
                      for node in rss]}


def report(result: dict[str, Any]) -> str:
    sockets = result["rooms"] * (2 + result["spectators"])
    lines = [f"{result['rounds']} rounds of {result['rooms']} rooms ({sockets} sockets"
             f"{', spectators relayed by node 2' if result['relay'] else ''}), RSS in MB:"]
    for n, node in enumerate(result["nodes"], start=1):
        rounds = " ".join(f"{mb:.1f}" for mb in node["rss_mb"])
        lines.append(f"- node {n}: {rounds} (after start-up, then each round); growth per "
                     f"round over the last half: {node['growth_mb_per_round']:.2f} MB")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(prog="python -m bench.memory_rounds", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rooms", type=int, default=300)
    parser.add_argument("--spectators", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--relay", action="store_true",
                        help="the spectators join through node 2 (node 1 runs the rooms)")
    parser.add_argument("--idle-s", type=float, default=1.0,
                        help="the nodes' REFEREE_IDLE_ROOM_S: how soon an empty room leaves")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args(argv)
    result = asyncio.run(measure(args))
    print(json.dumps(result) if args.json else report(result))
    return result


if __name__ == "__main__":
    main()
