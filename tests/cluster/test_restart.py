"""Crash and restart (issue 5): ``kill -9`` of the server in the middle of a game and while
an ARO window is open; the restarted server serves every room again from Redis, clients
reconnect and resume from their last version, the window closes at its ORIGINAL absolute
deadline, and every accepted command's events are stored exactly once and in order."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest

from protocol import codec
from protocol.messages import Accepted, Events, Snapshot, WindowClosed, WindowOpen
from server.lobby.tokens import new_room_id, new_seat_token, token_hash
from server.rooms.rules_engine import RulesCoreEngine
from server.store import RoomMeta, RoomSettings
from server.store.redis_store import RedisRoomStore
from tests.cluster.server_process import ServerProcess
from tests.server.wsclient import Client
from tests.store.redis_process import RedisProcess
from tests.support.skirmish import skirmish

pytestmark = [
    pytest.mark.redis,
    pytest.mark.slow,
]

A1, B_SHOOTER = "A-t5", "B-t3"
PLACEMENTS = {
    A1: (22.5, 4.0, 90.0),
    B_SHOOTER: (22.5, 28.0, 270.0),  # sees A1's column
    "B-t4": (1.5, 30.0, 90.0),
    "A-t1": (3.5, 1.5, 90.0),
    "B-t1": (3.5, 30.5, 90.0),
}
ACTIVATE = {"type": "activate", "trooper": A1, "order": "regular"}
MOVE = {"type": "declare_skill", "skill": {"type": "move", "route": [[22.5, 4], [22.5, 6]]}}
SHOOT_B = {"type": "declare_skill", "skill": {
    "type": "bs_attack", "weapon": "line_rifle", "targets": [{"trooper": B_SHOOTER, "burst": 3}]}}
ENGINE = RulesCoreEngine()


@dataclass
class Room:
    room_id: str
    token_a: str
    token_b: str


async def create_room(store: RedisRoomStore, aro_window_s: float) -> Room:
    """Store a scenario room directly in Redis, as the lobby would (version 0)."""
    token_a, token_b = new_seat_token(), new_seat_token()
    settings = RoomSettings("codeone", aro_window_s, "private", 1)
    meta = RoomMeta(new_room_id(), settings, token_hash(token_a), token_hash(token_b), 1)
    state = skirmish(PLACEMENTS)
    await store.create_room(meta, codec.pack_plain(ENGINE.state_to_plain(state)), None)
    return Room(meta.room_id, token_a, token_b)


@pytest.fixture
async def store(redis_server: RedisProcess) -> AsyncIterator[RedisRoomStore]:
    redis_store = RedisRoomStore.from_url(redis_server.url)
    try:
        yield redis_store
    finally:
        await redis_store.close()


@pytest.fixture
async def server(redis_server: RedisProcess) -> AsyncIterator[ServerProcess]:
    process = ServerProcess(redis_server.url)
    await process.start()
    try:
        yield process
    finally:
        await process.stop()


def received_events(*connections: Client) -> dict[int, object]:
    """Version -> event as this seat saw it, over all its connections; fails on a version
    received twice with different content or a gap."""
    seen: dict[int, object] = {}
    for client in connections:
        for frame in client.of(Events):
            for offset, event in enumerate(frame.events):
                version = frame.first + offset
                assert seen.get(version, event) == event, f"version {version} changed"
                seen[version] = event
    assert sorted(seen) == list(range(1, len(seen) + 1)), "gap in the versions received"
    return seen


async def assert_stored_exactly_once_in_order(store: RedisRoomStore, room: Room,
                                              seen_by_a: dict[int, object],
                                              accepted: list[int]) -> None:
    stored = await store.load_room(room.room_id)
    assert stored is not None
    payloads = await store.events_since(room.room_id, 0)
    assert payloads is not None and len(payloads) == stored.version
    events = [ENGINE.event_from_plain(codec.unpack_plain(p)) for p in payloads]
    # Replaying the stored log from the initial state reproduces the stored snapshot (taken
    # at its version), and that snapshot plus the events after it the state at the end.
    at_snapshot = ENGINE.apply_all(skirmish(PLACEMENTS), events[:stored.snapshot_version])
    assert ENGINE.state_to_plain(at_snapshot) == codec.unpack_plain(stored.snapshot)
    assert list(stored.events) == payloads[stored.snapshot_version:]
    replayed = ENGINE.apply_all(skirmish(PLACEMENTS), events)
    # Seat A's view of every stored event is exactly what seat A received, version by version.
    assert {v: ENGINE.view_event(e, "A", replayed)
            for v, e in enumerate(events, 1)} == seen_by_a
    assert accepted == sorted(accepted) and accepted[-1] <= stored.version


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
    await b2.until(WindowOpen)
    assert not a2.of(Snapshot) and not b2.of(Snapshot), "resumed from their versions"

    seen_by_a = received_events(a, a2)
    assert max(seen_by_a) == second.version
    assert max(received_events(b, b2)) == second.version
    await assert_stored_exactly_once_in_order(store, room, seen_by_a,
                                              [first.version, second.version])


async def test_kill_9_during_an_open_aro_window_keeps_its_original_deadline(
        server: ServerProcess, store: RedisRoomStore) -> None:
    """ARO window deadlines are absolute: a restart neither extends nor shortens them."""
    room = await create_room(store, aro_window_s=8.0)
    a = await Client.connect(server.base, room.room_id, room.token_a)
    b = await Client.connect(server.base, room.room_id, room.token_b)
    await a.until(Snapshot)
    accepted = [await a.command(ACTIVATE), await a.command(MOVE)]
    assert all(isinstance(answer, Accepted) for answer in accepted)
    opened = await b.until(WindowOpen)

    await server.kill()
    await server.start()

    a2 = await Client.connect(server.base, room.room_id, room.token_a, since=a.version)
    b2 = await Client.connect(server.base, room.room_id, room.token_b, since=b.version)
    reopened = await b2.until(WindowOpen)
    assert (reopened.order, reopened.step, reopened.reactive) == (
        opened.order, opened.step, opened.reactive)
    assert reopened.deadline_ms == opened.deadline_ms, "the original absolute deadline"
    closed = await b2.until(WindowClosed)  # nobody declared: the server's clock closed it
    assert (closed.order, closed.step) == (opened.order, opened.step)
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
