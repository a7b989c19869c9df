"""A replay shows each viewer what the live room showed it (issue 39): a whole game played
over real websockets in a room made by the lobby, on a mission with a Classified Objective
per side, on chess clocks, with one trooper in Hidden Deployment (an event seat A and the
spectators never learn of). After every accepted command the test keeps what a snapshot
frame would carry for seat A, seat B and a spectator (state, ARO window, clocks) at that
viewer's version, and the whole game (the casters' projection) at the global version;
once the game is over the replay's step at each of those versions must hold the same.
Every event each viewer was sent live must be the replay's event of the step it numbers,
and the opponent's replay view must not hold a Classified Objective before the end. The
record file posted to ``/api/replays`` replays the same game, its times unknown."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field, replace
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette

from protocol import codec
from protocol.messages import Accepted, Events, Snapshot
from server.app import create_app
from server.fanout import Audience
from server.replay.cache import cache_for
from server.replay.documents import step_document
from server.rooms.room import Room
from server.rules import views
from server.rules.ids import CASTER, Side
from server.rules.state import GameState, Phase
from testkit.full_game import accepted, next_command
from testkit.serving import running_server
from testkit.wsclient import Client
from tests.doubles.fake_clock import FakeClock
from tests.helpers import settings

ENTROPY = {side: hashlib.sha256(f"replay: {side.value}".encode()).hexdigest() for side in Side}
ARMIES = {Side.A: "helion-c1-patrol", Side.B: "orrery-c1-veil"}
"""B's list has a trooper with Hidden Deployment, deployed hidden below."""
LIVE = {"A": Audience.A, "B": Audience.B, "spectator": Audience.SPECTATOR}
CLOCK_S = 3600
STEP_S = 1.5
"""The fake clock moves this much before each command: windows and clocks count down."""


@dataclass
class Seen:
    """What one view showed live, by its version: (state, window, clocks)."""

    at: dict[int, tuple[Any, Any, Any]] = field(default_factory=dict)


def planned(state: GameState) -> tuple[Side, dict[str, Any]]:
    """``testkit.full_game``'s game with the lists above, B's hidden trooper deployed hidden."""
    if state.phase is Phase.ARMY_SELECTION:
        side = Side.A if Side.A not in state.armies else Side.B
        return side, {"type": "choose_army", "army": ARMIES[side], "entropy": ENTROPY[side]}
    side, body = next_command(state, ENTROPY, "codeone")
    hidden = {**body, "hidden": True}
    if body["type"] == "deploy" and accepted(state, side, hidden):
        return side, hidden
    return side, body


class LiveGame:
    def __init__(self, app: Starlette, http: httpx.AsyncClient, room: Room, clock: FakeClock,
                 clients: dict[str, Client], seats: dict[Side, Client]) -> None:
        self.app, self.http, self.room, self.clock = app, http, room, clock
        # The same app's routes without a socket: a request over one costs 40 ms of waiting
        # in this harness, and a step is asked for at each of some 700 versions.
        self.in_process = httpx.AsyncClient(transport=httpx.ASGITransport(app=app),
                                            base_url="http://replay.test")
        self.clients, self.seats = clients, seats
        self.seen = {name: Seen() for name in (*LIVE, "revealed")}

    def keep(self, changed: set[str]) -> None:
        """What a snapshot frame would carry now, per live view; window and clocks only for
        the views this commit sent a frame to (the others' were made at their last event's
        commit, as the replay's are)."""
        for name, audience in LIVE.items():
            frame = codec.decode_server(self.room.snapshot_frame(audience))
            assert isinstance(frame, Snapshot)
            known = self.seen[name].at.get(frame.version)
            timed = (frame.window, frame.clocks) if name in changed or known is None \
                else known[1:]
            self.seen[name].at[frame.version] = (frame.state, *timed)
        self.seen["revealed"].at[self.room.version] = (
            views.view_state(self.room.state, CASTER), None, None)

    async def play(self) -> None:
        self.keep(set(LIVE))
        while self.room.state.phase is not Phase.GAME_OVER:
            self.clock.advance(STEP_S)
            before = dict(self.room.seen)
            side, body = planned(self.room.state)
            answer = await self.seats[side].command(body)
            assert isinstance(answer, Accepted), (body, answer)
            for name, client in self.clients.items():
                while client.version < self.room.seen[LIVE[name]]:
                    await client.next()
            self.keep({name for name, audience in LIVE.items()
                       if self.room.seen[audience] != before[audience]})

    def received(self, name: str) -> dict[int, Any]:
        """Every event the view's client was sent live, by its number."""
        events: dict[int, Any] = {}
        for frame in self.clients[name].frames:
            if isinstance(frame, Events):
                events.update(enumerate(frame.events, frame.first))
        return events


@pytest.fixture
async def game() -> AsyncIterator[LiveGame]:
    app_settings = settings(rate_burst=10_000)  # scripted players answer at once
    app = create_app(app_settings)
    clock = FakeClock()
    app.state.registry.clock = clock
    async with running_server(app_settings, app=app) as base, \
            httpx.AsyncClient(base_url=base) as http:
        created = await http.post("/api/rooms", json={
            "ruleset": "codeone", "aro_window_s": 600, "aro_min_open_s": 0,
            "visibility": "private", "clock_s": CLOCK_S, "table": "sample-open-codeone",
            "mission": "codeone-cold-storage"})
        assert created.status_code == 201, created.text
        room_id = created.json()["room"]
        seats = {side: await Client.connect(base, room_id,
                                            created.json()["seats"][side.value]["token"])
                 for side in Side}
        spectator = await Client.connect(base, room_id)
        room = await app.state.registry.open(room_id)
        assert isinstance(room, Room)
        clients = {"A": seats[Side.A], "B": seats[Side.B], "spectator": spectator}
        game = LiveGame(app, http, room, clock, clients, seats)
        yield game
        for client in clients.values():
            await client.close()
        await game.in_process.aclose()


