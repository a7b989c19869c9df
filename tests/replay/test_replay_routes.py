"""The replay endpoints (docs/replays.md): a room's replay is refused exactly as its record is
(no room, a game not over, an end younger than the spectator delay, a room whose first
events were not kept); a posted record is checked (``bad_record`` naming the problem),
kept under an id that is a hash of the record, and served with unknown times; views and
steps out of range are ``bad_field``."""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette

from protocol.messages import Accepted
from server.app import create_app
from server.replay.routes import MAX_RECORD_BYTES
from server.store import RoomSettings
from server.store.memory import MemoryRoomStore
from testkit.serving import running_server
from testkit.wsclient import Client
from tests.doubles.fake_clock import FakeClock
from tests.helpers import settings
from tests.support.skirmish import skirmish

STRANGER = {"type": "trooper_deployed", "trooper": "A-nobody", "position": [1, 1], "facing": 0,
            "hidden": False, "marker": False}
ENTROPY = {side: hashlib.sha256(f"short: {side}".encode()).hexdigest() for side in "AB"}


class EarlyEventsLost(MemoryRoomStore):
    """A store that no longer holds a room's first events (as one made before records
    trimmed them): reading from version 0 finds nothing."""

    async def events_since(self, room_id: str, version: int) -> Sequence[bytes] | None:
        return None if version == 0 else await super().events_since(room_id, version)


class CountingReads(MemoryRoomStore):
    """A store that counts the reads a replay request makes of a room."""

    def __init__(self) -> None:
        super().__init__()
        self.reads: list[str] = []

    async def load_room(self, room_id: str) -> Any:
        self.reads.append("load_room")
        return await super().load_room(room_id)

    async def events_since(self, room_id: str, version: int) -> Sequence[bytes] | None:
        self.reads.append("events_since")
        return await super().events_since(room_id, version)

    async def timeline(self, room_id: str) -> Any:
        self.reads.append("timeline")
        return await super().timeline(room_id)


@dataclass
class Server:
    app: Starlette
    base: str
    http: httpx.AsyncClient
    clock: FakeClock

    async def room(self, **options: Any) -> tuple[str, dict[str, Client]]:
        created = await self.http.post("/api/rooms", json={
            "ruleset": "codeone", "aro_window_s": 600, "visibility": "private", **options})
        assert created.status_code == 201, created.text
        room_id = created.json()["room"]
        seats = {side: await Client.connect(self.base, room_id,
                                            created.json()["seats"][side]["token"])
                 for side in "AB"}
        return room_id, seats

    async def short_game(self, **options: Any) -> str:
        """Both armies chosen (the initiative rolled), then B concedes: a finished game."""
        room_id, seats = await self.room(**options)
        await command(seats, "A", {"type": "choose_army", "army": "helion-c1-patrol",
                                   "entropy": ENTROPY["A"]})
        await command(seats, "B", {"type": "choose_army", "army": "vesper-c1-cell",
                                   "entropy": ENTROPY["B"]})
        await command(seats, "B", {"type": "concede"})
        for seat in seats.values():
            await seat.close()
        return room_id


async def command(seats: dict[str, Client], side: str, body: dict[str, Any]) -> None:
    answer = await seats[side].command(body)
    assert isinstance(answer, Accepted), answer
    other = seats["B" if side == "A" else "A"]
    while other.version < seats[side].version:
        await other.next()


async def serve(store: MemoryRoomStore | None = None) -> AsyncIterator[Server]:
    app_settings = settings(rate_burst=10_000)
    app = create_app(app_settings, store=store)
    clock = FakeClock()
    app.state.registry.clock = clock
    # HTTP in process (the same app's routes; a request over a socket waits 40 ms in this
    # harness), the seats over real websockets.
    async with running_server(app_settings, app=app) as base, httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://replay.test") as http:
        yield Server(app, base, http, clock)


@pytest.fixture
async def server() -> AsyncIterator[Server]:
    async for running in serve():
        yield running


def refused(response: httpx.Response, status: int, code: str) -> str:
    assert response.status_code == status, response.text
    body = response.json()
    assert body["error"] == code and isinstance(body["message"], str)
    return str(body["message"])


async def test_a_room_replay_is_refused_while_its_record_is(server: Server) -> None:
    http = server.http
    for path in ("replay", "replay/state"):
        params = {"view": "A", "step": "0"}
        refused(await http.get(f"/api/rooms/0-nosuchroom/{path}", params=params),
                404, "room_not_found")
        room_id, seats = await server.room()
        refused(await http.get(f"/api/rooms/{room_id}/{path}", params=params),
                409, "game_not_over")  # no event yet
        await command(seats, "A", {"type": "choose_army", "army": "helion-c1-patrol",
                                   "entropy": ENTROPY["A"]})
        refused(await http.get(f"/api/rooms/{room_id}/{path}", params=params),
                409, "game_not_over")  # a game in progress
        for seat in seats.values():
            await seat.close()


