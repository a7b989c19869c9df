"""``history``: each viewer's own events, a page at a time, over real websockets.

An N5 game is played from army selection through a room made by the lobby, B's Ghost
deployed in Hidden Deployment; seat A, seat B and a spectator watch it from the start and
keep every ``events`` frame they get. Each one's history must be exactly the events it got
live, in its own numbering; the hidden deployment must be in B's alone; a late spectator
and a reloaded seat get the same log as the ones that watched live.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from protocol import codec
from protocol.constants import CloseCode
from protocol.messages import (
    Accepted,
    Events,
    History,
    HistoryRequest,
    Measure,
    Measurement,
    Rejected,
    Snapshot,
)
from server.app import create_app
from server.fanout import Audience
from server.rooms import history as history_module
from server.rooms.history import Checkpoints
from server.rooms.room import Room
from server.rules.ids import Side
from server.rules.state import GameState, Phase
from server.store.redis_store import RedisRoomStore
from testkit.full_game import next_command
from testkit.redis_process import RedisProcess
from testkit.server_process import ServerProcess, two_nodes
from testkit.serving import running_server
from testkit.wsclient import Client
from tests.cluster.game import ACTIVATE, B_SHOOTER, MOVE, close_window, create_room
from tests.helpers import settings
from tests.support.windows import closed, opened

ENTROPY = {Side.A: "a1" * 32, Side.B: "b2" * 32}
_ids = itertools.count(1)


def hide_the_ghosts(state: GameState, side: Side, body: dict[str, Any]) -> dict[str, Any]:
    """The planner's command, a trooper with Hidden Deployment deployed hidden."""
    if body["type"] == "deploy":
        trooper = state.trooper(body["trooper"])
        if trooper.profile.hidden_deployment:
            return {**body, "hidden": True}
    return body


class Game:
    """A lobby room with two seats and a spectator connected from its first version."""

    def __init__(self, base: str, http: httpx.AsyncClient, room: Room,
                 tokens: dict[Side, str], seats: dict[Side, Client], spectator: Client) -> None:
        self.base, self.http, self.room, self.tokens = base, http, room, tokens
        self.seats, self.spectator = seats, spectator

    @property
    def viewers(self) -> dict[str, Client]:
        return {"A": self.seats[Side.A], "B": self.seats[Side.B], "spectator": self.spectator}

    async def play(self, until: Any) -> None:
        while not until(self.room.state):
            side, body = next_command(self.room.state, ENTROPY, "n5")
            body = hide_the_ghosts(self.room.state, side, body)
            answer = await self.seats[side].command(body)
            assert isinstance(answer, Accepted), (body, answer)
            await self.read_all()

    async def read_all(self) -> None:
        for audience, viewer in self.viewers.items():
            while viewer.version < self.room.seen[Audience(audience)]:
                await viewer.next()


@pytest.fixture
async def game() -> AsyncIterator[Game]:
    app_settings = settings(rate_burst=10_000)  # scripted players answer at once
    app = create_app(app_settings)
    async with running_server(app_settings, app=app) as base, \
            httpx.AsyncClient(base_url=base) as http:
        created = await http.post("/api/rooms", json={"ruleset": "n5", "aro_window_s": 600})
        assert created.status_code == 201, created.text
        room_id = created.json()["room"]
        tokens = {side: created.json()["seats"][side.value]["token"] for side in Side}
        seats = {side: await Client.connect(base, room_id, tokens[side]) for side in Side}
        spectator = await Client.connect(base, room_id)
        for viewer in (*seats.values(), spectator):
            assert (await viewer.until(Snapshot)).version == 0
        room = await app.state.registry.open(room_id)
        assert isinstance(room, Room)
        yield Game(base, http, room, tokens, seats, spectator)


def live_log(viewer: Client) -> list[dict[str, Any]]:
    """Every event ``viewer`` received in ``events`` frames, checked gap-free from 1."""
    log: list[dict[str, Any]] = []
    for frame in viewer.of(Events):
        assert frame.first == len(log) + 1
        log.extend(event for event in frame.events if event is not None)
    return log


