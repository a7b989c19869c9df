"""``/metrics`` revealed a seat's private commands (the review: while the reactive player's
window was open, ``referee_commands_total{outcome="accepted"}`` and the appends rose by 2
when it passed a hidden trooper privately, by 0 when it had nothing to pass), and it was
on the game's public port. Now it is off that port by default (a listener of its own, or a
bearer token), and a seat's command whose outcome no spectator sees moves no counter
(server/metrics.py, docs/server.md "Metrics")."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from protocol.messages import Accepted, Events, Rejected
from server.app import create_app
from server.store.redis_store import RedisRoomStore
from testkit.redis_process import RedisProcess
from testkit.serving import running_server
from testkit.wsclient import Client
from tests.doubles.fake_engine import FakeEngine
from tests.helpers import settings
from tests.test_metrics import parse, value

COUNTED = ("referee_commands_total", "referee_command_latency_seconds_count",
           "referee_redis_append_seconds_count", "referee_relay_messages_total")


async def test_metrics_are_not_on_the_game_port_by_default() -> None:
    async with (running_server(settings(), FakeEngine()) as url,
                httpx.AsyncClient(base_url=url) as http):
        answer = await http.get("/metrics")
        assert answer.status_code == 404 and "referee_rooms" not in answer.text


async def test_with_a_token_the_game_port_serves_metrics_only_to_its_bearer() -> None:
    async with (running_server(settings(metrics_token="s3cret-token"), FakeEngine()) as url,
                httpx.AsyncClient(base_url=url) as http):
        for header in (None, b"Bearer wrong-token", b"Basic s3cret-token",
                       "Bearer s3cr\u00e9t".encode()):
            answer = await http.get("/metrics", headers={} if header is None else {
                "Authorization": header})
            assert answer.status_code == 401 and "referee_rooms" not in answer.text, header
        answer = await http.get("/metrics", headers={"Authorization": "Bearer s3cret-token"})
        assert answer.status_code == 200 and "\nreferee_rooms " in answer.text


async def test_metrics_listen_serves_them_on_an_address_of_their_own() -> None:
    app = create_app(settings(metrics_listen="127.0.0.1:0"), engine=FakeEngine())
    async with (running_server(settings(), app=app) as url,
                httpx.AsyncClient() as http):
        await http.get(f"{url}/livez")  # answered once the app has started
        port = app.state.metrics_listener.port
        own = await http.get(f"http://127.0.0.1:{port}/metrics")
        assert own.status_code == 200 and "\nreferee_rooms " in own.text
        assert (await http.get(f"{url}/metrics")).status_code == 404


def _counted(samples: dict[tuple[str, frozenset[tuple[str, str]]], float]
             ) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    return {key: count for key, count in samples.items() if key[0] in COUNTED}


@pytest.fixture
async def redis_node(redis_server: RedisProcess) -> AsyncIterator[str]:
    store = RedisRoomStore.from_url(redis_server.url)
    config = settings(metrics_listen="127.0.0.1:0")
    app = create_app(config, engine=FakeEngine(), store=store)
    async with running_server(config, app=app) as url, httpx.AsyncClient() as http:
        await http.get(f"{url}/livez")  # answered once the app has started
        yield f"{url}|{app.state.metrics_listener.port}"


@pytest.mark.redis
async def test_a_seats_private_commands_move_no_counter(redis_node: str) -> None:
    url, port = redis_node.split("|")

    async def scrape() -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
        async with httpx.AsyncClient() as http:
            answer = await http.get(f"http://127.0.0.1:{port}/metrics")
            assert answer.status_code == 200
            return _counted(parse(answer.text))

    async with httpx.AsyncClient(base_url=url) as http:
        created = (await http.post("/api/rooms", json={"ruleset": "n5"})).json()
    room = created["room"]
    a = await Client.connect(url, room, created["seats"]["A"]["token"])
    b = await Client.connect(url, room, created["seats"]["B"]["token"])
    spectator = await Client.connect(url, room)
    try:
        before = await scrape()
        # A private event (only A sees it: stored, an append), a refusal, a version refused.
        assert isinstance(await a.command({"type": "hide", "secret": "s"}), Accepted)
        assert isinstance(await b.command({"type": "act", "value": 1}), Rejected)
        assert isinstance(await a.command({"type": "wait"}), Accepted)  # no event at all
        assert isinstance(await a.command({"type": "act", "value": 1}, version=99), Rejected)
        private = await scrape()
        assert private == before, "no counter moved for what only a seat knows"
        # A command spectators see is counted: its outcome, latency and append.
        assert isinstance(await a.command({"type": "act", "value": 2}), Accepted)
        await spectator.until(Events)
        public = await scrape()
    finally:
        for client in (a, b, spectator):
            await client.close()
    assert value(public, "referee_commands_total", outcome="accepted", reason="") - value(
        private, "referee_commands_total", outcome="accepted", reason="") == 1
    for name in ("referee_command_latency_seconds_count", "referee_redis_append_seconds_count"):
        assert value(public, name) - value(private, name) == 1, name
