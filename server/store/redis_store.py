"""The RoomStore on Redis: the system of record for rooms.

Keys (the ``{room:<id>}`` hash tag keeps one room's keys in one Cluster slot, so its Lua
scripts, ``server.store.redis_scripts``, may touch them together):

- ``{room:<id>}:state`` hash: ``meta`` (msgpack), ``version``, ``fence``, ``owner``,
  ``snapshot`` (msgpack bytes from the room) and ``snapshot_version`` (the version it is the
  state at; absent in rooms stored before snapshots were taken every N versions, where the
  snapshot is at ``version``), ``deadlines`` (msgpack list of [kind, key, at_ms]),
  ``listing`` (msgpack, absent for a private room), ``retention`` (ms, absent or 0:
  kept for ever), ``first_snapshot`` (the state at version 0, for a delayed feed's
  ``timeline``; absent in rooms stored before), and ``answered_A``/``answered_B`` (1 once
  that seat's answers list exists: the scripts tell a list lost to a split slot from one
  never written, ``server.store.redis_scripts``).
- ``{room:<id>}:events`` stream: one entry per event, entry id ``<version>-0``, field ``e``
  (the event), ``t`` (Unix ms its commit was stored at) and ``w`` (the deadline of the ARO
  window open after its commit, 0: none; both absent in rooms stored before); never
  trimmed: a finished game's record (``server.lobby.record``) is every event.
- ``{room:<id>}:answers:A`` and ``:answers:B`` lists: the seat's latest answers (msgpack
  ``[command id, frame]``), oldest first, trimmed to the ``answers_kept`` of the last append.
- ``{lobby}:public`` sorted set: public room ids scored by their listing's ``updated_ms``
  (the listing itself lives in the room's hash).

Retention: a room with a retention (``create_room``/``append``'s ``retention_ms``) has every
key expire at the same instant, that long after its last write (``append``,
``set_deadlines``, ``create_room``); with none, its keys have no expiry. The lobby index is
the one key shared by every room: ``public_rooms`` skips the ids whose room is gone and
takes them off it. (``{lobby}:rooms``, a directory of every room id that nothing read, is
no longer written; in a Redis used before, it may be deleted.)

Round trips: ``append`` (one accepted command) costs ONE round trip: a pipeline holding the
append script (fence check, version check, XADD of every event, snapshot, deadlines,
listing, the command's answer, the room's expiry; atomic because it is one script) and,
for a public room, the lobby index
update (ZADD: its listing's ``updated_ms`` moved) -- shared with the appends of every other
room that wrote in the same event-loop iteration (group commit,
``server.store.group_commit``; ``server.store.append_batches``). So one command per append
for a private room, two for a public one. The index update is outside the script because
the lobby key lives in another slot; it only orders the lobby list and never decides
anything. An append that removes a listing the room had (a public room leaving the list)
costs a second round trip, the ZREM, sent only when the script reports that it removed one.
``load_room`` (a script: the hash, the events after the snapshot and the answers),
``load_meta`` (an ``HGET`` of the meta field alone) and ``events_since`` cost one round
trip each, ``load_rooms`` one for the whole batch (a
pipeline of ``load_room``'s script, one per room), ``claim_room`` and ``set_deadlines`` one,
shared with the other rooms' calls of the same loop turn (``server.store.script_batches``),
``create_room`` one (two for a public room), ``set_listing`` one (a script that updates
the index too; two on a Cluster, whose index lives in another slot: the script, then the
ZADD or ZREM). After a Redis restart
the first call of each script (but the append's) finds the script cache empty (NOSCRIPT)
and costs one more to reload it; the appends load theirs in front of the first batch on
each new connection.

Connections: the appends go on ONE connection of their own, pipelined (a batch is written
without waiting for the replies of the one before it; ``server.store.append_channel``: an
asyncio protocol feeding hiredis, no task per round trip -- redis-py's per-call path was
most of the client's CPU per append). Every other command uses redis-py's pool
(``MAX_CONNECTIONS``). Both connect where the URL says, with the same timeouts: a round trip
not answered within ``socket_timeout`` (5 s unless the URL says otherwise), or a lost
connection, is ``StorageUnavailable``; the appends' connection is then dropped, with every
append waiting on it, and opened again by the next batch.

Durability: the store is only as durable as Redis is told to be. With ``appendonly yes``
and ``appendfsync always`` (what the embedded Redis and the tests use) an acknowledged
append survives a ``kill -9`` of Redis; with ``everysec`` up to a second may be lost.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, ResponseError

from protocol.codec import pack_plain, unpack_plain
from server.metrics import (
    APPEND_ERROR,
    APPEND_STALE,
    APPEND_UNAVAILABLE,
    PRIVATE_WRITE,
    REDIS_APPEND,
)
from server.store.append_batches import AppendBatches, PendingAppend
from server.store.caster_links import (
    CASTERS_FIELD,
    CURRENT,
    MAX_MADE,
    MAX_RECORDS,
    RECORD,
    RECORD_ANSWERS,
    WITHDRAW,
    WITHDRAW_ANSWERS,
    CasterLink,
    Full,
    Recorded,
    Withdrawn,
    unpack_links,
)
from server.store.cluster_appends import ClusterAppendBatches
from server.store.interface import (
    ANSWERS_KEPT,
    Answer,
    Commits,
    Deadline,
    Listing,
    RegisteredArmy,
    RoomMeta,
    RoomSettings,
    StaleWriter,
    StorageUnavailable,
    StoredRoom,
    Timeline,
)
from server.store.lua_scripts import LuaScripts
from server.store.redis_errors import storage_call
from server.store.redis_scripts import (
    ANSWER_KEYS,
    APPEND,
    CLAIM,
    CREATE,
    LOAD,
    SET_DEADLINES,
    SET_LISTING,
    SET_LISTING_INDEXED,
)
from server.store.script_batches import ScriptBatches

PUBLIC_KEY = "{lobby}:public"

def state_key(room_id: str) -> str:
    return f"{{room:{room_id}}}:state"


def events_key(room_id: str) -> str:
    return f"{{room:{room_id}}}:events"


def answers_key(room_id: str, seat: str) -> str:
    return f"{{room:{room_id}}}:answers:{seat}"


def room_keys(room_id: str) -> list[str]:
    """Every key of the room, as the scripts that write take them (``redis_scripts``):
    ``state_key``, ``events_key``, then ``answers_key`` of each of ``ANSWER_KEYS``."""
    tag = f"{{room:{room_id}}}:"  # (once: this is on every append's path)
    return [tag + "state", tag + "events", tag + "answers:A", tag + "answers:B"]


PUBLIC_PASSES = 4
"""``public_rooms`` reads the index at most this many times to fill its page when entries
of rooms that are gone took places in it."""

MAX_CONNECTIONS = 64
"""Pooled connections to Redis per store (the appends have one more of their own). A call
that finds them all busy waits for one (up to POOL_WAIT_S) instead of failing: redis-py's
default pool refuses the 101st concurrent call ("Too many connections"), which thousands of
rooms starting at once reach."""
POOL_WAIT_S = 10.0


CONNECTION_RETRIES = 2
"""A command that meets a broken connection is sent again on a new one this many times
(``connect``)."""
RETRY_BACKOFF = (0.05, 0.5)
"""The retries' exponential backoff: base and cap, seconds (0.05 s, then 0.1 s)."""
HEALTH_CHECK_S = 2.0
"""A pooled connection idle this long is PINGed before its next command (``connect``)."""


