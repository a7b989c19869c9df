"""One load-generator process: drives a share of the rooms, phase by phase.

``python -m bench.loadgen --target referee|baseline --url http://127.0.0.1:P --rooms N ...``

The orchestrator (``bench.run``) starts several of these (pinned away from the server) and
steps them through phases in lock-step: after finishing a phase a worker prints
``{"done": phase}`` on stdout and waits for a ``go`` line on stdin, so the orchestrator can
read the server's CPU, memory and Redis counters exactly between phases. Results
(latency samples, counts) are written as JSON to ``--out`` at the end.

Referee phases: ``created`` (rooms made over the HTTP lobby), ``connected`` (two players and
S spectators per room said hello), ``setup`` (the scripted armies, initiative and
deployment played to the Orders Phase), ``paced`` (one Order per room every ``--pace`` s;
every ``--timeout-every``-th ARO window is left to the room's clock), ``max`` (every room
plays its next Order as soon as the previous one reached every member), and with
``--restart`` ``restart`` (the orchestrator killed and restarted the referee after ``max``:
every member reconnects with the version it holds; done when every member of every room
holds it again, i.e. every room was loaded back from the store). Baseline phases:
``connected``, ``paced``, ``max``, with the same frames per Order and frame sizes, and with
``--restart`` ``restart`` (the baseline killed and restarted: done when every member's
socket is open again).

Latency is measured from sending a command to the moment the last member of the room holds
the resulting event version ("command to every viewer"); every member runs on this loop.
The version is the one the command's acceptance names: since protocol 3 the commander's
``events`` frame carries it (``accepted``), a standalone ``accepted`` only a repeated id.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import functools
import gc
import itertools
import json
import random
import sys
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlencode

import httpx
import msgpack
import uvloop
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from bench.source_addresses import connected_socket
from protocol import codec
from protocol.constants import PROTOCOL_VERSION, WS_PATH, CloseCode
from protocol.messages import (
    Accepted,
    Command,
    Hello,
    Rejected,
)
from testkit.scripted_game import RULESET, TABLE, Script, Send, Window, plan

OPEN_TIMEOUT_S = 60.0
GUARD_S = 60.0  # a command not seen by everyone within this is counted as lost
REJOIN_HANDSHAKES = 500
"""Websocket handshakes in flight per load process while every member reconnects after the
restart: far more than the referee completes in one round trip, so it is never the limit,
and with the few load processes a run has, below the server's listen backlog (uvicorn's
2,048), which a burst of connections past it would overflow (each dropped SYN retried 1 s
later)."""
WINDOW_ALREADY_CLOSED = frozenset({"stale_version", "wrong_phase", "stale_window"})
SETUP_TRIES = 5
"""How many times a setup command answered ``storage_unavailable`` is sent, under its id, as
a client does: 3,000 rooms' setup at once on a slow host once met Redis answering no append
within the node's 5 s, which ended the run before its measured phases."""
REOPENS = 20
"""How many times one member's socket is opened again after a 4011 (a room that keeps
stopping is an error of the run)."""
TRY_AGAIN_PAUSE_S = 0.1
"""How long a command answered ``storage_unavailable`` waits before it is sent again under
its id (a client that tries again at once, while a Redis Cluster moves the room's slot,
would send it again at every step of the move), with ``--backoff fixed``."""
BACKOFFS = ("fixed", "browser")
"""``--backoff``: ``fixed``, ``TRY_AGAIN_PAUSE_S`` between sends; ``browser``, the browser
client's (``storageRetry``: ``browser_pause_s``)."""


def add_backoff_argument(parser: argparse.ArgumentParser) -> None:
    """``--backoff``, for this load generator and the benches that run it."""
    parser.add_argument("--backoff", choices=BACKOFFS, default="fixed",
                        help="the pause before a command answered storage_unavailable is sent "
                             f"again: fixed ({TRY_AGAIN_PAUSE_S} s), or the browser client's "
                             "(250 ms doubling to 2 s, jittered)")


