"""The lobby's tables (docs/tables.md, protocol/README.md "HTTP lobby"): ``GET /api/tables``
lists the layouts whole; ``POST /api/rooms`` takes ``"table"`` as a layout id or a whole table
document, refuses a bad one with a stable code, and the room says which table it is on,
also after the server restarts on the same Redis. Bodies are read up to 64 KiB and no
further."""

from __future__ import annotations

import copy
import gc
import json
import math
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from protocol.messages import Snapshot
from server.app import create_app
from server.lobby.http import MAX_BODY_BYTES
from server.rules.table import table_catalogue
from server.store.redis_store import RedisRoomStore
from testkit.redis_process import RedisProcess
from testkit.serving import running_server
from testkit.wsclient import Client
from tests.doubles.fake_engine import FakeEngine
from tests.helpers import create_room, settings

KITCHEN: dict[str, Any] = {
    "format": "infinity-referee-table/1", "id": "kitchen-table", "title": "Kitchen table",
    "rulesets": ["n5"], "width": 48, "depth": 48,
    "zones": {"south": {"x0": 0, "y0": 0, "x1": 48, "y1": 12},
              "north": {"x0": 0, "y0": 36, "x1": 48, "y1": 48}},
    "terrain": [{"id": "fridge", "name": "Fridge", "kind": "building",
                 "polygon": [[20, 20], [28, 20], [28, 28], [20, 28]], "height": 6}],
}


async def test_the_tables_are_listed_whole_with_the_default_of_each_ruleset(
        http: httpx.AsyncClient) -> None:
    listed = (await http.get("/api/tables")).json()["tables"]
    assert [t["id"] for t in listed] == [item.layout.id for item in table_catalogue.shipped()]
    first = listed[0]
    assert (first["id"], first["title"], first["rulesets"], first["sample"], first["default"]) == (
        "n5-ashfall-refinery", "Ashfall Refinery", ["n5"], False, True)
    assert first["pieces"] == len(first["table"]["terrain"]) == 29
    assert first["table"] == table_catalogue.layout("n5-ashfall-refinery").document()
    assert [t["id"] for t in listed if t["default"]] == ["n5-ashfall-refinery",
                                                         "codeone-orbital-medlab"]
    codeone = (await http.get("/api/tables", params={"ruleset": "codeone"})).json()["tables"]
    assert [(t["id"], t["sample"]) for t in codeone] == [("codeone-orbital-medlab", False),
                                                          ("sample-open-codeone", True)]
    bad = await http.get("/api/tables", params={"ruleset": "n6"})
    assert bad.status_code == 400 and bad.json()["error"] == "bad_field"


async def test_a_room_without_a_table_gets_the_first_tournament_layout_of_its_ruleset(
        http: httpx.AsyncClient) -> None:
    n5 = await create_room(http)
    assert n5["settings"]["table"] == {"id": "n5-ashfall-refinery", "title": "Ashfall Refinery",
                                       "inline": False}
    codeone = await create_room(http, ruleset="codeone")
    assert codeone["settings"]["table"]["id"] == "codeone-orbital-medlab"


async def test_a_room_on_a_layout_named_by_id_says_so_when_described(
        http: httpx.AsyncClient) -> None:
    room = await create_room(http, table="n5-night-market")
    described = (await http.get(f"/api/rooms/{room['room']}")).json()
    assert described["settings"]["table"] == room["settings"]["table"] == {
        "id": "n5-night-market", "title": "Night Market", "inline": False}
    sample = await create_room(http, table="sample-open")
    assert sample["settings"]["table"]["title"] == "Open ground (sample)"


async def test_a_room_on_a_table_sent_whole(http: httpx.AsyncClient) -> None:
    room = await create_room(http, table=KITCHEN)
    assert room["settings"]["table"] == {"id": "kitchen-table", "title": "Kitchen table",
                                         "inline": True}
    described = (await http.get(f"/api/rooms/{room['room']}")).json()
    assert described["settings"]["table"]["inline"] is True
    # A shipped layout sent whole (as GET /api/tables gives it) is that layout.
    copied = table_catalogue.layout("n5-cargo-terminus").document()
    again = await create_room(http, table=copied)
    assert again["settings"]["table"] == {"id": "n5-cargo-terminus", "title": "Cargo Terminus",
                                          "inline": False}


