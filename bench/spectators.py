"""One crowd process of the broadcast bench: thousands of spectator sockets, kept cheap.

``python -m bench.spectators --target referee|baseline --urls URL1,URL2 --room R --count N ...``

Each spectator is a bare websocket client written on an asyncio ``Protocol`` (uvloop), not
the ``websockets`` client: at 10,000 spectators on one load core, every microsecond a
client spends per frame adds 10 ms to the time the *last* spectator holds it, which the
bench would count against the server. A server's frames are unmasked and never
fragmented here, so reading one is a header and a slice; a client's frames must be masked
(RFC 6455 §5.3), and the hello is sent with an all-zero mask key, which leaves the payload
as it is (valid, if predictable: this is a load client). Pings are answered.

Phases, stepped by the orchestrator (``bench.broadcast``) through stdin/stdout as
``bench.loadgen`` is: ``joins`` (connect this process's share within ``--join-s``, evenly
spaced, each to the node of its global index round robin; done when every spectator holds
its snapshot), ``events`` (listen until told ``stop``) and ``leaves`` (every spectator
closes at once; done when every socket is closed). For every frame a spectator
receives in ``events`` the process keeps, per frame number (the spectators' ``events``
numbering, or the baseline's sequence number), how many of its spectators got it, the
first arrival and the last (``time.time_ns``: one system-wide clock for every process on
the host, so the orchestrator compares these with the players' send times).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import gc
import json
import os
import resource
import sys
import time
from typing import Any
from urllib.parse import urlsplit

import msgpack
import uvloop

from protocol import codec
from protocol.constants import PROTOCOL_VERSION, WS_PATH
from protocol.messages import Hello

_OP_BINARY, _OP_CLOSE, _OP_PING = 0x2, 0x8, 0x9


def client_frame(opcode: int, payload: bytes) -> bytes:
    """One final client frame, masked with the zero key (the payload unchanged)."""
    length = len(payload)
    head = bytes((0x80 | opcode,))
    if length < 126:
        head += bytes((0x80 | length,))
    elif length < 65536:
        head += bytes((0x80 | 126,)) + length.to_bytes(2, "big")
    else:
        head += bytes((0x80 | 127,)) + length.to_bytes(8, "big")
    return head + b"\0\0\0\0" + payload


def parse_frames(buffer: bytearray) -> list[tuple[int, bytes]]:
    """The whole frames at the start of ``buffer`` (removed from it): (opcode, payload)."""
    frames: list[tuple[int, bytes]] = []
    start, end = 0, len(buffer)
    while end - start >= 2:
        opcode, length = buffer[start] & 0x0F, buffer[start + 1] & 0x7F
        at = start + 2
        if length == 126:
            if end - at < 2:
                break
            length, at = int.from_bytes(buffer[at:at + 2], "big"), at + 2
        elif length == 127:
            if end - at < 8:
                break
            length, at = int.from_bytes(buffer[at:at + 8], "big"), at + 8
        if end - at < length:
            break
        frames.append((opcode, bytes(buffer[at:at + length])))
        start = at + length
    del buffer[:start]
    return frames


class Arrivals:
    """Per frame number: how many spectators got it, first and last arrival (ns)."""

    def __init__(self) -> None:
        self.frames: dict[int, list[int]] = {}
        self.deliveries = 0  # every data frame received in the phase (events or not)
        self.event_bytes = 0
        self.event_frames = 0

    def note(self, number: int, now: int, size: int) -> None:
        self.deliveries += 1
        self.event_frames += 1
        self.event_bytes += size
        entry = self.frames.get(number)
        if entry is None:
            self.frames[number] = [1, now, now]
        else:
            entry[0] += 1
            entry[2] = now

    def result(self) -> dict[str, Any]:
        return {"frames": {str(k): v for k, v in self.frames.items()},
                "deliveries": self.deliveries, "event_frames": self.event_frames,
                "event_bytes": self.event_bytes}


class Crowd:
    """What all the spectators of this process share."""

    def __init__(self, target: str) -> None:
        self.decode = target == "referee"
        self.arrivals = Arrivals()
        self.joined = 0
        self.join_ms: list[float] = []
        self.errors: list[str] = []
        self.closed = 0
        self.resyncs = 0
        self.all_joined: asyncio.Future[None] | None = None
        self.expected = 0
        self.all_closed: asyncio.Future[None] | None = None  # set when the crowd leaves
        self.closing = 0  # sockets still to close while leaving


class Spectator(asyncio.Protocol):
    __slots__ = ("buffer", "crowd", "hello", "in_room", "request", "started", "transport",
                 "upgraded", "version")

    def __init__(self, crowd: Crowd, request: bytes, hello: bytes | None) -> None:
        self.crowd = crowd
        self.request = request
        self.hello = hello
        self.buffer = bytearray()
        self.upgraded = False
        self.transport: Any = None  # uvloop's transports are not asyncio.Transport
        self.started = time.time_ns()
        self.version = -1
        self.in_room = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport
        self.transport.write(self.request)

    def data_received(self, data: bytes) -> None:
        buffer = self.buffer
        buffer += data
        if not self.upgraded:
            end = buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            status = bytes(buffer[:end].split(b"\r\n", 1)[0])
            del buffer[:end + 4]
            if b" 101 " not in status + b" ":
                self.crowd.errors.append(f"handshake: {status!r}")
                self.transport.close()
                return
            self.upgraded = True
            if self.hello is not None:
                self.transport.write(client_frame(_OP_BINARY, self.hello))
            else:  # the baseline has no hello: the socket is in the room once upgraded
                self.joined()
        for opcode, payload in parse_frames(buffer):
            if opcode == _OP_BINARY:
                self.on_frame(payload)
            elif opcode == _OP_PING:
                self.transport.write(client_frame(0xA, payload))
            elif opcode == _OP_CLOSE:
                self.crowd.errors.append(f"closed by the server: {payload[:2].hex()} "
                                         f"{payload[2:].decode(errors='replace')}")

    def on_frame(self, payload: bytes) -> None:
        now = time.time_ns()
        crowd = self.crowd
        if not crowd.decode:
            crowd.arrivals.note(int.from_bytes(payload[:8], "big"), now, len(payload))
            return
        message = msgpack.unpackb(payload, raw=False)
        kind = message["type"]
        if kind == "events":
            number = message["first"] + len(message["events"]) - 1
            crowd.arrivals.note(number, now, len(payload))
            self.version = number
        elif kind == "snapshot":
            self.version = message["version"]
            self.joined()
        else:
            crowd.arrivals.deliveries += 1

    def joined(self) -> None:
        crowd = self.crowd
        if self.in_room:
            crowd.resyncs += 1  # a later snapshot: the server dropped it behind, then resynced
            return
        self.in_room = True
        crowd.joined += 1
        crowd.join_ms.append((time.time_ns() - self.started) / 1e6)
        if crowd.joined >= crowd.expected and crowd.all_joined is not None \
                and not crowd.all_joined.done():
            crowd.all_joined.set_result(None)

    def connection_lost(self, exc: Exception | None) -> None:
        crowd = self.crowd
        crowd.closed += 1
        if crowd.all_closed is not None:  # leaving
            crowd.closing -= 1
            if crowd.closing <= 0 and not crowd.all_closed.done():
                crowd.all_closed.set_result(None)


def upgrade_request(host: str, port: int, path: str) -> bytes:
    key = base64.b64encode(os.urandom(16)).decode()
    return (f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            f"Sec-WebSocket-Version: 13\r\n\r\n").encode()


def raise_file_limit() -> int:
    """The soft limit of open files raised to the hard one (each socket is one)."""
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


async def _next_line() -> str:
    line: str = await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    return line.strip()


def _done(phase: str, **extra: Any) -> None:
    print(json.dumps({"done": phase, **extra}), flush=True)


async def run(args: argparse.Namespace) -> None:
    crowd = Crowd(args.target)
    loop = asyncio.get_running_loop()
    targets = []
    for url in args.urls.split(","):
        parts = urlsplit(url)
        assert parts.hostname is not None and parts.port is not None
        path = WS_PATH if args.target == "referee" else f"/{args.room}"
        targets.append((parts.hostname, parts.port, path))
    hello = (codec.encode(Hello(PROTOCOL_VERSION, args.room, None))
             if args.target == "referee" else None)
    transports: list[Any] = []
    crowd.expected = args.count
    crowd.all_joined = loop.create_future()

    if await _next_line() != "go":
        return
    # joins: this process's share, evenly spaced over --join-s; the processes interleave.
    started = time.monotonic()
    spacing = args.join_s / max(1, args.count)
    offset = spacing * args.worker / max(1, args.workers)
    for i in range(args.count):
        due = started + offset + i * spacing
        delay = due - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        host, port, path = targets[(args.first + i) % len(targets)]
        request = upgrade_request(host, port, path)
        try:
            transport, _ = await loop.create_connection(
                lambda r=request: Spectator(crowd, r, hello), host, port)  # type: ignore[misc]
        except OSError as error:
            crowd.errors.append(f"connect: {error}")
            crowd.expected -= 1
            continue
        transports.append(transport)
    if args.count:
        try:
            await asyncio.wait_for(asyncio.shield(crowd.all_joined), args.join_timeout_s)
        except TimeoutError:
            crowd.errors.append(f"only {crowd.joined} of {crowd.expected} joined in time")
    _done("joins", joined=crowd.joined, s=round(time.monotonic() - started, 3))
    join_ms = crowd.join_ms
    # The collector would stall reading thousands of sockets: the sockets are made now.
    gc.collect()
    gc.freeze()

    if await _next_line() != "go":
        return
    crowd.arrivals = Arrivals()
    _done("ready")  # the players start only now: no frame of the phase is counted before
    while await _next_line() not in ("stop", ""):
        pass
    arrivals = crowd.arrivals.result()
    _done("events", deliveries=arrivals["deliveries"])
    with open(args.out, "w") as handle:
        json.dump({"count": args.count, "joined": crowd.joined, "join_ms": join_ms,
                   "events": arrivals, "errors": crowd.errors[:20],
                   "error_count": len(crowd.errors), "closed": crowd.closed,
                   "resyncs": crowd.resyncs}, handle)
    if await _next_line() != "go":
        return
    # leaves: every spectator closes at once (the final is over), done when every socket
    # is closed.
    started = time.monotonic()
    crowd.all_closed = loop.create_future()
    crowd.closing = sum(1 for transport in transports if not transport.is_closing())
    for transport in transports:
        if not transport.is_closing():
            transport.write(client_frame(_OP_CLOSE, (1000).to_bytes(2, "big")))
            transport.close()
    if crowd.closing:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(crowd.all_closed), args.join_timeout_s)
    _done("leaves", s=round(time.monotonic() - started, 3), still_open=crowd.closing)
    await _next_line()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.spectators")
    parser.add_argument("--target", choices=("referee", "baseline"), required=True)
    parser.add_argument("--urls", required=True, help="the nodes, comma-separated")
    parser.add_argument("--room", required=True)
    parser.add_argument("--count", type=int, required=True)
    parser.add_argument("--first", type=int, default=0,
                        help="global index of this process's first spectator (round robin)")
    parser.add_argument("--join-s", type=float, default=30.0)
    parser.add_argument("--join-timeout-s", type=float, default=120.0)
    parser.add_argument("--worker", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    if raise_file_limit() < args.count + 100:
        parser.error(f"{args.count} sockets exceed this process's file limit: "
                     "use more processes")
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        runner.run(run(args))


if __name__ == "__main__":
    main()
