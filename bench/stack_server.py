"""The stack's baseline: ``bench.baseline_server``'s fan-out on the referee's web stack.

``python -m bench.stack_server --port N``: a client connects to ``/<room>``; every binary
frame it sends is forwarded to the other members of that room, as in
``bench/baseline_server.py``, but served as the referee is (the project's fixed choices):
under uvicorn, on uvloop, httptools parsing the upgrade, uvicorn's ``websockets-sansio``
protocol, no compression, no pings; the app is the least ASGI callable that accepts a
websocket and forwards its frames (no Starlette: the referee's websocket path bypasses its
layers too, ``server/transport/endpoint.py``). No game logic, no Redis, no codec, none of
the referee's transport code. It freezes the objects alive once it listens, as the referee
and the baseline do.

What it measures (``bench.handshake_cost``'s third target): what uvicorn's websocket
protocol costs per joining socket beyond the ``websockets`` library's own server: the part
of the referee's join path that belongs to the stack it must run on.
"""

from __future__ import annotations

import argparse
import gc
import socket
from collections.abc import Awaitable, Callable
from typing import Any

import uvicorn

Send = Callable[[dict[str, Any]], Awaitable[None]]
Receive = Callable[[], Awaitable[dict[str, Any]]]
ROOMS: dict[str, set[Send]] = {}
LISTEN_BACKLOG = 2048  # uvicorn's default, as the referee and the baseline listen


async def member(scope: dict[str, Any], receive: Receive, send: Send) -> None:
    """The least an ASGI app does for a websocket: accept it, forward its frames (uvicorn's
    sans-io protocol writes each at once: nothing waits for a drain)."""
    if scope["type"] != "websocket":
        return  # (lifespan is off; no HTTP is served)
    path = scope["path"]
    members = ROOMS.setdefault(path, set())
    if (await receive())["type"] != "websocket.connect":
        return
    await send({"type": "websocket.accept"})
    members.add(send)
    try:
        while True:
            message = await receive()
            if message["type"] != "websocket.receive":
                break
            frame = {"type": "websocket.send", "bytes": message.get("bytes")}
            for other in [m for m in members if m is not send]:
                await other(frame)
    finally:
        members.discard(send)
        if not members:
            ROOMS.pop(path, None)


class ReadyServer(uvicorn.Server):
    """Says ``ready`` once it listens (``bench.run.start_baseline`` waits for the line)."""

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        gc.collect()
        gc.freeze()
        print("ready", flush=True)


def main(port: int) -> None:
    config = uvicorn.Config(member, host="127.0.0.1", port=port, loop="uvloop", http="httptools",
                            ws="websockets-sansio", ws_max_size=2**20,
                            ws_per_message_deflate=False, ws_ping_interval=None,
                            lifespan="off", log_level="warning", backlog=LISTEN_BACKLOG)
    ReadyServer(config).run()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    main(parser.parse_args().port)