def connect(url: str) -> aioredis.Redis:
    """A client for the store.

    After an external Redis restart every connection the pool kept is dead, and each failed
    its next command ("Connection closed by server"): a spectator resuming 20 s after Redis
    was back was closed 4011 on one. So a connection idle for ``HEALTH_CHECK_S`` is
    PINGed before it is used (a dead one is replaced, and the command goes on a new one),
    and a command that meets a broken connection anyway is sent again on a new one, up to
    ``CONNECTION_RETRIES`` times with a short backoff: about 0.15 s more before "try again"
    while Redis is really down, not a long stall of the room's single writer. Only
    connection errors are retried: a timeout (a Redis that hangs, ``socket_timeout``) fails
    at once. A room's appends do not go through this pool (their own connection,
    ``server.store.append_channel``, which notices a closed connection at once) and are
    never retried. A read retried is harmless. A write is retried only if its connection
    broke; had Redis run it first (a network cut after the send: never so when Redis
    restarted, its old process is gone), the retry meets the write's own check: a claim
    takes the lease again for the same node, a tournament's append finds its action id
    (answered as a duplicate), a room's creation finds the room made (the lobby answers
    that one request with an error; the room id is new for every request)."""
    pool = aioredis.BlockingConnectionPool.from_url(
        url, max_connections=MAX_CONNECTIONS, timeout=POOL_WAIT_S,
        socket_connect_timeout=2.0, socket_timeout=5.0,
        retry=Retry(ExponentialBackoff(cap=RETRY_BACKOFF[1], base=RETRY_BACKOFF[0]),
                    CONNECTION_RETRIES, supported_errors=(RedisConnectionError,)),
        health_check_interval=HEALTH_CHECK_S,
    )
    return aioredis.Redis.from_pool(pool)


