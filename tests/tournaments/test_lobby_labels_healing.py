"""The lobby's labels of a public tournament's tables heal without the organizer, on a real
Redis (docs/tournaments.md, "The lobby's room list"): a round whose labels were lost (the
node stopped between the append and the labels; simulated by deleting them, or by a label
write that fails) is labelled again by the next read of the tournament on another node, or
by the public list of tournaments; a node asks the labels' index once per round it has seen
labelled; a failed label write answers the start (and reads) all the same, and the next
read stores them; a private tournament's rooms stay unlabelled whatever reads it."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Mapping
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis
from starlette.applications import Starlette

from server.app import create_app
from server.store.interface import StorageUnavailable
from server.store.redis_store import RedisRoomStore
from server.store.tournament_store import TABLES_KEY, RedisTournamentStore
from server.tournaments.service import Tournaments
from testkit.redis_process import RedisProcess
from tests.tournaments.helpers import Organizer, app_settings, serving

pytestmark = pytest.mark.redis

ARMY = "helion-c1-patrol"


@contextlib.asynccontextmanager
async def node(url: str, app: Starlette | None = None) -> AsyncIterator[httpx.AsyncClient]:
    """One server node whose rooms and tournaments are on the real redis-server (its
    lifespan closes its store)."""
    settings = app_settings()
    app = app or create_app(settings, store=RedisRoomStore.from_url(url))
    async with serving(app, settings) as base, httpx.AsyncClient(base_url=base) as client:
        yield client


async def started(http: httpx.AsyncClient, name: str, visibility: str = "public"
                  ) -> tuple[Organizer, list[dict[str, Any]]]:
    organizer, _ = await Organizer.create(http, name=name, visibility=visibility, rounds=2)
    for player in ("Ana", "Ben", "Cy", "Dee"):
        await organizer.register(player, ARMY)
    view = (await organizer.act("start_round"))["view"]
    return organizer, view["rounds"][0]["tables"]


async def listed(http: httpx.AsyncClient) -> dict[str, dict[str, Any]]:
    response = await http.get("/api/rooms")
    assert response.status_code == 200, response.text
    return {room["room"]: room for room in response.json()["rooms"]}


async def lobby_labels(http: httpx.AsyncClient, tables: list[dict[str, Any]]
                       ) -> list[tuple[int, int] | None]:
    """(round, table) of each table's room as the lobby's list names it (None: unnamed)."""
    rooms = await listed(http)
    named = [rooms[t["room"]]["tournament"] for t in tables]
    return [None if n is None else (n["round"], n["table"]) for n in named]


async def forget(admin: aioredis.Redis, tables: list[dict[str, Any]]) -> None:
    """The labels lost: as if the node had stopped between the append and the labels."""
    await admin.hdel(TABLES_KEY, *[t["room"] for t in tables])


async def test_another_nodes_read_of_the_tournament_labels_its_tables_again(
        redis_server: RedisProcess, admin: aioredis.Redis) -> None:
    async with node(redis_server.url) as first, node(redis_server.url) as second:
        organizer, tables = await started(first, "Winter Cup")
        assert await lobby_labels(second, tables) == [(1, 1), (1, 2)]
        await forget(admin, tables)
        # The lobby's list alone does not heal (it cannot tell a lost label from a lobby
        # room's none without another read per room).
        assert await lobby_labels(second, tables) == [None, None]

        view = await second.get(f"/api/tournaments/{organizer.tournament}")
        assert view.status_code == 200, view.text
        assert await lobby_labels(first, tables) == [(1, 1), (1, 2)]
        named = (await listed(first))[tables[0]["room"]]["tournament"]
        assert named == {"tournament": organizer.tournament, "name": "Winter Cup",
                         "round": 1, "table": 1,
                         "link": f"/#tournament={organizer.tournament}"}

        # A node that has seen the round labelled does not ask the index again: its reads
        # cost no more round trips; a node that has not seen it (here, a new one) heals.
        await forget(admin, tables)
        assert (await second.get(f"/api/tournaments/{organizer.tournament}")).status_code == 200
        assert await lobby_labels(second, tables) == [None, None]
        async with node(redis_server.url) as third:
            standings = await third.get(f"/api/tournaments/{organizer.tournament}/standings")
            assert standings.status_code == 200, standings.text
        assert await lobby_labels(second, tables) == [(1, 1), (1, 2)]


async def test_the_public_list_of_tournaments_labels_every_listed_tournaments_round(
        redis_server: RedisProcess, admin: aioredis.Redis) -> None:
    async with node(redis_server.url) as first:
        _, cup = await started(first, "Spring Cup")
        _, open_ = await started(first, "Spring Open")
        await forget(admin, cup + open_)  # as for tournaments made before the labels
        async with node(redis_server.url) as second:
            response = await second.get("/api/tournaments")
            assert response.status_code == 200, response.text
        assert await lobby_labels(first, cup + open_) == [(1, 1), (1, 2), (1, 1), (1, 2)]


class FailingLabels(RedisTournamentStore):
    """The tournaments' Redis store whose label writes fail while ``failing``."""

    failing = True
    writes = 0

    async def label_rooms(self, labels: Mapping[str, Mapping[str, Any]]) -> None:
        self.writes += 1
        if self.failing:
            raise StorageUnavailable("tournament label_rooms: the labels' node is down")
        await super().label_rooms(labels)


async def test_a_failed_label_write_is_retried_by_the_next_read_on_the_same_node(
        redis_server: RedisProcess) -> None:
    settings = app_settings()
    rooms = RedisRoomStore.from_url(redis_server.url)
    store = FailingLabels(rooms.client)
    app = create_app(settings, store=rooms, tournaments=Tournaments(
        store, rooms, lambda: app.state.registry.clock()))
    async with node(redis_server.url, app) as http:
        organizer, tables = await started(http, "Autumn Cup")  # the round starts: 200
        assert store.writes == 1
        assert await lobby_labels(http, tables) == [None, None]
        # Still failing: the read answers all the same, without the labels.
        assert (await http.get(f"/api/tournaments/{organizer.tournament}")).status_code == 200
        assert store.writes == 2
        assert await lobby_labels(http, tables) == [None, None]

        store.failing = False
        assert (await http.get(f"/api/tournaments/{organizer.tournament}")).status_code == 200
        assert store.writes == 3
        assert await lobby_labels(http, tables) == [(1, 1), (1, 2)]
        # Seen labelled: later reads write nothing.
        await organizer.view()
        await organizer.dashboard()
        assert store.writes == 3


async def test_a_private_tournaments_rooms_stay_unlabelled_whatever_reads_it(
        redis_server: RedisProcess, admin: aioredis.Redis) -> None:
    async with node(redis_server.url) as first, node(redis_server.url) as second:
        organizer, tables = await started(first, "Club Night", visibility="private")
        await organizer.view()
        await organizer.dashboard()
        assert (await second.get(f"/api/tournaments/{organizer.tournament}")).status_code == 200
        assert (await second.get("/api/tournaments")).status_code == 200
        assert await admin.hmget(TABLES_KEY, [t["room"] for t in tables]) == [None, None]
        rooms = await listed(second)
        assert all(t["room"] not in rooms for t in tables)
