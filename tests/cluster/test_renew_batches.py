"""A lease round on one Redis renews its rooms ``RENEW_BATCH`` to a script call, and each
room's outcome is the one a call of its own would have had: a lease still ours under our
fence, or free while our fence is the room's, is ours for a lease more; one held by another
node, or whose room was claimed since (a newer fence), is lost and left as it is. Against a
real redis-server: the calls are counted by Redis itself (``INFO commandstats``)."""

from __future__ import annotations

import math
import uuid

import pytest
import redis

from server.cluster.lease import lease_key
from server.cluster.renewal import RENEW_BATCH, LeaseRenewal, connect_sync
from server.store.redis_store import RedisRoomStore, state_key

pytestmark = pytest.mark.redis

NODE, OTHER, FENCE, LEASE_MS = "renewing-node", "other-node", 3, 5000
KINDS = ("ours", "free", "other", "newer_fence", "gone")
"""How each room stands when the round comes: its lease ours, expired, another node's; its
lease ours but the room claimed since under a newer fence; the room deleted."""


def given(client: redis.Redis, room_id: str, kind: str) -> None:
    if kind != "gone":
        client.hset(state_key(room_id), "fence", FENCE + 1 if kind == "newer_fence" else FENCE)
    holder = {"ours": NODE, "other": OTHER, "newer_fence": NODE}.get(kind)
    if holder is not None:
        client.set(lease_key(room_id), holder, px=60_000)


def evalsha_calls(client: redis.Redis) -> int:
    stats = client.info("commandstats")
    return int(stats.get("cmdstat_evalsha", {}).get("calls", 0))


def test_every_room_of_a_batched_round_gets_its_own_outcome(store: RedisRoomStore) -> None:
    client = connect_sync(store.url, 5.0)
    tag = uuid.uuid4().hex[:8]
    rooms = [(f"batch-{tag}-{n}", KINDS[n % len(KINDS)]) for n in range(2 * RENEW_BATCH + 7)]
    for room_id, kind in rooms:
        given(client, room_id, kind)
    renewal = LeaseRenewal(client, NODE, LEASE_MS)
    renewal.tick([(room_id, FENCE) for room_id, _ in rooms], [], [])  # (its script loaded)
    calls_before = evalsha_calls(client)
    report = renewal.tick([(room_id, FENCE) for room_id, _ in rooms], [], [])
    try:
        assert evalsha_calls(client) - calls_before == math.ceil(len(rooms) / RENEW_BATCH)
        lost = {room_id for room_id, kind in rooms if kind in ("other", "newer_fence", "gone")}
        assert report.lost == lost
        for room_id, kind in rooms:
            holder = client.get(lease_key(room_id))
            if kind in ("ours", "free"):
                assert holder == NODE.encode()
                assert 0 < client.pttl(lease_key(room_id)) <= LEASE_MS
            elif kind == "other":
                assert holder == OTHER.encode()
            elif kind == "newer_fence":
                assert holder == NODE.encode()  # left to the newer claim's own renewal
                assert client.pttl(lease_key(room_id)) > LEASE_MS
            else:
                assert holder is None
    finally:
        renewal.close()


def test_a_round_of_no_room_sends_no_renewal(store: RedisRoomStore) -> None:
    client = connect_sync(store.url, 5.0)
    renewal = LeaseRenewal(client, NODE, LEASE_MS)
    try:
        renewal.tick([], [], [])
        calls_before = evalsha_calls(client)
        report = renewal.tick([], [], [])
        assert evalsha_calls(client) == calls_before
        assert report.lost == frozenset()
    finally:
        renewal.close()