class RedisRoomStore:
    """``RoomStore`` on redis.asyncio (hiredis parser when installed)."""

    cluster = False
    """True on a Redis Cluster (``ClusterRoomStore``)."""

    def __init__(self, client: aioredis.Redis, url: str = "",
                 appends: AppendBatches | ClusterAppendBatches | None = None) -> None:
        """``appends``: where the appends go (default: one pipelined connection to
        ``client``'s Redis)."""
        self._redis = client
        self.url = url
        """Where ``client`` connects (for another client of the same Redis); "" if unknown."""
        self._scripts = LuaScripts(client)
        self._appends = appends or AppendBatches(client, APPEND, PUBLIC_KEY)
        # Claims and presence writes of one loop turn go in one pipeline each (after a
        # restart thousands come at once; server.store.script_batches).
        self._claims = ScriptBatches(client, self._scripts, CLAIM, "claim_room")
        self._set_deadlines = ScriptBatches(client, self._scripts, SET_DEADLINES, "set_deadlines")

    @property
    def client(self) -> aioredis.Redis:
        """The Redis client (shared with the cluster's leases and room bus)."""
        return self._redis

    @classmethod
    def from_url(cls, url: str) -> RedisRoomStore:
        return cls(connect(url), url)

    async def create_room(self, meta: RoomMeta, snapshot: bytes, listing: Listing | None,
                          *, retention_ms: int = 0) -> None:
        room_id = meta.room_id
        args = [_pack_meta(meta), snapshot, pack_plain([]),
                b"" if listing is None else _pack_listing(listing), retention_ms]
        async with storage_call("create_room"):
            try:
                await self._create(room_keys(room_id), args)
            except ResponseError as error:
                if str(error).startswith("EXISTS"):
                    raise ValueError(f"room {room_id} exists") from None
                raise
            if listing is not None:
                await self._redis.zadd(PUBLIC_KEY, {room_id: listing.updated_ms})

    async def _create(self, keys: list[str], args: list[Any]) -> None:
        await self._scripts.run(CREATE, keys, args)

    async def claim_room(self, room_id: str, owner: str) -> int | None:
        async with storage_call("claim_room"):
            fence = await self._claims.run(room_keys(room_id), [owner])
        return None if fence is None else int(fence)

    async def load_room(self, room_id: str) -> StoredRoom | None:
        async with storage_call("load_room"):
            found = await self._scripts.run(LOAD, room_keys(room_id), [])
        return stored_room(found)

    async def load_meta(self, room_id: str) -> RoomMeta | None:
        # One HGET of the state hash's meta field: never the snapshot, events or answers.
        async with storage_call("load_meta"):
            packed: Any = await self._redis.hget(state_key(room_id), "meta")
        return None if packed is None else _unpack_meta(packed)

    async def loaded_version(self, room_id: str) -> int | None:
        async with storage_call("loaded_version"):
            version: Any = await self._redis.hget(state_key(room_id), "version")
        return None if version is None else int(version)

    async def load_metas(self, room_ids: Sequence[str]) -> list[RoomMeta | None]:
        # One pipeline of HGETs (on a cluster, one per master the rooms live on).
        if not room_ids:
            return []
        async with storage_call("load_metas"), self._redis.pipeline(transaction=False) as pipe:
            for room_id in room_ids:
                pipe.hget(state_key(room_id), "meta")
            found: list[Any] = await pipe.execute()
        return [None if packed is None else _unpack_meta(packed) for packed in found]

    async def load_rooms(self, room_ids: Sequence[str]) -> list[StoredRoom | None]:
        # One pipeline of LOAD scripts: one round trip for the whole batch (each script is
        # atomic on its own room, as in load_room; no transaction across rooms is needed).
        if not room_ids:
            return []
        async with storage_call("load_rooms"):
            for attempt in (1, 2):
                sha = await self._scripts.sha(LOAD)
                async with self._redis.pipeline(transaction=False) as pipe:
                    for room_id in room_ids:
                        keys = room_keys(room_id)
                        # (execute_command: a cluster pipeline refuses its evalsha method)
                        pipe.execute_command("EVALSHA", sha, len(keys), *keys)
                    try:
                        found = await pipe.execute()
                        break
                    except NoScriptError:
                        if attempt == 2:
                            raise
                        self._scripts.forget()  # Redis restarted: load the script again
        return [stored_room(one) for one in found]

    async def append(
        self,
        room_id: str,
        *,
        fence: int,
        expected_version: int,
        events: Sequence[bytes],
        snapshot: bytes | None,
        deadlines: Sequence[Deadline],
        listing: Listing | None,
        answer: Answer | None = None,
        answers_kept: int = ANSWERS_KEPT,
        retention_ms: int | None = None,
        committed_ms: int = 0,
        window_ms: int = 0,
        armies: bytes | None = None,
    ) -> int:
        if armies is not None and snapshot is None:
            raise ValueError("army lists are stored with a snapshot only")
        seat, entry = "", b""
        if answer is not None and answers_kept > 0:
            seat, entry = answer.seat, pack_plain([answer.command_id, answer.frame])
        args: list[Any] = [
            fence, expected_version, b"0" if snapshot is None else b"1",
            b"" if snapshot is None else snapshot, _pack_deadlines(deadlines),
            b"" if listing is None else _pack_listing(listing), seat, entry, answers_kept,
            b"" if retention_ms is None else retention_ms, committed_ms, window_ms,
            b"" if armies is None else armies, *events,
        ]
        started = time.perf_counter()
        try:
            outcome = await self._appends.append(
                PendingAppend(room_id, room_keys(room_id), args, listing))
        except Exception as error:  # the whole batch failed
            outcome = error
        if not PRIVATE_WRITE.get():  # (events no spectator sees: not timed, server/metrics.py)
            REDIS_APPEND.observe(time.perf_counter() - started)
        if isinstance(outcome, ResponseError) and str(outcome).startswith("STALE"):
            APPEND_STALE.inc()
            raise StaleWriter(f"room {room_id}: {outcome}")
        if isinstance(outcome, Exception):
            failed = APPEND_UNAVAILABLE if isinstance(outcome, StorageUnavailable) else APPEND_ERROR
            failed.inc()
            raise outcome
        return int(outcome[0])

    async def set_deadlines(self, room_id: str, *, fence: int,
                            deadlines: Sequence[Deadline]) -> None:
        async with storage_call("set_deadlines"):
            try:
                await self._set_deadlines.run(room_keys(room_id),
                                              [fence, _pack_deadlines(deadlines)])
            except ResponseError as error:
                if str(error).startswith("STALE"):
                    raise StaleWriter(f"room {room_id}: {error}") from None
                raise

    async def events_since(self, room_id: str, version: int) -> Sequence[bytes] | None:
        fields = await self._entries_since(room_id, version, "events_since")
        return None if fields is None else [bytes(item[b"e"]) for item in fields]

    async def _entries_since(self, room_id: str, version: int,
                             call: str) -> list[dict[bytes, bytes]] | None:
        """The stream entries' fields of the events after ``version``, or None: no such room,
        a version past it (or negative), or events trimmed (only rooms stored before every
        event was kept)."""
        if version < 0:
            return None
        async with storage_call(call), self._redis.pipeline(transaction=True) as pipe:
            pipe.hget(state_key(room_id), "version")
            pipe.xrange(events_key(room_id), min=f"{version + 1}-0", max="+")
            current, entries = await pipe.execute()
        if current is None or version > int(current):
            return None
        fields = [item for _id, item in entries]
        return fields if len(fields) == int(current) - version else None

    async def timeline(self, room_id: str) -> Timeline | None:
        async with storage_call("timeline"), self._redis.pipeline(transaction=True) as pipe:
            pipe.hmget(state_key(room_id), "version", "first_snapshot")
            pipe.xrange(events_key(room_id), min="-", max="+")
            (current, first), entries = await pipe.execute()
        if current is None:
            return None
        fields = [item for _id, item in entries]
        return Timeline(None if first is None else bytes(first),
                        tuple(bytes(item[b"e"]) for item in fields),
                        tuple(int(item.get(b"t", 0)) for item in fields),
                        tuple(int(item.get(b"w", 0)) for item in fields))

    async def commits_since(self, room_id: str, version: int) -> Commits | None:
        fields = await self._entries_since(room_id, version, "commits_since")
        if fields is None:
            return None
        return Commits(tuple(bytes(item[b"e"]) for item in fields),
                       tuple(int(item.get(b"t", 0)) for item in fields))

    async def set_listing(self, room_id: str, listing: Listing | None) -> None:
        packed = b"" if listing is None else _pack_listing(listing)
        async with storage_call("set_listing"):
            if not self.cluster:  # one script for both keys: one command
                await self._scripts.run(
                    SET_LISTING_INDEXED, [state_key(room_id), PUBLIC_KEY],
                    [packed, 0 if listing is None else listing.updated_ms, room_id])
                return
            exists = await self._scripts.run(SET_LISTING, [state_key(room_id)], [packed])
            if listing is None or not exists:
                await self._redis.zrem(PUBLIC_KEY, room_id)
            else:
                await self._redis.zadd(PUBLIC_KEY, {room_id: listing.updated_ms})

    async def public_rooms(self, limit: int) -> Sequence[Listing]:
        """The index's newest entries whose room still has a listing. Entries of rooms that
        no longer exist (their retention ran out) are taken off the index as they are met,
        and the next entries read in their place."""
        found: list[Listing] = []
        start = 0
        async with storage_call("public_rooms"):
            for _ in range(PUBLIC_PASSES):
                page: list[Any] = await self._redis.zrevrange(PUBLIC_KEY, start,
                                                              start + limit - 1)
                listings, kept = await self._listings([room_id.decode() for room_id in page])
                found += listings
                start += kept
                if len(found) >= limit or len(page) < limit:
                    break
        return found[:limit]

    async def caster_links(self, room_id: str) -> tuple[CasterLink, ...] | None:
        async with storage_call("caster_links"):
            meta, packed = await self._redis.hmget(state_key(room_id), ["meta", CASTERS_FIELD])
        return None if meta is None else unpack_links(packed)

    async def record_caster_link(self, room_id: str, nonce: str,
                                 created_ms: int) -> Recorded | None:
        async with storage_call("record_caster_link"):
            count = await self._scripts.run(RECORD, [state_key(room_id)],
                                            [nonce, created_ms, MAX_MADE])
        return RECORD_ANSWERS.get(int(count), "recorded")

    async def current_caster_link(self, room_id: str, nonce: str,
                                  created_ms: int) -> CasterLink | Full | None:
        async with storage_call("current_caster_link"):
            status, found, found_ms = await self._scripts.run(
                CURRENT, [state_key(room_id)], [nonce, created_ms, MAX_MADE])
        if int(status) < 0:
            return None if int(status) == -1 else "full"
        found = found.decode() if isinstance(found, bytes) else str(found)
        return CasterLink(found, int(found_ms))

    async def withdraw_caster_link(self, room_id: str, nonce: str,
                                   at_ms: int) -> tuple[Withdrawn, CasterLink] | None:
        async with storage_call("withdraw_caster_link"):
            status, created_ms, withdrawn_ms = await self._scripts.run(
                WITHDRAW, [state_key(room_id)], [nonce, at_ms, MAX_RECORDS])
        answer = WITHDRAW_ANSWERS[int(status)]
        return None if answer is None else (
            answer, CasterLink(nonce, int(created_ms), int(withdrawn_ms)))

    async def close(self) -> None:
        await self._appends.close()
        await self._redis.aclose()

    # --- helpers ------------------------------------------------------------------------

    async def _listings(self, room_ids: list[str]) -> tuple[list[Listing], int]:
        """The listings of ``room_ids`` (in order, where there is one), and how many of them
        are still on the index: those whose room is gone are taken off it. (The entry of a
        room that exists but has no listing is left to whoever unlisted it.)"""
        if not room_ids:
            return [], 0
        async with self._redis.pipeline(transaction=False) as pipe:
            for room_id in room_ids:
                pipe.hget(state_key(room_id), "listing")
                pipe.exists(state_key(room_id))
            replies = await pipe.execute()
        packed, exists = replies[0::2], replies[1::2]
        gone = [room_id for room_id, there in zip(room_ids, exists, strict=True) if not there]
        if gone:
            await self._redis.zrem(PUBLIC_KEY, *gone)
        listings = [_unpack_listing(item) for item in packed if item is not None]
        return listings, len(room_ids) - len(gone)


