"""The lease renewal round on a Redis Cluster: the same commands as on one Redis
(``server.cluster.renewal``), each master's share written in one pipeline on that master's
connection.

Every command of the round touches one key, or keys of one hash tag: a room's ``RENEW``
takes its lease and state keys (``{room:<id>}``), this node's liveness key, stamp, room index
and instance lock share ``{node:<id>}``. So the round splits by the master of each command's key: one
round trip per master that holds any of them, one master after the other (the thread is
synchronous; on loopback the three round trips of a three-master cluster cost about what
one did). A lost connection or a ``CLUSTERDOWN`` reply fails the round (the next one tries
again, as after any failed round) and reads the slot map again, so the round after a
failover goes to the promoted replica.

A slot being moved to another master (resharding, ``testkit.slot_move``) does not fail the
round: a command answered ``MOVED`` (the slot moved since the map was read) or ``ASK`` (the
slot is half-moved and this key is already on the new master) is sent once more, in the same
round, to the master the reply names (after ``ASKING`` for ``ASK``; a master added since the
map was read, once the map is read again), and the map is read again. The reply to that may
be a redirection too: a slot moved by ``redis-cli --cluster reshard`` and then moved on by
``rebalance`` answers ``MOVED`` on the master the map names and ``ASK`` on the one it moved
to; it is followed as well (``REDIRECTIONS`` hops at most).
A room's ``RENEW`` answered ``TRYAGAIN`` (its lease and state keys are on different
masters for the moment) is left undecided: its lease is neither renewed nor lost this round,
as when a round fails, and the next round asks again. Without this, every round of every
node owning or relaying a room of a moving slot failed until the slot was moved (and the
node's ``/readyz`` said its leases were not renewed).

A master that answers ``CLUSTERDOWN`` while the others serve (one that was importing a slot
whose master died: it says ``cluster_state:fail`` until ``redis-cli --cluster fix``,
docs/deploy.md) fails only what lives there: its rooms' leases are undecided, a relayed
room's holder there is not reported, a watched node whose liveness key is there is not taken
for dead. The round fails only when this node's own keys live there (its liveness, its
stamp, its room index, its instance lock). Otherwise every node with a room on that master
would fail every round, and say it is not ready, until an operator repaired the cluster.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import redis
from redis.backoff import NoBackoff
from redis.cluster import RedisCluster
from redis.exceptions import (
    AskError,
    ClusterDownError,
    MovedError,
    ResponseError,
    TryAgainError,
)
from redis.retry import Retry

from server.cluster.lease import alive_key, lease_key
from server.cluster.renewal import HOLDER_UNKNOWN, LeaseRenewal, send_round
from server.store.cluster_router import slot_moved
from server.store.resp import pack_command

log = logging.getLogger(__name__)

REDIRECTIONS = 3
"""Redirections a command of the round follows at most: ``MOVED`` then ``ASK`` is one move
seen through a map a move behind; a third hop is a slot that moved again meanwhile."""


def connect_sync_cluster(url: str, timeout_s: float) -> RedisCluster:
    """The renewal thread's (and the node identity's) client of the cluster: no silent
    retries within a round; a round trip longer than ``timeout_s`` fails."""
    return RedisCluster.from_url(url, socket_connect_timeout=min(2.0, timeout_s),
                                 socket_timeout=timeout_s, retry=Retry(NoBackoff(), 0))


class ClusterLeaseRenewal(LeaseRenewal):
    renew_batch = 1  # a script's keys must share a slot: one room's per call

    def __init__(self, client: RedisCluster, node_id: str, lease_ms: int,
                 instance: str | None = None, room_index_ttl_ms: int | None = None) -> None:
        # (RedisCluster offers every command the base class sends outside _send.)
        super().__init__(client, node_id, lease_ms, instance,  # type: ignore[arg-type]
                         room_index_ttl_ms)
        self._cluster = client

    def _send(self, commands: list[bytes], own_keys: Sequence[str],
              owned: Sequence[tuple[str, int]], watched_rooms: Sequence[str],
              watched_nodes: Sequence[str]) -> list[Any]:
        keys = list(own_keys)
        renewed_at = len(keys)
        keys += [lease_key(room_id) for room_id, _fence in owned]
        keys += [lease_key(room_id) for room_id in watched_rooms]
        keys += [alive_key(node_id) for node_id in watched_nodes]
        assert len(keys) == len(commands)
        cluster: Any = self._cluster  # (some of its methods are untyped)
        by_node: dict[str, tuple[Any, list[int]]] = {}
        for index, key in enumerate(keys):
            node = cluster.get_node_from_key(key)
            by_node.setdefault(node.name, (node, []))[1].append(index)
        results: list[Any] = [None] * len(commands)
        failed: BaseException | None = None
        for node, indexes in by_node.values():
            # Every master is sent its share even when one fails: the rooms on the masters
            # that answer are renewed (the round is still reported failed).
            try:
                replies = send_round(cluster.get_redis_connection(node),
                                     b"".join(commands[i] for i in indexes), len(indexes))
            except (redis.ConnectionError, redis.TimeoutError, OSError) as error:
                failed = failed or error
                continue
            for index, reply in zip(indexes, replies, strict=True):
                results[index] = reply
        moved = any(isinstance(reply, ResponseError) and slot_moved(reply) for reply in results)
        if failed is None:
            try:
                self._follow_redirections(commands, results)
            except (redis.ConnectionError, redis.TimeoutError, OSError) as error:
                failed = error
        if failed is not None or moved:
            self._read_slots_again()
        if failed is not None:
            raise failed
        for index in range(renewed_at, renewed_at + len(owned)):
            if isinstance(results[index], TryAgainError):
                log.info("lease of room %s not renewed this round: its slot is being moved",
                         owned[index - renewed_at][0])
                results[index] = 1  # undecided: not lost (see the module's docstring)
            elif isinstance(results[index], ClusterDownError):
                results[index] = 1  # undecided, as above: its master is down
        holders_at = renewed_at + len(owned)
        nodes_at = holders_at + len(watched_rooms)
        for index in range(holders_at, len(results)):
            if isinstance(results[index], ClusterDownError):
                results[index] = HOLDER_UNKNOWN if index < nodes_at else 1  # (1: not dead)
        return results

    def _follow_redirections(self, commands: list[bytes], results: list[Any]) -> None:
        """Send each command answered ``MOVED``/``ASK`` once more to the master named in its
        reply (``ASKING`` first for ``ASK``), one write per master; its reply replaces the
        redirection. Up to ``REDIRECTIONS`` times: a map a move behind meets ``MOVED`` then
        ``ASK`` (the slot moved on and is being moved again, ``redis-cli --cluster
        rebalance`` after a ``reshard``); a redirection left after that stays the
        command's outcome."""
        for _hop in range(REDIRECTIONS):
            if not self._follow_once(commands, results):
                return

    def _follow_once(self, commands: list[bytes], results: list[Any]) -> bool:
        """One hop of ``_follow_redirections``; whether any command was sent again."""
        cluster: Any = self._cluster
        by_node: dict[tuple[str, int], list[int]] = {}
        for index, reply in enumerate(results):
            if isinstance(reply, AskError):  # (MovedError is one too)
                by_node.setdefault((reply.host, reply.port), []).append(index)
        sent = False
        for (host, port), indexes in by_node.items():
            node = cluster.get_node(host=host, port=port)
            if node is None:  # a master added since the map was read (``add-node``)
                self._read_slots_again()
                node = cluster.get_node(host=host, port=port)
                if node is None:
                    continue  # not in the map yet either: the redirection is the outcome
            asking = pack_command("ASKING")
            packed = [commands[i] if isinstance(results[i], MovedError) else asking + commands[i]
                      for i in indexes]
            replies = send_round(cluster.get_redis_connection(node), b"".join(packed),
                                 sum(1 if isinstance(results[i], MovedError) else 2
                                     for i in indexes))
            for index in indexes:
                if not isinstance(results[index], MovedError):
                    replies.pop(0)  # ASKING's OK
                results[index] = replies.pop(0)
            sent = True
        return sent

    def _read_slots_again(self) -> None:
        try:
            self._cluster.nodes_manager.initialize()
        except (redis.RedisError, OSError, redis.exceptions.RedisClusterException) as error:
            # (RedisClusterException, not a RedisError: no node answered, as in a failover)
            log.warning("Redis Cluster: could not read the slot map again: %s", error)
