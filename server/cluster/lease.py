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


# KEYS: lease, then the room's keys (``room_keys``: state, events, answers A and B); ARGV:
# node, lease_ms. Nothing is taken of a room whose keys a cut-short slot move split between
# two masters (``redis_scripts``): a lease written then could exist on both.
ACQUIRE = WHOLE_ROOM + """
local room = redis.call('HMGET', KEYS[2], 'version', 'answered_A', 'answered_B')
if not room[1] then return stateless(KEYS[3], KEYS[4], KEYS[5], {0}) end
if split(KEYS[3], KEYS[4], KEYS[5], room[1], room[2], room[3]) then
  return redis.error_reply(SPLIT)
end
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return {2, holder} end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('HSET', KEYS[2], 'owner', ARGV[1])
return {1, redis.call('HINCRBY', KEYS[2], 'fence', 1)}
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

# KEYS: lease, state; ARGV: node, fence.
RELEASE_FENCED = """
if redis.call('GET', KEYS[1]) == ARGV[1] and redis.call('HGET', KEYS[2], 'fence') == ARGV[2] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""

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
    def __init__(self, client: aioredis.Redis, node_id: str, lease_ms: int) -> None:
        self._redis = client
        self.node_id = node_id
        self.lease_ms = lease_ms
        self._scripts = LuaScripts(client)
        # The claims of one loop turn in one pipeline: after a restart every room is claimed
        # within a second or two (server.store.script_batches).
        self._acquires = ScriptBatches(client, self._scripts, ACQUIRE, "acquire lease")

    async def acquire(self, room_id: str) -> Claim | None:
        """Take the room's lease and a new fence; None when the room does not exist."""
        async with storage_call("acquire lease"):
            result = await self._acquires.run([lease_key(room_id), *room_keys(room_id)],
                                              [self.node_id, self.lease_ms])
        if int(result[0]) == 0:
            return None
        if int(result[0]) == 2:
            return HeldBy(text(result[1]))
        return Claimed(int(result[1]))

    async def release_held(self, held: Iterable[tuple[str, int]],
                           instance: str | None = None) -> None:
        """Shutdown: give up each (room, fence)'s lease if it is still held under that fence
        (a newer process of this node id may hold it under a newer one), this node's
        liveness key, and its instance lock if ``instance`` still holds it."""
        async with storage_call("release leases"):
            fenced = await self._scripts.sha(RELEASE_FENCED)
            mine = await self._scripts.sha(RELEASE_INSTANCE) if instance else ""
            async with self._redis.pipeline(transaction=False) as pipe:
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
