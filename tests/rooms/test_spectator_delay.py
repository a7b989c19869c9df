"""The spectator delay, applied by the server (issue 20, point 1), over real websockets.

In a room whose ``spectator_delay_s`` is above 0 every spectator sees each event that many
seconds after the room committed it, and no path -- a new link, a reconnect with
``since``, ``sync``, ``history``, a snapshot -- gets ahead of it; the ARO window it sees
counts down on delayed time; seats are never delayed; and the delay holds across a
restart (the feed is rebuilt from the commit times stored with the events); and the
lobby's public list and a finished game's record wait for the delay too. Time is a
fake clock the test moves (``RoomRegistry.clock``); the room's release is then driven
with ``Room.release_due``, so no test waits for a timer.

A frame that must NOT have arrived is checked behind a barrier: a ``history`` request goes
through the room's inbox after the release (or commit) in question and its answer is
written to the same socket after any frame that release made, so a frame missing when the
answer arrives was never sent.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette

from protocol.codec import pack_plain
from protocol.messages import Events, History, HistoryRequest, Snapshot, Sync
from server.app import create_app
from server.rooms.registry import RoomRegistry
from server.rooms.room import Room
from server.store import MemoryRoomStore, RoomSettings, RoomStore
from server.store.redis_store import RedisRoomStore
from testkit.redis_process import RedisProcess
from testkit.serving import running_server
from testkit.wsclient import Client
from tests.doubles.fake_clock import FakeClock
from tests.doubles.fake_engine import FakeEngine
from tests.helpers import settings

DELAY_S = 30.0
_ids = itertools.count(1)


class Node:
    """A server on ``store`` whose rooms read ``clock``."""

    def __init__(self, app: Starlette, base: str, clock: FakeClock) -> None:
        self.app, self.base, self.clock = app, base, clock

    @property
    def registry(self) -> RoomRegistry:
        registry: RoomRegistry = self.app.state.registry
        return registry

    async def room(self, room_id: str) -> Room:
        room = await self.registry.open(room_id)
        assert isinstance(room, Room)
        return room

    async def create(self, **options: Any) -> dict[str, Any]:
        async with httpx.AsyncClient(base_url=self.base) as http:
            response = await http.post("/api/rooms", json={"ruleset": "n5", **options})
        assert response.status_code == 201, response.text
        created: dict[str, Any] = response.json()
        return created

    async def release(self, room_id: str, seconds: float, barrier: Client) -> None:
        """Move the clock on, release what is due, and wait (through ``barrier``'s socket)
        until the room has done it."""
        self.clock.advance(seconds)
        (await self.room(room_id)).release_due()
        await history(barrier)


def node(store: RoomStore, clock: FakeClock) -> Any:
    app = create_app(settings(), engine=FakeEngine(), store=store)
    app.state.registry.clock = clock

    class Serving:
        async def __aenter__(self) -> Node:
            self._server = running_server(settings(), app=app)
            return Node(app, await self._server.__aenter__(), clock)

        async def __aexit__(self, *exc: object) -> None:
            await self._server.__aexit__(*exc)

    return Serving()


@pytest.fixture
async def server() -> AsyncIterator[Node]:
    async with node(MemoryRoomStore(), FakeClock()) as serving:
        yield serving


async def history(client: Client, first: int = 1) -> History:
    """Ask for the client's events from ``first``; its answer is the barrier."""
    query = f"q{next(_ids)}"
    await client.send(HistoryRequest(query, first))
    return await client.until(History, lambda h: h.id == query)


def events_of(client: Client) -> list[dict[str, Any]]:
    return [event for frame in client.of(Events) for event in frame.events]


async def test_a_spectator_sees_each_event_only_once_the_delay_has_passed(server: Node) -> None:
    room = await server.create(spectator_delay_s=DELAY_S)
    room_id = room["room"]
    a = await Client.connect(server.base, room_id, room["seats"]["A"]["token"])
    watcher = await Client.connect(server.base, room_id)
    assert watcher.welcome is not None and watcher.welcome.delay_s == DELAY_S
    assert a.welcome is not None and a.welcome.delay_s == 0

    assert (await a.command({"type": "act", "value": 5})).version == 1  # seats: live
    assert (await history(watcher)).last == 0
    await server.release(room_id, DELAY_S - 0.001, watcher)
    assert events_of(watcher) == [], "not a millisecond early"

    await server.release(room_id, 0.001, watcher)
    assert events_of(watcher) == [{"e": "acted", "side": "A", "value": 5}]
    assert watcher.version == 1 and (await history(watcher)).last == 1


async def test_no_link_reconnect_sync_or_history_gets_ahead_of_the_delay(server: Node) -> None:
    room = await server.create(spectator_delay_s=DELAY_S)
    room_id = room["room"]
    a = await Client.connect(server.base, room_id, room["seats"]["A"]["token"])
    await a.command({"type": "act", "value": 1})
    server.clock.advance(10)
    await a.command({"type": "act", "value": 2})  # committed 10 s after the first
    server.clock.advance(DELAY_S - 5)  # the first is due, the second not yet

    # A new spectator link: the room as it stood DELAY_S ago.
    fresh = await Client.connect(server.base, room_id)
    assert fresh.welcome is not None and fresh.welcome.version == 1
    snapshot = await fresh.until(Snapshot)
    assert snapshot.version == 1 and snapshot.state["score"] == 1
    page = await history(fresh)
    assert (page.first, page.last, page.events) == (1, 1, [{"e": "acted", "side": "A", "value": 1}])

    # A reconnect that says it holds nothing, or claims more than the delayed point.
    resumed = await Client.connect(server.base, room_id, since=0)
    caught_up = await resumed.until(Events)
    assert (caught_up.first, caught_up.events) == (1, [{"e": "acted", "side": "A", "value": 1}])
    ahead = await Client.connect(server.base, room_id, since=2)
    assert (await ahead.until(Snapshot)).state["score"] == 1

    # sync, with and without a version.
    await fresh.send(Sync(None))
    assert (await fresh.until(Snapshot)).state["score"] == 1
    fresh.version = 0  # (as a client that dropped what it held)
    await fresh.send(Sync(0))
    assert (await fresh.until(Events)).events == [{"e": "acted", "side": "A", "value": 1}]

    await server.release(room_id, 5, fresh)
    assert fresh.of(Events)[-1].events == [{"e": "acted", "side": "A", "value": 2}]
    assert fresh.version == 2


async def test_the_aro_window_counts_down_on_delayed_time(server: Node) -> None:
    room = await server.create(spectator_delay_s=DELAY_S, aro_window_s=20)
    room_id = room["room"]
    a = await Client.connect(server.base, room_id, room["seats"]["A"]["token"])
    watcher = await Client.connect(server.base, room_id)
    await a.command({"type": "shoot"})
    live = a.of(Events)[-1].window
    assert live is not None

    await server.release(room_id, DELAY_S + 3, watcher)  # 3 s into the delayed window
    seen = watcher.of(Events)[-1].window
    assert seen is not None and (seen["order"], seen["reactive"]) == (live["order"], "B")
    assert seen["deadline_ms"] == live["deadline_ms"] + DELAY_S * 1000
    assert seen["remaining_ms"] == seen["deadline_ms"] - server.clock()

    late = await Client.connect(server.base, room_id)  # a snapshot shows the same countdown
    window = (await late.until(Snapshot)).window
    assert window is not None and window["deadline_ms"] == seen["deadline_ms"]


async def test_a_room_without_delay_stays_live_for_spectators(server: Node) -> None:
    room = await server.create()
    a = await Client.connect(server.base, room["room"], room["seats"]["A"]["token"])
    watcher = await Client.connect(server.base, room["room"])
    assert watcher.welcome is not None and watcher.welcome.delay_s == 0
    await a.command({"type": "act", "value": 3})
    assert (await watcher.until(Events)).events == [{"e": "acted", "side": "A", "value": 3}]


async def test_the_delay_holds_across_a_restart(redis_server: RedisProcess) -> None:
    clock = FakeClock()
    # (each server closes its store when it stops)
    async with node(RedisRoomStore.from_url(redis_server.url), clock) as first:
        room = await first.create(spectator_delay_s=DELAY_S)
        room_id = room["room"]
        a = await Client.connect(first.base, room_id, room["seats"]["A"]["token"])
        await a.command({"type": "act", "value": 1})
        clock.advance(20)
        await a.command({"type": "act", "value": 2})
        watcher = await Client.connect(first.base, room_id)
        assert (await watcher.until(Snapshot)).version == 0

    clock.advance(15)  # the first event is 35 s old, the second 15 s
    async with node(RedisRoomStore.from_url(redis_server.url), clock) as second:
        watcher = await Client.connect(second.base, room_id, since=0)
        assert watcher.welcome is not None and watcher.welcome.version == 1
        assert (await watcher.until(Events)).events == [{"e": "acted", "side": "A", "value": 1}]
        await second.release(room_id, 14.999, watcher)
        assert watcher.version == 1
        await second.release(room_id, 0.001, watcher)
        assert watcher.of(Events)[-1].events == [{"e": "acted", "side": "A", "value": 2}]


async def test_the_public_list_shows_a_delayed_game_no_sooner_than_its_spectators(
        server: Node) -> None:
    room = await server.create(spectator_delay_s=DELAY_S, visibility="public")
    room_id = room["room"]
    a = await Client.connect(server.base, room_id, room["seats"]["A"]["token"])

    async def listed_turn() -> int:
        async with httpx.AsyncClient(base_url=server.base) as http:
            rooms = (await http.get("/api/rooms")).json()["rooms"]
        turn: int = next(r for r in rooms if r["room"] == room_id)["turn"]
        return turn

    await a.command({"type": "end_turn"})
    assert await listed_turn() == 1, "the live turn changed; the list shows the delayed one"
    server.clock.advance(DELAY_S)
    watcher = await Client.connect(server.base, room_id)  # (a join writes the list again)
    assert watcher.welcome is not None and watcher.welcome.version == 1
    assert await listed_turn() == 2


async def test_the_record_of_a_delayed_game_waits_for_its_spectators_to_see_the_end(
        server: Node) -> None:
    """The record shows every event: before the delay has passed since the game's end it
    would show the end (and every secret) to delayed spectators early."""
    created = await server.registry.create(RoomSettings("n5", 30.0, "private", DELAY_S, 1))
    room_id = created.meta.room_id
    store = server.registry.store
    fence = await store.claim_room(room_id, "test")
    assert fence is not None
    ended = {"type": "game_ended", "result": {}, "dice_revealed": {
        "commitment": "c", "secret": "s", "contributions": {}}}
    await store.append(room_id, fence=fence, expected_version=0, events=[pack_plain(ended)],
                       snapshot=None, deadlines=(), listing=None, committed_ms=server.clock())
    async with httpx.AsyncClient(base_url=server.base) as http:
        early = await http.get(f"/api/rooms/{room_id}/record")
        assert (early.status_code, early.json()["error"]) == (409, "game_not_over")
        server.clock.advance(DELAY_S)
        served = await http.get(f"/api/rooms/{room_id}/record")
        assert served.status_code == 200 and served.json()["room"] == room_id