def _pack_meta(meta: RoomMeta) -> bytes:
    s = meta.settings
    return pack_plain({
        "room_id": meta.room_id, "token_hash_a": meta.token_hash_a,
        "token_hash_b": meta.token_hash_b, "created_ms": meta.created_ms,
        "dice_commitment": meta.dice_commitment, "organizer_hash": meta.organizer_hash,
        "bot_token": meta.bot_token,
        "settings": {"ruleset": s.ruleset, "aro_window_s": s.aro_window_s,
                     "visibility": s.visibility, "fixed_seed": s.fixed_seed,
                     "spectator_delay_s": s.spectator_delay_s, "table": s.table,
                     "clock_s": s.clock_s, "armies": dict(s.armies),
                     "aro_min_open_s": s.aro_min_open_s, "mission": s.mission,
                     "bot": s.bot, "bot_level": s.bot_level},
    })


def stored_room(found: Any) -> StoredRoom | None:
    """The LOAD script's reply as a ``StoredRoom`` (None: no such room)."""
    if found is None:
        return None
    meta, version, snapshot, deadlines, snapshot_version, events, answers_a, answers_b, \
        armies = found
    return StoredRoom(_unpack_meta(meta), int(version), bytes(snapshot),
                      _unpack_deadlines(deadlines), int(snapshot_version),
                      tuple(bytes(event) for event in events),
                      tuple(_unpack_answer(seat, entry)
                            for seat, entries in zip(ANSWER_KEYS, (answers_a, answers_b),
                                                     strict=True)
                            for entry in entries),
                      bytes(armies) or None)


