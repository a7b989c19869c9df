"""Room leases with fencing tokens on Redis: one node owns a room at a time.

Keys (hash tag ``{room:<id>}``, the same slot as the room's state, so one script may touch
both): ``{room:<id>}:lease`` holds the owning node's id with a PX expiry. Node liveness:
``{node:<id>}:alive`` with the same expiry, so an owner can tell that a relaying node died.

- ``acquire`` (one script; the claims of one event-loop turn share one pipeline): if the
  lease is free or already ours, take it for ``lease_ms`` AND bump the room's fencing token
  (``HINCRBY fence``), atomically; only the lease winner ever gets a fence. Held by
  another node: returns that node's id and takes nothing.
  "Already ours" is what a node restarted under the same id (``server.cluster.identity``)
  finds: it takes its rooms back at once, each under a NEW fence, so a process of its old
  incarnation that still runs can no longer write to them.
- ``RENEW`` (one pipeline per node per round, ``server.cluster.renewal``: on one Redis a
  call renews up to ``renewal.RENEW_BATCH`` rooms, on a Redis Cluster one room, whose keys
  share a slot, as a script's keys must there): extends a lease still ours under the same
  fence; re-takes a lease that merely expired (Redis was down or slow) only if the room's
  fence is still ours, i.e. nobody claimed the room since; otherwise the lease is lost and
  the caller stops the room. A lease held under our node id but a newer fence was claimed
  by a newer process of the same id: lost too. The fence, checked inside the append
  script, is what makes a stale owner harmless: whatever its clock thinks, its writes are
  refused once another node (or process) has claimed.
- **Who ran it last** (``Stamp``, ``RedisLeases.acquire``): the claim records the claiming
  process in the room's state (``owner``: node id, ``owner_instance``: its token in the node
  id's instance lock) and returns the one it replaces. Each renewal round stamps
  ``{node:<id>}:seen`` with the instance and the room time of the node's last loop
  heartbeat (``LeaseRenewal.tick``), and a shutdown with the time it releases its leases;
  the stamp is kept ``SEEN_TTL_MS`` after the last. So a room claimed from another process
  was run by nobody from that process's stamp until now (killed, hung, cut off, or shut
  down and waited for): the room gives that span back to its chess clocks and its ARO
  window, as for a store outage (``server.rooms.store_outage``). A killed process's stamp
  is at most one heartbeat and one round old, so the span may begin up to ``lease_renew_s
  * 1.5`` before the process died. A room that stopped because nobody was connected
  (idle) forgets its owner as its lease is released: nobody waited for it.
- ``release_held`` on shutdown (``RELEASE_FENCED`` for each room, under the fence this
  process holds it with), so another node may take over at once; the same script when one
  room stops here (idle; sent by the renewal thread, after any renewal of it): a newer
  claim of the same room, even by this node id, keeps its lease. ``release`` compares the
  node id only.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import redis.asyncio as aioredis

from server.cluster.identity import RELEASE_INSTANCE, instance_key
from server.rooms.ownership import Claim, Claimed, HeldBy
from server.store.lua_scripts import LuaScripts
from server.store.redis_errors import storage_call
from server.store.redis_scripts import WHOLE_ROOM
from server.store.redis_store import room_keys, state_key
from server.store.script_batches import ScriptBatches


def lease_key(room_id: str) -> str:
    return f"{{room:{room_id}}}:lease"


def alive_key(node_id: str) -> str:
    return f"{{node:{node_id}}}:alive"


def seen_key(node_id: str) -> str:
    return f"{{node:{node_id}}}:seen"


SEEN_TTL_MS = 7 * 24 * 3600 * 1000
"""How long a node's last stamp (``seen_key``) outlives its last renewal round: a room whose
server died is given back the time nobody ran it when it is loaded within this (a week:
any outage an operator would still want refunded; one node id's key is a few bytes)."""


def seen_value(instance: str | None, room_ms: int) -> bytes:
    return f"{instance or ''} {room_ms}".encode()


@dataclass(frozen=True, slots=True)
class Stamp:
    """A process's last sign of life: its instance token and the room time it stamped."""

    instance: str
    room_ms: int

    @staticmethod
    def parse(value: bytes | str | None) -> Stamp | None:
        if value is None:
            return None
        instance, _, room_ms = text(value).rpartition(" ")
        return Stamp(instance, int(room_ms)) if room_ms.isdigit() else None


# KEYS: lease, then the room's keys (``room_keys``: state, events, answers A and B); ARGV:
# node, lease_ms, instance. Nothing is taken of a room whose keys a cut-short slot move split
# between two masters (``redis_scripts``): a lease written then could exist on both.
# Claimed: {1, fence, previous owner, its instance} (nil, nil: handed over, or never run).
ACQUIRE = WHOLE_ROOM + """
local room = redis.call('HMGET', KEYS[2], 'version', 'answered_A', 'answered_B', 'owner',
                        'owner_instance')
if not room[1] then return stateless(KEYS[3], KEYS[4], KEYS[5], {0}) end
if split(KEYS[3], KEYS[4], KEYS[5], room[1], room[2], room[3]) then
  return redis.error_reply(SPLIT)
end
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return {2, holder} end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('HSET', KEYS[2], 'owner', ARGV[1], 'owner_instance', ARGV[3])
return {1, redis.call('HINCRBY', KEYS[2], 'fence', 1), room[4], room[5]}
"""

# KEYS: each room's lease and state, in pairs; ARGV: node, lease_ms, then each room's fence.
# One reply per room, in order: 1 = ours for lease_ms more, 0 = lost.
RENEW = """
local node, ms, renewed = ARGV[1], ARGV[2], {}
for i = 1, #KEYS / 2 do
  local lease = KEYS[2 * i - 1]
  local holder = redis.call('GET', lease)
  local ours = 0
  if redis.call('HGET', KEYS[2 * i], 'fence') == ARGV[i + 2] then
    if holder == node then
      redis.call('PEXPIRE', lease, ms)
      ours = 1
    elseif not holder then
      redis.call('SET', lease, node, 'PX', ms)
      ours = 1
    end
  end
  renewed[i] = ours
end
return renewed
"""

# KEYS: lease, state; ARGV: node, fence, then IDLE for a room that stopped because nobody was
# connected: it forgets its owner, so the next claim gives back no time (nobody waited).
RELEASE_FENCED = """
if redis.call('GET', KEYS[1]) == ARGV[1] and redis.call('HGET', KEYS[2], 'fence') == ARGV[2] then
  if ARGV[3] == 'idle' then redis.call('HDEL', KEYS[2], 'owner', 'owner_instance') end
  return redis.call('DEL', KEYS[1])
end
return 0
"""
IDLE = "idle"

_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


@dataclass(frozen=True, slots=True)
class TickReport:
    """What one renewal round trip learned."""

    lost_leases: frozenset[tuple[str, int]]  # (room, fence) owned here, no longer ours
    holders: dict[str, str | None]  # watched room -> lease holder now (None: free)
    dead_nodes: frozenset[str]  # watched nodes with no liveness key
    displaced: bool = False  # another process holds this node's id (identity.RENEW_INSTANCE)

    @property
    def lost(self) -> frozenset[str]:
        """The rooms whose lease under the renewed fence is no longer ours."""
        return frozenset(room_id for room_id, _ in self.lost_leases)

    def merged(self, newer: TickReport) -> TickReport:
        """This report and a newer one, for a loop that did not read this one yet: every
        loss and dead node of both (a lost lease stays lost), the newer holders."""
        return TickReport(self.lost_leases | newer.lost_leases, newer.holders,
                          self.dead_nodes | newer.dead_nodes,
                          self.displaced or newer.displaced)


class RedisLeases:
    def __init__(self, client: aioredis.Redis, node_id: str, lease_ms: int,
                 instance: str | None = None) -> None:
        """``instance``: this process's token in the node id's instance lock (None: tests
        that make nodes directly; the claims then record ``""``)."""
        self._redis = client
        self.node_id = node_id
        self.lease_ms = lease_ms
        self.instance = instance or ""
        self.predecessor: Stamp | None = None
        """The last stamp of the process that ran under this node id before this one
        (``read_predecessor``, before this one's first renewal round stamps over it)."""
        self._scripts = LuaScripts(client)
        # The claims of one loop turn in one pipeline: after a restart every room is claimed
        # within a second or two (server.store.script_batches).
        self._acquires = ScriptBatches(client, self._scripts, ACQUIRE, "acquire lease")

    async def read_predecessor(self) -> None:
        """Keep the stamp a previous process of this node id left: call before this one's
        first renewal round."""
        async with storage_call("read the node's last stamp"):
            self.predecessor = Stamp.parse(await self._redis.get(seen_key(self.node_id)))

    async def acquire(self, room_id: str) -> Claim | None:
        """Take the room's lease and a new fence; None when the room does not exist. The
        claim says since when nobody ran the room (``unattended_since_ms``), if another
        process ran it last and left a stamp."""
        async with storage_call("acquire lease"):
            result = await self._acquires.run([lease_key(room_id), *room_keys(room_id)],
                                              [self.node_id, self.lease_ms, self.instance])
        if int(result[0]) == 0:
            return None
        if int(result[0]) == 2:
            return HeldBy(text(result[1]))
        fence = int(result[1])
        owner, instance = result[2], result[3]
        if owner is None:
            return Claimed(fence)  # handed over idle, or never run
        stamp = await self._last_stamp(text(owner), text(instance or b""))
        return Claimed(fence, None if stamp is None else stamp.room_ms)

    async def _last_stamp(self, node_id: str, instance: str) -> Stamp | None:
        """The last stamp of the process (``node_id``, ``instance``) that ran a room; None
        for this process, or when that process's stamp is gone (it expired, or a newer
        process of that node id stamped over it before this claim)."""
        if node_id == self.node_id:
            if instance == self.instance:
                return None  # (this process ran it: it was never unattended)
            stamp = self.predecessor
        else:
            async with storage_call("read a node's last stamp"):
                stamp = Stamp.parse(await self._redis.get(seen_key(node_id)))
        return stamp if stamp is not None and stamp.instance == instance else None

    async def release_held(self, held: Iterable[tuple[str, int]], instance: str | None = None,
                           room_ms: int | None = None) -> None:
        """Shutdown at room time ``room_ms``: stamp it (whoever loads these rooms next gives
        back the time from then; None: no stamp, e.g. the id is another process's now),
        give up each (room, fence)'s lease if it is still held under that fence (a newer
        process of this node id may hold it under a newer one), this node's liveness key,
        and its instance lock if ``instance`` still holds it."""
        async with storage_call("release leases"):
            fenced = await self._scripts.sha(RELEASE_FENCED)
            mine = await self._scripts.sha(RELEASE_INSTANCE) if instance else ""
            async with self._redis.pipeline(transaction=False) as pipe:
                if room_ms is not None:
                    pipe.set(seen_key(self.node_id), seen_value(self.instance, room_ms),
                             px=SEEN_TTL_MS)
                if instance:
                    # (execute_command: a cluster pipeline refuses its evalsha method)
                    pipe.execute_command("EVALSHA", mine, 2, instance_key(self.node_id),
                                         alive_key(self.node_id), instance)
                else:
                    pipe.delete(alive_key(self.node_id))
                for room_id, fence in held:
                    pipe.execute_command("EVALSHA", fenced, 2, lease_key(room_id),
                                         state_key(room_id), self.node_id, fence)
                await pipe.execute(raise_on_error=False)

    async def release(self, room_ids: Iterable[str]) -> None:
        """Give up these leases (shutdown), and this node's liveness key."""
        async with storage_call("release leases"):
            sha = await self._scripts.sha(_RELEASE)
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.delete(alive_key(self.node_id))
                for room_id in room_ids:
                    pipe.execute_command("EVALSHA", sha, 1, lease_key(room_id), self.node_id)
                await pipe.execute(raise_on_error=False)


def text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
