"""The node's Prometheus metrics, every one defined here, and ``GET /metrics``.

Each node exposes its own (one process per node: ``python -m server`` runs one uvicorn
worker, so prometheus-client's multiprocess mode is not needed); Prometheus scrapes the
nodes directly and sums across them. Never on the game's port by default: on a listen
address of its own (``metrics_listen``, a thread of prometheus-client's), or on the game's
port only with a bearer token (``metrics_token``); the shipped nginx config denies
``/metrics`` besides (docs/server.md, "Metrics").

**A seat's private actions are not counted.** Counters moved by a command show a reader
when a seat acted: during an ARO window, a reactive player passing a hidden trooper
privately moved ``referee_commands_total{outcome="accepted"}`` and the appends by 2, one
with nothing to pass by 0. So a seat's command is counted (its outcome, its latency, its
append) only when spectators see something of it; a command whose outcome is the seat's
own (a rejection by the rules or for its version, an accepted command with no event, or
with events only its side sees) is counted nowhere (``PRIVATE_WRITE``, the room's
``_command_counted``). Aggregating would not do: on a quiet node one room's window is all
the counters move for. Storage failures are still counted, whatever the append was: they
say Redis failed, not what a seat did.

Names follow Prometheus' conventions: ``referee_`` prefix, base units (``_seconds``),
counters end in ``_total``. prometheus-client's default collectors add ``process_*`` (CPU,
memory, descriptors) and ``python_*`` (collections per generation).

Cost: the code on a command's path binds its labelled children once, here, and does a
counter increment or a histogram observation each; nothing looks a label up per
command, frame or delivery (docs/performance.md, "Loop time per request").
"""

from __future__ import annotations

import contextlib
import hmac
import logging
import threading
from collections.abc import Iterator
from contextvars import ContextVar
from wsgiref.simple_server import WSGIServer

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
    generate_latest,
    start_http_server,
)
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

log = logging.getLogger(__name__)

PRIVATE_WRITE: ContextVar[bool] = ContextVar("referee_private_write", default=False)
"""Set (by the room, around its append) while the events being stored are seen by no
spectator: the store does not time that append in ``referee_redis_append_seconds``."""


@contextlib.contextmanager
def private_write(private: bool) -> Iterator[None]:
    """Within: an append of events no spectator sees (``PRIVATE_WRITE``)."""
    token = PRIVATE_WRITE.set(private)
    try:
        yield
    finally:
        PRIVATE_WRITE.reset(token)

# No ``*_created`` series (a third of the lines, and a scrape's loop time grows with its
# lines); Prometheus finds counter resets without them.
disable_created_metrics()  # type: ignore[no-untyped-call]

# --- buckets --------------------------------------------------------------------------------

FAST = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0)
"""A command's answer or a Redis append: normally a millisecond or two."""
LATE = (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0)
"""How late something ran that was due at a time: a window's close, a timer, a collection."""

# --- rooms and sockets ------------------------------------------------------------------------

ROOMS = Gauge("referee_rooms", "Rooms whose actor runs on this node (it owns them).")

SOCKETS = Gauge("referee_sockets",
                "Websockets joined to a room through this node, by role.", ["role"])
SOCKETS_BY_SEAT = {"A": SOCKETS.labels("seat_a"), "B": SOCKETS.labels("seat_b"),
                   None: SOCKETS.labels("spectator")}
"""The ``referee_sockets`` child of a viewer's seat ("A", "B", None for a spectator)."""

# --- commands ---------------------------------------------------------------------------------

COMMANDS = Counter(
    "referee_commands_total",
    "Client commands answered, by outcome (accepted, rejected, repeated: a repeated id "
    "answered from the cache) and the rejection's reason code; a seat's commands whose "
    "outcome no spectator sees are not counted.", ["outcome", "reason"])
COMMAND_LATENCY = Histogram(
    "referee_command_latency_seconds",
    "From a command entering its room's inbox on the owning node to its answer being sent.",
    buckets=FAST)


class CommandOutcomes:
    """``referee_commands_total``'s children, bound once: ``accepted.inc()``,
    ``repeated.inc()``, ``rejected(reason)`` (one child per reason code, made the first
    time that code is seen; the codes are a closed set)."""

    def __init__(self, counter: Counter) -> None:
        self._counter = counter
        self.accepted = counter.labels("accepted", "")
        self.repeated = counter.labels("repeated", "")
        self._rejected: dict[str, Counter] = {}

    def rejected(self, reason: str) -> None:
        child = self._rejected.get(reason)
        if child is None:
            child = self._rejected[reason] = self._counter.labels("rejected", str(reason))
        child.inc()


