"""The fuzzer's harness: rooms at points of the scripted game on a real referee, batches of
generated frames and lobby requests sent to them, and what came back handed to the oracle.

``fuzzing`` starts a Redis (``testkit.redis_process``), a server for the websocket fuzz and
one for the lobby's (``testkit.fuzz.server``), and the two fuzzers, driven from an event loop
in a thread of its own because hypothesis calls its examples synchronously; ``drive`` runs
hypothesis examples (``rounds`` for the websocket fuzz) through them, never shrinking. After
each batch a room's stored version and a spectator's snapshot must be what they were when
nothing was accepted. The checks are ``testkit.fuzz.oracle``; the generators
``testkit.fuzz.frames``. The suite's smoke runs (test_fuzz_protocol.py,
test_fuzz_http.py) and the long run (``python -m bench.fuzz``) share this harness.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import itertools
import json
import re
import threading
import urllib.parse
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import httpx
import redis.asyncio as aioredis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, WebSocketException

from protocol import codec
from protocol.codec import DecodeError
from protocol.constants import PROTOCOL_VERSION, WS_PATH, CloseCode
from protocol.messages import (
    Accepted,
    Command,
    Error,
    Events,
    Hello,
    History,
    HistoryRequest,
    Rejected,
    ServerMessage,
    Snapshot,
    Sync,
    Welcome,
)
from server.rules.armies.army_catalogue import sample_armies
from server.rules.combat import hacking
from server.store.redis_store import state_key
from testkit.fuzz.frames import Batch, Fill, Repeat, Request, batches, pack
from testkit.fuzz.oracle import (
    HUGE,
    Sent,
    Tally,
    Verdict,
    Violation,
    answer_id,
    beyond_double,
    classify,
    in_order_answers_came,
    judge,
    lobby_problems,
    log_violations,
    shown,
)
from testkit.fuzz.server import GUARD_S, NODE_ROOM_LIMITS_OFF, ROOM_LIMITS_OFF, ServerUnderTest
from testkit.fuzz.stable_generation import hypothesis_constants_only
from testkit.redis_process import RedisProcess
from testkit.scripted_game import BENCH_ENTROPY, RULESET, TABLE, plan

MAX_BAD_FRAMES = 10  # Settings.max_bad_frames: the eleventh unusable frame closes 4002
SEED = 7  # the scripted game's (testkit.scripted_game), so every scripted command is accepted
T = TypeVar("T")


# --- one websocket ----------------------------------------------------------------------------


class Conn:
    """A websocket of one role (seat "A", "B", or "spectator") that reads and decodes every
    frame the server sends, in order, and follows the version it holds."""

    def __init__(self, role: str, ws: ClientConnection, since: int | None) -> None:
        self.role = role
        self.ws = ws
        self.frames: list[ServerMessage] = []
        self.version = since if since is not None else -1
        self.since = since
        self.problems: list[Violation] = []
        self.closed = False
        self.close_code: int | None = None
        self._changed = asyncio.Event()
        self._reader = asyncio.create_task(self._read())

    @classmethod
    async def open(cls, base: str, room: str, token: str | None, role: str,
                   since: int | None = None) -> Conn:
        ws = await connect("ws" + base.removeprefix("http") + WS_PATH, max_size=None,
                           ping_interval=None, compression=None, open_timeout=GUARD_S)
        conn = cls(role, ws, since)
        await conn.send(codec.encode(Hello(PROTOCOL_VERSION, room, token, since)))
        caught_up = await conn.wait(lambda: any(
            isinstance(f, Snapshot | Events) and any(isinstance(w, Welcome)
                                                     for w in conn.frames[:n])
            for n, f in enumerate(conn.frames)))
        if not caught_up:
            raise RuntimeError(f"{role} of {room}: no welcome and catch-up "
                               f"(closed {conn.close_code}): {conn.frames}")
        return conn

    async def _read(self) -> None:
        try:
            async for data in self.ws:
                if isinstance(data, str):
                    self.problems.append(Violation("text frame from the server", data[:200]))
                    continue
                try:
                    message = codec.decode_server(data)
                except DecodeError as error:
                    self.problems.append(Violation("undecodable frame from the server",
                                                   error.message, shown(data)))
                    continue
                self._follow(message)
                self.frames.append(message)
                self._changed.set()
        except (ConnectionClosed, WebSocketException, OSError):
            pass
        finally:
            self.closed = True
            self.close_code = self.ws.close_code
            self._changed.set()

    def _follow(self, message: ServerMessage) -> None:
        if (isinstance(message, Welcome) and self.since is None) or isinstance(message, Snapshot):
            self.version = message.version
        elif isinstance(message, Events):
            if message.first > self.version + 1:
                self.problems.append(Violation(
                    "gap in versions", f"{self.role} held {self.version}, got events from "
                    f"{message.first}"))
            self.version = max(self.version, message.last)

    async def send(self, data: bytes | str) -> bool:
        try:
            await self.ws.send(data)
        except (ConnectionClosed, WebSocketException, OSError):
            return False
        return True

    async def wait(self, done: Callable[[], bool], guard_s: float = GUARD_S) -> bool:
        """Until ``done()`` (True) or the socket closed or the guard ran out (``done()``)."""
        try:
            async with asyncio.timeout(guard_s):
                while not done():
                    if self.closed:
                        return done()
                    self._changed.clear()
                    await self._changed.wait()
        except TimeoutError:
            return done()
        return True

    async def barrier(self, name: str) -> bool:
        """Ask for an empty ``history`` page and wait for it: the room answers it in inbox
        order, so every answer and event frame the room made before has arrived."""
        start = len(self.frames)
        if not await self.send(codec.encode(HistoryRequest(name, 2**53 - 1))):
            return False
        return await self.wait(lambda: any(
            isinstance(f, History | Rejected) and f.id == name for f in self.frames[start:]))

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.ws.close()
        await self._reader


# --- rooms at points of a game, and batches against them --------------------------------------


@dataclass(frozen=True, slots=True)
class Kind:
    """A room at a point of the scripted game (``testkit.scripted_game``, seed 7): the first
    ``setup`` setup commands played (None: all), then ``order`` commands of the first Order."""

    name: str
    ruleset: str = RULESET
    setup: int | None = 0
    order: int = 0


KINDS = (
    Kind("armies"),
    Kind("deployment", setup=4),
    Kind("orders", setup=None),
    Kind("window", setup=None, order=2),  # activated and moved: B's ARO window is open
    Kind("n5", ruleset="n5"),
)
ROLES = ("A", "B", "spectator")


def rounds(max_frames: int = 24) -> st.SearchStrategy[list[Batch]]:
    """One batch per room of ``KINDS``."""
    return st.lists(batches(max_frames), min_size=len(KINDS), max_size=len(KINDS))


class FuzzRoom:
    """One room, its two seats, a fuzzed spectator and a watching spectator whose snapshots
    are the room's state before and after each batch."""

    def __init__(self, fuzzer: ProtocolFuzzer, kind: Kind, info: dict[str, Any]) -> None:
        self.fuzzer = fuzzer
        self.kind = kind
        self.id: str = info["room"]
        self.tokens = {side: info["seats"][side]["token"] for side in ("A", "B")}
        self.conns: dict[str, Conn] = {}
        self.watch: Conn | None = None
        self.known: dict[str, list[Any]] = {}
        self.baseline: tuple[Any, ...] = ()
        self.signature: tuple[Any, ...] = ()
        """The phase and whether an ARO window is open, as set up: a room whose accepted
        commands changed them is replaced by a new one of its kind."""
        self.moved_on = False
        self.commands: dict[str, list[tuple[Sent, Any]]] = {role: [] for role in ROLES}
        self.bad_frames: dict[str, int] = dict.fromkeys(ROLES, 0)

    async def connect(self, role: str) -> Conn:
        old = self.conns.get(role)
        since = old.version if old is not None and old.version >= 0 else None
        if old is not None:
            await old.close()
            self.fuzzer.tally.reconnects += 1
        conn = await Conn.open(self.fuzzer.base, self.id, self.tokens.get(role), role, since)
        self.conns[role] = conn
        self.bad_frames[role] = 0
        return conn

    async def play(self, side: str, body: dict[str, Any]) -> None:
        conn = self.conns[side]
        await conn.barrier(self.fuzzer.fresh_id("sync"))
        command_id = self.fuzzer.fresh_id("setup")
        start = len(conn.frames)
        await conn.send(codec.encode(Command(command_id, conn.version, body)))
        await conn.wait(lambda: any(answer_id(f) == command_id for f in conn.frames[start:]))
        answer = next((f for f in conn.frames[start:] if answer_id(f) == command_id), None)
        if not isinstance(answer, Accepted | Events):
            raise RuntimeError(f"scripted {side} {body} in {self.kind.name}: {answer}")

    async def snapshot(self) -> Snapshot:
        watch = self.watch
        assert watch is not None
        start = len(watch.frames)
        await watch.send(codec.encode(Sync(None)))
        await watch.wait(lambda: any(isinstance(f, Snapshot) for f in watch.frames[start:]))
        found = next((f for f in watch.frames[start:] if isinstance(f, Snapshot)), None)
        if found is None:
            raise RuntimeError(f"room {self.id}: no snapshot for the watching spectator")
        return found

    async def stored_version(self) -> int:
        raw = await self.fuzzer.redis.hget(state_key(self.id), "version")
        return int(raw or 0)

    async def take_baseline(self) -> None:
        """The room's state now (its stored version and a spectator's snapshot), and what a
        frame may name in it (troopers, points near them, weapons, the ARO window)."""
        for conn in self.conns.values():
            if not conn.closed:
                await conn.barrier(self.fuzzer.fresh_id("settle"))
        snapshot = await self.snapshot()
        self.baseline = (await self.stored_version(), snapshot.version, snapshot.state)
        signature = (snapshot.state.get("phase"), snapshot.window is not None)
        self.signature = self.signature or signature
        self.moved_on = signature != self.signature
        self.known = self.fuzzer.known_values(snapshot, self)

    async def state_unchanged(self) -> list[Violation]:
        stored = await self.stored_version()
        snapshot = await self.snapshot()
        now = (stored, snapshot.version, snapshot.state)
        if now == self.baseline:
            return []
        before, after = self.baseline, now
        what = (f"stored version {before[0]} -> {after[0]}, spectator version {before[1]} -> "
                f"{after[1]}" + ("" if before[2] == after[2] else ", the spectator's view changed"))
        return [Violation("state changed by refused frames", what, note=self.kind.name)]

    async def close(self) -> None:
        for conn in [*self.conns.values(), *([self.watch] if self.watch else [])]:
            await conn.close()