@pytest.mark.parametrize(("table", "code", "says"), [
    ("no-such-table", "unknown_table", "there is no table 'no-such-table'"),
    ("codeone-orbital-medlab", "bad_table", "is a table for codeone, not n5"),
    (7, "bad_table", "must be a table id or a table object"),
    ("", "bad_table", "must be a table id or a table object"),
    ({**KITCHEN, "terrain": [{**KITCHEN["terrain"][0], "height": -2}]}, "bad_table",
     "table: terrain[0].height: must be more than 0"),
    ({**KITCHEN, "terrain": [{**KITCHEN["terrain"][0], "polygon": [[20, 20], [60, 20],
                                                                   [20, 28]]}]},
     "bad_table", "table: terrain[0].polygon[1]: (60, 20) is off the table"),
    ({**KITCHEN, "zones": {"south": KITCHEN["zones"]["south"]}}, "bad_table",
     "table: zones.north: is missing"),
    ({**KITCHEN, "rulesets": ["codeone"]}, "bad_table", "table: width: a codeone table"),
    ({**KITCHEN, "id": "n5-night-market"}, "bad_table", "the id of a shipped table"),
])
async def test_a_bad_table_is_refused_with_a_stable_code(
        http: httpx.AsyncClient, table: Any, code: str, says: str) -> None:
    response = await http.post("/api/rooms", json={"ruleset": "n5", "table": table})
    assert response.status_code == 400, response.text
    assert response.json()["error"] == code
    assert says in response.json()["message"]


async def test_a_body_over_64_kib_is_refused_unread(http: httpx.AsyncClient) -> None:
    padding = "x" * MAX_BODY_BYTES
    declared = await http.post("/api/rooms", json={"ruleset": "n5", "pad": padding})
    assert declared.status_code == 413 and declared.json()["error"] == "body_too_large"

    async def chunks() -> AsyncIterator[bytes]:  # no Content-Length: read until too much
        yield b'{"ruleset": "n5", "pad": "'
        for _ in range(MAX_BODY_BYTES // 1024 + 1):
            yield b"x" * 1024
        yield b'"}'
    streamed = await http.post("/api/rooms", content=chunks(),
                               headers={"content-type": "application/json"})
    assert streamed.status_code == 413 and streamed.json()["error"] == "body_too_large"


async def test_a_table_at_the_formats_limits_fits_in_a_body(http: httpx.AsyncClient) -> None:
    crowded = copy.deepcopy(KITCHEN)
    crowded["terrain"] = [  # 48 pieces of 8 points: 384 of the 400 points allowed
        {"id": f"fuel-tank-{i:02d}", "name": "Fuel tank, spare parts", "kind": "scatter",
         "polygon": [[round(3 + (i % 8) * 6 + math.cos(k * math.pi / 4), 3),
                      round(15 + (i // 8) * 3.5 + math.sin(k * math.pi / 4), 3)]
                     for k in range(8)],
         "height": 2.25, "gives_cover": True} for i in range(48)]
    assert len(json.dumps({"table": crowded})) < MAX_BODY_BYTES
    room = await create_room(http, table=crowded)
    assert room["settings"]["table"]["inline"] is True


@pytest.mark.parametrize("body", [b"[" * 10_000 + b"]" * 10_000, b"{", b"[1, 2]"])
async def test_a_body_that_is_not_a_json_object_is_bad_json(http: httpx.AsyncClient,
                                                            body: bytes) -> None:
    # Finalize what earlier tests left to the garbage collector now: a collection that starts
    # inside the parser's ten thousand levels would run their finalizers with no stack left,
    # and pytest reports what they raise there as this test's failure.
    gc.collect()
    response = await http.post("/api/rooms", content=body,
                               headers={"content-type": "application/json"})
    assert response.status_code == 400 and response.json()["error"] == "bad_json"


@pytest.mark.redis
async def test_a_rooms_table_survives_a_restart_of_the_server(
        redis_server: RedisProcess) -> None:
    def serving() -> Any:  # the app closes its store when it stops
        store = RedisRoomStore.from_url(redis_server.url)
        return running_server(settings(), app=create_app(settings(), engine=FakeEngine(),
                                                         store=store))

    async with serving() as url, httpx.AsyncClient(base_url=url) as http:
        inline = await create_room(http, table=KITCHEN)
        chosen = await create_room(http, ruleset="codeone", table="sample-open-codeone")
    async with serving() as url, httpx.AsyncClient(base_url=url) as http:
        for room in (inline, chosen):
            described = (await http.get(f"/api/rooms/{room['room']}")).json()
            assert described["settings"]["table"] == room["settings"]["table"]


async def test_the_game_of_a_lobby_room_is_set_up_on_the_rooms_table() -> None:
    async with running_server(settings()) as url, httpx.AsyncClient(base_url=url) as http:
        room = await create_room(http, table="n5-night-market")
        spectator = await Client.connect(url, room["room"])
        try:
            assert spectator.welcome is not None
            assert spectator.welcome.settings.get("table") == room["settings"]["table"]
            state = (await spectator.until(Snapshot)).state
            assert state["table"]["id"] == "n5-night-market"
        finally:
            await spectator.close()
