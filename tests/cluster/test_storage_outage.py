"""Redis down = "try again" (issue 5): while the room's Redis is stopped, a command is
rejected with ``storage_unavailable`` (never ``internal_error``, never acknowledged); when
Redis comes back (append-only file on) the game goes on, and every accepted command's events
are stored exactly once and in order. An ARO window whose deadline passed while Redis was
down runs again once it is back, and a counter refused meanwhile, sent again, is taken
(``server/rooms/aro_window.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from protocol.constants import ProtocolReason
from protocol.messages import Accepted, Events, Rejected, Snapshot
from server.app import create_app
from server.store.redis_store import RedisRoomStore
from testkit.redis_process import RedisProcess
from testkit.server_process import ServerProcess
from testkit.serving import running_server
from testkit.wsclient import Client
from tests.cluster.game import (
    ACTIVATE,
    COUNTER_SHOT,
    MOVE,
    assert_stored_exactly_once_in_order,
    command_once_storage_is_back,
    create_room,
    received_events,
)
from tests.doubles.fake_clock import FakeClock
from tests.helpers import settings

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


async def test_an_aro_declared_while_redis_is_down_is_taken_after_the_deadline_with_its_time(
        tmp_path: Path) -> None:
    redis = RedisProcess(tmp_path / "redis")
    redis.start()
    store = RedisRoomStore.from_url(redis.url)
    clock = FakeClock()  # the room's clock: the deadline passes when the test says
    app = create_app(settings(), store=store)
    app.state.registry.clock = clock
    try:
        async with running_server(settings(), app=app) as base:
            # The window's timer is real, its delay read from the fake clock: a window of
            # 600 s runs for longer than this test.
            room = await create_room(store, aro_window_s=600.0)
            a = await Client.connect(base, room.room_id, room.token_a)
            b = await Client.connect(base, room.room_id, room.token_b)
            await a.until(Snapshot)
            await b.until(Snapshot)
            assert isinstance(await a.command(ACTIVATE), Accepted)
            assert isinstance(await a.command(MOVE), Accepted)
            opened = await b.until(Events, lambda f: f.window is not None)
            assert opened.window is not None and opened.window["reactive"] == "B"

            clock.advance(590)  # 10 s left when Redis dies and B counters the Move
            redis.kill()
            refused = await b.command(COUNTER_SHOT, id="counter")
            assert isinstance(refused, Rejected)
            assert refused.code == ProtocolReason.STORAGE_UNAVAILABLE, refused
            clock.advance(15)  # B's client sends it again past the deadline: the room's
            again = await b.command(COUNTER_SHOT, id="counter")  # close fails first
            assert isinstance(again, Rejected)
            assert again.code == ProtocolReason.STORAGE_UNAVAILABLE, again

            clock.advance(5)  # Redis is back
            redis.start()
            taken = await command_once_storage_is_back(b, COUNTER_SHOT, "counter")
            answered = b.of(Events)[-1]  # the frame that carried its answer
            assert answered.accepted == "counter" and answered.last == taken.version
            assert answered.window is not None and answered.window["reactive"] == "B"
            told = await a.until(Events, lambda f: not f.events and f.window is not None)
            assert told.window is not None
            assert told.window["deadline_ms"] == answered.window["deadline_ms"] == clock.ms + 600_000
            assert not any(e.get("type") == "aro_window_closed"
                           for frame in a.of(Events) + b.of(Events) for e in frame.events)
    finally:
        await store.close()
        redis.stop()