class ProtocolFuzzer:
    """Rooms of every ``KINDS`` on one server, and the rounds of batches sent to them."""

    def __init__(self, server: ServerUnderTest, redis_url: str) -> None:
        self.server = server
        self.base = server.base
        self.redis = aioredis.Redis.from_url(redis_url)
        self.tally = Tally()
        self.rooms: list[FuzzRoom] = []
        self._ids = itertools.count(1)
        self._script = plan(SEED, max_orders=1)
        self._http = httpx.AsyncClient(base_url=self.base, timeout=GUARD_S)

    def fresh_id(self, prefix: str) -> str:
        return f"{prefix}~{next(self._ids)}"

    async def start(self) -> None:
        for kind in KINDS:
            self.rooms.append(await self.open_room(kind))

    async def open_room(self, kind: Kind) -> FuzzRoom:
        body: dict[str, Any] = {"ruleset": kind.ruleset, "seed": SEED, "aro_window_s": 86400,
                                "visibility": "public"}
        if kind.ruleset == RULESET:
            body["table"] = TABLE
        created = await self._http.post("/api/rooms", json=body)
        if created.status_code != 201:
            raise RuntimeError(f"room not created: {created.status_code} {created.text}")
        room = FuzzRoom(self, kind, created.json())
        for role in ROLES:
            await room.connect(role)
        room.watch = await Conn.open(self.base, room.id, None, "spectator")
        setup = self._script.setup if kind.setup is None else self._script.setup[:kind.setup]
        steps = [*setup, *self._script.orders[0][:kind.order]]
        for step in steps:
            await room.play(step.side, step.body)  # type: ignore[union-attr]
        await room.take_baseline()
        return room

    def known_values(self, snapshot: Snapshot, room: FuzzRoom) -> dict[str, list[Any]]:
        troopers = snapshot.state.get("troopers") or []
        points: list[Any] = [[0, 0], [24, 16], [1.5, 1.5]]
        for trooper in troopers:
            if trooper.get("position"):
                x, y = trooper["position"]
                points += [[x, y], [x + 0.5, y], [x, y + 1.0], [x - 3, y - 3]]
        window = snapshot.window or {}
        order = snapshot.state.get("order") or {}
        return {
            "trooper": [*(t["id"] for t in troopers), "A-t1", "B-nobody"],
            "point": points,
            "weapon": [*sorted({w for t in troopers for w in (t.get("profile") or {}).get(
                "weapons", [])}), "no_such_weapon"],
            "army": sorted(sample_armies()),
            "entropy": [BENCH_ENTROPY, "00" * 32, "F" * 64, "b3" * 31],
            "program": sorted(hacking.PROGRAMS),
            "order": [window.get("order", 1), order.get("number", 1) if isinstance(
                order, dict) else 1, 2, 0],
            "step": [window.get("step", 1), 1, 2, 3],
            "room": [room.id, *(other.id for other in self.rooms if other is not room)],
            "token": [*room.tokens.values(), "not-a-token"],
        }

    async def round(self, batch_per_room: Sequence[Batch]) -> list[Violation]:
        """Each room's batch at once; then the server's log up to now, and rooms whose game
        moved on (a command was accepted) replaced by new ones of their kind."""
        found: list[Violation] = []
        results = await asyncio.gather(*(self.run_batch(room, batch) for room, batch
                                         in zip(self.rooms, batch_per_room, strict=False)))
        for violations in results:
            found += violations
        notes = "; ".join(f"{room.kind.name}/{batch.role}" for room, batch
                          in zip(self.rooms, batch_per_room, strict=False))
        found += log_violations(await self.server.settled_log(), self.tally, notes)
        for n, room in enumerate(self.rooms):
            if room.moved_on:
                await room.close()
                self.rooms[n] = await self.open_room(room.kind)
                self.tally.rooms_replaced += 1
        self.tally.add(found)
        return found

    async def run_batch(self, room: FuzzRoom, batch: Batch) -> list[Violation]:
        conn = room.conns[batch.role]
        if conn.closed:
            conn = await room.connect(batch.role)
        fill = Fill(conn.version, room.known, lambda: next(self._ids))
        to_send = self._prepare(room, batch, fill)
        verdict = await self._exchange(room, conn, to_send)
        found = list(verdict.violations)
        accepted = verdict.accepted
        if verdict.lost:
            again = await self._resend(room, batch.role, verdict.lost)
            found += again.violations
            accepted = accepted or again.accepted
        for s in to_send:
            if s.frame.tag == "command" or s.frame.note.startswith("command"):
                room.commands[batch.role].append((s, verdict.answers.get(id(s))))
        del room.commands[batch.role][:-100]  # well inside the 256 answers a seat keeps
        if not accepted:
            changed = await room.state_unchanged()
            found += changed
            self.tally.state_checks += 1
            accepted = bool(changed)  # reported once: the room's state now is the new baseline
        if accepted:
            await room.take_baseline()
        return [dataclasses.replace(v, note=f"{room.kind.name}/{batch.role} {v.note}")
                for v in found]

    def _prepare(self, room: FuzzRoom, batch: Batch, fill: Fill) -> list[Sent]:
        """The batch's frames filled in and packed, up to the one that must close the socket
        (an oversized one, or the one over ``MAX_BAD_FRAMES``)."""
        out: list[Sent] = []
        bad = room.bad_frames[batch.role]
        for frame in batch.frames:
            if isinstance(frame.wire, Repeat):
                earlier = room.commands[batch.role]
                if not earlier:
                    continue
                first, answer = earlier[frame.wire.pick % len(earlier)]
                s = Sent(first.frame, first.data, first.wire, first.kind, first.code, first.id,
                         first=answer, resent=answer is None)
            elif frame.raw:
                s = classify(frame, frame.wire, frame.wire)
            else:
                wire = fill.value(frame.wire)
                s = classify(frame, wire, pack(wire))
            out.append(s)
            self.tally.inputs[re.sub(r" \(\d+ levels\)", "", s.frame.note.split(" with ")[0])] += 1
            if s.kind == "close":
                break
            bad += s.unusable
            if bad > MAX_BAD_FRAMES:
                break
        return out

    async def _exchange(self, room: FuzzRoom, conn: Conn, to_send: list[Sent]) -> Verdict:
        role = conn.role
        last = to_send[-1] if to_send else None
        bad = room.bad_frames[role] + sum(s.unusable for s in to_send)
        close_expected = (int(last.code or 0) if last is not None and last.kind == "close"
                          else CloseCode.PROTOCOL_ERROR if bad > MAX_BAD_FRAMES else None)
        room.bad_frames[role] = bad
        start, v0 = len(conn.frames), conn.version
        barrier = None if close_expected is not None else self.fresh_id("barrier")
        for s in to_send:
            if not await conn.send(s.data):
                break
        self.tally.frames += len(to_send)
        self.tally.batches += 1
        expected_ids = {s.id for s in to_send if s.id is not None and s.kind not in (
            "error", "close", "command", "history")}
        counts = Counter(s.kind for s in to_send)
        if barrier is not None:
            await conn.barrier(barrier)
            await conn.wait(lambda: expected_ids <= {answer_id(f) for f in conn.frames[start:]}
                            and in_order_answers_came(conn.frames[start:], counts))
        else:
            await conn.wait(lambda: conn.closed)
        closed = conn.close_code if conn.closed else None
        if closed is not None:
            self.tally.closes[closed] += 1
        verdict = judge(to_send, conn.frames[start:], role=role, v0=v0, v1=conn.version,
                        close_expected=close_expected, close_code=closed, barrier=barrier)
        verdict.violations += conn.problems
        conn.problems = []
        self._count(to_send, verdict)
        return verdict

    def _count(self, to_send: Sequence[Sent], verdict: Verdict) -> None:
        for s in to_send:
            answer = verdict.answers.get(id(s))
            if s.kind == "close":
                label = f"close {s.code}"
            elif answer is None:  # allowed: a violation says so when it is not
                label = ("lost to a close, asked again" if s in verdict.lost
                         else "cut off by a close")
            elif isinstance(answer, Rejected | Error):
                label = f"{type(answer).__name__.lower()} {answer.code}"
            elif isinstance(answer, Events) and answer.accepted is not None:
                label = "accepted"
            else:
                label = type(answer).__name__.lower()
            self.tally.answers[label] += 1

    async def _resend(self, room: FuzzRoom, role: str, lost: list[Sent]) -> Verdict:
        """Commands and history requests whose answers a close took away, sent again with
        the same ids on a new socket: each must be answered once (its first answer, which
        the room remembers, or a decision)."""
        conn = await room.connect(role)
        again = [Sent(s.frame, s.data, s.wire, s.kind, s.code, s.id, resent=True) for s in lost]
        self.tally.resent += len(again)
        return await self._exchange(room, conn, again)

    async def stop(self) -> None:
        for room in self.rooms:
            await room.close()
        await self._http.aclose()
        await self.redis.aclose()