COMMAND_OUTCOMES = CommandOutcomes(COMMANDS)

# --- the ARO window ---------------------------------------------------------------------------

ARO_CLOSE_LATENESS = Histogram(
    "referee_aro_close_lateness_seconds",
    "How long after its deadline an ARO window closed by that deadline was closed (stored "
    "and sent); windows the reactive player closed are not counted.", buckets=LATE)

# --- Redis ------------------------------------------------------------------------------------

REDIS_APPEND = Histogram(
    "referee_redis_append_seconds",
    "A room's append to Redis, from the call to its outcome (the group commit's wait for "
    "the loop iteration included), failures included.", buckets=FAST)
REDIS_APPEND_FAILURES = Counter(
    "referee_redis_append_failures_total",
    "Appends that stored nothing, by kind: unavailable (Redis down, timed out: the command "
    "is answered storage_unavailable), stale (the fence or version was refused: the room "
    "moved), error (anything else).", ["kind"])
APPEND_UNAVAILABLE = REDIS_APPEND_FAILURES.labels("unavailable")
APPEND_STALE = REDIS_APPEND_FAILURES.labels("stale")
APPEND_ERROR = REDIS_APPEND_FAILURES.labels("error")

# --- several nodes: relays and leases ---------------------------------------------------------

RELAYS = Gauge("referee_relays",
               "Rooms this node relays to the node that owns them (it has viewers of them).")
RELAYS_OPENED = Counter("referee_relays_opened_total", "Relays opened on this node.")
RELAY_MESSAGES = Counter(
    "referee_relay_messages_total",
    "Bus messages of this node's relays: to_owner (a viewer's join, leave or resync; a "
    "seat's commands and queries are not counted), "
    "from_owner (frames and broadcasts received).", ["direction"])
RELAY_TO_OWNER = RELAY_MESSAGES.labels("to_owner")
RELAY_FROM_OWNER = RELAY_MESSAGES.labels("from_owner")
RELAY_GAPS = Counter("referee_relay_gaps_total",
                     "Bus messages a relay found missing (its viewers were resynced).")
RELAY_CROWD_JOINS = Counter(
    "referee_relay_crowd_joins_total",
    "Spectators and casters joining through this node's relays: kit (greeted from a crowd "
    "kit the relay kept), owner (greeted by the owner: the join that asks for a kit).",
    ["greeted_from"])
RELAY_JOINS_FROM_KIT = RELAY_CROWD_JOINS.labels("kit")
RELAY_JOINS_FROM_OWNER = RELAY_CROWD_JOINS.labels("owner")

LEASE_CLAIMS = Counter(
    "referee_lease_claims_total",
    "Room lease claims by this node: claimed (a new fence), held_elsewhere (another node "
    "owns it: relayed), no_room.", ["outcome"])
LEASE_CLAIMED = LEASE_CLAIMS.labels("claimed")
LEASE_HELD_ELSEWHERE = LEASE_CLAIMS.labels("held_elsewhere")
LEASE_NO_ROOM = LEASE_CLAIMS.labels("no_room")
LEASE_RENEWALS = Counter("referee_lease_renewals_total",
                         "Leases renewed (each owned room, each renewal round).")
LEASE_ROUNDS = Counter(
    "referee_lease_rounds_total",
    "Renewal rounds: ok, failed (Redis), stalled (not sent: the event loop's heartbeat was "
    "older than lease_loop_stall_s).", ["outcome"])
LEASE_ROUND_OK = LEASE_ROUNDS.labels("ok")
LEASE_ROUND_FAILED = LEASE_ROUNDS.labels("failed")
LEASE_ROUND_STALLED = LEASE_ROUNDS.labels("stalled")
LEASE_LOSSES = Counter("referee_lease_losses_total",
                       "Leases of live rooms this node lost (the room stopped, 4011).")
TAKEOVERS = Counter(
    "referee_lease_takeovers_total",
    "Takeovers of relayed rooms whose owner was gone: taken_over, failed (tried again "
    "later), other (someone else had it).", ["outcome"])
