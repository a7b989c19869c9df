"""Crash and restart (issue 5): ``kill -9`` of the server in the middle of a game and while
an ARO window is open; the restarted server serves every room again from Redis, clients
reconnect and resume from their last version, the window closes at its ORIGINAL absolute
deadline, and every accepted command's events are stored exactly once and in order."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from protocol.messages import Accepted, Events, Snapshot
from server.rooms.room import now_ms
from server.store.redis_store import RedisRoomStore
from testkit.redis_process import RedisProcess
from testkit.server_process import ServerProcess
from testkit.wsclient import Client
from tests.cluster.game import (
    ACTIVATE,
    MOVE,
    SHOOT_B,
    assert_stored_exactly_once_in_order,
    create_room,
    received_events,
)
from tests.support.windows import closed, opened

pytestmark = [
    pytest.mark.redis,
    pytest.mark.slow,
]

@pytest.fixture
async def server(redis_server: RedisProcess) -> AsyncIterator[ServerProcess]:
    process = ServerProcess(redis_server.url)
    await process.start()
    try:
        yield process
    finally:
        await process.stop()


async def test_kill_9_mid_game_then_restart_resumes_and_loses_no_accepted_command(
        server: ServerProcess, store: RedisRoomStore) -> None:
    room = await create_room(store, aro_window_s=600.0)
    a = await Client.connect(server.base, room.room_id, room.token_a)
    b = await Client.connect(server.base, room.room_id, room.token_b)
    await a.until(Snapshot)
    await b.until(Snapshot)
    first = await a.command(ACTIVATE)
    assert isinstance(first, Accepted)
    await b.until(Events, lambda m: m.first + len(m.events) - 1 >= first.version)

    await server.kill()
    await server.start()

    a2 = await Client.connect(server.base, room.room_id, room.token_a, since=a.version)
    b2 = await Client.connect(server.base, room.room_id, room.token_b, since=b.version)
    assert a2.welcome is not None and a2.welcome.version == first.version
    second = await a2.command(MOVE)
    assert isinstance(second, Accepted) and second.version > first.version
    await opened(b2)
    assert not a2.of(Snapshot) and not b2.of(Snapshot), "resumed from their versions"

    seen_by_a = received_events(a, a2)
    assert max(seen_by_a) == second.version
    assert max(received_events(b, b2)) == second.version
    await assert_stored_exactly_once_in_order(store, room, seen_by_a,
                                              [first.version, second.version])


async def test_kill_9_during_an_open_aro_window_keeps_its_original_deadline(
        server: ServerProcess, store: RedisRoomStore) -> None:
    """ARO window deadlines are absolute: a restart never shortens them, and adds the time
    nobody ran the room (from the killed process's last stamp, no earlier than the window
    opened, to the room's load: ``server.cluster.lease``)."""
    room = await create_room(store, aro_window_s=8.0)
    a = await Client.connect(server.base, room.room_id, room.token_a)
    b = await Client.connect(server.base, room.room_id, room.token_b)
    await a.until(Snapshot)
    before_ms = now_ms()  # (the window opens after this)
    accepted = [await a.command(ACTIVATE), await a.command(MOVE)]
    assert all(isinstance(answer, Accepted) for answer in accepted)
    window = await opened(b)

    await server.kill()
    await server.start()

    a2 = await Client.connect(server.base, room.room_id, room.token_a, since=a.version)
    b2 = await Client.connect(server.base, room.room_id, room.token_b, since=b.version)
    reopened = await opened(b2)  # with the catch-up (no events were missed)
    assert b2.of(Events)[0].events == [] and not b2.of(Snapshot)
    assert {k: reopened[k] for k in ("order", "step", "reactive")} == {
        k: window[k] for k in ("order", "step", "reactive")}, "the same window"
    assert 0 < reopened["deadline_ms"] - window["deadline_ms"] <= now_ms() - before_ms
    closing = await closed(b2, window)  # nobody declared: the server's clock closed it
    assert [e and e["type"] for e in closing.events] == ["aro_window_closed"]
    await a2.until(Events, lambda m: any(e and e["type"] == "aro_window_closed"
                                         for e in m.events))
    third = await a2.command(SHOOT_B)
    assert isinstance(third, Accepted), "the order goes on after the restart"
    await b2.until(Events, lambda m: m.first + len(m.events) - 1 >= third.version)

    seen_by_a = received_events(a, a2)
    assert max(seen_by_a) == third.version == max(received_events(b, b2))
    versions = [answer.version for answer in accepted if isinstance(answer, Accepted)]
    await assert_stored_exactly_once_in_order(store, room, seen_by_a,
                                              [*versions, third.version])
