"""Who may create a room now: a limit per client address and limits per node.

Creating a room costs the node a new game, a Redis write, a lease and a room task that
stays in memory until ``idle_room_s`` passes with nobody connected; anyone may ask. So:

- **per client address**, a token bucket (``client_room_burst`` rooms at once,
  ``client_rooms_per_hour`` sustained): over it, 429 ``too_many_rooms`` with
  ``Retry-After``. The buckets live in a table of at most ``client_table_size`` addresses;
  the least recently seen goes first (it is forgotten: its next request finds a full
  bucket, as a new address does). IPv6 addresses count by their /64, which one host
  usually holds whole; and every /64 of one /48 (the prefix a site is usually given)
  together has a bucket too (``ipv6_site_room_burst``, ``ipv6_site_rooms_per_hour``), so
  one host rotating through its site's /64s does not get a budget per /64.
- **per node**, a token bucket (``node_room_burst``, ``node_rooms_per_s``) and a cap on
  rooms created here that no seat has joined yet (``max_unstarted_rooms``; a room counts
  until a seat's ``hello`` reaches this node, or for ``idle_room_s``, after which the room
  leaves memory by itself): over either, 503 ``lobby_busy`` with ``Retry-After``.

**A reserve for known clients.** An attacker rotating addresses (many /48s) still empties the
node's budget, and then every creator is refused. So a small reserve (``node_reserve_burst``,
``node_reserve_per_s``; also ``node_reserve_burst`` rooms past ``max_unstarted_rooms``) is
kept for requests that prove they come from a known client (``server.lobby.reserve``: a
seat or organizer token of a room a seat has played in, or the organizer token of a
tournament that has started a round), each such credential opening at most
``reserve_rooms_per_credential`` rooms an hour from it. The per-address limits hold for
them as for anyone.

The client address is the connection's peer (``request.client.host``), or, when the peer
is one of ``trusted_proxies`` (our nginx), the address that proxy says it serves: the
right-most address of ``X-Forwarded-For`` that is not itself a trusted proxy, else
``X-Real-IP``. uvicorn applies ``X-Forwarded-For`` itself first for the addresses in its
own ``FORWARDED_ALLOW_IPS`` (default 127.0.0.1), so behind an nginx on the same host the
peer is already the client.
"""

from __future__ import annotations

import ipaddress
import logging
import math
import time
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from server.config import Settings
from server.transport.rate_limit import TokenBucket

