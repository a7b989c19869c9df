"""One node's lease renewal round trip, on a synchronous Redis client of its own.

It is called by the renewal thread (``server.cluster.renewer``) and never on the event loop:
a loop at 100% CPU runs its callbacks seconds late, and a renewal queued behind them let the
leases of a live node expire (docs/performance.md). The thread has its own connection, so
it never waits for the event loop's connection pool either.

``tick`` is ONE pipeline: renew every owned (room, fence) (``lease.RENEW``), refresh this
node's liveness key and its stamp (``lease.Stamp``: the room time of the loop's last
heartbeat, which a node that takes over its rooms after it died gives back), the time to
live of its room index (``room_index``: the set expires
once the node id stops renewing it) and (``python -m server``) its instance lock
(``identity.RENEW_INSTANCE``: whether this process still holds the node id), read the
lease holders of the relayed rooms and the liveness of the nodes whose viewers this node's
rooms have. ``release_rooms`` gives back the leases of rooms
that stopped here, under their fences; both run on the same thread, so a release always
follows any renewal of the same room (a renewal after it would take the lease back).

On one Redis a ``RENEW`` call renews up to ``RENEW_BATCH`` rooms (their keys need not share
a slot there): a script call per room cost Redis about twice the CPU per renewed room, and
the rounds were most of its commands while a restarted node's members came back
(docs/performance.md, "Redis in the restart"). On a Redis Cluster a call renews one room
(``ClusterLeaseRenewal``: a script's keys must share a slot).

The round's commands are written as RESP bytes here, and each ``RENEW`` call is packed once
per run of (room, fence) it renews and reused every round while they stay the same: through
redis-py's pipeline, packing and parsing thousands of rooms' calls cost the thread several
times as much CPU per round, and the thread holds the GIL for that long (in switch-interval
slices), which held up the event loop's commands by as much once every round
(docs/performance.md, "Leases").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import redis
from redis.backoff import NoBackoff
from redis.exceptions import NoScriptError, ResponseError
from redis.retry import Retry

from server.cluster.identity import RENEW_INSTANCE, instance_key
from server.cluster.lease import (
    IDLE,
    RELEASE_FENCED,
    RENEW,
    SEEN_TTL_MS,
    TickReport,
    alive_key,
    lease_key,
    seen_key,
    seen_value,
    text,
)
from server.cluster.room_index import rooms_key
from server.store.redis_errors import storage_call
from server.store.redis_store import state_key
from server.store.resp import pack_command

RENEW_BATCH = 100
"""Rooms renewed by one ``RENEW`` call on one Redis. A script runs alone on Redis, its other
clients (the rooms' appends) waiting behind it: a call of 100 rooms took 0.7 ms, of 200
1.7 ms (``SLOWLOG``, a busy host), and Redis's CPU per renewed room is about the same for
both (half a call per room's)."""

Chunk = tuple[tuple[str, int], ...]
"""The (room, fence) pairs one ``RENEW`` call renews, in order."""


def connect_sync(url: str, timeout_s: float) -> redis.Redis:
    """The renewal thread's client: one connection, no silent retries; a round trip that
    takes longer than ``timeout_s`` (a lease) fails, since the leases are lapsing anyway."""
    return redis.Redis.from_url(url, socket_connect_timeout=min(2.0, timeout_s),
                                socket_timeout=timeout_s, retry=Retry(NoBackoff(), 0),
                                health_check_interval=0)


class LeaseRenewal:
    renew_batch = RENEW_BATCH
    """Rooms per ``RENEW`` call (``ClusterLeaseRenewal``: 1)."""

    def __init__(self, client: redis.Redis, node_id: str, lease_ms: int,
                 instance: str | None = None, room_index_ttl_ms: int | None = None) -> None:
        """``instance``: this process's token in the node id's instance lock, renewed with
        the leases (None: no lock to keep, e.g. tests that make nodes directly).
        ``room_index_ttl_ms``: the time to live each round gives the node's room index
        (None: no index to keep, e.g. tests of the leases alone)."""
        self._redis = client
        self.node_id = node_id
        self.lease_ms = lease_ms
        self.instance = instance
        self.room_index_ttl_ms = room_index_ttl_ms
        self._shas: dict[str, str] = {}
        self._packed: dict[Chunk, bytes] = {}  # the rooms of a RENEW call -> the call
        self._packed_sha = ""

    def tick(self, owned: Sequence[tuple[str, int]], watched_rooms: Sequence[str],
             watched_nodes: Sequence[str], seen_ms: int | None = None) -> TickReport:
        """One round; ``seen_ms``: the room time of the loop's last heartbeat, stamped as
        this process's last sign of life (``lease.Stamp``; None: no stamp)."""
        own_keys = self._own_keys(stamped=seen_ms is not None)
        with storage_call("renew leases"):
            for _attempt in range(2):  # again at once after a Redis restart emptied its scripts
                renew = self._sha(RENEW)
                # In the order of ``_own_keys``.
                commands = [pack_command("SET", alive_key(self.node_id), b"1", "PX",
                                         self.lease_ms)]
                if seen_ms is not None:
                    commands.append(pack_command("SET", seen_key(self.node_id),
                                                 seen_value(self.instance, seen_ms), "PX",
                                                 SEEN_TTL_MS))
                if self.room_index_ttl_ms is not None:
                    # (0, no error, when the node serves no room: no set to expire)
                    commands.append(pack_command("PEXPIRE", rooms_key(self.node_id),
                                                 self.room_index_ttl_ms))
                scripted_at = len(commands)
                if self.instance is not None:
                    commands.append(pack_command("EVALSHA", self._sha(RENEW_INSTANCE), 1,
                                                 instance_key(self.node_id), self.instance,
                                                 self.lease_ms))
                renewed_at = len(commands)
                chunks = self._chunks(owned)
                commands += self._renew_calls(renew, chunks)
                holders_at = len(commands)
                commands += [pack_command("GET", lease_key(room_id)) for room_id in watched_rooms]
                commands += [pack_command("EXISTS", alive_key(node_id))
                             for node_id in watched_nodes]
                results = self._send(commands, own_keys, owned, watched_rooms, watched_nodes)
                scripted = results[scripted_at:holders_at]
                if not any(isinstance(outcome, NoScriptError) for outcome in scripted):
                    break
                # Redis restarted and lost its scripts: load them and renew in this same
                # round, so the first round that goes through after an outage re-takes the
                # leases that expired meanwhile (``/readyz`` waits for that round).
                self._shas.clear()
            else:
                # Still no scripts (a Redis flushing them repeatedly): nothing was renewed
                # (nor lost); the next round tries again.
                results[scripted_at:holders_at] = [1] * len(scripted)
            _raise_first_error(results)  # (a transport error's reply is StorageUnavailable)
        renewed = _per_room(results[renewed_at:holders_at], chunks)
        nodes_at = holders_at + len(watched_rooms)
        return TickReport(
            lost_leases=frozenset(room for room, ok in zip(owned, renewed, strict=True)
                                  if int(ok) != 1),
            holders={room_id: None if value is None else text(value)
                     for room_id, value in zip(watched_rooms, results[holders_at:nodes_at],
                                               strict=True) if value is not HOLDER_UNKNOWN},
            dead_nodes=frozenset(node_id for node_id, alive in
                                 zip(watched_nodes, results[nodes_at:], strict=True)
                                 if int(alive) == 0),
            displaced=renewed_at > scripted_at and int(results[scripted_at]) != 1,
        )

    def release_rooms(self, rooms: Sequence[tuple[str, int]]) -> None:
        """Give back each (room, fence)'s lease if it is still held under that fence: rooms
        that stopped because nobody was connected (they forget their owner)."""
        with storage_call("release leases"):
            for _attempt in range(2):  # again once after a Redis restart emptied its scripts
                release = self._sha(RELEASE_FENCED)
                with self._redis.pipeline(transaction=False) as pipe:
                    queue: Any = pipe  # (its execute_command is untyped)
                    for room_id, fence in rooms:
                        # (execute_command: a cluster pipeline refuses its evalsha method)
                        queue.execute_command("EVALSHA", release, 2, lease_key(room_id),
                                              state_key(room_id), self.node_id, fence, IDLE)
                    results: list[Any] = pipe.execute(raise_on_error=False)
                if not any(isinstance(outcome, NoScriptError) for outcome in results):
                    break
                self._shas.clear()
        _raise_first_error(results)

    def close(self) -> None:
        self._redis.close()

    def _own_keys(self, stamped: bool) -> list[str]:
        """The keys of the round's first commands, this node's own (one hash tag): its
        liveness key, its stamp when ``stamped``, its room index when it keeps one, its
        instance lock when it has one."""
        keys = [alive_key(self.node_id)]
        if stamped:
            keys.append(seen_key(self.node_id))
        if self.room_index_ttl_ms is not None:
            keys.append(rooms_key(self.node_id))
        if self.instance is not None:
            keys.append(instance_key(self.node_id))
        return keys

    def _chunks(self, owned: Sequence[tuple[str, int]]) -> list[Chunk]:
        """``owned`` in runs of ``renew_batch``, one per ``RENEW`` call."""
        size = self.renew_batch
        return [tuple(owned[at:at + size]) for at in range(0, len(owned), size)]

    def _renew_calls(self, sha: str, chunks: Sequence[Chunk]) -> list[bytes]:
        """Each chunk's ``RENEW`` call, in order (the replies are read by position), packed
        the first round its rooms are renewed together under those fences (calls no longer
        made drop out of the cache)."""
        if sha != self._packed_sha:
            self._packed, self._packed_sha = {}, sha
        before, now = self._packed, {}
        calls = []
        for chunk in chunks:
            call = before.get(chunk)
            if call is None:
                keys = [key for room_id, _fence in chunk
                        for key in (lease_key(room_id), state_key(room_id))]
                call = pack_command("EVALSHA", sha, len(keys), *keys, self.node_id,
                                    self.lease_ms, *(fence for _room_id, fence in chunk))
            now[chunk] = call
            calls.append(call)
        self._packed = now
        return calls

    def _send(self, commands: list[bytes], own_keys: Sequence[str],
              owned: Sequence[tuple[str, int]], watched_rooms: Sequence[str],
              watched_nodes: Sequence[str]) -> list[Any]:
        """The replies of a round's ``commands`` (``tick`` made them: one per key of
        ``own_keys``, then one per owned room, per watched room and per watched node, in
        that order)."""
        return send_round(self._redis, b"".join(commands), len(commands))

    def _sha(self, script: str) -> str:
        sha = self._shas.get(script)
        if sha is None:
            sha = self._shas[script] = str(self._redis.script_load(script))
        return sha


HOLDER_UNKNOWN = object()
"""A watched room's reply when its lease could not be read this round (its master down, on a
cluster): no holder is reported for it, so nothing is concluded."""


def send_round(client: redis.Redis, commands: bytes, count: int) -> list[Any]:
    """Send ``count`` packed commands in one write and read their replies; an error
    reply is that command's outcome. Any other failure leaves the connection out of
    step with its replies, so it is dropped before it goes back to the pool."""
    pool = client.connection_pool
    connection: Any = pool.get_connection()  # redis-py leaves its methods untyped
    try:
        connection.send_packed_command([commands])
        results: list[Any] = []
        for _ in range(count):
            try:
                results.append(connection.read_response())
            except ResponseError as error:
                results.append(error)
        return results
    except BaseException:
        connection.disconnect()
        raise
    finally:
        pool.release(connection)


def _per_room(replies: Sequence[Any], chunks: Sequence[Chunk]) -> list[Any]:
    """Each owned room's outcome from its ``RENEW`` call's reply: the call's list, one per
    room; a single value (a round that could not run the script, or a cluster's undecided
    room: ``cluster_renewal``) stands for every room of its call."""
    outcomes: list[Any] = []
    for reply, chunk in zip(replies, chunks, strict=True):
        outcomes += reply if isinstance(reply, list) else [reply] * len(chunk)
    return outcomes


def _raise_first_error(results: list[Any]) -> None:
    for outcome in results:
        if isinstance(outcome, Exception) and not isinstance(outcome, NoScriptError):
            raise outcome
