"""The in-memory RoomStore: one process, nothing survives a restart.

It keeps what the Redis store keeps, with the same meaning: every event, each seat's latest
answers, and the room's retention -- a room whose retention ran out since its last write is
gone, for every method alike (checked on each access; ``create_room`` also frees the rooms
that expired since, so rooms nobody asks for again do not pile up in memory).
"""

from __future__ import annotations

import heapq
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from server.store.caster_links import (
    MAX_MADE,
    MAX_RECORDS,
    CasterLink,
    Full,
    Recorded,
    Withdrawn,
)
from server.store.interface import (
    ANSWERS_KEPT,
    Answer,
    Commits,
    Deadline,
    Listing,
    RoomMeta,
    StaleWriter,
    StoredRoom,
    Timeline,
)


def wall_clock_ms() -> int:
    return int(time.time() * 1000)


@dataclass(slots=True)
class _Room:
    meta: RoomMeta
    snapshot: bytes
    version: int = 0
    snapshot_version: int = 0
    fence: int = 0
    deadlines: tuple[Deadline, ...] = ()
    events: list[bytes] = field(default_factory=list)  # events[i] is version i + 1
    times: list[tuple[int, int]] = field(default_factory=list)  # (committed, window) of each
    first_snapshot: bytes | None = None
    armies: bytes | None = None  # the snapshot's army lists, when kept apart from it
    answers: dict[str, deque[Answer]] = field(default_factory=dict)
    retention_ms: int = 0
    expires_ms: int | None = None  # None: kept for ever
    casters: list[CasterLink] = field(default_factory=list)  # oldest first


