"""Tournament storage: one append-only log of actions per tournament, beside the rooms
(docs/tournaments.md, "Data model and storage"). The store never interprets an entry
(a JSON object); ``server.tournaments.model.fold`` makes the state from the log.

Redis keys (``{tournament:<id>}`` keeps one tournament's keys in one Cluster slot, so the
append script may touch both):

- ``{tournament:<id>}:log`` list: one JSON entry per action, in order; its length is the
  tournament's version;
- ``{tournament:<id>}:ids`` hash: action id -> its 1-based position in the log;
- ``{tournaments}:created`` hash: SHA-256 of a creation's action id -> the tournament id
  (a retried creation finds its tournament);
- ``{tournaments}:public`` sorted set: public tournament ids by creation time (Unix ms);
- ``{tournaments}:tables`` hash: room id -> the JSON label of a public tournament's table
  played in it (``server.tournaments.lobby_labels``: the lobby's room list names it).

``append`` is one Lua script, atomic: an action id already in the log is not added again
(``DUPLICATE``, with its position), a log that is not at ``expected_version`` entries is
not written (``CONFLICT``: fold again and decide again), else the entry is added
(``APPENDED``). Nothing expires: a tournament is kept for ever.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

import redis.asyncio as aioredis

from server.store.lua_scripts import LuaScripts
from server.store.redis_errors import storage_call

Status = Literal["appended", "duplicate", "conflict"]
CREATED_KEY = "{tournaments}:created"
PUBLIC_KEY = "{tournaments}:public"
TABLES_KEY = "{tournaments}:tables"


@dataclass(frozen=True, slots=True)
class Appended:
    status: Status
    version: int
    """appended: the new version; duplicate: the position of the entry with that action id;
    conflict: the log's version now."""


def pack(entry: Mapping[str, Any]) -> str:
    return json.dumps(entry, separators=(",", ":"), sort_keys=True)


def creation_key(action_id: str) -> str:
    return hashlib.sha256(f"tournament-create:{action_id}".encode()).hexdigest()


class TournamentStore(Protocol):
    async def claim_creation(self, action_id: str, tournament_id: str) -> str:
        """The tournament id of a creation with ``action_id``: ``tournament_id`` if it is
        the first, else the id the first one claimed."""

    async def load(self, tournament_id: str) -> list[dict[str, Any]] | None:
        """Every entry in order; None when there is none (no such tournament)."""

    async def append(self, tournament_id: str, *, expected_version: int, action_id: str,
                     entry: Mapping[str, Any]) -> Appended: ...

    async def publish(self, tournament_id: str, created_ms: int) -> None:
        """List the tournament in the public list."""

    async def public(self, limit: int) -> Sequence[str]:
        """Public tournament ids, newest first."""

    async def label_rooms(self, labels: Mapping[str, Mapping[str, Any]]) -> None:
        """Store each room's label (room id -> a JSON object), replacing an earlier one."""

    async def room_labels(self, room_ids: Sequence[str]) -> list[dict[str, Any] | None]:
        """The label of each room, in order (None: the room has none)."""


APPEND = """
local seen = redis.call('HGET', KEYS[2], ARGV[2])
if seen then return {1, tonumber(seen)} end
local n = redis.call('LLEN', KEYS[1])
if n ~= tonumber(ARGV[1]) then return {2, n} end
redis.call('RPUSH', KEYS[1], ARGV[3])
redis.call('HSET', KEYS[2], ARGV[2], n + 1)
return {0, n + 1}
"""

CLAIM = """
redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2])
return redis.call('HGET', KEYS[1], ARGV[1])
"""

_STATUS: tuple[Status, ...] = ("appended", "duplicate", "conflict")


def tournament_keys(tournament_id: str) -> list[str]:
    return [f"{{tournament:{tournament_id}}}:log", f"{{tournament:{tournament_id}}}:ids"]


