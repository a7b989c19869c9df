"""A store where a write lands right after a room's load returns: what a reader outside a
live room meets on a Redis Cluster when an append refused "try again" lands on the master
after its confirmed load (``server.store.clipped_reads``): the reads that follow the load
find an event no replica had when the load was confirmed."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from server.store.interface import StoredRoom
from server.store.memory import MemoryRoomStore


class LandsAfterLoad(MemoryRoomStore):
    def __init__(self) -> None:
        super().__init__()
        self.after_next_load: Callable[[], Awaitable[None]] | None = None
        """Run once, by the next ``load_room`` or ``loaded_version``, after it read the room
        and before it returns (a write that lands on the master after the load)."""

    async def load_room(self, room_id: str) -> StoredRoom | None:
        stored = await super().load_room(room_id)
        await self._landing()
        return stored

    async def loaded_version(self, room_id: str) -> int | None:
        version = await super().loaded_version(room_id)
        await self._landing()
        return version

    async def _landing(self) -> None:
        landing, self.after_next_load = self.after_next_load, None
        if landing is not None:
            await landing()