# --- the lobby ----------------------------------------------------------------------------


class LobbyFuzzer:
    """Generated requests to the HTTP lobby of one server, a few rooms of which it knows."""

    def __init__(self, server: ServerUnderTest, redis_url: str) -> None:
        self.server = server
        self.redis = aioredis.Redis.from_url(redis_url)
        self.http = httpx.AsyncClient(base_url=server.base, timeout=GUARD_S)
        self.tally = Tally()
        self.known: dict[str, list[Any]] = {}
        self.tokens: dict[str, dict[str, str]] = {}  # room -> token -> seat
        self._addresses = itertools.count(1)

    async def start(self) -> None:
        for ruleset in ("codeone", "n5"):
            created = await self.http.post("/api/rooms", json={"ruleset": ruleset})
            if created.status_code != 201:
                raise RuntimeError(f"room not created: {created.status_code} {created.text}")
            info = created.json()
            self.tokens[info["room"]] = {info["seats"][s]["token"]: s for s in ("A", "B")}
        tables = (await self.http.get("/api/tables")).json()["tables"]
        rooms = sorted(self.tokens)
        self.known = {
            "room": rooms, "room_suffix": [room + "x" for room in rooms],
            "token": [t for room in rooms for t in self.tokens[room]],
            "layout": [t["id"] for t in tables], "table_document": [t["table"] for t in tables],
        }

    async def rooms_stored(self) -> int:
        return len([key async for key in self.redis.scan_iter(match="{room:*}:state",
                                                              count=1000)])

    async def batch(self, batch: Sequence[Request]) -> list[Violation]:
        before = await self.rooms_stored()
        results = await asyncio.gather(*(self.one(request) for request in batch))
        found = [v for violations, _ in results for v in violations]
        created = sum(made for _, made in results)
        after = await self.rooms_stored()
        if after != before + created:
            found.append(Violation("state changed by refused requests",
                                   f"{after - before} rooms stored, {created} answered 201"))
        found += log_violations(await self.server.settled_log(), self.tally, "lobby")
        self.tally.add(found)
        return found

    async def one(self, request: Request) -> tuple[list[Violation], int]:
        fill = Fill(0, self.known, lambda: 0)
        segments = [fill.value(part) for part in request.path]
        url = "/" + "/".join(s if s.startswith("%") or s in (".", "..") else
                             urllib.parse.quote(str(s), safe="") for s in segments)
        body = request.body if isinstance(request.body, bytes) else fill.value(request.body)
        content = body if isinstance(body, bytes) else None if body is None else json.dumps(
            body, default=str).encode()
        huge = f" {HUGE}" if not isinstance(body, bytes) and beyond_double(body) else ""
        headers = list(request.headers)
        if "x-forwarded-for" not in dict(headers) and next(self._addresses) % 8:
            n = next(self._addresses)
            headers.append(("x-forwarded-for", f"10.{n >> 16 & 255}.{n >> 8 & 255}.{n & 255}"))
        described = f"{request.method} {url[:200]} {headers} {(content or b'')[:200]!r}"
        self.tally.requests += 1
        self.tally.inputs[request.route] += 1
        try:
            response = await self._send(request.method, url, request.query, headers, content)
        except (httpx.InvalidURL, httpx.LocalProtocolError, UnicodeEncodeError):
            self.tally.answers["not sent (client refused)"] += 1
            return [], 0
        except httpx.HTTPError as error:
            return [Violation("no HTTP answer", repr(error), described, request.route)], 0
        self.tally.answers[f"{response.status_code}"] += 1
        found = [Violation(kind, detail + huge, described, request.route)
                 for kind, detail in lobby_problems(request, segments, content, response, self.tokens)]
        made = int(response.status_code == 201 and request.method == "POST"
                   and segments == ["api", "rooms"])
        return found, made

    async def _send(self, method: str, url: str, query: Any, headers: Any,
                    content: bytes | None) -> httpx.Response:
        """One request, on a new connection if the server closed the one it was sent on
        (it closes after a 408, a 413 or a failure)."""
        for attempt in (1, 2):
            try:
                return await self.http.request(method, url, params=query, headers=headers,
                                               content=content)
            except (httpx.ReadError, httpx.RemoteProtocolError, httpx.WriteError):
                if attempt == 2:
                    raise
                async with httpx.AsyncClient(base_url=self.server.base, timeout=GUARD_S) as one:
                    return await one.request(method, url, params=query, headers=headers,
                                             content=content)
        raise AssertionError("unreachable")

    async def stop(self) -> None:
        await self.http.aclose()
        await self.redis.aclose()


