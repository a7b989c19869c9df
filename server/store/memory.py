"""The in-memory RoomStore: one process, nothing survives a restart."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from server.store.interface import Deadline, Listing, RoomMeta, StaleWriter, StoredRoom


@dataclass(slots=True)
class _Room:
    meta: RoomMeta
    snapshot: bytes
    version: int = 0
    snapshot_version: int = 0
    fence: int = 0
    deadlines: tuple[Deadline, ...] = ()
    events: list[bytes] = field(default_factory=list)  # events[i] is version i + 1


class MemoryRoomStore:
    """Keeps every event of every room (a finished game's record needs them all)."""

    def __init__(self) -> None:
        self._rooms: dict[str, _Room] = {}
        self._listings: dict[str, Listing] = {}

    async def create_room(self, meta: RoomMeta, snapshot: bytes, listing: Listing | None) -> None:
        if meta.room_id in self._rooms:
            raise ValueError(f"room {meta.room_id} exists")
        self._rooms[meta.room_id] = _Room(meta, snapshot)
        if listing is not None:
            self._listings[meta.room_id] = listing

    async def claim_room(self, room_id: str, owner: str) -> int | None:
        room = self._rooms.get(room_id)
        if room is None:
            return None
        room.fence += 1
        return room.fence

    async def load_room(self, room_id: str) -> StoredRoom | None:
        room = self._rooms.get(room_id)
        if room is None:
            return None
        return StoredRoom(room.meta, room.version, room.snapshot, room.deadlines,
                          room.snapshot_version, tuple(room.events[room.snapshot_version:]))

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
    ) -> int:
        room = self._rooms.get(room_id)
        if room is None or room.fence != fence or room.version != expected_version:
            raise StaleWriter(f"room {room_id}: not at version {expected_version} / fence {fence}")
        room.events.extend(events)
        room.version += len(events)
        if snapshot is not None:
            room.snapshot = snapshot
            room.snapshot_version = room.version
        room.deadlines = tuple(deadlines)
        self._put_listing(room_id, listing)
        return room.version

    async def set_deadlines(self, room_id: str, *, fence: int,
                            deadlines: Sequence[Deadline]) -> None:
        room = self._rooms.get(room_id)
        if room is None or room.fence != fence:
            raise StaleWriter(f"room {room_id}: fence {fence} is not the latest")
        room.deadlines = tuple(deadlines)

    async def events_since(self, room_id: str, version: int) -> Sequence[bytes] | None:
        room = self._rooms.get(room_id)
        if room is None or version > room.version or version < 0:
            return None
        return room.events[version:]

    async def set_listing(self, room_id: str, listing: Listing | None) -> None:
        self._put_listing(room_id, listing)

    async def public_rooms(self, limit: int) -> Sequence[Listing]:
        newest = sorted(self._listings.values(), key=lambda item: item.updated_ms, reverse=True)
        return newest[:limit]

    async def close(self) -> None:
        self._rooms.clear()
        self._listings.clear()

    def _put_listing(self, room_id: str, listing: Listing | None) -> None:
        if listing is None:
            self._listings.pop(room_id, None)
        else:
            self._listings[room_id] = listing