log = logging.getLogger(__name__)

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
MAX_ADDRESS_TEXT = 64
"""A client key taken from a header is cut to this (a proxy that writes garbage)."""


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a room may not be created now: the HTTP status, the error code and message,
    and the whole seconds after which asking again may succeed (``Retry-After``)."""

    status: int
    code: str
    message: str
    retry_after_s: int


class TrustedProxies:
    """The addresses whose forwarding headers are believed (``Settings.trusted_proxies``:
    addresses or networks, comma-separated)."""

    def __init__(self, spec: str) -> None:
        self._networks: list[Network] = []
        for item in (part.strip() for part in spec.split(",")):
            if not item:
                continue
            try:
                self._networks.append(ipaddress.ip_network(item, strict=False))
            except ValueError:
                log.error("trusted_proxies: %r is not an address or network; ignored", item)

    def __contains__(self, host: object) -> bool:
        if not self._networks or not isinstance(host, str):
            return False
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            return False
        return any(address in network for network in self._networks)


def client_address(peer: str | None, headers: Mapping[str, str] | Iterable[tuple[str, str]],
                   trusted: TrustedProxies) -> str:
    """The address a request counts against (see the module's docstring). ``headers``:
    the request's, names in lower case (every ``X-Forwarded-For`` line counts)."""
    if peer is None:
        return "unknown"
    if peer not in trusted:
        return client_key(peer)
    pairs = headers.items() if isinstance(headers, Mapping) else headers
    forwarded: list[str] = []
    real_ip = None
    for name, value in pairs:
        if name == "x-forwarded-for":
            forwarded.extend(part.strip() for part in value.split(","))
        elif name == "x-real-ip":
            real_ip = value.strip()
    for hop in reversed(forwarded):
        if hop and hop not in trusted:
            return client_key(hop)
    if real_ip:
        return client_key(real_ip)
    return client_key(peer)


def ipv6_site(key: str) -> str | None:
    """The /48 of a client key that is an IPv6 /64 (``client_key``), else None."""
    if ":" not in key or not key.endswith("/64"):
        return None
    try:
        network = ipaddress.IPv6Network(key)
    except ValueError:
        return None
    return str(network.supernet(new_prefix=48))


def client_key(address: str) -> str:
    """The key an address counts under: itself (IPv4, an IPv4-mapped IPv6 address as its
    IPv4), an IPv6 address's /64, or the text cut to ``MAX_ADDRESS_TEXT`` if it is none."""
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return address[:MAX_ADDRESS_TEXT]
    if isinstance(parsed, ipaddress.IPv6Address):
        if parsed.ipv4_mapped is not None:
            return str(parsed.ipv4_mapped)
        return str(ipaddress.IPv6Network((parsed, 64), strict=False))
    return str(parsed)


class ClientBuckets:
    """One token bucket per client key, at most ``size`` of them (least recently used
    forgotten first)."""

    def __init__(self, rate_per_s: float, burst: float, size: int) -> None:
        self._rate = rate_per_s
        self._burst = burst
        self._size = max(1, size)
        self._buckets: OrderedDict[str, TokenBucket] = OrderedDict()

    def take(self, key: str, now: float) -> float:
        """Take a token for ``key``: 0.0 if it was there, else the seconds until it is."""
        bucket = self.bucket(key, now)
        if bucket.allow(1.0, now):
            return 0.0
        return bucket.wait_s(1.0, now)

    def bucket(self, key: str, now: float) -> TokenBucket:
        """``key``'s bucket (a full one for a key not seen, or forgotten)."""
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = TokenBucket(self._rate, self._burst, now)
            while len(self._buckets) > self._size:
                self._buckets.popitem(last=False)
        else:
            self._buckets.move_to_end(key)
        return bucket

    def __len__(self) -> int:
        return len(self._buckets)


class AddressBudget:
    """A per-address budget of one kind of request on this node: ``burst`` at once and
    ``per_hour`` sustained, else a 429 ``code`` whose message ends with the wait (``advice``
    after it, if any). A burst of 0 sets no limit."""

    def __init__(self, per_hour: float, burst: float, table_size: int, code: str,
                 what: str, advice: str = "") -> None:
        self._buckets = (ClientBuckets(per_hour / 3600.0, burst, table_size)
                         if burst > 0 else None)
        self._code, self._what, self._advice = code, what, advice

    def admit(self, client: str, now: float | None = None) -> Refusal | None:
        if self._buckets is None:
            return None
        wait = self._buckets.take(client, time.monotonic() if now is None else now)
        if wait <= 0:
            return None
        return Refusal(429, self._code, f"too many {self._what} from this address; try again "
                       f"in {_whole(wait)} s{self._advice}", _whole(wait))


class RoomAdmission:
    """The room-creation limits of one node (see the module's docstring)."""

    def __init__(self, settings: Settings, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        self.trusted = TrustedProxies(settings.trusted_proxies)
        self._per_client = (
            ClientBuckets(settings.client_rooms_per_hour / 3600.0, settings.client_room_burst,
                          settings.client_table_size)
            if settings.client_room_burst > 0 else None)
        self._per_site = (
            ClientBuckets(settings.ipv6_site_rooms_per_hour / 3600.0,
                          settings.ipv6_site_room_burst, settings.client_table_size)
            if settings.ipv6_site_room_burst > 0 else None)
        self._node = (TokenBucket(settings.node_rooms_per_s, settings.node_room_burst, now)
                      if settings.node_room_burst > 0 else None)
        self._reserve = (TokenBucket(settings.node_reserve_per_s, settings.node_reserve_burst,
                                     now) if settings.node_reserve_burst > 0 else None)
        self._reserve_room = settings.node_reserve_burst
        self._per_credential = ClientBuckets(
            settings.reserve_rooms_per_credential / 3600.0,
            settings.reserve_rooms_per_credential, settings.client_table_size)
        self._max_unstarted = settings.max_unstarted_rooms
        self._unstarted_s = settings.idle_room_s
        self._unstarted: OrderedDict[str, float] = OrderedDict()
        """Rooms created here and not joined by a seat yet -> when they were created."""

    def admit(self, client: str, now: float | None = None) -> Refusal | None:
        """Whether ``client`` may create a room now; a refusal says why and for how long.
        Every attempt counts against the client, whatever its body turns out to be."""
        now = time.monotonic() if now is None else now
        if self._per_client is not None:
            wait = self._per_client.take(client, now)
            if wait > 0:
                return Refusal(429, "too_many_rooms", "too many rooms created from this "
                               f"address; try again in {_whole(wait)} s", _whole(wait))
        site = ipv6_site(client) if self._per_site is not None else None
        if site is not None and self._per_site is not None:
            wait = self._per_site.take(site, now)
            if wait > 0:
                return Refusal(429, "too_many_rooms", "too many rooms created from this "
                               f"network (IPv6 {site}); try again in {_whole(wait)} s",
                               _whole(wait))
        if self._max_unstarted > 0:
            self._forget_expired(now)
            if len(self._unstarted) >= self._max_unstarted:
                oldest = next(iter(self._unstarted.values()))
                wait = oldest + self._unstarted_s - now
                return Refusal(503, "lobby_busy", f"this server holds {self._max_unstarted} "
                               "rooms nobody has joined yet; try again in "
                               f"{_whole(wait)} s", _whole(wait))
        if self._node is not None and not self._node.allow(1.0, now):
            wait = self._node.wait_s(1.0, now)
            return Refusal(503, "lobby_busy", "this server is creating rooms as fast as it "
                           f"may; try again in {_whole(wait)} s", _whole(wait))
        return None

    def admit_reserved(self, credential: str, now: float | None = None) -> Refusal | None:
        """Whether a known client (``credential``: the room or tournament its token opens,
        ``server.lobby.reserve``) refused by the node's limits may take a room from the
        reserve; ``admit`` has already counted it against its address."""
        now = time.monotonic() if now is None else now
        busy = Refusal(503, "lobby_busy", "this server is creating rooms as fast as it may, "
                       "even for players it knows; try again in a minute", 60)
        if self._reserve is None:
            return busy
        if self._max_unstarted > 0:
            self._forget_expired(now)
            if len(self._unstarted) >= self._max_unstarted + self._reserve_room:
                return busy
        wait = self._per_credential.bucket(credential, now).wait_s(1.0, now)
        if wait > 0:
            return Refusal(503, "lobby_busy", "this server is busy, and that credential has "
                           f"opened its rooms for now; try again in {_whole(wait)} s",
                           _whole(wait))
        if not self._reserve.allow(1.0, now):
            wait = self._reserve.wait_s(1.0, now)
            return Refusal(503, "lobby_busy", "this server is creating rooms as fast as it "
                           f"may, even for players it knows; try again in {_whole(wait)} s",
                           _whole(wait))
        self._per_credential.bucket(credential, now).allow(1.0, now)
        return None

    def admit_round(self, client: str, rooms: int, now: float | None = None) -> Refusal | None:
        """Whether ``client`` (a tournament's organizer) may create a round's ``rooms`` rooms
        at once: the same limits as ``admit``, all or none. A round bigger than a bucket's
        burst starts from a full bucket and leaves it in debt (``TokenBucket.lend``): the
        address and the node then create no room until it is repaid at the sustained rate.
        A refusal names the round's size and the limit, so the organizer knows to wait (or
        to start a smaller round)."""
        now = time.monotonic() if now is None else now
        client_bucket = (self._per_client.bucket(client, now) if self._per_client is not None
                         else None)
        if client_bucket is not None:
            wait = client_bucket.lend_wait_s(rooms, now)
            if wait > 0:
                return Refusal(429, "too_many_rooms", f"a round of {rooms} tables creates "
                               f"{rooms} rooms, over what this address may create now "
                               f"(the lobby's limit, shared with its rooms); try again in "
                               f"{_whole(wait)} s", _whole(wait))
        if self._max_unstarted > 0:
            self._forget_expired(now)
            if len(self._unstarted) + rooms > self._max_unstarted:
                return Refusal(503, "lobby_busy", f"a round of {rooms} tables would pass this "
                               f"server's {self._max_unstarted} rooms nobody has joined yet "
                               f"({len(self._unstarted)} now); try again when players have "
                               "joined theirs", _whole(self._unstarted_wait(now)))
        if self._node is not None:
            wait = self._node.lend_wait_s(rooms, now)
            if wait > 0:
                return Refusal(503, "lobby_busy", f"a round of {rooms} tables is more rooms "
                               f"than this server may create now; try again in {_whole(wait)} s",
                               _whole(wait))
        if client_bucket is not None:
            client_bucket.lend(rooms, now)
        if self._node is not None:
            self._node.lend(rooms, now)
        return None

    def _unstarted_wait(self, now: float) -> float:
        if not self._unstarted:
            return 1.0
        return next(iter(self._unstarted.values())) + self._unstarted_s - now

    def created(self, room_id: str, now: float | None = None) -> None:
        """A room was created here: it counts as unstarted until a seat joins it."""
        if self._max_unstarted > 0:
            self._unstarted[room_id] = time.monotonic() if now is None else now

    def started(self, room_id: str) -> None:
        """A seat joined the room (through this node): it no longer counts."""
        self._unstarted.pop(room_id, None)

    @property
    def unstarted(self) -> int:
        return len(self._unstarted)

    def _forget_expired(self, now: float) -> None:
        unstarted = self._unstarted
        while unstarted:
            room_id, created = next(iter(unstarted.items()))
            if now - created < self._unstarted_s:
                return
            del unstarted[room_id]


def _whole(seconds: float) -> int:
    """Seconds for ``Retry-After``: whole, at least 1."""
    if not math.isfinite(seconds):
        return 3600
    return max(1, math.ceil(seconds))


def admission_for(state: object, settings: Settings) -> RoomAdmission:
    """The app's one ``RoomAdmission`` (kept on ``app.state``; the lobby creates it at its
    first use and the websocket endpoint tells it when a seat joins)."""
    admission = getattr(state, "room_admission", None)
    if not isinstance(admission, RoomAdmission):
        admission = RoomAdmission(settings)
        setattr(state, "room_admission", admission)  # noqa: B010 (Starlette's State)
    return admission