async def page(viewer: Client, first: int) -> History | Rejected:
    request_id = f"h{next(_ids)}"
    await viewer.send(HistoryRequest(request_id, first))
    while True:
        message = await viewer.next()
        if isinstance(message, History | Rejected) and message.id == request_id:
            return message


async def whole_history(viewer: Client) -> tuple[list[dict[str, Any]], int]:
    """The viewer's history from 1 to the version it holds, and how many pages it took."""
    events: list[dict[str, Any]] = []
    pages = 0
    while len(events) < viewer.version:
        answer = await page(viewer, len(events) + 1)
        assert isinstance(answer, History), answer
        assert answer.first == len(events) + 1 and answer.events
        assert answer.last >= viewer.version
        events.extend(answer.events)
        pages += 1
    return events[:viewer.version], pages


def ghost_deployments(log: list[dict[str, Any]], ghost: str) -> list[dict[str, Any]]:
    return [e for e in log if e["type"] == "trooper_deployed" and e["trooper"] == ghost]


@pytest.mark.slow
async def test_each_viewer_gets_exactly_the_events_it_got_live_in_its_own_numbering(
        game: Game, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(history_module, "PAGE_EVENTS", 17)  # many pages
    monkeypatch.setattr(history_module, "CHECKPOINT_EVERY", 8)
    await game.play(lambda state: state.phase is Phase.ORDERS and state.dice.cursor >= 12)
    ghost = next(t.id for t in game.room.state.troopers.values() if t.profile.hidden_deployment)

    logs = {}
    for name, viewer in game.viewers.items():
        live = live_log(viewer)
        assert len(live) == viewer.version == game.room.seen[Audience(name)]
        history, pages = await whole_history(viewer)
        assert history == live, f"{name}'s history differs from what it got live"
        assert pages == -(-len(live) // 17)
        logs[name] = history
    # The hidden deployment is B's alone: A and the spectator number one event fewer.
    assert [e["hidden"] for e in ghost_deployments(logs["B"], ghost)] == [True]
    assert ghost_deployments(logs["A"], ghost) == ghost_deployments(logs["spectator"], ghost) == []
    assert len(logs["A"]) == len(logs["spectator"]) < len(logs["B"]) == game.room.version


@pytest.mark.slow
async def test_a_late_spectator_and_a_reloaded_seat_get_the_log_of_the_live_tabs(
        game: Game) -> None:
    await game.play(lambda state: state.phase is Phase.ORDERS and state.dice.cursor >= 6)
    late = await Client.connect(game.base, game.room.room_id)
    assert (await late.until(Snapshot)).version == game.spectator.version
    reloaded = await Client.connect(game.base, game.room.room_id, game.tokens[Side.B])
    assert (await reloaded.until(Snapshot)).version == game.seats[Side.B].version
    assert (await whole_history(late))[0] == live_log(game.spectator)
    assert (await whole_history(reloaded))[0] == live_log(game.seats[Side.B])
    assert not late.of(Events) and not reloaded.of(Events), "they only had a snapshot"


@pytest.mark.slow
async def test_pages_past_the_end_are_empty_and_from_zero_is_refused(game: Game) -> None:
    await game.play(lambda state: state.phase is Phase.DEPLOYMENT)
    a = game.seats[Side.A]
    last = a.version
    assert last > 2
    tail = await page(a, last)
    assert isinstance(tail, History) and (tail.first, tail.last) == (last, last)
    assert tail.events == live_log(a)[-1:]
    for beyond in (last + 1, last + 50):
        empty = await page(a, beyond)
        assert isinstance(empty, History) and (empty.first, empty.events) == (beyond, [])
    refused = await page(a, 0)
    assert isinstance(refused, Rejected) and refused.code == "bad_message"
    await a.send_raw(codec.pack_plain({"type": "history", "id": "hx", "from": "one"}))
    bad = await a.until(Rejected, lambda m: m.id == "hx")
    assert bad.code == "bad_message" and "'from'" in bad.message


async def test_a_history_page_takes_two_messages_of_the_rate_limit() -> None:
    """Burst 5: two pages (4 tokens) are answered; the third frame finds one token for a
    request that takes two, and the socket is closed."""
    app_settings = settings(rate_burst=5, rate_per_s=0.0001)
    async with running_server(app_settings) as base, httpx.AsyncClient(base_url=base) as http:
        created = await http.post("/api/rooms", json={"ruleset": "n5"})
        spectator = await Client.connect(base, created.json()["room"])
        await spectator.until(Snapshot)
        for request_id in ("h1", "h2"):
            await spectator.send(HistoryRequest(request_id, 1))
            answer = await spectator.until(History)
            assert (answer.id, answer.first, answer.events, answer.last) == (request_id, 1, [], 0)
        await spectator.send(HistoryRequest("h3", 1))
        assert await spectator.close_code() == CloseCode.RATE_LIMITED
        assert not [m for m in spectator.frames if getattr(m, "id", None) == "h3"]


@pytest.mark.redis
@pytest.mark.slow
async def test_through_a_node_that_relays_the_room_history_and_measure_are_the_owners(
        redis_server: RedisProcess) -> None:
    """Seat A on the owning node, seat B on another: B's queries cross the room bus to the
    owner, which reads the history from Redis, and B's answers come back through its node."""
    store = RedisRoomStore.from_url(redis_server.url)
    async with two_nodes(redis_server.url, ServerProcess) as (one, two):
        try:
            room = await create_room(store, aro_window_s=600.0)
            a = await Client.connect(one.base, room.room_id, room.token_a)  # node one owns it
            b = await Client.connect(two.base, room.room_id, room.token_b)
            for seat in (a, b):
                await seat.until(Snapshot)
            assert isinstance(await a.command(ACTIVATE), Accepted)
            assert isinstance(await a.command(MOVE), Accepted)
            window = await opened(b)
            assert isinstance(await b.command(close_window(window)), Accepted)
            await closed(a, window)
            while b.version < a.version:
                await b.next()
            history, pages = await whole_history(b)
            assert history == live_log(b) and len(history) == b.version > 3 and pages == 1
            measured = await ask_measure(b, Measure("m-relay", B_SHOOTER, [22.5, 10.0]))
            assert isinstance(measured, Measurement) and measured.line_of_fire is True
            refused = await ask_measure(b, Measure("m-nobody", "A-nobody", [22.5, 10.0]))
            assert isinstance(refused, Rejected) and refused.code == "unknown_trooper"
            for seat in (a, b):
                await seat.close()
        finally:
            await store.close()


async def ask_measure(viewer: Client, request: Measure) -> Measurement | Rejected:
    await viewer.send(request)
    while True:
        message = await viewer.next()
        if isinstance(message, Measurement | Rejected) and message.id == request.id:
            return message


def test_checkpoints_start_each_page_at_the_latest_exact_count_before_it() -> None:
    every = history_module.CHECKPOINT_EVERY
    seen = {Audience.A: 300, Audience.B: 400, Audience.SPECTATOR: 300, Audience.CASTER: 400}
    points = Checkpoints(400, seen)  # at global 400: A and spectators know of 300, B of all
    assert points.start_for(Audience.A, 1) == (0, 0)
    assert points.start_for(Audience.A, 300) == (0, 0)
    assert points.start_for(Audience.A, 301) == (400, 300)
    points.note(Audience.A, 6 * every, 500)
    assert points.start_for(Audience.A, 501) == (6 * every, 500)
    assert points.start_for(Audience.A, 500) == (400, 300)
    points.note(Audience.A, 6 * every + 5, 504)  # the same stretch of global versions
    assert points.start_for(Audience.A, 510) == (6 * every, 500)
    points.note(Audience.A, every - 1, every - 1)  # the first stretch holds (0, 0) already
    assert points.start_for(Audience.A, every) == (0, 0)
    points.committed(20 * every, {Audience.A: 900, Audience.B: 950, Audience.SPECTATOR: 900,
                                  Audience.CASTER: 950})
    assert points.start_for(Audience.B, 951) == (20 * every, 950)
    assert points.start_for(Audience.SPECTATOR, 301) == (400, 300)
