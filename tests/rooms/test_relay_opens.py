"""A room another node runs is opened here as a relay, for which the registry reads the
room's meta alone (``RoomStore.load_metas``), batched like the loads: never the whole room
(its snapshot, events and answers; on a Redis Cluster a load confirmed on a replica) that
only the owner uses."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any, cast

from server.fanout import LocalFanout
from server.rooms.door import RoomDoor
from server.rooms.ownership import Claim, HeldBy
from server.rooms.registry import RoomRegistry
from server.rooms.room import Room
from server.store import MemoryRoomStore, RoomMeta, StoredRoom
from tests.doubles.fake_engine import FakeEngine
from tests.helpers import settings
from tests.rooms.test_room_loads import stored_rooms


class ReadsCounted(MemoryRoomStore):
    def __init__(self) -> None:
        super().__init__()
        self.loads: list[list[str]] = []
        self.metas: list[list[str]] = []

    async def load_rooms(self, room_ids: Sequence[str]) -> list[StoredRoom | None]:
        self.loads.append(list(room_ids))
        return await super().load_rooms(room_ids)

    async def load_metas(self, room_ids: Sequence[str]) -> list[RoomMeta | None]:
        self.metas.append(list(room_ids))
        return await super().load_metas(room_ids)


class Relay:
    def __init__(self, meta: RoomMeta, owner: str) -> None:
        self.meta, self.owner = meta, owner


class HeldElsewhere:
    """Every room this node claims is held by node "owner" (it does not exist: None)."""

    def __init__(self, store: MemoryRoomStore) -> None:
        self._store = store
        self.node_id = "here"

    async def claim(self, room_id: str) -> Claim | None:
        return None if await self._store.load_meta(room_id) is None else HeldBy("owner")

    def relay_for(self, room_id: str) -> RoomDoor | None:
        return None

    async def relay(self, meta: RoomMeta, owner: str) -> RoomDoor:
        return cast(RoomDoor, Relay(meta, owner))

    async def serve(self, room: Room) -> None:
        raise AssertionError("no room is started on this node")

    def forget(self, room: Room) -> None:
        return None

    async def close(self) -> None:
        return None


async def test_rooms_held_elsewhere_open_as_relays_from_their_metas_read_in_one_batch() -> None:
    store = ReadsCounted()
    ids = await stored_rooms(store, 3)
    store.loads.clear()
    registry = RoomRegistry(store, LocalFanout(), FakeEngine(), settings(),
                            ownership=HeldElsewhere(store))
    doors: list[Any] = await asyncio.gather(*(registry.open(room_id) for room_id in ids))
    assert [(door.meta.room_id, door.owner) for door in doors] == [(i, "owner") for i in ids]
    assert store.metas == [ids]
    assert store.loads == [], "the whole rooms are read by their owner only"
    assert registry.live_rooms() == 0
