"""Tournaments bypassed every room-creation limit (the review: an address refused by
``POST /api/rooms`` made a tournament, registered 256 players and started a round, 128
rooms in 1.2 s). A round's rooms now count against the lobby's limits, per address and per
node, all or none, with a reason the organizer can act on; creating tournaments is limited
per address (docs/tournaments.md, "Rounds and the room limits")."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx

from server.app import create_app
from tests.tournaments.helpers import Organizer, app_settings, serving

ARMY = "helion-c1-patrol"


async def _server(**overrides: Any) -> AsyncIterator[httpx.AsyncClient]:
    settings = app_settings(**overrides)
    async with (serving(create_app(settings), settings) as url,
                httpx.AsyncClient(base_url=url) as client):
        yield client


async def _tournament(http: httpx.AsyncClient, players: int) -> Organizer:
    organizer, _ = await Organizer.create(http, rounds=1)
    for n in range(players):
        await organizer.register(f"P{n}", ARMY, organizer=True)
    return organizer


async def _rooms_until_refused(http: httpx.AsyncClient) -> httpx.Response:
    for _ in range(100):
        made = await http.post("/api/rooms", json={"ruleset": "codeone"})
        if made.status_code != 201:
            return made
    raise AssertionError("the lobby never refused")


async def test_an_address_refused_by_the_lobby_cannot_start_a_round() -> None:
    async for http in _server(client_room_burst=10):
        organizer = await _tournament(http, 4)
        refused_room = await _rooms_until_refused(http)
        assert refused_room.status_code == 429
        rooms_before = len((await http.get("/api/rooms")).json()["rooms"])
        refused = await organizer.act("start_round", status=429)
        assert refused["error"] == "too_many_rooms"
        assert "a round of 2 tables" in refused["message"]
        assert refused["retry_after_s"] >= 1
        assert (await organizer.view())["status"] == "registration", "nothing started"
        assert len((await http.get("/api/rooms")).json()["rooms"]) == rooms_before


async def test_a_round_bigger_than_the_burst_starts_from_a_full_budget_and_leaves_it_in_debt(
        ) -> None:
    async for http in _server(client_room_burst=3, client_rooms_per_hour=3600.0 / 1000):
        organizer = await _tournament(http, 8)  # 4 tables: more than the burst of 3
        started = await organizer.act("start_round")
        assert started["view"]["status"] == "playing"
        # The address is now in debt: the lobby refuses it a room.
        after = await http.post("/api/rooms", json={"ruleset": "codeone"})
        assert after.status_code == 429 and after.json()["error"] == "too_many_rooms"


async def test_a_round_over_the_nodes_budget_is_refused_503_and_starts_nothing() -> None:
    async for http in _server(node_room_burst=3, node_rooms_per_s=0.001):
        organizer = await _tournament(http, 8)
        assert (await http.post("/api/rooms", json={"ruleset": "codeone"})).status_code == 201
        refused = await organizer.act("start_round", status=503)
        assert refused["error"] == "lobby_busy" and "a round of 4 tables" in refused["message"]
        assert (await organizer.view())["status"] == "registration"


async def test_a_round_that_would_pass_the_unstarted_rooms_cap_is_refused() -> None:
    async for http in _server(max_unstarted_rooms=5):
        organizer = await _tournament(http, 8)
        for _ in range(2):
            assert (await http.post("/api/rooms", json={"ruleset": "codeone"})).status_code == 201
        refused = await organizer.act("start_round", status=503)
        assert refused["error"] == "lobby_busy"
        assert "5 rooms nobody has joined yet (2 now)" in refused["message"]


async def test_tournament_creation_is_limited_per_address() -> None:
    async for http in _server(client_tournament_burst=3):
        statuses = []
        for n in range(5):
            made = await http.post("/api/tournaments", json={
                "action_id": f"limits-creation-{n:04d}", "name": f"Cup {n}", "rounds": 1},
                headers={"x-forwarded-for": "198.51.100.7"})
            statuses.append(made.status_code)
        assert statuses == [201, 201, 201, 429, 429]
        assert made.json()["error"] == "too_many_tournaments" and "Retry-After" in made.headers
        other = await http.post("/api/tournaments", json={
            "action_id": "limits-creation-other", "name": "Other", "rounds": 1},
            headers={"x-forwarded-for": "203.0.113.9"})
        assert other.status_code == 201
