"""The organizer's dashboard shows each table's room's own caster link, on a real Redis: the
room's oldest link in use, made and recorded (as ``POST /api/rooms/{room}/casters`` does) only
when the room has none. Two reads give the same link, which the room's organizer page lists;
once withdrawn there, the old link is refused at hello and the next read makes (and records)
another; reads at once make one link (``RoomStore.current_caster_link``)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import parse_qs

import httpx
import pytest

from server.app import create_app
from server.store.redis_store import RedisRoomStore
from testkit.wsclient import Client
from tests.support.withdrawn_casters import refused_as_withdrawn
from tests.tournaments.helpers import Organizer, app_settings, serving

pytestmark = pytest.mark.redis

ARMY = "helion-c1-patrol"


@pytest.fixture
async def http(redis_store: RedisRoomStore) -> AsyncIterator[httpx.AsyncClient]:
    """One node whose rooms and tournaments are on the real redis-server."""
    settings = app_settings()
    async with serving(create_app(settings, store=redis_store), settings) as url, \
            httpx.AsyncClient(base_url=url) as client:
        yield client


async def started(http: httpx.AsyncClient, players: int = 2) -> Organizer:
    organizer, _ = await Organizer.create(http, rounds=1)
    for n in range(players):
        await organizer.register(f"Player {n}", ARMY)
    await organizer.act("start_round")
    return organizer


def fragment(link: str) -> dict[str, str]:
    return {key: values[0] for key, values in parse_qs(link.split("#", 1)[1]).items()}


class RoomOrganizer:
    """A table's room as its organizer page manages it (the dashboard's organizer link)."""

    def __init__(self, http: httpx.AsyncClient, row: dict[str, Any]) -> None:
        self.http, self.room = http, row["room"]
        self.token = fragment(row["organizer_link"])["organizer"]

    async def listed(self) -> list[dict[str, Any]]:
        response = await self.http.post(f"/api/rooms/{self.room}/casters/list",
                                        json={"organizer": self.token})
        assert response.status_code == 200, response.text
        return response.json()["casters"]  # type: ignore[no-any-return]

    async def withdraw(self, nonce: str) -> None:
        response = await self.http.post(f"/api/rooms/{self.room}/casters/{nonce}/withdraw",
                                        json={"organizer": self.token})
        assert response.status_code == 200, response.text
        assert response.json()["already_withdrawn"] is False


def caster_of(row: dict[str, Any]) -> tuple[str, str]:
    """(token, nonce) of the row's caster link; the overlay link is on the same token."""
    token = fragment(row["caster_link"])["token"]
    assert fragment(row["caster_link"]) == {"room": row["room"], "token": token}
    assert row["overlay_link"] == f"/overlay#room={row['room']}&token={token}"
    return token, token.split(".")[1]


async def test_two_reads_give_each_table_the_same_link_which_its_room_lists(
        http: httpx.AsyncClient) -> None:
    organizer = await started(http, players=4)
    first = (await organizer.dashboard())["tables"]
    again = (await organizer.dashboard())["tables"]
    assert len(first) == 2
    assert [(r["caster_link"], r["overlay_link"]) for r in again] == [
        (r["caster_link"], r["overlay_link"]) for r in first]
    assert first[0]["caster_link"] != first[1]["caster_link"], "one link per table's room"
    for row in first:
        token, nonce = caster_of(row)
        listed = await RoomOrganizer(http, row).listed()
        assert [(c["nonce"], c["withdrawn_ms"]) for c in listed] == [(nonce, None)], \
            "recorded once, in use"
        assert listed[0]["caster"]["link"] == row["caster_link"]
        assert listed[0]["caster"]["overlay_link"] == row["overlay_link"]
        caster = await Client.connect(str(http.base_url), row["room"], token)
        try:
            assert caster.welcome is not None and caster.welcome.role == "caster"
        finally:
            await caster.close()


async def test_the_dashboard_shows_the_rooms_oldest_link_made_on_its_organizer_page(
        http: httpx.AsyncClient) -> None:
    organizer = await started(http)
    (row,) = (await organizer.dashboard())["tables"]
    room = RoomOrganizer(http, row)
    made = await http.post(f"/api/rooms/{room.room}/casters", json={"organizer": room.token})
    assert made.status_code == 201, made.text
    _, shown = caster_of(row)
    assert caster_of((await organizer.dashboard())["tables"][0])[1] == shown, "still the oldest"
    await room.withdraw(shown)
    assert caster_of((await organizer.dashboard())["tables"][0])[1] == made.json()["nonce"], \
        "the oldest in use: the organizer page's, nothing new made"
    assert len(await room.listed()) == 2


async def test_after_a_withdrawal_the_next_read_makes_and_records_a_new_link(
        http: httpx.AsyncClient) -> None:
    organizer = await started(http)
    (row,) = (await organizer.dashboard())["tables"]
    old_token, old_nonce = caster_of(row)
    room = RoomOrganizer(http, row)
    await room.withdraw(old_nonce)
    await refused_as_withdrawn(str(http.base_url), row["room"], old_token)

    (renewed,) = (await organizer.dashboard())["tables"]
    new_token, new_nonce = caster_of(renewed)
    assert new_nonce != old_nonce
    assert caster_of((await organizer.dashboard())["tables"][0]) == (new_token, new_nonce)
    listed = await room.listed()
    assert [c["nonce"] for c in listed] == [old_nonce, new_nonce]
    assert listed[0]["withdrawn_ms"] is not None and listed[0]["caster"] is None
    assert listed[1]["withdrawn_ms"] is None
    assert listed[1]["caster"]["link"] == renewed["caster_link"]
    caster = await Client.connect(str(http.base_url), row["room"], new_token)
    try:
        assert caster.welcome is not None and caster.welcome.role == "caster"
    finally:
        await caster.close()
    await refused_as_withdrawn(str(http.base_url), row["room"], old_token)


async def test_reads_at_once_make_one_link(http: httpx.AsyncClient) -> None:
    organizer = await started(http)
    # Connections open first (HTTP and Redis), so that the reads run side by side.
    await asyncio.gather(*(organizer.view() for _ in range(8)))
    boards = await asyncio.gather(*(organizer.dashboard() for _ in range(8)))
    links = {board["tables"][0]["caster_link"] for board in boards}
    assert len(links) == 1, links
    (row,) = boards[0]["tables"]
    assert [c["nonce"] for c in await RoomOrganizer(http, row).listed()] == [caster_of(row)[1]]