class MemoryRoomStore:
    """Keeps every event of every room (a finished game's record needs them all)."""

    def __init__(self, clock: Callable[[], int] = wall_clock_ms) -> None:
        """``clock``: Unix milliseconds now (tests pass their own to let rooms expire)."""
        self._clock = clock
        self._rooms: dict[str, _Room] = {}
        self._listings: dict[str, Listing] = {}
        self._expiries: list[tuple[int, str]] = []  # a heap; stale entries are skipped

    async def create_room(self, meta: RoomMeta, snapshot: bytes, listing: Listing | None,
                          *, retention_ms: int = 0) -> None:
        self._free_expired()
        if self._room(meta.room_id) is not None:
            raise ValueError(f"room {meta.room_id} exists")
        room = self._rooms[meta.room_id] = _Room(meta, snapshot, retention_ms=retention_ms,
                                                 first_snapshot=snapshot)
        self._renew(room)
        if listing is not None:
            self._listings[meta.room_id] = listing

    async def claim_room(self, room_id: str, owner: str) -> int | None:
        room = self._room(room_id)
        if room is None:
            return None
        room.fence += 1
        return room.fence

    async def load_room(self, room_id: str) -> StoredRoom | None:
        room = self._room(room_id)
        if room is None:
            return None
        answers = tuple(answer for kept in room.answers.values() for answer in kept)
        return StoredRoom(room.meta, room.version, room.snapshot, room.deadlines,
                          room.snapshot_version, tuple(room.events[room.snapshot_version:]),
                          answers, room.armies)

    async def load_meta(self, room_id: str) -> RoomMeta | None:
        room = self._room(room_id)
        return None if room is None else room.meta

    async def loaded_version(self, room_id: str) -> int | None:
        room = self._room(room_id)
        return None if room is None else room.version

    async def load_metas(self, room_ids: Sequence[str]) -> list[RoomMeta | None]:
        return [await self.load_meta(room_id) for room_id in room_ids]

    async def load_rooms(self, room_ids: Sequence[str]) -> list[StoredRoom | None]:
        return [await self.load_room(room_id) for room_id in room_ids]

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
        room = self._room(room_id)
        if room is None or room.fence != fence or room.version != expected_version:
            raise StaleWriter(f"room {room_id}: not at version {expected_version} / fence {fence}")
        room.events.extend(events)
        room.times.extend([(committed_ms, window_ms)] * len(events))
        room.version += len(events)
        if snapshot is not None:
            room.snapshot = snapshot
            room.snapshot_version = room.version
            if armies is not None:
                room.armies = armies
        room.deadlines = tuple(deadlines)
        self._put_listing(room_id, listing)
        if answer is not None:
            kept = room.answers.setdefault(answer.seat, deque())
            kept.append(answer)
            while len(kept) > answers_kept:
                kept.popleft()
        if retention_ms is not None:
            room.retention_ms = retention_ms
        self._renew(room)
        return room.version

    async def set_deadlines(self, room_id: str, *, fence: int,
                            deadlines: Sequence[Deadline]) -> None:
        room = self._room(room_id)
        if room is None or room.fence != fence:
            raise StaleWriter(f"room {room_id}: fence {fence} is not the latest")
        room.deadlines = tuple(deadlines)
        self._renew(room)

    async def events_since(self, room_id: str, version: int) -> Sequence[bytes] | None:
        room = self._room(room_id)
        if room is None or version > room.version or version < 0:
            return None
        return room.events[version:]

    async def timeline(self, room_id: str) -> Timeline | None:
        room = self._room(room_id)
        if room is None:
            return None
        return Timeline(room.first_snapshot, tuple(room.events),
                        tuple(at for at, _ in room.times), tuple(w for _, w in room.times))

    async def commits_since(self, room_id: str, version: int) -> Commits | None:
        room = self._room(room_id)
        if room is None or version > room.version or version < 0:
            return None
        return Commits(tuple(room.events[version:]),
                       tuple(at for at, _ in room.times[version:]))

    async def set_listing(self, room_id: str, listing: Listing | None) -> None:
        if self._room(room_id) is not None:
            self._put_listing(room_id, listing)

    async def public_rooms(self, limit: int) -> Sequence[Listing]:
        self._free_expired()
        newest = sorted(self._listings.values(), key=lambda item: item.updated_ms, reverse=True)
        return newest[:limit]

    async def caster_links(self, room_id: str) -> tuple[CasterLink, ...] | None:
        room = self._room(room_id)
        return None if room is None else tuple(room.casters)

    async def record_caster_link(self, room_id: str, nonce: str,
                                 created_ms: int) -> Recorded | None:
        room = self._room(room_id)
        if room is None:
            return None
        if len(room.casters) >= MAX_MADE:
            return "full"
        room.casters.append(CasterLink(nonce, created_ms))
        return "recorded"

    async def current_caster_link(self, room_id: str, nonce: str,
                                  created_ms: int) -> CasterLink | Full | None:
        room = self._room(room_id)
        if room is None:
            return None
        in_use = next((link for link in room.casters if not link.withdrawn), None)
        if in_use is not None:
            return in_use
        if len(room.casters) >= MAX_MADE:
            return "full"
        room.casters.append(CasterLink(nonce, created_ms))
        return room.casters[-1]

    async def withdraw_caster_link(self, room_id: str, nonce: str,
                                   at_ms: int) -> tuple[Withdrawn, CasterLink] | None:
        room = self._room(room_id)
        if room is None:
            return None
        for n, link in enumerate(room.casters):
            if link.nonce == nonce:
                if link.withdrawn:
                    return "already_withdrawn", link
                room.casters[n] = CasterLink(nonce, link.created_ms, at_ms)
                return "withdrawn", room.casters[n]
        if len(room.casters) >= MAX_RECORDS:
            return "full", CasterLink(nonce, 0)
        room.casters.append(CasterLink(nonce, 0, at_ms))
        return "withdrawn", room.casters[-1]

    async def close(self) -> None:
        self._rooms.clear()
        self._listings.clear()
        self._expiries.clear()

    def _put_listing(self, room_id: str, listing: Listing | None) -> None:
        if listing is None:
            self._listings.pop(room_id, None)
        else:
            self._listings[room_id] = listing

    # --- retention ----------------------------------------------------------------------

    def _room(self, room_id: str) -> _Room | None:
        """The room, unless its retention ran out (then it is deleted now)."""
        room = self._rooms.get(room_id)
        if room is not None and room.expires_ms is not None and room.expires_ms <= self._clock():
            self._delete(room_id)
            return None
        return room

    def _renew(self, room: _Room) -> None:
        """A write: the room's retention starts again from now."""
        if room.retention_ms <= 0:
            room.expires_ms = None
            return
        room.expires_ms = self._clock() + room.retention_ms
        heapq.heappush(self._expiries, (room.expires_ms, room.meta.room_id))

    def _free_expired(self) -> None:
        now = self._clock()
        while self._expiries and self._expiries[0][0] <= now:
            _, room_id = heapq.heappop(self._expiries)
            self._room(room_id)  # deletes it if it did expire (not if renewed since)

    def _delete(self, room_id: str) -> None:
        del self._rooms[room_id]
        self._listings.pop(room_id, None)
