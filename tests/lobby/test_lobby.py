"""The HTTP lobby: health, room creation, seat tokens, the public room list."""

from __future__ import annotations

import httpx

from protocol.messages import Snapshot
from testkit.serving import running_server
from testkit.wsclient import Client
from tests.doubles.fake_engine import FakeEngine
from tests.helpers import create_room, settings


async def test_healthz_answers_200(http: httpx.AsyncClient) -> None:
    response = await http.get("/healthz")
    assert response.status_code == 200 and response.json()["status"] == "ok"


async def test_create_room_hands_out_two_distinct_secret_seat_tokens(
    http: httpx.AsyncClient,
) -> None:
    room = await create_room(http, aro_window_s=12, visibility="private")
    token_a, token_b = room["seats"]["A"]["token"], room["seats"]["B"]["token"]
    assert token_a != token_b and len(token_a) >= 32
    assert room["settings"] == {"ruleset": "n5", "aro_window_s": 12.0,
                                "visibility": "private", "spectator_delay_s": 0.0,
                                "clock_s": 0, "aro_min_open_s": 0.0, "mission": None,
                                "bot": None, "ranked": True,
                                "table": {"id": "n5-ashfall-refinery",
                                          "title": "Ashfall Refinery", "inline": False}}
    assert room["spectator_link"] == f"/#room={room['room']}"
    joined = await http.post(f"/api/rooms/{room['room']}/join", json={"token": token_b})
    assert joined.json()["seat"] == "B"
    wrong = await http.post(f"/api/rooms/{room['room']}/join", json={"token": "guess"})
    assert wrong.status_code == 403 and wrong.json()["error"] == "bad_token"


async def test_a_public_lobby_refuses_a_fixed_seed_and_publishes_a_commitment(
    http: httpx.AsyncClient, fake_server: str
) -> None:
    refused = await http.post("/api/rooms", json={"seed": 1234})
    assert refused.status_code == 400 and refused.json()["error"] == "bad_field"
    room = await create_room(http)
    commitment = room["dice_commitment"]
    assert len(commitment) == 64 and int(commitment, 16) >= 0 and room["fixed_dice"] is False
    described = (await http.get(f"/api/rooms/{room['room']}")).json()
    assert (described["dice_commitment"], described["fixed_dice"]) == (commitment, False)
    assert "version" not in described, "the global version would count hidden events"
    listed = {r["room"]: r for r in (await http.get("/api/rooms")).json()["rooms"]}
    assert listed[room["room"]]["fixed_dice"] is False
    for token in (room["seats"]["A"]["token"], None):
        client = await Client.connect(fake_server, room["room"], token)
        welcome = client.welcome
        assert welcome is not None
        assert (welcome.dice_commitment, welcome.fixed_dice) == (commitment, False)
        await client.close()


async def test_with_the_testing_switch_a_seed_makes_a_room_that_says_its_dice_are_fixed(
    fake_engine: FakeEngine,
) -> None:
    async with running_server(settings(allow_fixed_seed=True), fake_engine) as url, \
            httpx.AsyncClient(base_url=url) as http:
        room = await create_room(http, seed=1234)
        assert room["fixed_dice"] is True
        described = await http.get(f"/api/rooms/{room['room']}")
        assert described.json()["fixed_dice"] is True and "1234" not in described.text
        listed = {r["room"]: r for r in (await http.get("/api/rooms")).json()["rooms"]}
        assert listed[room["room"]]["fixed_dice"] is True
        spectator = await Client.connect(url, room["room"])
        assert spectator.welcome is not None and spectator.welcome.fixed_dice is True
        await spectator.close()


async def test_bad_create_requests_are_refused_with_a_reason(http: httpx.AsyncClient) -> None:
    for body in ({"ruleset": "chess"}, {"aro_window_s": -1}, {"visibility": "secret"},
                 {"seed": "x"}, {"typo": 1}, {"aro_min_open_s": -1},
                 {"aro_min_open_s": 31, "aro_window_s": 60},
                 {"aro_min_open_s": 5, "aro_window_s": 4}, {"aro_min_open_s": "3"}):
        response = await http.post("/api/rooms", json=body)
        assert response.status_code == 400 and response.json()["error"] == "bad_field", body
    assert (await http.post("/api/rooms", content=b"[")).json()["error"] == "bad_json"
    assert (await http.get("/api/rooms/nope")).status_code == 404


async def test_public_list_shows_round_turn_and_spectators_not_private_rooms(
    http: httpx.AsyncClient, fake_server: str
) -> None:
    public = await create_room(http)
    private = await create_room(http, visibility="private")
    watcher = await Client.connect(fake_server, public["room"])
    await watcher.until(Snapshot)
    rooms = {item["room"]: item for item in (await http.get("/api/rooms")).json()["rooms"]}
    assert private["room"] not in rooms
    listed = rooms[public["room"]]
    assert (listed["round"], listed["turn"], listed["spectators"]) == (1, 1, 1)
