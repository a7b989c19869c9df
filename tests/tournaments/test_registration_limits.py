"""One anonymous client could fill any public tournament for good (the review: 256 of 270
registrations from one address in seconds, then ``tournament_full``; a bot the organizer
dropped kept its place). Registration is limited per client address (on the node, and per
tournament in the log), a player dropped before playing frees its place, and the
organizer may close registration (docs/tournaments.md, "Registration limits")."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from server.app import create_app
from tests.tournaments.helpers import Organizer, action_id, app_settings, serving

ARMY = "helion-c1-patrol"


async def _server(**overrides: Any) -> AsyncIterator[httpx.AsyncClient]:
    settings = app_settings(**overrides)
    async with (serving(create_app(settings), settings) as url,
                httpx.AsyncClient(base_url=url) as client):
        yield client


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async for client in _server(client_registration_burst=10,  # the defaults
                                registrations_per_address=4):
        yield client


@pytest.fixture
async def open_http() -> AsyncIterator[httpx.AsyncClient]:
    """No budget per address on the node: the other limits alone."""
    async for client in _server(registrations_per_address=4):
        yield client


async def register(http: httpx.AsyncClient, tournament: str, name: str,
                   address: str = "198.51.100.7") -> httpx.Response:
    return await http.post(f"/api/tournaments/{tournament}/players",
                           json={"action_id": action_id(), "name": name, "army": ARMY},
                           headers={"x-forwarded-for": address})


async def test_one_address_registering_in_a_burst_is_refused_429_with_retry_after(
        http: httpx.AsyncClient) -> None:
    tournaments = [(await Organizer.create(http, name=f"Cup {n}"))[0].tournament
                   for n in range(4)]
    answers = [await register(http, tournaments[n % 4], f"Bot {n}") for n in range(30)]
    statuses = [a.status_code for a in answers]
    assert statuses[:10] == [201] * 10  # the burst, over several tournaments
    refused = answers[10]
    assert refused.status_code == 429 and refused.json()["error"] == "too_many_registrations"
    assert int(refused.headers["Retry-After"]) >= 1
    assert statuses.count(201) == 10, statuses
    other = await register(http, tournaments[0], "Real player", address="203.0.113.9")
    assert other.status_code == 201, "another address has its own budget"


async def test_one_address_holds_at_most_four_places_of_a_tournament(
        open_http: httpx.AsyncClient) -> None:
    organizer, _ = await Organizer.create(open_http)
    statuses = [(await register(open_http, organizer.tournament, f"Bot {n}")).status_code
                for n in range(6)]
    assert statuses == [201, 201, 201, 201, 409, 409]
    refused = await register(open_http, organizer.tournament, "Bot 7")
    assert refused.json()["error"] == "registrations_per_address"
    ipv6 = ["2001:db8:1:2::1", "2001:db8:1:2::2", "2001:db8:1:2:ffff::3", "2001:db8:1:2::4",
            "2001:db8:1:2::5"]
    same_64 = [(await register(open_http, organizer.tournament, f"V6 {n}", address=a))
               .status_code for n, a in enumerate(ipv6)]
    assert same_64 == [201, 201, 201, 201, 409], "an IPv6 /64 counts as one address"
    await organizer.register("Club member", ARMY, organizer=True)  # the organizer: beyond it
    # Dropped before playing: the place is free again for that address.
    await organizer.act("drop", player="p1")
    again = await register(open_http, organizer.tournament, "Bot 8")
    assert again.status_code == 201, again.text
    # The registrant is never shown.
    view = await organizer.view()
    assert "registrant" not in str(view)


async def test_a_bot_dropped_before_round_1_frees_its_place(open_http: httpx.AsyncClient) -> None:
    organizer, _ = await Organizer.create(open_http, max_players=4)
    for n in range(4):
        assert (await register(open_http, organizer.tournament, f"P{n}",
                               address=f"198.51.100.{n + 1}")).status_code == 201
    full = await register(open_http, organizer.tournament, "Real player",
                          address="203.0.113.9")
    assert full.status_code == 409 and full.json()["error"] == "tournament_full"
    await organizer.act("drop", player="p2")  # a bot
    joined = await register(open_http, organizer.tournament, "Real player",
                            address="203.0.113.9")
    assert joined.status_code == 201, joined.text
    view = await organizer.view()
    assert view["places_taken"] == 4 and view["settings"]["max_players"] == 4
    # Reinstating the bot needs a free place: there is none.
    refused = await organizer.act("reinstate", player="p2", status=409)
    assert refused["error"] == "tournament_full"


async def test_after_round_1_a_dropped_player_keeps_its_place(
        open_http: httpx.AsyncClient) -> None:
    organizer, _ = await Organizer.create(open_http, max_players=4, rounds=2)
    for n in range(4):
        await register(open_http, organizer.tournament, f"P{n}", address=f"198.51.100.{n + 1}")
    await organizer.act("start_round")
    for table in (await organizer.dashboard())["tables"]:
        await organizer.act("close", round=1, table=table["table"],
                            result={"winner": table["a"], "vp": {table["a"]: 1, table["b"]: 0}},
                            reason="played at the venue")
    await organizer.act("drop", player="p1")  # has played: stays in the standings
    assert (await organizer.view())["places_taken"] == 4
    added = await open_http.post(f"/api/tournaments/{organizer.tournament}/players", json={
        "action_id": action_id(), "name": "Late", "army": ARMY, "organizer": organizer.token})
    assert added.status_code == 409 and added.json()["error"] == "tournament_full"


async def test_the_organizer_closes_and_opens_registration(open_http: httpx.AsyncClient) -> None:
    organizer, _ = await Organizer.create(open_http)
    assert (await register(open_http, organizer.tournament, "Early")).status_code == 201
    closed = await organizer.act("close_registration")
    assert closed["view"]["registration_closed"] is True
    late = await register(open_http, organizer.tournament, "Late", address="203.0.113.9")
    assert late.status_code == 409 and late.json()["error"] == "registration_closed"
    await organizer.register("Invited", ARMY, organizer=True)  # the organizer still adds
    await organizer.act("open_registration")
    assert (await register(open_http, organizer.tournament, "Late",
                           address="203.0.113.9")).status_code == 201
    await organizer.act("start_round")
    after = await organizer.act("close_registration", status=409)
    assert after["error"] == "registration_closed"


async def test_max_players_is_checked_at_creation(open_http: httpx.AsyncClient) -> None:
    for bad in (1, 257, "8", True):
        made = await open_http.post("/api/tournaments", json={
            "action_id": action_id(), "name": "x", "rounds": 1, "max_players": bad})
        assert made.status_code == 400 and made.json()["error"] == "bad_field"