@pytest.mark.slow  # a whole game over websockets
async def test_each_view_of_the_replay_holds_what_the_live_room_showed_that_viewer(
        game: LiveGame) -> None:
    await game.play()
    await the_replay_matches_what_each_viewer_was_shown(game)
    await the_record_file_replays_the_same_game_without_its_times(game)


async def the_replay_matches_what_each_viewer_was_shown(game: LiveGame) -> None:
    room_id = game.room.room_id
    for name, seen in game.seen.items():
        answer = await game.http.get(f"/api/rooms/{room_id}/replay", params={"view": name})
        assert answer.status_code == 200, answer.text
        document = answer.json()
        assert (document["format"], document["view"]) == ("infinity-referee-replay/1", name)
        steps = document["steps"]
        assert [step["version"] for step in steps] == list(range(len(steps)))
        assert steps[0]["type"] is None and steps[-1]["type"] == "game_ended"
        count = game.room.seen[LIVE[name]] if name in LIVE else game.room.version
        assert len(steps) == count + 1
        for version, (state, window, clocks) in seen.at.items():
            step = await game.in_process.get(f"/api/rooms/{room_id}/replay/state",
                                             params={"view": name, "step": version})
            assert step.status_code == 200, step.text
            shown = step.json()
            assert shown["version"] == version
            assert shown["state"] == state, f"{name}'s state at its version {version}"
            if name in LIVE:
                assert (shown["window"], shown["clocks"]) == (window, clocks), (name, version)

    # Every event each viewer was sent is its replay's event at that number (the room keeps
    # the replay it served: read in process, a lookup per step).
    replay = cache_for(game.app.state).get(("room", room_id))
    assert replay is not None
    for name in LIVE:
        received = game.received(name)
        assert sorted(received) == list(range(1, game.room.seen[LIVE[name]] + 1))
        for number, event in received.items():
            assert step_document(replay, name, number)["event"] == event, (name, number)
        # The steps listing carries the same events: the viewer's log comes from it alone.
        listed = (await game.in_process.get(f"/api/rooms/{room_id}/replay",
                                            params={"view": name})).json()["steps"]
        assert {step["index"]: step["event"] for step in listed[1:]} == received, name
    assert len(game.received("A")) < len(game.received("B")), "B's hidden deployment"

    # Each side's Classified Objective: the other seat's (and a spectator's) view shows how
    # many, not which, until it is achieved or the game is over; the revealed view shows it.
    end = {name: len(replay.views[name]) - 1 for name in replay.views}
    for name, side in (("B", "A"), ("A", "B"), ("spectator", "A")):
        hidden = await classified(game.http, room_id, name, end[name] - 1)
        shown = await classified(game.http, room_id, "revealed", end["revealed"] - 1)
        assert shown[side]["count"] == 1 and len(shown[side]["cards"]) == 1
        assert hidden[side] == {**shown[side], "cards": [
            card for card in shown[side]["cards"] if card["achieved"]]}, (name, side)
        assert (await classified(game.http, room_id, name, end[name]))[side] == \
            (await classified(game.http, room_id, "revealed", end["revealed"]))[side]


async def classified(http: httpx.AsyncClient, room_id: str, view: str, step: int) -> Any:
    answer = await http.get(f"/api/rooms/{room_id}/replay/state",
                            params={"view": view, "step": step})
    return answer.json()["state"]["classified"]


async def the_record_file_replays_the_same_game_without_its_times(game: LiveGame) -> None:
    """The record file posted to ``/api/replays`` folds into the same states, sequences and
    windows as the room's own replay; only the times are unknown (no timeline)."""
    room_id = game.room.room_id
    http = game.http
    assert (await http.get(f"/api/rooms/{room_id}/replay", params={"view": "A"})).is_success
    record = (await http.get(f"/api/rooms/{room_id}/record")).json()
    assert record["settings"]["clock_s"] == CLOCK_S
    posted = await http.post("/api/replays", json=record)
    assert posted.status_code == 201, posted.text
    cache = cache_for(game.app.state)
    room, kept = cache.get(("room", room_id)), cache.get(("record", posted.json()["replay"]))
    assert room is not None and kept is not None
    assert {name: steps.events_at for name, steps in kept.views.items()} == {
        name: steps.events_at for name, steps in room.views.items()}
    assert kept.windows == room.windows and any(kept.windows)
    assert set(kept.deadlines) == {None} and any(room.deadlines)
    # The states are the same from the first clock switch on (before it, the clocks'
    # start differs only in a time nothing shows: no clock runs at army selection), but
    # for the room's id key, which only ever drew ids in its decisions.
    first_switch = next(n for n, plain in enumerate(room.record.plains, 1)
                        if plain["type"] == "clock_switched")
    assert [replace(state, id_key="") for state in kept.states[first_switch:]] == [
        replace(state, id_key="") for state in room.states[first_switch:]]
    windowed = next(n for n, window in enumerate(kept.windows) if window is not None)
    step = kept.views["revealed"].events_at.index(windowed) + 1
    shown = (await http.get(f"/api/replays/{posted.json()['replay']}/state",
                            params={"view": "revealed", "step": step})).json()
    assert shown["window"]["deadline_ms"] is None and shown["window"]["remaining_ms"] is None
    steps = (await http.get(f"/api/replays/{posted.json()['replay']}",
                            params={"view": "spectator"})).json()["steps"]
    assert {step["at_ms"] for step in steps} == {None}
