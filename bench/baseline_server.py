"""The baseline: a minimal fan-out server with the ``websockets`` library alone.

``python -m bench.baseline_server --port N``: a client connects to ``/<room>``; every
binary frame it sends is forwarded to the other members of that room. No game logic, no
Redis, no codec: the floor against which the referee's costs are compared. Like the
referee it freezes the objects alive after start-up and sends without awaiting a drain.

With ``--upstream ws://HOST:PORT`` it is a second node for the broadcast bench
(``bench.broadcast``): the first time a room has a member here, it joins the same room
upstream as one more client and hands every frame it receives there to its own members,
as a referee node relays a room another node owns (over Redis pub/sub there).

With ``--greet BYTES`` it sends every new socket one frame of that many bytes (zeros) before
anything else: the least a referee must send a returning member, where its room stands, in
one frame (``bench.run``'s greeted restart, bench/README.md "The restart's floor").
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import signal

from websockets.asyncio.client import connect
from websockets.asyncio.server import ServerConnection, broadcast, serve

ROOMS: dict[str, set[ServerConnection]] = {}
UPSTREAM: list[str] = []  # the first node's base URL, on a relaying node
LINKS: dict[str, asyncio.Task[None]] = {}
GREETING: list[bytes] = []  # with --greet: the frame every new socket is sent first
LISTEN_BACKLOG = 2048


async def relay(path: str) -> None:
    """Forward the upstream room's frames to this node's members of it."""
    async with connect(UPSTREAM[0] + path, max_size=None, ping_interval=None,
                       compression=None) as upstream:
        async for frame in upstream:
            broadcast(ROOMS.get(path, ()), frame)


async def handler(connection: ServerConnection) -> None:
    path = connection.request.path if connection.request is not None else "/"
    members = ROOMS.setdefault(path, set())
    members.add(connection)
    if UPSTREAM and path not in LINKS:
        LINKS[path] = asyncio.create_task(relay(path))
    if GREETING:
        await connection.send(GREETING[0])
    try:
        async for frame in connection:
            # The library's own helper: writes to each open peer without awaiting drain.
            broadcast([member for member in members if member is not connection], frame)
    finally:
        members.discard(connection)
        if not members:
            ROOMS.pop(path, None)


async def main(port: int, collect: bool = True) -> None:
    stop = asyncio.get_running_loop().create_future()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set_result, None)
    # The listen queue of the referee's uvicorn (2,048), not asyncio's default of 100: when
    # every member reconnects at once after a restart, a short queue turns connections away
    # and each comes back a second or more later (bench.run's restart phase).
    async with serve(handler, "127.0.0.1", port, max_size=2**20, ping_interval=None,
                     compression=None, backlog=LISTEN_BACKLOG):
        gc.collect()
        gc.freeze()
        if not collect:
            # No collection at all from here on: what the sockets cost without the
            # collector walking them as they pile up (a floor; the referee freezes them
            # as a crowd grows instead, server/node/crowd_gc.py).
            gc.disable()
        print("ready", flush=True)
        await stop


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--upstream", default=None,
                        help="relay the rooms of this first node (ws://host:port)")
    parser.add_argument("--loop", choices=("asyncio", "uvloop"), default="asyncio",
                        help="the event loop (default: asyncio's own, as the baseline has "
                             "always run; the referee runs on uvloop)")
    parser.add_argument("--no-gc", dest="collect", action="store_false",
                        help="disable the garbage collector once started")
    parser.add_argument("--greet", type=int, default=0, metavar="BYTES",
                        help="send every new socket one frame of BYTES bytes first")
    parsed = parser.parse_args()
    if parsed.greet:
        GREETING.append(bytes(parsed.greet))
    if parsed.upstream:
        UPSTREAM.append(parsed.upstream.rstrip("/"))
    if parsed.loop == "uvloop":
        import uvloop

        with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
            runner.run(main(parsed.port, parsed.collect))
    else:
        asyncio.run(main(parsed.port, parsed.collect))
