"""Stand-ins for a ``ClusterNode`` on a real Redis without rooms or a room bus, and a way to
block the event loop on purpose until Redis itself says a key expired."""

from __future__ import annotations

import asyncio

import redis

from protocol.constants import CloseCode
from server.cluster.lease import lease_key
from server.cluster.renewal import connect_sync
from server.config import Settings
from server.store import RoomMeta, RoomSettings
from server.store.redis_store import RedisRoomStore, state_key

GUARD_S = 30.0  # against a hung test only


class IdleBus:
    """The room bus, doing nothing: these tests are about leases."""

    async def start(self) -> None:
        pass

    async def close(self) -> None:
        pass

    async def subscribe(self, channel: str, handler: object) -> None:
        pass

    async def unsubscribe(self, channel: str, handler: object) -> None:
        pass

    def publish(self, channel: str, data: bytes) -> None:
        pass


class FakeRoom:
    """What ``ClusterNode.serve`` and a lost lease need of a room."""

    def __init__(self, room_id: str, fence: int) -> None:
        self.room_id = room_id
        self.fence = fence
        self.stopped = False
        self.left_idle = False
        self.stopped_with: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    def stop(self, code: int, reason: str) -> None:
        self.stopped = True
        if not self.stopped_with.done():
            self.stopped_with.set_result(code)


class FakeRelay:
    """A relayed room with viewers, as the takeover sees it."""

    def __init__(self, room_id: str, owner: str = "gone-node") -> None:
        self.room_id = room_id
        self.owner = owner
        self.stopped = False
        self.moves = 0

    def has_viewers(self) -> bool:
        return True

    def moved(self, code: int, reason: str) -> None:
        assert code == CloseCode.ROOM_UNAVAILABLE
        self.stopped = True
        self.moves += 1

    async def close(self) -> None:
        pass


def settings(**lease_settings: float) -> Settings:
    return Settings(freeze_gc=False, static_dir=None, **lease_settings)  # type: ignore[arg-type]


async def new_room(store: RedisRoomStore, room_id: str) -> str:
    meta = RoomMeta(room_id, RoomSettings("n5", 2.0, "private", fixed_seed=1), "a", "b", 1)
    await store.client.delete(lease_key(room_id), state_key(room_id))
    await store.create_room(meta, b"snap-0", None)
    return room_id


class Expiries:
    """Redis's own "expired" notifications, read by a BLOCKING call: ``block_until`` stops
    the calling event loop, on purpose, as a saturated or hung loop would be stopped, for
    exactly as long as Redis takes to expire a key (no sleep, no clock in the test)."""

    CHANNEL = "__keyevent@0__:expired"

    def __init__(self, url: str) -> None:
        self.client: redis.Redis = connect_sync(url, GUARD_S)
        self.client.config_set("notify-keyspace-events", "Ex")
        self._pubsub = self.client.pubsub()
        self._pubsub.subscribe(self.CHANNEL)
        confirmed = self._pubsub.get_message(timeout=GUARD_S)
        assert confirmed is not None and confirmed["type"] == "subscribe"

    def block_until(self, key: str) -> None:
        """Blocks the calling thread (the event loop) until Redis expires ``key``."""
        while True:
            message = self._pubsub.get_message(timeout=GUARD_S)
            assert message is not None, f"{key} never expired"
            if message["type"] == "message" and message["data"] == key.encode():
                return

    def close(self) -> None:
        self._pubsub.close()
        self.client.config_set("notify-keyspace-events", "")
        self.client.close()