# --- running it -------------------------------------------------------------------------------


class LoopThread:
    """An event loop in a thread of its own: hypothesis calls its tests synchronously, and
    the sockets and the server's log must be read between two of its examples too."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._thread.start()

    def run(self, coroutine: Awaitable[T]) -> T:
        async def wrapped() -> T:
            return await coroutine
        return asyncio.run_coroutine_threadsafe(wrapped(), self.loop).result()

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join()
        self.loop.close()


@dataclass
class Fuzzing:
    """A Redis, one server for the websocket fuzz and one for the lobby's, and the fuzzers
    driving them from a loop thread; ``protocol_round`` and ``lobby_batch`` are what a
    hypothesis example calls."""

    loop: LoopThread
    redis: RedisProcess
    servers: list[ServerUnderTest]
    protocol: ProtocolFuzzer
    lobby: LobbyFuzzer

    def protocol_round(self, batch_per_room: Sequence[Batch]) -> list[Violation]:
        return self.loop.run(self.protocol.round(batch_per_room))

    def lobby_batch(self, batch: Sequence[Request]) -> list[Violation]:
        return self.loop.run(self.lobby.batch(batch))


@contextlib.contextmanager
def fuzzing(workdir: Path, *, protocol: bool = True, lobby: bool = True,
            server_core: str | None = None) -> Iterator[Fuzzing]:
    """Start Redis, a server for each fuzz asked for and its fuzzer (rooms made and set
    up); stop them all after."""
    loop = LoopThread()
    redis_process = RedisProcess(workdir / "redis")
    redis_process.start()
    servers: list[ServerUnderTest] = []
    started: list[ProtocolFuzzer | LobbyFuzzer] = []

    async def start() -> Fuzzing:
        ws_server = ServerUnderTest(redis_process.url, ROOM_LIMITS_OFF, server_core)
        lobby_server = ServerUnderTest(redis_process.url, NODE_ROOM_LIMITS_OFF, server_core)
        protocol_fuzzer = ProtocolFuzzer(ws_server, redis_process.url)
        lobby_fuzzer = LobbyFuzzer(lobby_server, redis_process.url)
        for wanted, server, fuzzer in ((protocol, ws_server, protocol_fuzzer),
                                       (lobby, lobby_server, lobby_fuzzer)):
            if wanted:
                servers.append(server)
                await server.start()
                started.append(fuzzer)
                await fuzzer.start()
                # what start-up logged is checked like the rest
                fuzzer.tally.add(log_violations(await server.settled_log(), fuzzer.tally,
                                                "start-up"))
        return Fuzzing(loop, redis_process, servers, protocol_fuzzer, lobby_fuzzer)

    async def stop() -> None:
        for fuzzer in started:
            await fuzzer.stop()
        for server in servers:
            await server.stop()

    try:
        yield loop.run(start())
    finally:
        try:
            loop.run(stop())
        finally:
            loop.close()
            redis_process.stop()


def drive(examples: int, strategy: st.SearchStrategy[T], run: Callable[[T], object], *,
          seed: int | None = None) -> None:
    """Run ``run`` on ``examples`` values of ``strategy``, generated by hypothesis (from
    ``seed``; derandomized without one), never shrinking: the server keeps its state between
    examples, so a shrunk example would not meet the same rooms. The examples depend on the
    strategy and the seed only, not on the modules other tests loaded
    (``stable_generation``)."""
    @settings(max_examples=examples, deadline=None, database=None, derandomize=seed is None,
              phases=[Phase.generate], suppress_health_check=list(HealthCheck))
    @given(strategy)
    def example(value: T) -> None:
        run(value)

    if seed is not None:
        example = hypothesis_seed(seed)(example)
    with hypothesis_constants_only():
        example()
