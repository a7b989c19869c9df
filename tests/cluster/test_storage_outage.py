"""Redis down = "try again" (issue 5): while the room's Redis is stopped, a command is
rejected with ``storage_unavailable`` (never ``internal_error``, never acknowledged); when
Redis comes back (append-only file on) the game goes on, and every accepted command's events
are stored exactly once and in order."""

from __future__ import annotations

from pathlib import Path

import pytest

from protocol.constants import ProtocolReason
from protocol.messages import Accepted, Events, Rejected, Snapshot
from server.store.redis_store import RedisRoomStore
from testkit.redis_process import RedisProcess
from testkit.server_process import ServerProcess
from testkit.wsclient import Client
from tests.cluster.game import (
    ACTIVATE,
    MOVE,
    assert_stored_exactly_once_in_order,
    command_once_storage_is_back,
    create_room,
    received_events,
)

pytestmark = [pytest.mark.redis, pytest.mark.slow]



async def test_commands_while_redis_is_down_are_storage_unavailable_then_the_game_goes_on(
        tmp_path: Path) -> None:
    redis = RedisProcess(tmp_path / "redis")
    redis.start()
    store = RedisRoomStore.from_url(redis.url)
    server = ServerProcess(redis.url)
    try:
        await server.start()
        room = await create_room(store, aro_window_s=600.0)
        a = await Client.connect(server.base, room.room_id, room.token_a)
        b = await Client.connect(server.base, room.room_id, room.token_b)
        await a.until(Snapshot)
        await b.until(Snapshot)
        first = await a.command(ACTIVATE)
        assert isinstance(first, Accepted)

        redis.kill()
        refused = [await a.command(MOVE) for _ in range(3)]
        for answer in refused:
            assert isinstance(answer, Rejected)
            assert answer.code == ProtocolReason.STORAGE_UNAVAILABLE, answer
            assert "try again" in answer.message
        assert a.version == first.version, "nothing was acknowledged or broadcast"

        redis.start()  # same port and directory: replays the append-only file
        second = await command_once_storage_is_back(a, MOVE, "move-after-outage")
        assert second.version > first.version
        await b.until(Events, lambda m: m.first + len(m.events) - 1 >= second.version)

        seen_by_a = received_events(a)
        assert max(seen_by_a) == second.version == max(received_events(b))
        # A fresh client: the test's own pooled connection died with the first Redis.
        check = RedisRoomStore.from_url(redis.url)
        try:
            await assert_stored_exactly_once_in_order(check, room, seen_by_a,
                                                      [first.version, second.version])
        finally:
            await check.close()
    finally:
        await server.stop()
        await store.close()
        redis.stop()
