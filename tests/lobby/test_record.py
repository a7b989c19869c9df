"""``GET /api/rooms/{room}/record``: a whole game played over real websockets (a room made by
the lobby, so its dice come from a random secret and both players' entropy), then its
record: refused while the game runs, served once it is over, and accepted by
``python -m server.verify``."""

from __future__ import annotations

import hashlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from protocol.messages import Accepted
from server import verify
from server.app import create_app
from server.lobby.record import not_refereed_of
from server.rooms.room import Room
from server.rules.armies.army_catalogue import load_weapons
from server.rules.armies.army_list import load_army_list
from server.rules.ids import Side
from server.rules.plain import to_plain
from server.rules.state import Phase
from testkit.full_game import next_command
from testkit.serving import running_server
from testkit.wsclient import Client
from tests.helpers import settings
from tests.support.brought_lists import brought

ENTROPY = {Side.A: hashlib.sha256(b"record: A").hexdigest(),
           Side.B: hashlib.sha256(b"record: B").hexdigest()}


class Table:
    """Two seats playing one room, and the room itself (read to choose each command)."""

    def __init__(self, http: httpx.AsyncClient, room: Room, seats: dict[Side, Client]) -> None:
        self.http, self.room, self.seats = http, room, seats

    async def record(self) -> httpx.Response:
        return await self.http.get(f"/api/rooms/{self.room.room_id}/record")

    async def play(self, until: Any) -> None:
        """Play commands until ``until(state)`` holds; each seat reads every frame."""
        while not until(self.room.state):
            side, body = next_command(self.room.state, ENTROPY, "codeone")
            answer = await self.seats[side].command(body)
            assert isinstance(answer, Accepted), (body, answer)
            for seat in self.seats.values():
                while seat.version < self.room.version:
                    await seat.next()


@pytest.fixture
async def table() -> AsyncIterator[Table]:
    app_settings = settings(rate_burst=10_000)  # a scripted player answers at once
    app = create_app(app_settings)
    async with running_server(app_settings, app=app) as base, \
            httpx.AsyncClient(base_url=base) as http:
        created = await http.post("/api/rooms", json={
            "ruleset": "codeone", "aro_window_s": 600, "visibility": "private",
            # The open sample: the scripted game shoots in many Orders (dice to verify).
            "table": "sample-open-codeone"})
        assert created.status_code == 201, created.text
        room_id = created.json()["room"]
        seats = {side: await Client.connect(base, room_id, created.json()["seats"][side.value]["token"])
                 for side in Side}
        room = await app.state.registry.open(room_id)
        assert isinstance(room, Room)
        yield Table(http, room, seats)
        for seat in seats.values():
            await seat.close()


def assert_refused(response: httpx.Response) -> None:
    assert response.status_code == 409
    assert response.json() == {"error": "game_not_over", "message": response.json()["message"]}


@pytest.mark.slow  # a whole game over websockets
async def test_the_record_is_refused_until_the_game_is_over_then_served_and_verified(
        table: Table, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert_refused(await table.record())  # no event yet
    await table.play(lambda state: state.phase is Phase.ORDERS)
    assert_refused(await table.record())
    await table.play(lambda state: state.dice.cursor >= 20)  # Orders rolled
    assert_refused(await table.record())
    await table.play(lambda state: state.phase is Phase.GAME_OVER)

    response = await table.record()
    assert response.status_code == 200
    record = response.json()
    room = table.room
    assert record["format"] == "infinity-referee-record/1"
    assert (record["room"], record["created_ms"]) == (room.room_id, room.meta.created_ms)
    assert record["settings"] == {"ruleset": "codeone", "aro_window_s": 600.0,
                                  "visibility": "private", "spectator_delay_s": 0.0,
                                  "clock_s": 0, "table": "sample-open-codeone",
                                  "mission": None}
    assert record["fixed_dice"] is False
    events = [entry["event"] for entry in record["events"]]
    assert [entry["index"] for entry in record["events"]] == list(range(1, room.version + 1))
    assert events[-1]["type"] == "game_ended" and record["result"] == events[-1]["result"]
    assert {side: army["id"] for side, army in record["armies"].items()} == {
        "A": "helion-c1-patrol", "B": "vesper-c1-cell"}
    assert record["dice"]["contributions"] == {side.value: ENTROPY[side] for side in Side}
    published = getattr(table.seats[Side.A].welcome, "dice_commitment", "")
    if published:  # the commitment every seat was shown before the first roll
        assert record["dice"]["commitment"] == published
    rolled = [e for e in events if e["type"] == "order_resolved" and e["dice"]["drawn"]]
    assert len(rolled) >= 5, "the game must roll dice in many Orders"

    path = tmp_path / "record.json"
    path.write_text(response.text)
    assert verify.main([str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("record OK: ") and record["dice"]["commitment"] in out

    one, two = (entry for entry in record["events"] if entry["event"] in (rolled[1], rolled[-1]))
    one["event"], two["event"] = two["event"], one["event"]
    path.write_text(json.dumps(record))
    assert verify.main([str(path)]) == 1  # tampered: two rolling events swapped
    assert f"record FAILED: event {one['index']} (order_resolved)" in capsys.readouterr().out


async def test_no_room_no_record() -> None:
    app_settings = settings()
    async with running_server(app_settings) as base, httpx.AsyncClient(base_url=base) as http:
        response = await http.get("/api/rooms/0-nosuchroom/record")
    assert response.status_code == 404 and response.json()["error"] == "room_not_found"


def test_the_record_lists_what_the_referee_did_not_play_trooper_by_trooper() -> None:
    army = load_army_list(brought(t3=["Gizmo Visor L1 — played without it"]), load_weapons())
    plain = to_plain(army)
    unit = army.entry("t3").profile.name
    assert not_refereed_of(plain) == [
        {"entry": "t3", "unit": unit, "items": ["Gizmo Visor L1 — played without it"]}]
    assert not_refereed_of(to_plain(load_army_list(brought(), load_weapons()))) == []