class RedisTournamentStore:
    def __init__(self, client: aioredis.Redis) -> None:
        self._redis = client
        self._scripts = LuaScripts(client)

    async def claim_creation(self, action_id: str, tournament_id: str) -> str:
        async with storage_call("tournament claim_creation"):
            found = await self._scripts.run(CLAIM, [CREATED_KEY],
                                            [creation_key(action_id), tournament_id])
        return found.decode() if isinstance(found, bytes) else str(found)

    async def load(self, tournament_id: str) -> list[dict[str, Any]] | None:
        async with storage_call("tournament load"):
            raw = await self._redis.lrange(tournament_keys(tournament_id)[0], 0, -1)
        if not raw:
            return None
        return [json.loads(item) for item in raw]

    async def append(self, tournament_id: str, *, expected_version: int, action_id: str,
                     entry: Mapping[str, Any]) -> Appended:
        async with storage_call("tournament append"):
            status, version = await self._scripts.run(
                APPEND, tournament_keys(tournament_id), [expected_version, action_id, pack(entry)])
        return Appended(_STATUS[int(status)], int(version))

    async def publish(self, tournament_id: str, created_ms: int) -> None:
        async with storage_call("tournament publish"):
            await self._redis.zadd(PUBLIC_KEY, {tournament_id: created_ms})

    async def public(self, limit: int) -> Sequence[str]:
        async with storage_call("tournament public"):
            ids = await self._redis.zrevrange(PUBLIC_KEY, 0, limit - 1)
        return [i.decode() if isinstance(i, bytes) else str(i) for i in ids]

    async def label_rooms(self, labels: Mapping[str, Mapping[str, Any]]) -> None:
        if labels:
            async with storage_call("tournament label_rooms"):
                await self._redis.hset(TABLES_KEY, mapping={room: pack(label) for room, label
                                                            in labels.items()})

    async def room_labels(self, room_ids: Sequence[str]) -> list[dict[str, Any] | None]:
        if not room_ids:
            return []
        async with storage_call("tournament room_labels"):
            found = await self._redis.hmget(TABLES_KEY, list(room_ids))
        return [None if item is None else json.loads(item) for item in found]


class MemoryTournamentStore:
    """The same contract in one process (unit tests, a server run without Redis)."""

    def __init__(self) -> None:
        self._logs: dict[str, list[str]] = {}
        self._ids: dict[str, dict[str, int]] = {}
        self._created: dict[str, str] = {}
        self._public: dict[str, int] = {}
        self._labels: dict[str, str] = {}

    async def claim_creation(self, action_id: str, tournament_id: str) -> str:
        return self._created.setdefault(creation_key(action_id), tournament_id)

    async def load(self, tournament_id: str) -> list[dict[str, Any]] | None:
        log = self._logs.get(tournament_id)
        return [json.loads(item) for item in log] if log else None

    async def append(self, tournament_id: str, *, expected_version: int, action_id: str,
                     entry: Mapping[str, Any]) -> Appended:
        ids = self._ids.setdefault(tournament_id, {})
        if action_id in ids:
            return Appended("duplicate", ids[action_id])
        log = self._logs.setdefault(tournament_id, [])
        if len(log) != expected_version:
            return Appended("conflict", len(log))
        log.append(pack(entry))
        ids[action_id] = len(log)
        return Appended("appended", len(log))

    async def publish(self, tournament_id: str, created_ms: int) -> None:
        self._public[tournament_id] = created_ms

    async def public(self, limit: int) -> Sequence[str]:
        ranked = sorted(self._public.items(), key=lambda item: (-item[1], item[0]))
        return [tid for tid, _ in ranked[:limit]]

    async def label_rooms(self, labels: Mapping[str, Mapping[str, Any]]) -> None:
        self._labels.update({room: pack(label) for room, label in labels.items()})

    async def room_labels(self, room_ids: Sequence[str]) -> list[dict[str, Any] | None]:
        return [None if room not in self._labels else json.loads(self._labels[room])
                for room in room_ids]
