"""A tournament across two nodes on one Redis: created and started on node one, read and
played on node two; node one is killed (kill -9) in the middle of the round, node two
takes its tables' rooms over, the games end there, and node two records the results and
answers everything node one would have: no tournament state lives in a node."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from protocol.constants import CloseCode
from protocol.messages import Accepted, Snapshot
from testkit.redis_process import RedisProcess
from testkit.server_process import ServerProcess, two_nodes
from testkit.wsclient import Client
from tests.tournaments.helpers import Organizer

pytestmark = [pytest.mark.redis, pytest.mark.slow]
ARMY = "vesper-c1-cell"


@pytest.fixture
async def nodes(redis_server: RedisProcess) -> AsyncIterator[tuple[ServerProcess, ServerProcess]]:
    async with two_nodes(redis_server.url, ServerProcess, prefix="t-") as started:
        yield started


async def test_the_other_node_takes_the_tables_over_and_records_their_results(
        nodes: tuple[ServerProcess, ServerProcess]) -> None:
    one, two = nodes
    async with httpx.AsyncClient(base_url=one.base) as http_one, \
            httpx.AsyncClient(base_url=two.base) as http_two:
        organizer, _ = await Organizer.create(http_one, rounds=1)
        on_two = Organizer(http_two, organizer.tournament, organizer.token)
        tokens = [(await on_two.register(name, ARMY))["token"] for name in "ABCD"]
        await organizer.act("start_round")  # node one makes the rooms: it owns them
        pages = [await on_two.me(token) for token in tokens]
        seats = []
        for page in pages:  # every seat through node two, relayed to node one
            client = await Client.connect(two.base, page["current"]["room"],
                                          page["current"]["seat_token"])
            await client.until(Snapshot)
            seats.append((page, client))

        await one.kill()
        for _page, client in seats:  # node two takes each room and sends its viewers back
            assert await client.close_code() == CloseCode.ROOM_UNAVAILABLE
        losers = {}
        for page, client in seats:
            current = page["current"]
            if current["seat"] != "B":
                continue
            again = await Client.connect(two.base, current["room"], current["seat_token"],
                                         since=client.version)
            answer = await again.command({"type": "concede"})
            assert isinstance(answer, Accepted), answer
            await again.close()
            losers[current["table"]] = page["player"]["player"]

        view = await on_two.view()
        assert view["status"] == "finished"
        for table in view["rounds"][0]["tables"]:
            result = table["result"]
            assert result["reason"] == "concession" and result["source"] == "game"
            assert result["winner"] == table["a"] and losers[table["table"]] == table["b"]
        assert [row["tp"] for row in view["standings"]] == [4, 4, 0, 0]
        board = await on_two.dashboard()
        assert all(row["over"] for row in board["tables"])
