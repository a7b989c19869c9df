"""Server settings: limits, timers and where to listen, with their documented defaults.

Every field can be set from the environment as ``REFEREE_<FIELD NAME IN CAPITALS>`` (see
``Settings.from_env``); ``python -m server`` also takes ``--host`` and ``--port``. The
limits are explained in docs/server.md.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True, slots=True)
class Settings:
    host: str = "127.0.0.1"
    port: int = 8000
    node_id: str = ""
    """This node's name among several against one Redis (room leases, /healthz, the
    ``x-referee-node`` header of the websocket handshake); empty = the id kept in
    ``node_state_dir`` (made once), else a random ``node-…``. Restarted under the same
    name a node takes its rooms back at once instead of waiting for their leases to expire;
    two live processes never run under one (``server/cluster/identity.py``)."""
    node_state_dir: str = str(REPO_ROOT / "var")
    """Where the node keeps its id across restarts (``node-id``, used when ``node_id`` is
    empty) and the lock files that keep two live processes from sharing one id
    (``server/cluster/identity.py``); "" = keep nothing (a fresh id at every start)."""
    accept_redis_durability: str = "always"
    """The weakest persistence of an external Redis (``REDIS_URL``) this node starts on:
    ``always`` (append-only file, appendfsync always), ``everysec`` (a power cut may lose
    the last second or so of acknowledged commands) or ``unchecked`` (anything, also a Redis
    that forbids CONFIG). Checked once at start (``server/node/redis_durability.py``)."""
    redis_cluster: bool = False
    """``REDIS_URL`` names a node of a Redis Cluster (any one: the client learns the rest):
    rooms spread over its masters by their ``{room:<id>}`` hash tag, the room bus uses
    sharded pub/sub (docs/deploy.md, "Redis Cluster")."""
    redis_wait_replicas: int = 1
    """On a Redis Cluster: a room's append (and a room's creation) is answered only once
    this many replicas of the room's master have it (``WAIT``); 0 = answer as soon as the
    master has it (a failover may then lose the last writes; docs/deploy.md, "Redis
    Cluster")."""
    redis_wait_aof: bool = False
    """On a Redis Cluster of Redis or Valkey 7.2 or later: confirm with ``WAITAOF`` instead
    of ``WAIT``: an append is answered once the master's own append-only file and
    ``redis_wait_replicas`` replicas' files have it fsynced (docs/deploy.md, "Redis
    Cluster"). The node refuses to start if a node is older."""
    redis_wait_ms: int = 1000
    """How long an append waits for ``redis_wait_replicas`` before it is answered "storage
    unavailable, try again" (the write may be on the master only: not yet acknowledged)."""
    ready_probe_s: float = 1.0
    """How often the node writes a probe key to Redis for ``/readyz`` (four times as often
    while that fails): the node is unready within about this long (plus a 2 s timeout)
    after its store stops taking writes, and ready again as soon after they succeed."""
    shutdown_timeout_s: float = 10.0
    """On SIGTERM: how long the node may take to stop its rooms (after their in-flight
    writes), close its websockets with GOING_AWAY and see them gone (docs/deploy.md)."""

    metrics_listen: str = ""
    """Where to serve ``/metrics`` on a listener of its own (``host:port``; an IPv6 host in
    brackets), for the scraper's private network: e.g. ``0.0.0.0:9100`` in compose, where
    the port is not published. Empty: no such listener (docs/deploy.md, "Metrics")."""
    metrics_token: str = ""
    """A bearer token that opens ``/metrics`` on the game's port (``Authorization: Bearer
    <token>``); empty (the default): ``/metrics`` is not on the game's port at all (404)."""

    # --- frames and rates, per websocket ---
    max_frame_bytes: int = 16 * 1024
    """Largest frame the protocol accepts; a bigger one closes with FRAME_TOO_LARGE."""
    hard_frame_bytes: int = 64 * 1024
    """The websocket layer's own ceiling (uvicorn ws_max_size): above it the frame is never
    even buffered and the connection closes with 1009."""
    rate_per_s: float = 20.0
    """Sustained messages per second a client may send (token bucket refill rate)."""
    rate_burst: int = 40
    """Messages a client may send at once (token bucket size)."""
    max_bad_frames: int = 10
    """Frames answered with ``error`` before the connection is closed with PROTOCOL_ERROR."""
    handshake_timeout_s: float = 10.0
    http_header_timeout_s: float = 10.0
    """An HTTP request's headers must be whole this long after the connection opened (or
    after the request's first byte, on a kept-alive connection); else the connection is
    closed (``server/transport/http_timeouts.py``). 0 = no limit."""
    http_body_timeout_s: float = 30.0
    """An HTTP request's body must be whole this long after its headers; else the
    connection is closed. The lobby answers a body it reads 408 after 10 s already. 0 = no
    limit."""
    send_queue_frames: int = 256
    """Frames waiting for one slow socket before they are dropped for a snapshot (resync)."""

    # --- rooms ---
    inbox_size: int = 64
    """Client commands waiting in one room's inbox; more are rejected with ``room_busy``."""
    answer_cache_size: int = 256
    """Answers kept per seat so that a repeated command id gets the same answer; the answers
    of accepted commands are stored with their events (as many per seat), so they outlive
    a restart, a takeover or the room leaving memory."""
    room_unstarted_ttl_s: float = 24 * 3600.0
    """A room whose game has not begun (its armies are not both chosen) is deleted from the
    store this long after its last write: its creation, an event, a seat joining or
    leaving. 0 = never."""
    room_finished_ttl_s: float = 30 * 24 * 3600.0
    """A room whose game is over (its record included) is deleted from the store this long
    after its last write. 0 = never. A game being played is never deleted."""
    idle_room_s: float = 300.0
    """A room nobody has been connected to for this long stops and leaves memory (its state
    is in the store: the next connection loads it again; a seat's away/abandoned status is
    not kept). Not while an ARO window is open: that window's deadline is served first."""
    grace_s: float = 60.0
    """How long a disconnected seat is shown as ``away`` before ``abandoned``."""
    spectator_count_hold_s: float = 10.0
    """For this long after a room is loaded back from the store (a restart, a takeover, a
    room that had left memory) its spectator count is not sent as its viewers come back: each
    is told it in its welcome, and the count then goes out once
    (``server.rooms.spectator_count``). 0 = no hold."""
    allow_fixed_seed: bool = False
    """Testing switch (REFEREE_ALLOW_FIXED_SEED=1): the lobby accepts a ``seed`` that fixes a
    room's dice. Off by default; such rooms say ``fixed_dice`` in every welcome and listing,
    and the server logs a warning at start while it is on (docs/fair-play.md)."""
    default_aro_window_s: float = 30.0
    min_aro_window_s: float = 0.05
    max_aro_window_s: float = 600.0
    snapshot_every: int = 20
    """A room stores a snapshot of its state when this many versions passed since the last
    one, and whenever the phase, round or turn changes; in between it stores only the
    events (loading a room replays the events after its snapshot). A snapshot leaves the
    army lists out (the store keeps them apart: ``server/rooms/snapshot_policy.py``), so
    it is ~7 KB and ~100 µs. 20 rather than 50: fewer CPU and Redis bytes per command than
    50 whole snapshots took, and a load replays ~10 events instead of ~25; 10 would replay
    ~5 for ~7 µs more per command and ~12 % more bytes into Redis per Order
    (docs/performance.md, "The restart")."""
    snapshot_armies_apart: bool = True
    """Snapshots leave the army lists out, stored apart (``snapshot_every``). Off
    (REFEREE_SNAPSHOT_ARMIES_APART=0): every snapshot holds its army lists, as versions
    before this one wrote them and can read them: while nodes of such a version share the
    rooms (a rolling upgrade from one, a rollback to one), run the new nodes with it off
    (docs/deploy.md, "Upgrading across a change of the stored formats")."""

    # --- several nodes (docs/deploy.md) ---
    lease_s: float = 5.0
    """How long a room's lease lasts unrenewed: after the owner dies, another node takes the
    room over within about ``lease_s + lease_renew_s``."""
    lease_renew_s: float = 1.5
    """How often a node renews all its leases (one Redis round trip per tick, sent from a
    thread of its own so that a busy event loop does not delay it); keep it well under
    ``lease_s``."""
    lease_loop_stall_s: float = 10.0
    """How long the node's event loop may run nothing (a saturated CPU, a long pause) before
    the renewal thread stops renewing its leases. A loop stalled longer counts as hung: its
    leases run out ``lease_s`` later and other nodes take its rooms over; a node whose loop
    lags less keeps its rooms however far behind it is."""
    takeover_concurrency: int = 8
    """Rooms a node takes over at once when their owner is gone (the others wait their turn);
    keep it well under the Redis connection pool (64), which the rooms' writes need too."""
    relay_join_timeout_s: float = 10.0
    """How long a relaying node waits for the owner to welcome a viewer before it tells the
    viewer to reconnect (close 4011)."""
    warm_restart: bool = True
    """A node started again under its node id (after a crash) loads the rooms it was running
    right after start-up, in the background, so its players' hellos find them live; off
    (REFEREE_WARM_RESTART=0), each room starts on its first hello (docs/deploy.md)."""
    room_index_ttl_s: float = 1800.0
    """How long the set of rooms a node serves (``{node:<id>}:rooms``, read by the warm
    restart) outlives the node's last lease renewal round; each round sets it again. It only
    serves a restart under the same id soon after a crash, so it expires once that id has
    been gone for long: a node that never comes back (on Kubernetes a pod replaced under a
    new name) leaves nothing behind for ever. 30 minutes: well past a restart in place
    (seconds; Kubernetes' crash-loop back-off stops at 5 minutes) or a machine's reboot,
    while after that long the players have reconnected elsewhere (each room's lease ran out
    after ``lease_s``) and a warm-up would load rooms nobody waits for here. Must be well
    above ``lease_renew_s``."""
    claim_on_create: bool = True
    """The node that creates a room takes its lease and starts it at once. Off
    (REFEREE_CLAIM_ON_CREATE=0) behind a balancer that routes a room's sockets by its id
    (deploy/nginx.conf): the room is only stored, and the node its first socket reaches (the
    one the balancer hashes it to) claims and starts it, so its sockets are not relayed to
    whichever node happened to serve the creation."""

    # --- what anyone may make the node do (docs/server.md, "Limits") ---
    trusted_proxies: str = "127.0.0.1,::1"
    """Addresses or networks (comma-separated) of the proxies in front of the node (our
    nginx): for a request from one of them, the client is the right-most address of
    ``X-Forwarded-For`` that is not a trusted proxy (else ``X-Real-IP``). Empty: the peer
    is always the client. uvicorn's ``FORWARDED_ALLOW_IPS`` (default 127.0.0.1) applies
    first."""
    client_room_burst: int = 10
    """Rooms one client address may create at once (a token bucket; 0 = no limit per
    address); over it, 429 ``too_many_rooms`` with ``Retry-After``."""
    client_rooms_per_hour: float = 120.0
    """Rooms one client address may create per hour, sustained (one every 30 s)."""
    client_table_size: int = 10_000
    """Client addresses whose room budget the node remembers (the least recently seen is
    forgotten first; about 200 bytes each)."""
    node_room_burst: int = 100
    """Rooms this node creates at once, from all clients (0 = no limit); over it, 503
    ``lobby_busy`` with ``Retry-After``."""
    node_rooms_per_s: float = 5.0
    """Rooms this node creates per second, sustained, from all clients."""
    ipv6_site_room_burst: int = 30
    """Rooms all the /64s of one IPv6 /48 may create at once, together (0 = no limit):
    rotating through one site's /64s gets no budget per /64; 429 ``too_many_rooms``."""
    ipv6_site_rooms_per_hour: float = 360.0
    """Rooms one IPv6 /48 may create per hour, sustained."""
    node_reserve_burst: int = 20
    """Rooms this node keeps for known clients when its own budget or its unstarted cap is
    spent (a seat or organizer token of a room a seat has played in, or a tournament
    organizer's token: ``server.lobby.reserve``); known clients may also pass
    ``max_unstarted_rooms`` by this many. 0 = no reserve."""
    node_reserve_per_s: float = 0.5
    """The reserve's sustained rate (rooms per second)."""
    reserve_rooms_per_credential: int = 4
    """Reserve rooms one credential may open per hour (and at once)."""
    max_unstarted_rooms: int = 500
    """Rooms created on this node that no seat has joined yet (each holds a game in memory
    for ``idle_room_s``); at the cap, 503 ``lobby_busy``. 0 = no cap."""
    client_tournament_burst: int = 3
    """Tournaments one client address may create at once (a token bucket; 0 = no limit);
    over it, 429 ``too_many_tournaments``. A round's rooms count against the room limits
    above (``max_unstarted_rooms`` too): docs/tournaments.md."""
    client_tournaments_per_hour: float = 6.0
    """Tournaments one client address may create per hour, sustained."""
    client_registration_burst: int = 10
    """Players one client address may register themselves at once, in any tournaments (a
    token bucket; 0 = no limit); over it, 429 ``too_many_registrations``. The organizer
    adds players beyond it (docs/tournaments.md)."""
    client_registrations_per_hour: float = 30.0
    """Self-registrations one client address may make per hour, sustained."""
    registrations_per_address: int = 4
    """Places of one tournament that players registered from one client address may hold
    at once (409 ``registrations_per_address``); 0 = no limit."""
    work_seat_ms_per_s: float = 20.0
    """Milliseconds of the event loop per second that one seat's ``options``, ``measure``,
    ``history`` and ``sync`` requests may take, sustained (its budget survives
    reconnecting); a request over the budget waits until it is repaid. 0 = no budget."""
    work_seat_burst_ms: float = 200.0
    """Milliseconds one seat may spend at once before its requests wait."""
    work_spectators_ms_per_s: float = 10.0
    """The same for all of one room's spectators together (a spectator's options are
    empty; history and measure remain)."""
    work_spectators_burst_ms: float = 100.0
    work_node_share: float = 0.3
    """Share of the node's event loop (0-1) that such requests of every room together may
    take, sustained: the rest stays for commands, pings and fan-out whatever the requests
    pile up. 0 = no budget."""
    work_node_burst_ms: float = 300.0

    static_dir: Path | None = None
    """The browser client to serve at /; None = client-js/dist or client-js/app if present."""
    army_data: Path | None = None
    """The operator's army data folder (the army builder's ``metadata.json`` and one
    ``<faction id>.json`` per faction; docs/armies.md, "Operator army data"). The project
    ships none; None = no army data (``server/node/army_data_folder.py`` reads it)."""
    ws_per_message_deflate: bool = False
    """Offer websocket compression (permessage-deflate) to clients that ask (browsers do).
    Off: our frames are small msgpack (100-600 bytes), and compressing them would cost every
    socket a zlib context (~50 KB, more than the rest of the socket) and every frame a
    compression per socket, for a few hundred bytes saved (measured with 1,000 sockets that
    offer it: 77.6 KB of server memory per socket with it, 27.6 KB without)."""
    direct_frames: bool = True
    """Write the seats' frames straight to uvicorn's transport where that is exactly what
    its ``send`` would do (``server/transport/direct_frames.py``), as the spectators' frames
    always are; off (``REFEREE_DIRECT_FRAMES=0``): through ASGI ``send``. On by default: a
    seat's frame through ASGI costs clearly more CPU than a direct one (docs/performance.md,
    "Direct frames"; the runs in bench/history.jsonl)."""
    ws_ping_interval_s: float = 20.0
    """The server pings a seat's websocket when it sent nothing for this long (uvicorn's
    keepalive, its default interval, skipping sockets heard from: ``server/transport/
    keepalive.py``), so a connection that died without closing (a sleeping laptop, a dropped
    mobile network) is noticed and its seat turns ``away``; it also keeps proxies from
    timing idle sockets out (our nginx allows an hour). Each ping and its pong cost the
    node CPU: pinging all 18,000 sockets every 20 s took ~5.6% of the core (docs/performance.md).
    Until its role is known (the hello) every socket has this interval. 0 = never ping."""
    ws_viewer_ping_interval_s: float = 60.0
    """The same for spectators' and casters' websockets (read only: they send nothing, so
    each is pinged this often). Only the socket's memory is at stake, not a seat's
    presence, so they are pinged less often. 0 = ``ws_ping_interval_s``."""
    ws_ping_timeout_s: float = 20.0
    """How long a pinged websocket may take to answer before it is closed."""
    freeze_gc: bool = True
    """Tune the garbage collector for a long-running server: ``gc_threshold``, then
    gc.freeze() after start-up (docs/performance.md, "Garbage-collection stalls"). Off in tests that
    build apps inside the test process."""
    gc_warn_ms: float = 20.0
    """Log a warning for every garbage collection that takes this long or longer (it
    stalls every room on the node: ``server/node/collection_watch.py``). 0 = never."""
    loop_lag_warn_ms: float = 20.0
    """Log a warning whenever the event loop runs this late or later: a timer ticking every
    100 ms fires late (every room on the node waits meanwhile: ``server/node/loop_watch.py``).
    0 = never."""
    log_format: str = "text"
    """``text`` (time, level, logger, message) or ``json``: one JSON object per line, with
    the room id on every line logged in a room's context (``server/log_format.py``)."""
    gc_threshold: str = "100000,50,1000"
    """``gc.set_threshold`` for generations 0, 1 and 2 (Python's default is 700,10,10),
    applied with ``freeze_gc``; empty keeps the default. A full collection walks every
    room's game state (0.1 s per 1,000 rooms on the benchmark machine, longer with their
    sockets), stalling every room. Rarer young collections let most short-lived objects die
    by reference counting before any collection promotes them, so full collections come
    seldom; cyclic garbage may wait longer to be freed."""

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None, **overrides: object) -> Settings:
        """Defaults, then ``REFEREE_*`` environment variables, then ``overrides``."""
        env = os.environ if environ is None else environ
        values: dict[str, object] = {}
        for field in dataclasses.fields(cls):
            raw = env.get(f"REFEREE_{field.name.upper()}")
            if raw is not None:
                values[field.name] = _parse(field.type, raw)
        values.update(overrides)
        return cls(**values)  # type: ignore[arg-type]

    def gc_thresholds(self) -> tuple[int, int, int] | None:
        """``gc_threshold`` parsed; None: keep Python's. ValueError if malformed."""
        if not self.gc_threshold.strip():
            return None
        parts = tuple(int(part) for part in self.gc_threshold.split(","))
        if len(parts) != 3 or min(parts) < 1:
            raise ValueError(f"gc_threshold needs three positive integers, got "
                             f"{self.gc_threshold!r}")
        return parts[0], parts[1], parts[2]

    def client_dir(self) -> Path | None:
        """The directory to serve at /, if any."""
        if self.static_dir is not None:
            return self.static_dir if self.static_dir.is_dir() else None
        for candidate in (REPO_ROOT / "client-js" / "dist", REPO_ROOT / "client-js" / "app"):
            if candidate.is_dir():
                return candidate
        return None


def _parse(type_name: object, raw: str) -> object:
    text = str(type_name)
    if text.startswith("int"):
        return int(raw)
    if text.startswith("float"):
        return float(raw)
    if text.startswith("bool"):
        return raw.strip().lower() in ("1", "true", "yes", "on")
    if "Path" in text:
        return Path(raw) if raw else None
    return raw