TAKEN_OVER = TAKEOVERS.labels("taken_over")
TAKEOVER_FAILED = TAKEOVERS.labels("failed")
TAKEOVER_OTHER = TAKEOVERS.labels("other")

# --- slow readers (server/transport/send_queue.py) --------------------------------------------

SLOW_READER_RESYNCS = Counter(
    "referee_slow_reader_resyncs_total",
    "Sockets that fell send_queue_frames behind and were dropped to a fresh snapshot.")

# --- a crowd's fan-out (server/fanout/slices.py) ----------------------------------------------

CROWD_HELD_TURNS = Counter(
    "referee_crowd_held_turns_total",
    "Loop turns a crowd's fan-out waited while a seat's command was in flight on the node.")
CROWD_HOLD_LIMITS = Counter(
    "referee_crowd_hold_limits_total",
    "Times a crowd's fan-out went on at the hold limit with a seat's command still in flight.")

# --- stalls of the whole node -----------------------------------------------------------------

GC_PAUSES = Histogram(
    "referee_gc_pause_seconds",
    "Every garbage collection's duration, by generation (while gc_warn_ms > 0).",
    ["generation"], buckets=LATE)
GC_PAUSE_BY_GENERATION = [GC_PAUSES.labels(str(generation)) for generation in range(3)]
GC_SLOW = Counter(
    "referee_gc_slow_collections_total",
    "Collections of gc_warn_ms or more (each logged as a server.gc warning).", ["generation"])
GC_SLOW_BY_GENERATION = [GC_SLOW.labels(str(generation)) for generation in range(3)]
LOOP_LAG = Histogram(
    "referee_loop_lag_seconds",
    "How late the loop watch's 100 ms timer fired, every tick (while loop_lag_warn_ms > 0).",
    buckets=LATE)
LOOP_LAG_WARNINGS = Counter(
    "referee_loop_lag_warnings_total",
    "Ticks loop_lag_warn_ms or more late (each logged as a server.loop warning).")


# --- exposition -------------------------------------------------------------------------------


async def metrics(request: Request) -> Response:
    """``/metrics`` on the game's port: only with ``Authorization: Bearer <metrics_token>``
    when a token is set; without one, as if there were no such page (404)."""
    token = request.app.state.settings.metrics_token
    if not token:
        return PlainTextResponse("Not Found", status_code=404)
    if not bearer_matches(request.headers.get("authorization", ""), token):
        return PlainTextResponse("metrics need the node's bearer token", status_code=401,
                                 headers={"WWW-Authenticate": 'Bearer realm="metrics"'})
    return Response(generate_latest(REGISTRY), media_type=CONTENT_TYPE_LATEST)


def bearer_matches(header: str, token: str) -> bool:
    """Whether an ``Authorization`` header carries ``token`` (bytes compared in constant
    time; a header that is not ASCII matches nothing)."""
    scheme, _, presented = header.partition(" ")
    if scheme.lower() != "bearer":
        return False
    try:
        raw = presented.strip().encode("ascii")
    except UnicodeEncodeError:
        return False
    return hmac.compare_digest(raw, token.encode())


class MetricsListener:
    """``/metrics`` on an address of its own (``metrics_listen``: ``host:port``, an IPv6
    host in brackets), served by prometheus-client's HTTP server in a thread: private to
    the scraper's network, never behind the public proxy, and answered even while the event
    loop is busy."""

    def __init__(self, server: WSGIServer, thread: threading.Thread) -> None:
        self._server = server
        self._thread = thread

    @property
    def port(self) -> int:
        return int(self._server.server_port)

    @classmethod
    def start(cls, spec: str) -> MetricsListener:
        host, port = parse_listen(spec)
        server, thread = start_http_server(port, host)
        listener = cls(server, thread)
        log.info("metrics on http://%s:%d/metrics", host, listener.port)
        return listener

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)


def parse_listen(spec: str) -> tuple[str, int]:
    """``host:port`` (``[::1]:9100`` for IPv6) -> (host, port); ValueError if malformed."""
    host, sep, port = spec.strip().rpartition(":")
    if not sep or not port.isdigit() or not host:
        raise ValueError(f"metrics_listen must be host:port, got {spec!r}")
    return host.removeprefix("[").removesuffix("]"), int(port)


routes = [Route("/metrics", metrics, methods=["GET"])]