def browser_pause_s(attempt: int) -> float:
    """The browser client's pause before sending a command again after its ``attempt``-th
    ``storage_unavailable`` (0 for the first): 250 ms doubling to 2 s, each drawn from half
    to all of it (client-js/src/backoff.js, ``backoffDelay``; client-js/src/connection.js)."""
    return min(2.0, 0.25 * 2 ** attempt) * (0.5 + 0.5 * random.random())


class Tally:
    """Everything measured in one phase."""

    def __init__(self) -> None:
        self.latencies_ms: list[float] = []
        self.sent_at: list[float] = []
        """When each of ``latencies_ms``'s commands was sent (wall clock, s): the report's
        latency-by-second profile shows whether the tail is spread or comes in bursts."""
        self.commanders: list[tuple[str, float]] = []
        """Per command of ``latencies_ms``: the side that sent it and the ms until it had its
        own answer (the rest of its latency is the other side's frame)."""
        self.lateness_ms: list[float] = []
        self.orders = 0
        self.commands = 0
        self.frames_in = 0
        self.bytes_in = 0
        self.event_frames = 0
        self.event_bytes = 0
        self.frames_by_type: Counter[str] = Counter()
        """The referee's frames read, by ``type`` (the baseline's are not decoded)."""
        self.errors: list[str] = []
        self.gc_pauses_ms: list[float] = []
        """This process's own garbage collections: each one stalls every socket it reads,
        which the measured latency would count against the server."""
        self.loop_lag_ms: list[float] = []
        """How late each tick of this process's own ``LAG_TICK_S`` timer fired: a busy load
        generator reads frames late, which the measured latency would count against the
        server."""
        self.windows_closed_late = 0
        self.tried_again = 0
        """Commands sent again under their id after a ``storage_unavailable`` answer, or
        after their socket was opened again before the answer came."""
        self.reopened = 0
        """Sockets opened again after the referee closed them with 4011."""
        self.opened_at: list[float] = []
        """Restart phases: when each member's socket was open again (wall clock, s)."""
        self.back_at: list[float] = []
        """Restart phases: when each room was back (every member at its version, or
        greeted; the baseline's plain restart: its last socket open)."""
        self.started = time.time()
        self.ended = 0.0

    def result(self) -> dict[str, Any]:
        return {"latencies_ms": self.latencies_ms, "sent_at": self.sent_at,
                "commanders": self.commanders,
                "lateness_ms": self.lateness_ms,
                "orders": self.orders, "commands": self.commands,
                "frames_in": self.frames_in, "bytes_in": self.bytes_in,
                "event_frames": self.event_frames, "event_bytes": self.event_bytes,
                "frames_by_type": dict(self.frames_by_type),
                "windows_closed_late": self.windows_closed_late,
                "tried_again": self.tried_again, "reopened": self.reopened,
                "opened_at": self.opened_at, "back_at": self.back_at,
                "errors": self.errors[:20], "error_count": len(self.errors),
                "gc_pauses_ms": self.gc_pauses_ms, "loop_lag_ms": self.loop_lag_ms,
                "elapsed_s": (self.ended or time.time()) - self.started}


TALLY = Tally()
_gc_started = 0.0


def _time_collections(phase: str, info: dict[str, Any]) -> None:
    global _gc_started
    if phase == "start":
        _gc_started = time.perf_counter()
    else:
        TALLY.gc_pauses_ms.append((time.perf_counter() - _gc_started) * 1000.0)


LAG_TICK_S = 0.05


async def _time_own_loop() -> None:
    """Ticks every ``LAG_TICK_S`` for as long as the process runs, noting how late."""
    while True:
        # Not loop.time(): uvloop's counts whole milliseconds.
        due = time.monotonic() + LAG_TICK_S
        await asyncio.sleep(LAG_TICK_S)
        TALLY.loop_lag_ms.append((time.monotonic() - due) * 1000.0)


