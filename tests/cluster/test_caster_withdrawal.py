"""Withdrawing a caster link on two nodes (``server.transport.caster_sessions``): whichever
node the organizer asks, the link's sockets close on both -- the room's owner and the node
that relays it -- with ``error`` ``caster_withdrawn`` and close 4012, and the link opens
nothing on either afterwards; another link of the room goes on being served."""

from __future__ import annotations

import httpx
import pytest

from protocol.constants import PROTOCOL_VERSION, CloseCode
from protocol.messages import Error, Hello, Ping, Pong, Snapshot
from testkit.server_process import ServerProcess
from testkit.wsclient import Client

pytestmark = [pytest.mark.redis, pytest.mark.slow]


async def post(url: str, body: dict[str, object]) -> httpx.Response:
    async with httpx.AsyncClient() as http:
        return await http.post(url, json=body)


async def refused(base: str, room_id: str, token: str) -> None:
    client = await Client.connect(base, room_id, hello=False)
    await client.send(Hello(PROTOCOL_VERSION, room_id, token, None))
    assert (await client.until(Error)).code == "caster_withdrawn"
    assert await client.close_code() == CloseCode.CASTER_WITHDRAWN


async def test_a_withdrawn_link_closes_its_casters_on_the_owner_and_on_the_relay(
        nodes: tuple[ServerProcess, ServerProcess]) -> None:
    one, two = nodes
    created = (await post(f"{one.base}/api/rooms", {"ruleset": "n5"})).json()
    room_id, organizer = created["room"], created["organizer"]["token"]
    seat = await Client.connect(one.base, room_id, created["seats"]["A"]["token"])
    async with httpx.AsyncClient() as http:
        assert (await http.get(f"{one.base}/healthz")).json()["rooms"] == 1, "one owns it"
    links = []
    for base in (one.base, two.base, two.base):  # any node makes links
        made = await post(f"{base}/api/rooms/{room_id}/casters", {"organizer": organizer})
        assert made.status_code == 201
        links.append(made.json())
    first, second, kept = (link["caster"]["token"] for link in links)
    on_one = {token: await Client.connect(one.base, room_id, token) for token in (first, second)}
    on_two = {token: await Client.connect(two.base, room_id, token)
              for token in (first, second, kept)}
    for client in (*on_one.values(), *on_two.values()):
        assert client.welcome is not None and client.welcome.role == "caster"
        await client.until(Snapshot)

    # The first withdrawn through the owner, the second through the relay: each reaches
    # the other node's socket over the bus only.
    for token, node in ((first, one), (second, two)):
        nonce = token.split(".")[1]
        answer = await post(f"{node.base}/api/rooms/{room_id}/casters/{nonce}/withdraw",
                            {"organizer": organizer})
        assert answer.status_code == 200 and answer.json()["already_withdrawn"] is False
        for client in (on_one[token], on_two[token]):
            assert (await client.until(Error)).code == "caster_withdrawn"
            assert await client.close_code() == CloseCode.CASTER_WITHDRAWN
        for base in (one.base, two.base):
            await refused(base, room_id, token)

    listed = (await post(f"{two.base}/api/rooms/{room_id}/casters/list",
                         {"organizer": organizer})).json()["casters"]
    assert [c["withdrawn_ms"] is not None for c in listed] == [True, True, False]
    still = on_two[kept]
    await still.send(Ping(7))
    assert (await still.until(Pong)).nonce == 7 and not still.of(Error)
    await seat.close()