async def test_a_delayed_room_replay_waits_for_the_spectators_to_see_the_end(
        server: Server) -> None:
    room_id = await server.short_game(spectator_delay_s=30)
    for path in ("record", "replay"):
        refused(await server.http.get(f"/api/rooms/{room_id}/{path}", params={"view": "B"}),
                409, "game_not_over")
    server.clock.advance(30)
    for path in ("record", "replay"):
        answer = await server.http.get(f"/api/rooms/{room_id}/{path}", params={"view": "B"})
        assert answer.status_code == 200, answer.text


async def test_a_kept_replay_is_served_without_checking_its_room_again() -> None:
    """A game over stays over and a spectator delay passed stays passed: once a room's
    replay is folded, its steps are answered without reading the room (a delayed room's
    check reads its whole timeline)."""
    store = CountingReads()
    async for server in serve(store):
        room_id = await server.short_game(spectator_delay_s=30)
        server.clock.advance(30)
        first = await server.http.get(f"/api/rooms/{room_id}/replay", params={"view": "A"})
        assert first.status_code == 200, first.text
        assert "timeline" in store.reads  # the check and the fold read it
        store.reads.clear()
        for step in range(len(first.json()["steps"])):
            answer = await server.http.get(f"/api/rooms/{room_id}/replay/state",
                                           params={"view": "A", "step": str(step)})
            assert answer.status_code == 200, answer.text
        again = await server.http.get(f"/api/rooms/{room_id}/replay", params={"view": "B"})
        assert again.status_code == 200, again.text
        assert store.reads == []


async def test_a_room_whose_first_events_are_gone_has_no_replay() -> None:
    async for server in serve(EarlyEventsLost()):
        room_id = await server.short_game()
        for path in ("record", "replay"):
            refused(await server.http.get(f"/api/rooms/{room_id}/{path}", params={"view": "A"}),
                    410, "record_unavailable")


async def test_views_and_steps_out_of_range_are_bad_fields(server: Server) -> None:
    room_id = await server.short_game()
    http = server.http
    for params in ({}, {"view": "caster"}, {"view": "a"}):
        message = refused(await http.get(f"/api/rooms/{room_id}/replay", params=params),
                          400, "bad_field")
        assert "A, B, spectator, revealed" in message
    steps = (await http.get(f"/api/rooms/{room_id}/replay", params={"view": "B"})).json()["steps"]
    assert [step["type"] for step in steps] == [
        None, "army_chosen", "army_chosen", "initiative_rolled", "game_ended"]
    for step in ("", "-1", "x", "²", "9" * 5000, str(len(steps))):
        message = refused(await http.get(f"/api/rooms/{room_id}/replay/state",
                                         params={"view": "B", "step": step}), 400, "bad_field")
        assert f"from 0 to {len(steps) - 1}" in message
    last = await http.get(f"/api/rooms/{room_id}/replay/state",
                          params={"view": "B", "step": str(len(steps) - 1)})
    assert last.status_code == 200 and last.json()["state"]["phase"] == "game_over"


async def test_a_posted_record_replays_as_its_room_did_with_unknown_times(
        server: Server) -> None:
    http = server.http
    room_id = await server.short_game()
    record = (await http.get(f"/api/rooms/{room_id}/record")).json()
    posted = await http.post("/api/replays", json=record)
    assert posted.status_code == 201, posted.text
    replay_id = posted.json()["replay"]
    # The same record, spaced and ordered otherwise, is the same replay.
    again = await http.post("/api/replays", content=json.dumps(record, indent=2,
                                                               sort_keys=True).encode())
    assert again.json() == {"replay": replay_id}
    for view in ("A", "B", "spectator", "revealed"):
        room = (await http.get(f"/api/rooms/{room_id}/replay", params={"view": view})).json()
        kept = (await http.get(f"/api/replays/{replay_id}", params={"view": view})).json()
        assert all(step["at_ms"] is not None for step in room["steps"][1:])
        assert [{**step, "at_ms": None} for step in room["steps"]] == kept["steps"]
        assert {**room, "steps": None} == {**kept, "steps": None}
        for step in range(len(kept["steps"])):
            params = {"view": view, "step": str(step)}
            live = (await http.get(f"/api/rooms/{room_id}/replay/state", params=params)).json()
            read = (await http.get(f"/api/replays/{replay_id}/state", params=params)).json()
            assert read == live
            # The listing carries each step's event as the state answer does (the viewer
            # builds its log from the listing alone).
            assert room["steps"][step]["event"] == live["event"], (view, step)
            assert kept["steps"][step]["event"] == live["event"], (view, step)
        assert room["steps"][0]["event"] is None
        assert [step["event"]["type"] for step in room["steps"][1:]] == [
            step["type"] for step in room["steps"][1:]]
    refused(await http.get(f"/api/replays/{replay_id}", params={"view": "x"}), 400, "bad_field")
    refused(await http.get(f"/api/replays/{replay_id}/state", params={"view": "A", "step": "99"}),
            400, "bad_field")
    refused(await http.get("/api/replays/0123abcd", params={"view": "A"}),
            404, "replay_not_found")
    refused(await http.get("/api/replays/0123abcd/state", params={"view": "A", "step": "0"}),
            404, "replay_not_found")