def _unpack_meta(data: bytes) -> RoomMeta:
    plain = unpack_plain(bytes(data))
    s = plain["settings"]
    fixed = s.get("fixed_seed")
    settings = RoomSettings(s["ruleset"], float(s["aro_window_s"]), s["visibility"],
                            float(s["spectator_delay_s"]),
                            None if fixed is None else int(fixed),
                            s.get("table", ""),  # rooms stored before tables: ""
                            int(s.get("clock_s", 0)),  # rooms stored before clocks: none
                            _registered_armies(s.get("armies", {})),
                            float(s.get("aro_min_open_s", 0.0)),  # rooms stored before: off
                            str(s.get("mission", "")),  # rooms stored before: none
                            str(s.get("bot", "")), str(s.get("bot_level", "")))  # before: none
    return RoomMeta(plain["room_id"], settings, plain["token_hash_a"], plain["token_hash_b"],
                    int(plain["created_ms"]), str(plain.get("dice_commitment", "")),
                    str(plain.get("organizer_hash", "")),  # rooms stored before: none
                    str(plain.get("bot_token", "")))  # rooms stored before: none


def _registered_armies(plain: Mapping[Any, Any]) -> dict[str, RegisteredArmy]:
    """A room's registered armies as stored: a shipped list's id stays text, a registered
    army document a mapping (rooms stored before documents hold ids only)."""
    return {str(seat): army if isinstance(army, str) else dict(army)
            for seat, army in plain.items()}


def _unpack_answer(seat: str, entry: bytes) -> Answer:
    command_id, frame = unpack_plain(bytes(entry))
    return Answer(seat, command_id, bytes(frame))


def _pack_deadlines(deadlines: Sequence[Deadline]) -> bytes:
    return pack_plain([[d.kind, d.key, d.at_ms] for d in deadlines])


def _unpack_deadlines(data: bytes | None) -> tuple[Deadline, ...]:
    if not data:
        return ()
    return tuple(Deadline(kind, key, int(at_ms)) for kind, key, at_ms in unpack_plain(bytes(data)))


def _pack_listing(listing: Listing) -> bytes:
    return pack_plain([listing.room_id, listing.ruleset, listing.phase, listing.round,
                       listing.turn, listing.active, listing.spectators, listing.seats_taken,
                       listing.updated_ms, listing.fixed_dice])


def _unpack_listing(data: bytes) -> Listing:
    (room_id, ruleset, phase, round_, turn, active, spectators, seats,
     updated, *rest) = unpack_plain(bytes(data))
    return Listing(room_id, ruleset, phase, round_, turn, active, spectators, seats, updated,
                   bool(rest and rest[0]))
