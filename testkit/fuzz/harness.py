"""A fuzzer against a real referee (issue 18): generated websocket frames and lobby requests
(``tests/support/fuzz_frames.py``), each checked against what protocol/README.md says it
must get, with the server's log read for tracebacks and the rooms' state compared before and
after what was refused.

    .venv/bin/python -m bench.fuzz --frames 100000 --requests 5000

starts a redis-server and ``python -m server`` itself (the server pinned to core 0 and this
process to the others when there are two, as ``bench.run`` does), makes rooms at several
points of a scripted game (armies, deployment, the Orders Phase, an open ARO window, an N5
room on a tournament table), and sends each room batch after batch of generated frames from
seat A, seat B or a spectator. For every batch it checks:

- every frame got what the protocol says: the ``error`` with its code for a frame that is no
  usable message, the ``rejected`` with its id (``bad_message``, ``bad_command``), exactly one
  answer per command and query id, a ``pong`` per ping, an ``options`` per request, a
  snapshot or the events after ``since`` per ``sync``, the close code of an oversized frame
  or of the eleventh unusable one; each command's answer matches the version it was sent
  against (``stale_version``/``future_version``), a malformed body is ``bad_command``, a
  spectator's command ``spectator_read_only``, a repeated id its first answer, and every
  code is a documented one (``internal_error`` never);
- nothing refused changed the room: when no command of the batch was accepted, the room's
  stored version and a spectator's snapshot are the same after it as before;
- nothing went wrong inside the server: no traceback, ERROR or CRITICAL line in its log
  (each round ends with a marked request whose access-log line shows the log is read up to
  there).

The lobby is fuzzed the same way (``requests``): never a 5xx but a documented 503, an error
body ``{"error", "message"}`` for every 4xx of the API, the exact answer where it is known
(a seat token that opens the room, a room that exists or not), and no room stored by a
refused request. It prints a summary and exits 1 on any violation (``--allow-known``: not
for violations of the known bugs listed in ``KNOWN_BUGS``, each pinned by a strict xfail
test). The suite's smoke runs (tests/server/test_fuzz_protocol.py, test_fuzz_http.py) use
this same harness at a small size.

The server runs with its per-socket rate limit and its work budgets lifted (as bench.run
lifts the rate limit) so that the fuzzer is not refused for its pace, and with long ARO
windows and grace periods so that no clock changes a room between two checks.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import itertools
import json
import os
import re
import shutil
import sys
import tempfile
import threading
import time
import urllib.parse
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import httpx
import redis.asyncio as aioredis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, WebSocketException

from bench.script import BENCH_ENTROPY, RULESET, TABLE, plan
from protocol import codec
from protocol.codec import DecodeError
from protocol.constants import (
    PROTOCOL_VERSION,
    RULE_REASONS,
    WS_PATH,
    CloseCode,
    ProtocolReason,
)
from protocol.messages import (
    Accepted,
    Command,
    Error,
    Events,
    Hello,
    History,
    HistoryRequest,
    Measurement,
    Options,
    Pong,
    Rejected,
    ServerMessage,
    Snapshot,
    Sync,
    Welcome,
)
from server.rules.armies.army_catalogue import sample_armies
from server.rules.combat import hacking
from server.store.redis_store import state_key
from tests.store.redis_process import RedisProcess, free_port
from tests.support.fuzz_frames import (
    Batch,
    Fill,
    Frame,
    Known,
    Repeat,
    Request,
    batches,
    body_fits,
    pack,
    requests,
)

REPO = Path(__file__).resolve().parent.parent
GUARD_S = 30.0
"""Against a hung server only: a batch whose answers have not all come by then is reported
as missing them. No check depends on how long anything takes."""
MAX_BAD_FRAMES = 10  # Settings.max_bad_frames: the eleventh unusable frame closes 4002
SEED = 7  # the scripted game's (bench.script), so every scripted command is accepted
DOCUMENTED = frozenset(ProtocolReason) | frozenset(RULE_REASONS)
"""Every reason code a ``rejected`` or an ``error`` may carry."""
SERVER_FAILED = ProtocolReason.INTERNAL_ERROR
FUZZ_ENV = {
    "REFEREE_RATE_PER_S": "1000000", "REFEREE_RATE_BURST": "1000000",
    "REFEREE_WORK_SEAT_MS_PER_S": "0", "REFEREE_WORK_SPECTATORS_MS_PER_S": "0",
    "REFEREE_WORK_NODE_SHARE": "0",
    "REFEREE_ALLOW_FIXED_SEED": "1", "REFEREE_MAX_ARO_WINDOW_S": "86400",
    "REFEREE_GRACE_S": "86400", "REFEREE_FREEZE_GC": "0", "REFEREE_NODE_STATE_DIR": "",
    "REFEREE_STATIC_DIR": "",
}
"""The fuzzed server's settings: no pacing (rate limit, work budgets), no clock that changes
a room between two checks (ARO windows and grace periods of a day)."""
NODE_ROOM_LIMITS_OFF = {"REFEREE_NODE_ROOM_BURST": "0", "REFEREE_MAX_UNSTARTED_ROOMS": "0"}
ROOM_LIMITS_OFF = {**NODE_ROOM_LIMITS_OFF, "REFEREE_CLIENT_ROOM_BURST": "0"}
"""The websocket fuzz makes its rooms alone: no room-creation limit. The lobby fuzz keeps the
limit per client address (429 ``too_many_rooms`` is an answer it checks) and spreads most of
its requests over addresses of their own (``X-Forwarded-For`` from the trusted loopback
proxy), so that most bodies are read and checked rather than refused unread."""
LOG_PROBLEM = re.compile(
    r"^(?:Traceback \(most recent call last\)|(?:ERROR|CRITICAL):|"
    r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ (?:ERROR|CRITICAL) )")
"""A line of the server's log that says something went wrong in it: a traceback, or an
ERROR/CRITICAL record in uvicorn's format or the server's."""
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Violation:
    """Something the server did that the protocol, the lobby's contract or a clean log
    does not allow. ``input`` is what was sent (a frame's bytes, shortened; a request)."""

    kind: str
    detail: str
    input: str = ""
    note: str = ""

    def __str__(self) -> str:
        where = f" [{self.note}]" if self.note else ""
        sent = f"\n    sent: {self.input}" if self.input else ""
        return f"{self.kind}{where}: {self.detail}{sent}"


@dataclass(frozen=True, slots=True)
class KnownBug:
    """A bug the fuzzer finds that is not fixed yet, pinned by the strict xfail test
    ``test``; ``matches`` tells its violations from others."""

    name: str
    test: str
    matches: Callable[[Violation], bool]


HUGE = "(its body holds an integer beyond a double)"


def _beyond_double(value: Any) -> bool:
    if isinstance(value, int) and not isinstance(value, bool):
        return abs(value) >= 2**1024
    if isinstance(value, dict):
        return any(map(_beyond_double, value.values()))
    if isinstance(value, list):
        return any(map(_beyond_double, value))
    return False


KNOWN_BUGS: tuple[KnownBug, ...] = ()
"""Found by this fuzzer and not fixed yet, each pinned by a strict xfail test, which fails
once the bug is fixed: then remove its entry. None today: the four it found (a ``type``
nested a thousand deep, an integer beyond a double in room settings or in a table document,
the router's text 404/405 under ``/api/``) are fixed and are regression tests."""


def known_bug(violation: Violation) -> KnownBug | None:
    return next((bug for bug in KNOWN_BUGS if bug.matches(violation)), None)


@dataclass
class Tally:
    """What a run sent, got and checked (printed by ``summary``)."""

    frames: int = 0
    batches: int = 0
    requests: int = 0
    answers: Counter[str] = field(default_factory=Counter)
    inputs: Counter[str] = field(default_factory=Counter)
    closes: Counter[int] = field(default_factory=Counter)
    state_checks: int = 0
    rooms_replaced: int = 0
    reconnects: int = 0
    resent: int = 0
    log_lines: int = 0
    log_warnings: int = 0
    tracebacks: int = 0
    violations: list[Violation] = field(default_factory=list)

    def add(self, found: Sequence[Violation]) -> None:
        self.violations.extend(found)

    def unknown(self) -> list[Violation]:
        return [v for v in self.violations if known_bug(v) is None]


def shown(data: bytes | str, limit: int = 160) -> str:
    """A frame for a report: its bytes in hex (shortened), and its length."""
    if isinstance(data, str):
        return f"text frame {data[:limit]!r} ({len(data)} chars)"
    more = "..." if len(data) > limit else ""
    return f"{data[:limit].hex()}{more} ({len(data)} bytes)"


# --- the server under test, and its log -------------------------------------------------------


class ServerUnderTest:
    """``python -m server`` on a free port against ``redis_url``, its log (stdout and stderr)
    read line by line as it comes. ``settled_log`` sends a marked request and returns the
    log up to that request's access line: everything the server wrote before it."""

    def __init__(self, redis_url: str, env: dict[str, str], core: str | None = None) -> None:
        self.redis_url = redis_url
        self.env = env
        self.core = core
        self.port = free_port()
        self.lines: list[str] = []
        self.read_to = 0
        self._marks = itertools.count(1)
        self._changed = asyncio.Event()
        self._process: asyncio.subprocess.Process | None = None
        self._pump: asyncio.Task[None] | None = None
        self._http: httpx.AsyncClient | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> None:
        env = {**os.environ, **FUZZ_ENV, **self.env, "REDIS_URL": self.redis_url,
               "REFEREE_NODE_ID": f"fuzz-{os.getpid()}-{self.port}", "PYTHONUNBUFFERED": "1"}
        argv = [sys.executable, "-m", "server", "--port", str(self.port), "--log-level", "info"]
        if self.core is not None and shutil.which("taskset"):
            argv = ["taskset", "-c", self.core, *argv]
        self._process = await asyncio.create_subprocess_exec(
            *argv, cwd=REPO, env=env, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT, limit=1 << 20)
        self._pump = asyncio.create_task(self._read_log())
        started = await self._until(lambda: any("Uvicorn running on" in line
                                                for line in self.lines))
        if not started:
            raise RuntimeError("the server did not start:\n" + "\n".join(self.lines[-40:]))
        self._http = httpx.AsyncClient(base_url=self.base, timeout=GUARD_S)

    async def _read_log(self) -> None:
        assert self._process is not None and self._process.stdout is not None
        stdout = self._process.stdout
        while True:
            try:
                line = await stdout.readline()
            except (ValueError, asyncio.LimitOverrunError):  # a line longer than 1 MiB
                line = (await stdout.read(1 << 20))[:2000] + b"...\n"
            if not line:
                break
            self.lines.append(line.decode(errors="replace").rstrip("\n"))
            self._changed.set()
        self._changed.set()

    async def _until(self, condition: Callable[[], bool]) -> bool:
        try:
            async with asyncio.timeout(GUARD_S * 2):
                while not condition():
                    if self._pump is not None and self._pump.done():
                        return condition()
                    self._changed.clear()
                    await self._changed.wait()
        except TimeoutError:
            return False
        return True

    async def settled_log(self) -> list[str]:
        """The log lines written since the last call, up to a marked request of this one."""
        assert self._http is not None
        mark = f"fuzz-mark={next(self._marks)} HTTP"
        await self._http.get(f"/healthz?{mark.split()[0]}")
        seen = await self._until(lambda: any(mark in line for line in self.lines[self.read_to:]))
        if not seen:
            raise RuntimeError(f"the server's log never showed {mark!r}")
        end = next(i for i in range(self.read_to, len(self.lines)) if mark in self.lines[i]) + 1
        lines, self.read_to = self.lines[self.read_to:end], end
        return lines

    async def stop(self) -> None:
        if self._http is not None:
            await self._http.aclose()
        if self._process is not None and self._process.returncode is None:
            self._process.terminate()
            try:
                async with asyncio.timeout(GUARD_S):
                    await self._process.wait()
            except TimeoutError:
                self._process.kill()
                await self._process.wait()
        if self._pump is not None:
            await self._pump


RECORD_START = re.compile(r"^(?:\d{4}-\d\d-\d\d \d|(?:DEBUG|INFO|WARNING|ERROR|CRITICAL):)")
"""The first line of a log record (the lines after it, up to the next, are its traceback)."""


def log_violations(lines: Sequence[str], tally: Tally, context: str) -> list[Violation]:
    """A violation for each record in ``lines`` that is an ERROR or CRITICAL one or a bare
    traceback, with its lines (the traceback itself)."""
    tally.log_lines += len(lines)
    tally.log_warnings += sum(" WARNING " in line or line.startswith("WARNING:")
                              for line in lines)
    tally.tracebacks += sum(line.startswith("Traceback (most recent call last)")
                            for line in lines)
    found = []
    n = 0
    while n < len(lines):
        end = n + 1
        while end < len(lines) and not RECORD_START.match(lines[end]):
            end += 1
        if LOG_PROBLEM.match(lines[n]):
            block = lines[n:end]
            shown_lines = block if len(block) <= 30 else [*block[:8], "...", *block[-18:]]
            found.append(Violation("server log", "\n      ".join(shown_lines), note=context))
        n = end
    return found


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


# --- what each sent frame must get, and the check of what came back --------------------------


@dataclass
class Sent:
    """A frame as sent and the kind of answer it must get: "error"/"reject" (at once, with
    ``code``), "pong", "options", "measure", "command", "history", "sync", or "close"."""

    frame: Frame
    data: bytes | str
    wire: Any
    kind: str
    code: str | None = None
    id: str | None = None
    first: Any = None  # a repeated command: the first answer it must get again
    resent: bool = False  # sent again after its answer was lost to a close: any answer

    @property
    def unusable(self) -> bool:
        return self.kind in ("error", "reject")


def classify(frame: Frame, wire: Any, data: bytes | str) -> Sent:
    """What ``frame``, filled in as ``wire``, must get (protocol/README.md)."""
    if frame.close is not None:
        return Sent(frame, data, wire, "close", code=str(frame.close))
    frame_id = wire.get("id") if isinstance(wire, dict) and (frame.readable_id or (
        frame.tag in ("command", "history", "measure") and frame.error is None)) else None
    if frame.error is not None:
        return Sent(frame, data, wire, "reject" if frame.readable_id else "error",
                    code=str(frame.error), id=frame_id)
    if frame.tag == "command" and not body_fits(wire["body"]):
        return Sent(frame, data, wire, "reject", code="bad_command", id=frame_id)
    kind = {"ping": "pong"}.get(frame.tag or "", frame.tag or "")
    return Sent(frame, data, wire, kind, id=frame_id)


@dataclass
class Verdict:
    violations: list[Violation] = field(default_factory=list)
    answers: dict[int, Any] = field(default_factory=dict)  # index in the batch -> answer
    lost: list[Sent] = field(default_factory=list)  # answers a close took away
    accepted: bool = False

    def fail(self, kind: str, detail: str, sent: Sent | None = None) -> None:
        self.violations.append(Violation(kind, detail, shown(sent.data) if sent else "",
                                         sent.frame.note if sent else ""))


def answer_id(message: ServerMessage) -> str | None:
    if isinstance(message, Rejected | Accepted | History | Measurement):
        return message.id
    if isinstance(message, Events):
        return message.accepted
    return None


def judge(sent: Sequence[Sent], received: Sequence[ServerMessage], *, role: str, v0: int,
          v1: int, close_expected: int | None, close_code: int | None,
          barrier: str | None) -> Verdict:
    """Compare what one socket got with what each of ``sent`` must get. ``v0``/``v1``: the
    version the socket held before and after; ``close_expected``: the close the batch must
    end with (None: the socket must stay open, and answered ``barrier``).

    What a close may take away: after one the server made for the batch's last frame
    (4002, 4009), the answers the room had not sent yet (commands, history, syncs: asked
    again on a new socket); after the transport's own (1009: it stops the socket as soon as
    it reads the frame's length) or an unexpected one, any."""
    verdict = Verdict()
    unexpected = close_code != close_expected
    lossy = "any" if unexpected or close_expected == CloseCode.MESSAGE_TOO_BIG else (
        "inbox" if close_expected is not None else "none")
    by_id: dict[str, list[ServerMessage]] = {}
    for message in received:
        if (key := answer_id(message)) is not None:
            by_id.setdefault(key, []).append(message)
    if barrier is not None:
        by_id.pop(barrier, None)
    _check_in_order(verdict, sent, received, role, v0, v1, lossy)
    _check_by_id(verdict, sent, by_id, role, v0, lossy)
    for key in by_id:
        verdict.fail("answer to an id never sent", f"{key!r}: {by_id[key]}")
    if unexpected:  # the first frame left without its answer is the likeliest cause
        unanswered = [s for s in sent if id(s) not in verdict.answers and s.kind != "close"]
        culprit = next((s for s in unanswered if s.kind in ("error", "reject", "pong",
                                                            "options", "measure")),
                       unanswered[0] if unanswered else sent[-1] if sent else None)
        batch = ", ".join(f"{s.frame.note}{'' if id(s) in verdict.answers else ' (no answer)'}"
                          for s in sent)
        verdict.fail("unexpected close", f"expected {close_expected or 'the socket to stay open'}"
                     f", got {close_code or 'no close'}; the batch: {batch}", culprit)
    return verdict


def _check_in_order(verdict: Verdict, sent: Sequence[Sent], received: Sequence[ServerMessage],
                    role: str, v0: int, v1: int, lossy: str) -> None:
    """Answers without an id, each kind in the order its frames were sent: errors, pongs,
    options, and the snapshot or events each ``sync`` gets."""
    streams: dict[str, tuple[list[Sent], list[ServerMessage]]] = {
        "error": ([s for s in sent if s.kind == "error"],
                  [m for m in received if isinstance(m, Error)]),
        "pong": ([s for s in sent if s.kind == "pong"],
                 [m for m in received if isinstance(m, Pong)]),
        "options": ([s for s in sent if s.kind == "options"],
                    [m for m in received if isinstance(m, Options)]),
        "sync": ([s for s in sent if s.kind == "sync"],
                 [m for m in received if isinstance(m, Snapshot)
                  or (isinstance(m, Events) and m.accepted is None)]),
    }
    for kind, (asked, got) in streams.items():
        for s, message in zip(asked, got, strict=False):
            verdict.answers[id(s)] = message
            problem = _in_order_problem(kind, s, message, role, v0, v1)
            if problem:
                verdict.fail("wrong answer", f"{problem}; got {message}", s)
        if len(got) > len(asked):
            verdict.fail("unasked frame", f"{len(got) - len(asked)} more {kind} than asked: "
                         f"{got[len(asked):][:3]}")
        may_lose = lossy == "any" or (lossy == "inbox" and kind == "sync")
        for s in asked[len(got):]:
            if not may_lose:
                verdict.fail("no answer", f"no {kind} frame for it", s)


def _in_order_problem(kind: str, s: Sent, message: ServerMessage, role: str, v0: int,
                      v1: int) -> str | None:
    if kind == "error":
        assert isinstance(message, Error)
        return None if message.code == s.code else f"expected error {s.code}"
    if kind == "pong":
        return None if message == Pong(s.wire["nonce"]) else f"expected pong {s.wire['nonce']}"
    if kind == "options":
        assert isinstance(message, Options)
        if not v0 <= message.version <= v1:
            return f"options at version {message.version}, the socket held {v0}..{v1}"
        return "a spectator's options must be empty" if role == "spectator" and message.options \
            else None
    since = s.wire.get("since")
    if isinstance(message, Snapshot):
        if not v0 <= message.version <= v1:
            return f"snapshot at {message.version}, the socket held {v0}..{v1}"
        if since is not None and 0 <= since <= v0:
            return f"since {since} is a version it passed: expected the events after it"
        return None
    assert isinstance(message, Events)
    if since is None or since < 0 or message.first != since + 1 or not v0 <= message.last <= v1:
        return f"expected a snapshot, or the events after {since} up to {v0}..{v1}"
    return None


def _check_by_id(verdict: Verdict, sent: Sequence[Sent], by_id: dict[str, list[ServerMessage]],
                 role: str, v0: int, lossy: str) -> None:
    """Answers with an id: exactly one per frame, of the kind and code it must have;
    commands in the order the room took them, against the version they were sent at."""
    version = v0
    for s in sent:
        if s.id is None or s.kind in ("error", "close"):
            continue
        answers = by_id.get(s.id, [])
        if not answers:
            if s.kind in ("command", "history") and lossy != "none":
                verdict.lost.append(s)
            elif lossy != "any":
                verdict.fail("no answer", f"nothing answered id {s.id!r}", s)
            continue
        answer = answers.pop(0)
        if not answers:
            by_id.pop(s.id)
        verdict.answers[id(s)] = answer
        if isinstance(answer, Rejected) and answer.code not in DOCUMENTED:
            verdict.fail("undocumented code", f"rejected {answer.code!r}: {answer.message}", s)
        if isinstance(answer, Rejected) and answer.code == SERVER_FAILED:
            verdict.fail("server failed", f"rejected internal_error: {answer.message}", s)
        if s.kind == "command":
            version = _check_command(verdict, s, answer, role, version)
        else:
            problem = _id_answer_problem(s, answer, v0)
            if problem:
                verdict.fail("wrong answer", f"{problem}; got {answer}", s)


def _id_answer_problem(s: Sent, answer: ServerMessage, v0: int) -> str | None:
    if s.kind == "reject":
        if isinstance(answer, Rejected) and answer.code == s.code:
            return None
        return f"expected rejected {s.code}"
    if s.kind == "measure":
        if not s.frame.well_formed:
            return None if isinstance(answer, Rejected) and answer.code == "bad_message" \
                else "a point that is not [x, y] must be rejected bad_message"
        if isinstance(answer, Measurement):
            echoed = answer.from_ == s.wire["from"] and answer.to == s.wire["to"]
            return None if echoed else "the measurement must repeat from and to"
        return None if isinstance(answer, Rejected) else "expected a measurement or rejected"
    if s.kind == "history":
        start = s.wire["from"]
        if isinstance(answer, Rejected):
            ok = answer.code == "bad_message" if start < 1 else answer.code == "room_busy"
            return None if ok else f"history from {start}: unexpected rejection"
        if not isinstance(answer, History):
            return "expected a history page"
        if start < 1:
            return "history from below 1 must be rejected bad_message"
        if answer.first != start or answer.last < v0 or len(answer.events) > max(
                0, answer.last - start + 1) or (start <= answer.last and not answer.events):
            return f"a page from {start} up to the socket's version {v0}.."
        return None
    return f"unexpected kind {s.kind}"


def _check_command(verdict: Verdict, s: Sent, answer: ServerMessage, role: str,
                   version: int) -> int:
    """Check one command's answer against the version the room was at when it took it (the
    room takes commands in the order they were sent); returns the version after it."""
    got = "accepted" if isinstance(answer, Accepted | Events) else (
        answer.code if isinstance(answer, Rejected) else type(answer).__name__)
    if s.resent:  # its first answer was lost: this is the remembered one, or a decision
        verdict.accepted = verdict.accepted or isinstance(answer, Accepted | Events)
        return version
    if s.first is not None:
        if _same_answer(answer, s.first):
            return version
        verdict.fail("wrong answer", f"a repeated id must get its first answer {s.first}; "
                     f"got {answer}", s)
        return version
    sent_at = s.wire["version"]
    if role == "spectator":
        expected = {"spectator_read_only"}
    elif sent_at < version:
        expected = {"stale_version"}
    elif sent_at > version:
        expected = {"future_version"}
    elif not s.frame.well_formed:
        expected = {"bad_command"}
    else:
        expected = {*RULE_REASONS, "accepted"}
    if got not in expected | {"room_busy"}:
        verdict.fail("wrong answer", f"sent against {sent_at}, the room at {version}: "
                     f"expected {sorted(expected)[:6]}; got {answer}", s)
    if isinstance(answer, Events):
        verdict.accepted = True
        return answer.last
    if isinstance(answer, Accepted):
        verdict.accepted = True
        return answer.version
    return version


def _same_answer(answer: ServerMessage, first: ServerMessage) -> bool:
    if isinstance(first, Events):
        first = Accepted(first.accepted or "", first.last)
    if isinstance(first, Rejected) and first.code == "room_busy":
        return True  # never remembered: the repeat is decided anew
    if isinstance(answer, Rejected) and isinstance(first, Rejected):
        return (answer.code, answer.message) == (first.code, first.message)
    return answer == first


# --- rooms at points of a game, and batches against them --------------------------------------


@dataclass(frozen=True, slots=True)
class Kind:
    """A room at a point of the scripted game (``bench.script``, seed 7): the first
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
                            and _counted(conn.frames[start:], counts))
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


def _counted(frames: Sequence[ServerMessage], counts: Counter[str]) -> bool:
    """Whether the in-order answers (errors, pongs, options, syncs) have all come."""
    got = Counter("error" if isinstance(f, Error) else "pong" if isinstance(f, Pong) else
                  "options" if isinstance(f, Options) else "sync"
                  if isinstance(f, Snapshot) or (isinstance(f, Events) and f.accepted is None)
                  else "" for f in frames)
    return all(got[kind] >= counts[kind] for kind in ("error", "pong", "options", "sync"))


# --- the lobby ----------------------------------------------------------------------------


API_ERRORS = {400, 403, 404, 405, 408, 409, 410, 413, 429}


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
        huge = f" {HUGE}" if not isinstance(body, bytes) and _beyond_double(body) else ""
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
                 for kind, detail in self._problems(request, segments, content, response)]
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

    def _problems(self, request: Request, segments: list[Any], content: bytes | None,
                  response: httpx.Response) -> Iterator[tuple[str, str]]:
        status = response.status_code
        api = response.request.url.path.startswith("/api/")  # as sent: httpx drops dot segments
        try:
            data = response.json() if request.method != "HEAD" else None
        except ValueError:
            data = ...
        if status >= 500 and not (status == 503 and isinstance(data, dict)
                                  and data.get("error") == "lobby_busy"):
            yield "HTTP 5xx", f"{status}: {response.text[:300]}"
        if api and status >= 400 and request.method != "HEAD" and not (
                isinstance(data, dict) and isinstance(data.get("error"), str)
                and isinstance(data.get("message"), str)):
            yield "error body not JSON {error, message}", f"{status}: {response.text[:200]!r}"
        if api and 200 <= status < 300 and data is ...:
            yield "answer not JSON", f"{status}: {response.text[:200]!r}"
        expected = self._expected(request, segments, content)
        if expected is not None and status != expected:
            yield "wrong status", f"expected {expected}, got {status}: {response.text[:200]}"

    def _expected(self, request: Request, segments: list[Any],
                  content: bytes | None) -> int | None:
        """The status the lobby must answer when it follows from what was sent: a request
        about a room this fuzzer made, or one that certainly does not exist."""
        if len(segments) < 3 or segments[:2] != ["api", "rooms"] or not isinstance(
                request.path[2], Known) or request.method not in ("GET", "POST"):
            return None
        room = segments[2]
        exists = room in self.tokens
        if request.method == "GET" and len(segments) == 3:
            return 200 if exists else 404
        if request.method == "GET" and segments[3:] == ["record"]:
            return 409 if exists else 404
        if request.method == "POST" and segments[3:] == ["join"] and content is not None:
            try:
                body = json.loads(content)
            except (ValueError, RecursionError):
                return None
            if not isinstance(body, dict) or not isinstance(body.get("token"), str) or \
                    not body["token"]:
                return None
            return 404 if not exists else 200 if body["token"] in self.tokens[room] else 403
        return None

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
    examples, so a shrunk example would not meet the same rooms."""
    @settings(max_examples=examples, deadline=None, database=None, derandomize=seed is None,
              phases=[Phase.generate], suppress_health_check=list(HealthCheck))
    @given(strategy)
    def example(value: T) -> None:
        run(value)

    if seed is not None:
        example = hypothesis_seed(seed)(example)
    example()


def summary(protocol: Tally, lobby: Tally, seconds: float) -> str:
    violations = protocol.violations + lobby.violations
    known = Counter(bug.name for v in violations if (bug := known_bug(v)) is not None)
    unknown = [v for v in violations if known_bug(v) is None]
    changed = sum(v.kind.startswith("state") for v in protocol.violations)
    lines = [
        f"fuzz: {protocol.frames:,} frames in {protocol.batches:,} batches, "
        f"{lobby.requests:,} lobby requests, {seconds:.0f} s",
        "frames sent: " + ", ".join(f"{k} {n:,}" for k, n in protocol.inputs.most_common()),
        "answers: " + ", ".join(f"{k} {n:,}" for k, n in sorted(protocol.answers.items())),
        "closes: " + ", ".join(f"{code} x{n:,}" for code, n in sorted(protocol.closes.items())),
        f"reconnects {protocol.reconnects:,}, answers lost to a close and asked again "
        f"{protocol.resent:,}, rooms replaced after an accepted command "
        f"{protocol.rooms_replaced:,}",
        f"state checks passed: {protocol.state_checks - changed:,} of {protocol.state_checks:,}",
        "lobby requests: " + ", ".join(f"{k} {n:,}" for k, n in lobby.inputs.most_common()),
        "lobby answers: " + ", ".join(f"{k} {n:,}" for k, n in sorted(lobby.answers.items())),
        f"server log: {protocol.log_lines + lobby.log_lines:,} lines, "
        f"{protocol.tracebacks + lobby.tracebacks} tracebacks, "
        f"{protocol.log_warnings + lobby.log_warnings} warnings",
        f"violations: {len(violations)} ({len(unknown)} not known"
        + "".join(f", {n} {name}" for name, n in known.items()) + ")",
    ]
    for violation in unknown[:20]:
        lines.append(f"  - {violation}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.fuzz", description=__doc__.split(
        "\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--frames", type=int, default=100_000,
                        help="websocket frames to send at least (default 100,000)")
    parser.add_argument("--requests", type=int, default=5_000,
                        help="lobby requests to send at least (default 5,000)")
    parser.add_argument("--seed", type=int, default=1, help="hypothesis seed (default 1)")
    parser.add_argument("--json", type=Path, help="write the figures to this file too, and "
                        "the servers' logs beside it (<name>-server<n>.log)")
    parser.add_argument("--allow-known", action="store_true",
                        help="exit 0 when every violation is one of KNOWN_BUGS")
    args = parser.parse_args(argv)
    server_core = "0" if (os.cpu_count() or 1) >= 2 else None
    if server_core is not None and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, set(range(1, os.cpu_count() or 2)))
    began = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="fuzz-") as workdir, \
            fuzzing(Path(workdir), server_core=server_core) as fuzz:
        chunk = 0
        while (left := args.frames - fuzz.protocol.tally.frames) > 0:
            # a round is some 60 frames (five batches), a lobby batch some 10 requests
            drive(min(50, left // 60 + 1), rounds(), fuzz.protocol_round,
                  seed=args.seed * 100_000 + chunk)
            chunk += 1
            print(f"  {fuzz.protocol.tally.frames:,} frames, "
                  f"{len(fuzz.protocol.tally.violations)} violations "
                  f"({len(fuzz.protocol.tally.unknown())} not known)", flush=True)
        while (left := args.requests - fuzz.lobby.tally.requests) > 0:
            drive(min(50, left // 10 + 1), st.lists(requests(), min_size=1, max_size=20),
                  fuzz.lobby_batch, seed=args.seed * 100_000 + chunk)
            chunk += 1
        seconds = time.monotonic() - began
        report = summary(fuzz.protocol.tally, fuzz.lobby.tally, seconds)
        violations = fuzz.protocol.tally.violations + fuzz.lobby.tally.violations
        if args.json is not None:
            for n, server in enumerate(fuzz.servers, 1):
                log = args.json.with_name(f"{args.json.stem}-server{n}.log")
                log.write_text("\n".join(server.lines) + "\n")
    print(report)
    if args.json is not None:
        args.json.write_text(json.dumps({
            "frames": fuzz.protocol.tally.frames, "batches": fuzz.protocol.tally.batches,
            "requests": fuzz.lobby.tally.requests, "seconds": round(seconds, 1),
            "answers": fuzz.protocol.tally.answers, "closes": fuzz.protocol.tally.closes,
            "lobby_answers": fuzz.lobby.tally.answers,
            "state_checks": fuzz.protocol.tally.state_checks,
            "tracebacks": fuzz.protocol.tally.tracebacks + fuzz.lobby.tally.tracebacks,
            "violations": [str(v) for v in violations]}, indent=1, default=str))
    failing = [v for v in violations if not (args.allow_known and known_bug(v) is not None)]
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
