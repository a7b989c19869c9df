"""Rooms read back in batches (server/rooms/room_loads.py, RoomRegistry.open): the rooms
opened at once are read in one store call, a room opened twice at once is read once, and a
failed batch answers every waiting hello ``storage_unavailable``."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from protocol.constants import PROTOCOL_VERSION, ProtocolReason
from protocol.messages import Error, Hello
from server.app import create_app
from server.fanout import LocalFanout
from server.rooms.registry import RoomRegistry
from server.rooms.room import Room
from server.rooms.room_loads import RoomLoads
from server.store import MemoryRoomStore, RoomSettings, StorageUnavailable, StoredRoom
from testkit.serving import running_server
from testkit.wsclient import Client
from tests.doubles.fake_engine import FakeEngine
from tests.helpers import settings

ROOM = RoomSettings("n5", 60.0, "private", fixed_seed=1)


class CountingStore(MemoryRoomStore):
    """Records each ``load_rooms`` call's ids; ``failing`` makes them raise
    ``StorageUnavailable`` (Redis down while the rooms are read back)."""

    def __init__(self) -> None:
        super().__init__()
        self.reads: list[list[str]] = []
        self.failing = False

    async def load_rooms(self, room_ids: Sequence[str]) -> list[StoredRoom | None]:
        self.reads.append(list(room_ids))
        if self.failing:
            raise StorageUnavailable("load_rooms: connection refused")
        return await super().load_rooms(room_ids)


def node(store: MemoryRoomStore) -> RoomRegistry:
    return RoomRegistry(store, LocalFanout(), FakeEngine(), settings())


async def stored_rooms(store: MemoryRoomStore, count: int) -> list[str]:
    """``count`` rooms in ``store``, created by a node that then stopped (a restart's
    starting point: every room is in the store only)."""
    first = node(store)
    ids = [(await first.create(ROOM)).meta.room_id for _ in range(count)]
    await first.shutdown()
    return ids


async def test_the_rooms_opened_at_once_are_read_in_one_store_call() -> None:
    store = CountingStore()
    ids = await stored_rooms(store, 5)
    registry = node(store)
    rooms = await asyncio.gather(*(registry.open(room_id) for room_id in ids))
    assert store.reads == [ids]
    assert [room.meta.room_id for room in rooms if isinstance(room, Room)] == ids
    await registry.shutdown()


async def test_a_room_opened_twice_at_once_is_read_once_and_started_once() -> None:
    store = CountingStore()
    [room_id] = await stored_rooms(store, 1)
    registry = node(store)
    first, second = await asyncio.gather(registry.open(room_id), registry.open(room_id))
    assert store.reads == [[room_id]]
    assert isinstance(first, Room) and first is second
    assert registry.live_rooms() == 1
    await registry.shutdown()


async def test_an_unknown_room_in_a_batch_is_none_and_the_others_open() -> None:
    store = CountingStore()
    [room_id] = await stored_rooms(store, 1)
    registry = node(store)
    known, unknown = await asyncio.gather(registry.open(room_id), registry.open("no-such"))
    assert isinstance(known, Room) and unknown is None
    await registry.shutdown()


async def test_a_batch_holds_at_most_max_batch_rooms() -> None:
    reads: list[list[str]] = []

    async def read(room_ids: Sequence[str]) -> list[StoredRoom | None]:
        reads.append(list(room_ids))
        return [None] * len(room_ids)

    loads = RoomLoads(read, max_batch=2)
    found = await asyncio.gather(*(loads.load(f"r{n}") for n in range(5)))
    assert found == [None] * 5
    assert reads == [["r0", "r1"], ["r2", "r3"], ["r4"]]
    assert loads.pending() == 0


async def test_a_failed_batch_fails_each_of_its_loads_and_the_next_one_reads_again() -> None:
    store = CountingStore()
    ids = await stored_rooms(store, 2)
    registry = node(store)
    store.failing = True
    outcomes = await asyncio.gather(*(registry.open(room_id) for room_id in [*ids, ids[0]]),
                                    return_exceptions=True)
    assert [type(outcome) for outcome in outcomes] == [StorageUnavailable] * 3
    assert store.reads == [ids]
    store.failing = False
    assert isinstance(await registry.open(ids[0]), Room), "nothing of the failure is kept"
    assert store.reads == [ids, [ids[0]]]
    await registry.shutdown()


async def test_a_failed_load_answers_each_waiting_hello_storage_unavailable() -> None:
    store = CountingStore()
    ids = await stored_rooms(store, 2)
    store.failing = True
    app = create_app(settings(), engine=FakeEngine(), store=store)
    async with running_server(settings(), app=app) as url:
        rooms = [ids[0], ids[0], ids[1]]  # two hellos wait on the first room's read
        clients = [await Client.connect(url, room_id, hello=False) for room_id in rooms]
        for client, room_id in zip(clients, rooms, strict=True):
            await client.send(Hello(PROTOCOL_VERSION, room_id))
        answers = [await client.until(Error) for client in clients]
        assert [answer.code for answer in answers] == [ProtocolReason.STORAGE_UNAVAILABLE] * 3
        for client in clients:
            await client.ws.close()
    assert store.reads, "the hellos asked the store"
