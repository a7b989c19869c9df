"""The fuzzer's oracle: what the referee must answer to each generated frame and request.

Pure checks, no sockets: ``classify`` says what a frame must get (protocol/README.md),
``judge`` compares what one socket got with that, ``lobby_problems`` does the same for an
HTTP request to the lobby, ``log_violations`` reads the server's log for tracebacks and
ERROR records. A broken rule is a ``Violation``; ``Tally`` counts what a run sent, got and
checked; ``KNOWN_BUGS`` lists the violations of bugs not fixed yet. The harness that sends
and reads is ``testkit.fuzz.harness``; the generators are ``testkit.fuzz.frames``.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx

from protocol.constants import RULE_REASONS, CloseCode, ProtocolReason
from protocol.messages import (
    Accepted,
    Error,
    Events,
    History,
    Measurement,
    Options,
    Pong,
    Rejected,
    ServerMessage,
    Snapshot,
)
from testkit.fuzz.frames import Frame, Known, Request, body_fits

DOCUMENTED = frozenset(ProtocolReason) | frozenset(RULE_REASONS)
"""Every reason code a ``rejected`` or an ``error`` may carry."""
SERVER_FAILED = ProtocolReason.INTERNAL_ERROR
LOG_PROBLEM = re.compile(
    r"^(?:Traceback \(most recent call last\)|(?:ERROR|CRITICAL):|"
    r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ (?:ERROR|CRITICAL) )")
"""A line of the server's log that says something went wrong in it: a traceback, or an
ERROR/CRITICAL record in uvicorn's format or the server's."""


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


def beyond_double(value: Any) -> bool:
    if isinstance(value, int) and not isinstance(value, bool):
        return abs(value) >= 2**1024
    if isinstance(value, dict):
        return any(map(beyond_double, value.values()))
    if isinstance(value, list):
        return any(map(beyond_double, value))
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
    """What a run sent, got and checked (printed by ``bench.fuzz.summary``)."""

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


def in_order_answers_came(frames: Sequence[ServerMessage], counts: Counter[str]) -> bool:
    """Whether the in-order answers (errors, pongs, options, syncs) have all come."""
    got = Counter("error" if isinstance(f, Error) else "pong" if isinstance(f, Pong) else
                  "options" if isinstance(f, Options) else "sync"
                  if isinstance(f, Snapshot) or (isinstance(f, Events) and f.accepted is None)
                  else "" for f in frames)
    return all(got[kind] >= counts[kind] for kind in ("error", "pong", "options", "sync"))


# --- the lobby's answers ----------------------------------------------------------------------


def lobby_problems(request: Request, segments: list[Any], content: bytes | None,
                   response: httpx.Response, tokens: Mapping[str, Mapping[str, str]]
                   ) -> Iterator[tuple[str, str]]:
    """What is wrong with the lobby's ``response`` to ``request``: a 5xx but a documented
    503, an API error without its JSON body, an answer that is no JSON, a status other than
    the one that follows from what was sent (``tokens``: room -> seat token -> seat, the
    rooms the fuzzer made)."""
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
    expected = expected_status(request, segments, content, tokens)
    if expected is not None and status != expected:
        yield "wrong status", f"expected {expected}, got {status}: {response.text[:200]}"

def expected_status(request: Request, segments: list[Any], content: bytes | None,
                    tokens: Mapping[str, Mapping[str, str]]) -> int | None:
    """The status the lobby must answer when it follows from what was sent: a request
    about a room this fuzzer made, or one that certainly does not exist."""
    if len(segments) < 3 or segments[:2] != ["api", "rooms"] or not isinstance(
            request.path[2], Known) or request.method not in ("GET", "POST"):
        return None
    room = segments[2]
    exists = room in tokens
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
        return 404 if not exists else 200 if body["token"] in tokens[room] else 403
    return None
