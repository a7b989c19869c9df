"""A batch of room reads that the store could serve in part (``SomeRoomsUnavailable``: on a
Redis Cluster, one shard that cannot confirm its rooms on a replica while the others can):
the rooms read open, the others fail ``StorageUnavailable`` alone, and the next open of a
failed room reads it again (server/rooms/room_loads.py)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from server.rooms.room import Room
from server.store import StorageUnavailable, StoredRoom
from server.store.cluster_appends import NotReplicated
from server.store.interface import SomeRoomsUnavailable
from tests.rooms.test_room_loads import CountingStore, node, stored_rooms


class OneShardDown(CountingStore):
    """Reads every room but those in ``unconfirmed``, which fail ``NotReplicated``."""

    def __init__(self) -> None:
        super().__init__()
        self.unconfirmed: set[str] = set()

    async def load_rooms(self, room_ids: Sequence[str]) -> list[StoredRoom | None]:
        rooms = await super().load_rooms(room_ids)
        if not self.unconfirmed & set(room_ids):
            return rooms
        raise SomeRoomsUnavailable("load_rooms", [
            NotReplicated("no replica") if room_id in self.unconfirmed else room
            for room_id, room in zip(room_ids, rooms, strict=True)])


async def test_the_rooms_read_open_and_the_unconfirmed_ones_alone_fail() -> None:
    store = OneShardDown()
    ids = await stored_rooms(store, 3)
    store.unconfirmed = {ids[1]}
    registry = node(store)
    outcomes = await asyncio.gather(*(registry.open(room_id) for room_id in ids),
                                    return_exceptions=True)
    assert store.reads == [ids]  # one batch
    assert isinstance(outcomes[0], Room) and isinstance(outcomes[2], Room)
    assert isinstance(outcomes[1], StorageUnavailable)
    assert registry.live_rooms() == 2
    store.unconfirmed = set()
    assert isinstance(await registry.open(ids[1]), Room), "nothing of the failure is kept"
    assert store.reads == [ids, [ids[1]]]
    await registry.shutdown()
