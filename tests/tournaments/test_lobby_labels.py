"""The lobby's list of public rooms names the tables of public tournaments (docs/tournaments.md,
"The lobby's room list"), through the HTTP API: each table of a started round says its
tournament's name, round and table, with the link to its public page; a lobby room says
nothing; a private tournament's rooms are neither listed nor labelled; a retried
``start_round`` stores the labels again."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette

from server.app import create_app
from server.store.tournament_store import MemoryTournamentStore, TournamentStore
from tests.tournaments.helpers import Organizer, action_id, app_settings, serving

ARMY = "helion-c1-patrol"


@pytest.fixture
async def app() -> Starlette:
    return create_app(app_settings())


@pytest.fixture
async def http(app: Starlette) -> AsyncIterator[httpx.AsyncClient]:
    settings = app.state.settings
    async with serving(app, settings) as url, httpx.AsyncClient(base_url=url) as client:
        yield client


async def rooms(http: httpx.AsyncClient) -> dict[str, dict[str, Any]]:
    listed = await http.get("/api/rooms")
    assert listed.status_code == 200, listed.text
    return {room["room"]: room for room in listed.json()["rooms"]}


async def started(http: httpx.AsyncClient, name: str, visibility: str, start_id: str
                  ) -> tuple[Organizer, list[dict[str, Any]]]:
    organizer, _ = await Organizer.create(http, name=name, visibility=visibility, rounds=2)
    for player in ("Ana", "Ben", "Cy", "Dee"):
        await organizer.register(player, ARMY)
    view = (await organizer.act("start_round", id=start_id))["view"]
    return organizer, view["rounds"][0]["tables"]


async def test_a_public_tournaments_tables_are_named_in_the_lobby_list(
        app: Starlette, http: httpx.AsyncClient) -> None:
    start_id = action_id()
    organizer, tables = await started(http, "Winter Cup", "public", start_id)
    lobby_room = await http.post("/api/rooms", json={"ruleset": "codeone"})
    assert lobby_room.status_code == 201, lobby_room.text
    listed = await rooms(http)
    for table in tables:
        assert listed[table["room"]]["tournament"] == {
            "tournament": organizer.tournament, "name": "Winter Cup", "round": 1,
            "table": table["table"], "link": f"/#tournament={organizer.tournament}"}
    assert listed[lobby_room.json()["room"]]["tournament"] is None
    assert {t["table"] for t in tables} == {1, 2}

    # A retry of the start (its first answer lost, or the node stopped before labelling)
    # stores the same labels again.
    store = app.state.tournaments.store
    assert isinstance(store, MemoryTournamentStore)
    store._labels.clear()  # the memory store's index
    assert all(listed["tournament"] is None for listed in (await rooms(http)).values())
    again = await organizer.act("start_round", id=start_id)
    assert again["duplicate"] is True
    listed = await rooms(http)
    assert [listed[t["room"]]["tournament"]["table"] for t in tables] == [1, 2]


async def test_a_private_tournaments_rooms_are_neither_listed_nor_labelled(
        app: Starlette, http: httpx.AsyncClient) -> None:
    _, tables = await started(http, "Club Night", "private", action_id())
    listed = await rooms(http)
    assert all(table["room"] not in listed for table in tables)
    store: TournamentStore = app.state.tournaments.store
    assert await store.room_labels([t["room"] for t in tables]) == [None, None]