def _changed(record: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {**json.loads(json.dumps(record)), **fields}


async def test_a_posted_document_that_is_not_a_record_is_refused_naming_the_problem(
        server: Server) -> None:
    http = server.http
    room_id = await server.short_game()
    record = (await http.get(f"/api/rooms/{room_id}/record")).json()
    events = record["events"]
    cases: list[tuple[dict[str, Any], str]] = [
        (_changed(record, format="infinity-referee-record/2"), "format"),
        (_changed(record, dice={**record["dice"], "secret": "xyz"}), "dice.secret"),
        (_changed(record, settings={**record["settings"], "ruleset": "n4"}), "settings.ruleset"),
        (_changed(record, settings={**record["settings"], "table": "no-such-table"}),
         "no-such-table"),
        (_changed(record, settings={**record["settings"], "clock_s": -1}), "settings.clock_s"),
        (_changed(record, events=[]), "events is empty"),
        (_changed(record, events=events[:-1]), "not game_ended"),
        (_changed(record, events=[events[0], {**events[1], "index": 7}, *events[2:]]),
         "events[1]"),
        (_changed(record, events=[events[0], {"index": 2, "event": {"type": "no_such_event"}},
                                  *events[2:]]), "event 2 (no_such_event)"),
        # A trooper no army has, deployed: the fold cannot place it.
        (_changed(record, events=[{"index": n, "event": event} for n, event in enumerate(
            [*(e["event"] for e in events[:-1]), STRANGER, events[-1]["event"]], 1)]),
         f"event {len(events)} (trooper_deployed) does not follow"),
        (_changed(record, room=None), "room"),
    ]
    for document, problem in cases:
        message = refused(await http.post("/api/replays", json=document), 400, "bad_record")
        assert problem in message, (problem, message)
    refused(await http.post("/api/replays", content=b'{"room": "\\ud800"}'), 400, "bad_record")
    # Parsed in a worker thread, refused as any lobby body.
    refused(await http.post("/api/replays", content=b"[1, 2]"), 400, "bad_json")
    refused(await http.post("/api/replays", content=b'{"format": '), 400, "bad_json")
    refused(await http.post("/api/replays", content=b'{"room": NaN}'), 400, "bad_json")
    refused(await http.post("/api/replays", content=b'{"room": 1e999}'), 400, "bad_json")
    refused(await http.post("/api/replays", content=b'{"room": "\xff"}'), 400, "bad_json")
    deep = b'{"room": ' + b"[" * 50_000 + b"]" * 50_000 + b"}"
    assert "nested too deep" in refused(await http.post("/api/replays", content=deep),
                                        400, "bad_json")
    refused(await http.post("/api/replays", content=b"{" + b" " * MAX_RECORD_BYTES + b"}"),
            413, "body_too_large")


async def test_a_posted_record_is_parsed_off_the_event_loop(
        server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    """Up to 4 MiB of JSON: parsed in a worker thread, not on the loop every room runs on."""
    room_id = await server.short_game()
    body = (await server.http.get(f"/api/rooms/{room_id}/record")).content
    parsed_on: list[str] = []
    loads = json.loads

    def watched(raw: Any, *args: Any, **kwargs: Any) -> Any:
        if raw == body:
            try:
                asyncio.get_running_loop()
                parsed_on.append("the event loop")
            except RuntimeError:  # no loop runs in this thread
                parsed_on.append("a worker thread")
        return loads(raw, *args, **kwargs)

    monkeypatch.setattr(json, "loads", watched)
    posted = await server.http.post("/api/replays", content=body)
    assert posted.status_code == 201, posted.text
    assert parsed_on == ["a worker thread"]


async def conceded_scenario_replays_from_its_first_state(server: Server) -> str:
    """A scenario room (troopers placed, the Orders Phase), conceded at once: its replay's
    first step is the state the room stored, its troopers where the scenario put them.
    Returns the room's id."""
    created = await server.app.state.registry.create(
        RoomSettings("codeone", 600.0, "private", fixed_seed=3),
        skirmish({"A-t1": (10.0, 5.0, 90.0), "B-t1": (10.0, 27.0, 270.0)}))
    room_id = created.meta.room_id
    seat = await Client.connect(server.base, room_id, created.token_a)
    assert isinstance(await seat.command({"type": "concede"}), Accepted)
    await seat.close()
    first = await server.http.get(f"/api/rooms/{room_id}/replay/state",
                                  params={"view": "revealed", "step": "0"})
    assert first.status_code == 200, first.text
    state = first.json()["state"]
    assert state["phase"] == "orders"
    assert {t["id"]: t["position"] for t in state["troopers"] if t["id"] in ("A-t1", "B-t1")} \
        == {"A-t1": [10.0, 5.0], "B-t1": [10.0, 27.0]}
    return room_id


async def test_a_room_that_began_from_a_state_of_its_own_replays_from_it(
        server: Server) -> None:
    """A scenario room (the browser tests') starts in the Orders Phase with its troopers
    placed: its replay folds from the first state the room stored, not from a new game."""
    await conceded_scenario_replays_from_its_first_state(server)
