"""Room creation starved by rotating addresses (the review: IPv6 /64s kept the node's budget
of 5/s empty; a legitimate creator was refused 10 times of 10, 503 ``lobby_busy``). The /64s
of one IPv6 /48 now share a budget, and a small reserve of the node is kept for known
clients: a seat or organizer token of a room a seat has played in
(server/lobby/admission.py, server/lobby/reserve.py)."""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator
from typing import Any

import httpx

from protocol.messages import Accepted
from testkit.serving import running_server
from testkit.wsclient import Client
from tests.doubles.fake_engine import FakeEngine
from tests.helpers import settings

_networks = itertools.count(1)


async def _lobby(**overrides: Any) -> AsyncIterator[httpx.AsyncClient]:
    async with (running_server(settings(**overrides), FakeEngine()) as url,
                httpx.AsyncClient(base_url=url) as http):
        http.headers["x-test-base"] = url
        yield http


async def create(http: httpx.AsyncClient, address: str, **body: Any) -> httpx.Response:
    return await http.post("/api/rooms", json={"ruleset": "n5", **body},
                           headers={"x-forwarded-for": address})


def rotating_48() -> str:
    """An address of a new IPv6 /48 each time: what an attacker with many prefixes sends."""
    return f"2001:db8:{next(_networks):x}::1"


async def test_the_64s_of_one_ipv6_48_share_a_budget() -> None:
    async for http in _lobby(ipv6_site_room_burst=3):
        statuses = [(await create(http, f"2001:db8:77:{n:x}::1")).status_code
                    for n in range(1, 5)]
        assert statuses == [201, 201, 201, 429]
        refused = await create(http, "2001:db8:77:99::1")
        assert refused.json()["error"] == "too_many_rooms"
        assert "2001:db8:77::/48" in refused.json()["message"]
        assert (await create(http, "2001:db8:78::1")).status_code == 201, "another /48"


async def test_a_known_player_creates_a_room_from_the_reserve_when_the_budget_is_spent() -> None:
    async for http in _lobby(node_room_burst=3, node_rooms_per_s=0.0001, node_reserve_burst=2,
                             node_reserve_per_s=0.0001, reserve_rooms_per_credential=4):
        base = http.headers["x-test-base"]
        played = (await create(http, "198.51.100.7")).json()
        unplayed = (await create(http, "198.51.100.7")).json()
        seat = await Client.connect(base, played["room"], played["seats"]["A"]["token"])
        assert isinstance(await seat.command({"type": "act", "value": 1}), Accepted)
        await seat.close()
        # An attacker rotating prefixes spends the rest of the node's budget.
        assert (await create(http, rotating_48())).status_code == 201
        attacker = await create(http, rotating_48())
        assert attacker.status_code == 503 and attacker.json()["error"] == "lobby_busy"
        # An anonymous creator is refused as before; a known player is not.
        assert (await create(http, "203.0.113.9")).status_code == 503
        known = {"room": played["room"], "token": played["seats"]["A"]["token"]}
        as_organizer = {"room": played["room"], "token": played["organizer"]["token"]}
        for credential in ({"room": unplayed["room"],  # nobody has played there
                            "token": unplayed["seats"]["A"]["token"]},
                           {"room": played["room"], "token": "c.x.\u00e9"},
                           {"room": played["room"], "token": unplayed["seats"]["A"]["token"]},
                           "not a credential"):
            refused = await create(http, "203.0.113.9", credential=credential)
            assert refused.status_code == 503, credential
        made = await create(http, "203.0.113.9", credential=known)
        assert made.status_code == 201, made.text
        assert (await create(http, "203.0.113.10", credential=as_organizer)).status_code == 201
        # The reserve is small: spent, it refuses known players too.
        spent = await create(http, "203.0.113.11", credential=known)
        assert spent.status_code == 503 and spent.json()["error"] == "lobby_busy"


async def test_one_credential_opens_a_bounded_number_of_reserve_rooms() -> None:
    async for http in _lobby(node_room_burst=1, node_rooms_per_s=0.0001, node_reserve_burst=10,
                             reserve_rooms_per_credential=1):
        base = http.headers["x-test-base"]
        played = (await create(http, "198.51.100.7")).json()
        seat = await Client.connect(base, played["room"], played["seats"]["B"]["token"])
        await seat.command({"type": "act", "value": 1})  # refused (A's turn): not played
        await seat.close()
        known = {"room": played["room"], "token": played["seats"]["A"]["token"]}
        assert (await create(http, "203.0.113.9", credential=known)).status_code == 503
        seat = await Client.connect(base, played["room"], played["seats"]["A"]["token"])
        assert isinstance(await seat.command({"type": "act", "value": 1}), Accepted)
        await seat.close()
        assert (await create(http, "203.0.113.9", credential=known)).status_code == 201
        again = await create(http, "203.0.113.9", credential=known)
        assert again.status_code == 503 and "credential" in again.json()["message"]
