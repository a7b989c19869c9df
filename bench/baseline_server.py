"""The baseline: a minimal fan-out server with the ``websockets`` library alone.

``python -m bench.baseline_server --port N``: a client connects to ``/<room>``; every
binary frame it sends is forwarded to the other members of that room. No game logic, no
Redis, no codec: the floor against which the referee's costs are compared. Like the
referee it freezes the objects alive after start-up and sends without awaiting a drain.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import signal

from websockets.asyncio.server import ServerConnection, broadcast, serve

ROOMS: dict[str, set[ServerConnection]] = {}


async def handler(connection: ServerConnection) -> None:
    path = connection.request.path if connection.request is not None else "/"
    members = ROOMS.setdefault(path, set())
    members.add(connection)
    try:
        async for frame in connection:
            # The library's own helper: writes to each open peer without awaiting drain.
            broadcast([member for member in members if member is not connection], frame)
    finally:
        members.discard(connection)
        if not members:
            ROOMS.pop(path, None)


async def main(port: int) -> None:
    stop = asyncio.get_running_loop().create_future()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set_result, None)
    async with serve(handler, "127.0.0.1", port, max_size=2**20, ping_interval=None,
                     compression=None):
        gc.collect()
        gc.freeze()
        print("ready", flush=True)
        await stop


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    asyncio.run(main(parser.parse_args().port))