def watch_own_process() -> asyncio.Task[None]:
    """Once a load process holds its long-lived sockets: its own collector's pauses would
    show up as latency, so keep it off them (as the servers do) and collect rarely; then
    time each collection and tick ``_time_own_loop`` (into ``TALLY``) until the task is
    cancelled."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(100_000, 50, 1000)
    gc.callbacks.append(_time_collections)
    return asyncio.create_task(_time_own_loop())


def _unpack(frame: bytes) -> dict[str, Any]:
    message: dict[str, Any] = msgpack.unpackb(frame, raw=False)
    return message


class Member:
    """One socket of a room; its reader records when each version arrived."""

    __slots__ = ("answers", "closed", "closed_at", "deadlines", "name", "reopen", "reopened",
                 "room", "version", "window", "ws")

    def __init__(self, room: RoomDriver, name: str, ws: ClientConnection,
                 reopen: Callable[[Member], Awaitable[bool]] | None = None) -> None:
        """``reopen``: opens this member's socket again after the referee closed it with
        4011 (the room stopped there: ``bench.failover_cost``), as the browser client does;
        False when it could not."""
        self.room = room
        self.name = name
        self.ws = ws
        self.reopen = reopen
        self.reopened = 0  # times its socket was opened again
        self.version = -1
        self.answers: dict[str, Accepted | Rejected] = {}
        self.window: tuple[int, int] | None = None  # (order, step) of the open ARO window
        self.deadlines: dict[tuple[int, int], int] = {}  # the deadline_ms each announced
        self.closed: dict[tuple[int, int], float] = {}  # when a frame said it was over
        self.closed_at: dict[tuple[int, int], int] = {}  # that frame's last version

    async def read(self, decode: bool) -> None:
        while True:
            try:
                await self._read(decode)
                return  # closed normally
            except ConnectionClosed as closed:
                if self.room.stopping:
                    return
                told_to_reconnect = (closed.rcvd is not None
                                     and closed.rcvd.code == CloseCode.ROOM_UNAVAILABLE)
                if (not told_to_reconnect or self.reopen is None
                        or self.reopened >= REOPENS or not await self.reopen(self)):
                    TALLY.errors.append(f"{self.name} closed: {closed}")
                    return

    async def _read(self, decode: bool) -> None:
        async for frame in self.ws:
            now = time.time()
            tally = TALLY
            tally.frames_in += 1
            tally.bytes_in += len(frame)
            if not decode:
                assert isinstance(frame, bytes)
                self.version = int.from_bytes(frame[:8], "big")
                tally.event_frames += 1
                self.room.arrived(self, now)
                continue
            assert isinstance(frame, bytes)
            # Plain msgpack, not the validating ``codec.decode_server``: the load
            # generator shares its core with Redis, and the test suite checks the
            # protocol; here only the few fields the driver needs are read.
            message = _unpack(frame)
            tag = message["type"]
            tally.frames_by_type[tag] += 1
            if tag == "events":
                tally.event_frames += 1
                tally.event_bytes += len(frame)
                self.version = message["first"] + len(message["events"]) - 1
                self.follow_window(message["window"], now)
                accepted = message.get("accepted")
                if accepted is not None:  # the commander's frame is its answer too
                    self.answers[accepted] = Accepted(accepted, self.version)
            elif tag == "accepted":
                self.answers[message["id"]] = Accepted(message["id"], message["version"])
            elif tag == "rejected":
                self.answers[message["id"]] = Rejected(message["id"], message["code"],
                                                       message["message"])
            elif tag == "snapshot":
                self.version = message["version"]
                self.follow_window(message["window"], now)
            elif tag == "welcome":
                self.version = max(self.version, message["version"])
            self.room.arrived(self, now)

    def follow_window(self, window: dict[str, Any] | None, now: float) -> None:
        """Every events frame (and snapshot) carries the ARO window as it stands: note when
        one opens (its deadline) and the arrival of the frame in which it is over."""
        key: tuple[int, int] | None = None
        if window is not None:
            key = (window["order"], window["step"])
            self.deadlines.setdefault(key, window["deadline_ms"])
        if key != self.window:
            if self.window is not None:
                self.closed[self.window] = now
                self.closed_at[self.window] = self.version
            self.window = key


class RoomDriver:
    """The members of one room and the one thing the room is waiting for."""

    def __init__(self, index: int, script: Script, frame_size: int, tries: int = 1,
                 backoff: str = "fixed") -> None:
        """``tries``: how many times the game's commands are sent, under their id, while
        answered ``storage_unavailable``; ``backoff``: how long apart (``BACKOFFS``)."""
        self.index = index
        self.tries = tries
        self.backoff = backoff
        self.script = script
        self.frame_size = frame_size
        self.members: list[Member] = []
        self.players: dict[str, Member] = {}
        self.next_order = 0
        self.orders_played = 0
        self.windows_seen = 0
        self.stopping = False
        self.seq = 0
        self._ids = itertools.count(1)
        self._wait: tuple[Callable[[], bool], asyncio.Future[float]] | None = None

    def arrived(self, member: Member, now: float) -> None:
        wait = self._wait
        if wait is not None and not wait[1].done() and wait[0]():
            wait[1].set_result(now)

    async def until(self, condition: Callable[[], bool], what: str = "") -> float:
        """Wait until ``condition`` holds; the time the frame that made it true arrived.
        Not within ``GUARD_S``: a ``TimeoutError`` that says ``what`` was awaited and where
        each member stood."""
        if condition():
            return time.time()
        future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self._wait = (condition, future)
        try:
            return await asyncio.wait_for(future, GUARD_S)
        except TimeoutError:
            stood = "; ".join(f"{m.name} v{m.version} window {m.window} closed {sorted(m.closed)}"
                              f" reopened {m.reopened}" for m in self.members)
            raise TimeoutError(f"room {self.index}, order {self.next_order}: {what or 'a wait'}"
                               f" not within {GUARD_S:.0f} s ({stood})") from None
        finally:
            self._wait = None

    @property
    def done(self) -> bool:
        return self.next_order >= len(self.script.orders)

    # --- referee ------------------------------------------------------------------------

    async def command(self, side: str, body: dict[str, Any], *, stale_ok: bool = False,
                      tries: int | None = None) -> bool:
        """Send, wait for the answer and for every member to hold its events.

        With ``stale_ok`` a rejection that means "the window is already closed" returns False
        instead of raising: the room's clock may close an ARO window just before the reactive
        player does (``stale_version`` when the command was issued before the close reached
        the player, ``wrong_phase``/``stale_window`` when after). A command answered
        ``storage_unavailable`` is sent again under its id ``TRY_AGAIN_PAUSE_S`` later (or
        after the browser's pause, ``browser_pause_s``), up to ``tries`` sends in all (the
        room's ``tries`` unless told); its latency counts from its first send.
        """
        player = self.players[side]
        command_id = f"c{next(self._ids)}"
        sent = time.time()
        sends_left = tries or self.tries
        refused = 0  # its storage_unavailable answers so far
        while True:
            opened = player.reopened
            with contextlib.suppress(ConnectionClosed):  # (its reader opens it again)
                await player.ws.send(codec.encode(Command(command_id, player.version, body)))
                TALLY.commands += 1
            answered = await self.until(
                lambda opened=opened: command_id in player.answers
                or player.reopened != opened, f"the answer to {body['type']} {command_id}")
            answer = player.answers.pop(command_id, None)
            if answer is None:
                # Its socket was opened again before the answer came: send it again under
                # its id (answered ``accepted`` if it was, as a client would).
                TALLY.tried_again += 1
                continue
            sends_left -= 1
            if (isinstance(answer, Rejected) and answer.code == "storage_unavailable"
                    and sends_left > 0):
                TALLY.tried_again += 1
                await asyncio.sleep(TRY_AGAIN_PAUSE_S if self.backoff == "fixed"
                                    else browser_pause_s(refused))
                refused += 1
                continue
            break
        if isinstance(answer, Rejected):
            if stale_ok and answer.code in WINDOW_ALREADY_CLOSED:
                return False
            raise RuntimeError(f"room {self.index}: {body['type']} rejected: {answer.code}"
                               f" {answer.message}")
        target = answer.version
        seen = await self.until(lambda: all(m.version >= target for m in self.members),
                                f"every member at v{target} after {body['type']}")
        TALLY.latencies_ms.append((seen - sent) * 1000.0)
        TALLY.sent_at.append(sent)
        TALLY.commanders.append((side, (answered - sent) * 1000.0))
        return True

    async def window(self, step: Window, let_time_out: bool) -> None:
        key = (step.order, step.step)
        in_time = True
        if step.trooper:
            in_time = await self.command(step.side, {"type": "pass_aro", "trooper": step.trooper},
                                         stale_ok=True)
        if not let_time_out and in_time:
            in_time = await self.command(step.side, {"type": "close_aro_window",
                                                     "order": step.order, "step": step.step},
                                         stale_ok=True)
            if in_time:
                self._forget(key)
                return
        await self.until(lambda: self._seen_closed(key), f"every member seeing window {key} closed")
        if not in_time:
            # The clock closed the window first (overload): go on from the room's version.
            TALLY.windows_closed_late += 1
            await self.until(lambda: len({m.version for m in self.members}) == 1,
                             "every member at one version")
        elif let_time_out:
            deadline_ms = next((m.deadlines[key] for m in self.members if key in m.deadlines),
                               None)
            if deadline_ms is not None:
                last = max(m.closed[key] for m in self.members if key in m.closed)
                TALLY.lateness_ms.append(last * 1000.0 - deadline_ms)
        self._forget(key)

    def _seen_closed(self, key: tuple[int, int]) -> bool:
        """Every member is past window ``key``: its frames said it was over, or, for a
        member whose socket was opened again while the window was open and over (its
        catch-up carries only the window as it stands after it), the member holds the
        version at which another member's frame said so."""
        over_at = min((m.closed_at[key] for m in self.members if key in m.closed_at),
                      default=None)
        return over_at is not None and all(
            key in m.closed or (m.window != key and m.version >= over_at)
            for m in self.members)

    def _forget(self, key: tuple[int, int]) -> None:
        for member in self.members:
            member.closed.pop(key, None)
            member.closed_at.pop(key, None)
            member.deadlines.pop(key, None)

    async def play_order(self, timeout_every: int) -> None:
        for step in self.script.orders[self.next_order]:
            if isinstance(step, Send):
                await self.command(step.side, step.body)
            else:
                self.windows_seen += 1
                await self.window(step, timeout_every > 0
                                  and self.windows_seen % timeout_every == 0)
        self.next_order += 1
        TALLY.orders += 1

    # --- baseline -----------------------------------------------------------------------

    async def relay(self, side: str) -> None:
        """One frame of the Order's size from a player, seen by every other member."""
        sender = self.players[side]
        self.seq += 1
        seq = self.seq
        frame = seq.to_bytes(8, "big") + bytes(max(0, self.frame_size - 8))
        sent = time.time()
        await sender.ws.send(frame)
        TALLY.commands += 1
        seen = await self.until(
            lambda: all(m.version >= seq for m in self.members if m is not sender))
        TALLY.latencies_ms.append((seen - sent) * 1000.0)
        TALLY.sent_at.append(sent)

    async def relay_order(self) -> None:
        for step in self.script.orders[self.next_order]:
            if isinstance(step, Send):
                await self.relay(step.side)
            else:  # the same frames as a window closed by its player: pass, close
                if step.trooper:
                    await self.relay(step.side)
                await self.relay(step.side)
        self.next_order += 1
        TALLY.orders += 1


async def _gather_bounded(coroutines: list[Any], limit: int) -> None:
    semaphore = asyncio.Semaphore(limit)

    async def one(coroutine: Any) -> None:
        async with semaphore:
            await coroutine

    await asyncio.gather(*(one(c) for c in coroutines))


class Worker:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.script = plan(args.seed)
        self.rooms = [RoomDriver(i, self.script, args.frame_size, args.tries, args.backoff)
                      for i in range(args.rooms)]
        self.room_ids: list[tuple[str, str, str]] = []
        self.results: dict[str, Any] = {}
        self.readers: list[asyncio.Task[None]] = []
        self._sockets = itertools.count()  # each socket's source address (source_addresses)
        # --url may list several nodes (comma-separated): rooms are created round robin;
        # player A connects to the first, player B to the second, spectators alternate.
        self.bases = [url.rstrip("/") for url in args.url.split(",")]
        self.base = self.bases[0]
        # --ws-url: every socket through this load balancer instead (rooms are still created
        # on the nodes round robin).
        self.ws_base: str | None = args.ws_url.rstrip("/") if args.ws_url else None

    async def phase(self, name: str, work: Callable[[], Any]) -> None:
        global TALLY
        TALLY = Tally()
        await work()
        TALLY.ended = time.time()
        self.results[name] = TALLY.result()
        print(json.dumps({"done": name}), flush=True)
        line = await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
        if line.strip() != "go":
            raise SystemExit(0)

    async def create_rooms(self) -> None:
        """Rooms are created round robin over the nodes (as a load balancer would send the
        lobby's requests), so each node owns a share of the rooms and relays the others."""
        clients = [httpx.AsyncClient(base_url=base, timeout=60) for base in self.bases]
        try:
            async def create(index: int) -> None:
                http = clients[index % len(clients)]
                response = await http.post("/api/rooms", json={
                    "ruleset": RULESET, "table": TABLE, "seed": self.args.seed,
                    "aro_window_s": self.args.aro_window, "visibility": "private"})
                response.raise_for_status()
                data = response.json()
                self.room_ids.append((data["room"], data["seats"]["A"]["token"],
                                      data["seats"]["B"]["token"]))
            await _gather_bounded([create(i) for i in range(len(self.rooms))], 50)
        finally:
            for http in clients:
                await http.aclose()

    async def _connect(self, room: RoomDriver, name: str, url: str,
                       hello: Hello | None) -> Member:
        # proxy=None: websockets otherwise reads the proxy settings from the environment on
        # every connect (11% of a load process's CPU while 18,000 sockets reconnect).
        ws = await self._open(url)
        reopen = None
        if hello is not None:
            await ws.send(codec.encode(hello))
            reopen = functools.partial(self._reopen, url, hello)
        member = Member(room, name, ws, reopen)
        room.members.append(member)
        self.readers.append(asyncio.create_task(member.read(hello is not None)))
        return member

    async def _open(self, url: str) -> ClientConnection:
        sock = await connected_socket(url, next(self._sockets), OPEN_TIMEOUT_S)
        return await connect(url, max_size=None, ping_interval=None, compression=None,
                             open_timeout=OPEN_TIMEOUT_S, proxy=None, sock=sock)

    async def _reopen(self, url: str, hello: Hello, member: Member) -> bool:
        """Open ``member``'s socket again, saying the version it holds (a 4011: its room
        stopped on the node, e.g. after a Redis master's failover); False when the node
        could not be reached within ``REOPENS`` tries."""
        for attempt in range(REOPENS):
            if attempt:
                await asyncio.sleep(TRY_AGAIN_PAUSE_S)
            try:
                ws = await self._open(url)
                await ws.send(codec.encode(dataclasses.replace(hello, since=member.version)))
            except (OSError, TimeoutError, InvalidHandshake, ConnectionClosed):
                continue
            member.ws = ws
            member.reopened += 1
            TALLY.reopened += 1
            member.room.arrived(member, time.time())  # a command waiting on it sends again
            return True
        return False

    def ws_url(self, member: int, room_id: str) -> str:
        """Where the room's ``member``-th socket connects (0 = A, 1 = B, then the
        spectators): round robin over the nodes, or the load balancer (--ws-url). The URL
        names the room, as the browser client's does: a balancer routes by it."""
        base = self.ws_base or self.bases[member % len(self.bases)]
        return "ws" + base.removeprefix("http") + WS_PATH + "?" + urlencode({"room": room_id})

    async def connect_referee(self) -> None:
        async def join(room: RoomDriver) -> None:
            room_id, token_a, token_b = self.room_ids[room.index]
            for n, (side, token) in enumerate((("A", token_a), ("B", token_b))):
                room.players[side] = await self._connect(
                    room, f"{room_id}/{side}", self.ws_url(n, room_id),
                    Hello(PROTOCOL_VERSION, room_id, token))
            for s in range(self.args.spectators):
                await self._connect(room, f"{room_id}/s{s}", self.ws_url(2 + s, room_id),
                                    Hello(PROTOCOL_VERSION, room_id, None))
            await room.until(lambda: all(m.version >= 0 for m in room.members))
        await _gather_bounded([join(room) for room in self.rooms], 100)

    async def connect_baseline(self) -> None:
        async def join(room: RoomDriver) -> None:
            url = f"{self.base.replace('http', 'ws', 1)}/room{self.args.worker}-{room.index}"
            for side in ("A", "B"):
                room.players[side] = await self._connect(room, f"{room.index}/{side}", url, None)
            for s in range(self.args.spectators):
                await self._connect(room, f"{room.index}/s{s}", url, None)
        await _gather_bounded([join(room) for room in self.rooms], 100)

    async def setup(self) -> None:
        async def one(room: RoomDriver) -> None:
            for step in self.script.setup:
                await room.command(step.side, step.body, tries=SETUP_TRIES)
        await _gather_bounded([one(room) for room in self.rooms], 10_000)
        TALLY.latencies_ms.clear()  # setup is not measured, only timed
        TALLY.sent_at.clear()

    async def paced(self) -> None:
        deadline = time.time() + self.args.duration
        pace = self.args.pace
        baseline = self.args.target == "baseline"

        async def one(room: RoomDriver) -> None:
            # Seeded by worker and room: the workers number their rooms alike, and one
            # seed per index gave room i of every worker the same start, i.e. bursts.
            rng = random.Random(f"{self.args.worker}/{room.index}")
            next_at = time.time() + rng.uniform(0, pace)
            while not room.done:
                delay = next_at - time.time()
                if next_at >= deadline:
                    return
                if delay > 0:
                    await asyncio.sleep(delay)
                try:
                    if baseline:
                        await room.relay_order()
                    else:
                        await room.play_order(self.args.timeout_every)
                except (RuntimeError, TimeoutError) as error:
                    TALLY.errors.append(repr(error))
                    return
                next_at += pace
        await asyncio.gather(*(one(room) for room in self.rooms))

    async def max_rate(self) -> None:
        deadline = time.time() + self.args.duration
        baseline = self.args.target == "baseline"

        async def one(room: RoomDriver) -> None:
            while not room.done and time.time() < deadline:
                try:
                    if baseline:
                        await room.relay_order()
                    else:
                        await room.play_order(0)
                except (RuntimeError, TimeoutError) as error:
                    TALLY.errors.append(repr(error))
                    return
        await asyncio.gather(*(one(room) for room in self.rooms))

    async def rejoin_referee(self) -> None:
        """Reconnect every member with ``since`` = the version it holds; done when each holds
        it again (its room is live on the restarted referee). Each member reconnects on its
        own, as real clients do after a restart (not a room's members one after another, nor
        a bounded number of rooms at a time), at most ``REJOIN_HANDSHAKES`` handshakes in
        flight in this process."""
        handshakes = asyncio.Semaphore(REJOIN_HANDSHAKES)

        async def reconnect(room: RoomDriver, name: str, url: str, hello: Hello) -> Member:
            async with handshakes:
                member = await self._connect(room, name, url, hello)
            TALLY.opened_at.append(time.time())
            return member

        async def rejoin(room: RoomDriver) -> None:
            room_id, token_a, token_b = self.room_ids[room.index]
            held = {member.name: member.version for member in room.members}
            target = max(held.values())
            room.members = []
            names = [(f"{room_id}/{side}", token)
                     for side, token in (("A", token_a), ("B", token_b))]
            names += [(f"{room_id}/s{s}", None) for s in range(self.args.spectators)]
            members = await asyncio.gather(*(
                reconnect(room, name, self.ws_url(n, room_id),
                          Hello(PROTOCOL_VERSION, room_id, token, held[name]))
                for n, (name, token) in enumerate(names)))
            room.players["A"], room.players["B"] = members[0], members[1]
            room.stopping = False
            TALLY.back_at.append(
                await room.until(lambda: all(m.version >= target for m in room.members)))
        await asyncio.gather(*(rejoin(room) for room in self.rooms))

    async def rejoin_baseline(self, greeted: bool = False) -> None:
        """Reconnect every member of every room to the restarted baseline, as
        ``rejoin_referee`` does (each on its own, at most ``REJOIN_HANDSHAKES`` handshakes in
        flight): the baseline holds no state and sends nothing on connect, so a member is
        back when its websocket handshake has completed. The transport's floor of a
        restart, against the referee's, which also reads a ``hello``, loads the room and
        answers it. ``greeted``: the baseline sends each new socket one frame
        (``--greet``), and a member is back when it has read it."""
        handshakes = asyncio.Semaphore(REJOIN_HANDSHAKES)

        async def reconnect(room: RoomDriver, name: str, url: str) -> Member:
            async with handshakes:
                member = await self._connect(room, name, url, None)
            TALLY.opened_at.append(time.time())
            return member

        async def rejoin(room: RoomDriver) -> None:
            url = f"{self.base.replace('http', 'ws', 1)}/room{self.args.worker}-{room.index}"
            names = [f"{room.index}/{side}" for side in ("A", "B")]
            names += [f"{room.index}/s{s}" for s in range(self.args.spectators)]
            room.members = []
            members = await asyncio.gather(*(reconnect(room, name, url) for name in names))
            room.players["A"], room.players["B"] = members[0], members[1]
            room.stopping = False
            back = time.time()
            if greeted:  # (a new member holds version -1 until a frame arrives)
                back = await room.until(lambda: all(m.version >= 0 for m in room.members))
            TALLY.back_at.append(back)
        await asyncio.gather(*(rejoin(room) for room in self.rooms))

    async def rejoin_baseline_then_expect_restart(self) -> None:
        await self.rejoin_baseline()
        for room in self.rooms:
            room.stopping = True  # the orchestrator kills the baseline again: the greeted one

    async def max_then_expect_restart(self) -> None:
        await self.max_rate()
        for room in self.rooms:
            room.stopping = True  # the orchestrator kills the referee next: closes expected

    async def run(self) -> None:
        if self.args.target == "referee":
            await self.phase("created", self.create_rooms)
            await self.phase("connected", self.connect_referee)
            await self.phase("setup", self.setup)
        else:
            await self.phase("connected", self.connect_baseline)
        lag_timer = watch_own_process()
        await self.phase("paced", self.paced)
        if self.args.restart:
            await self.phase("max", self.max_then_expect_restart)
            if self.args.target == "referee":
                await self.phase("restart", self.rejoin_referee)
            elif self.args.greeted_restart:
                await self.phase("restart", self.rejoin_baseline_then_expect_restart)
                await self.phase("greeted", lambda: self.rejoin_baseline(greeted=True))
            else:
                await self.phase("restart", self.rejoin_baseline)
        else:
            await self.phase("max", self.max_rate)
        for room in self.rooms:
            room.stopping = True
        await asyncio.gather(*(m.ws.close() for room in self.rooms for m in room.members),
                             return_exceptions=True)
        for reader in self.readers:
            reader.cancel()
        lag_timer.cancel()
        with open(self.args.out, "w") as handle:
            json.dump(self.results, handle)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.loadgen")
    parser.add_argument("--target", choices=("referee", "baseline"), required=True)
    parser.add_argument("--url", required=True)
    parser.add_argument("--ws-url", default=None,
                        help="every socket through this load balancer (rooms are still "
                             "created on --url)")
    parser.add_argument("--rooms", type=int, required=True)
    parser.add_argument("--spectators", type=int, default=0)
    parser.add_argument("--duration", type=float, default=30.0)
    parser.add_argument("--pace", type=float, default=10.0)
    parser.add_argument("--timeout-every", type=int, default=2)
    parser.add_argument("--aro-window", type=float, default=2.0)
    parser.add_argument("--frame-size", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--worker", type=int, default=0)
    parser.add_argument("--out", required=True)
    parser.add_argument("--tries", type=int, default=1,
                        help="sends of a game command, under its id, while it is answered "
                             "storage_unavailable (1: the first such answer is an error)")
    add_backoff_argument(parser)
    parser.add_argument("--restart", action="store_true",
                        help="after max, expect the server to restart (kill -9) and rejoin "
                             "every room")
    parser.add_argument("--greeted-restart", action="store_true",
                        help="baseline, with --restart: after the restart expect another, "
                             "of a baseline that greets each new socket with one frame, and "
                             "rejoin every room until each member has read it")
    args = parser.parse_args(argv)
    # uvloop, as the servers: the load core also carries Redis, and a busy load generator
    # reads frames late, which the measured latency would count against the server.
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        runner.run(Worker(args).run())


if __name__ == "__main__":
    main()
