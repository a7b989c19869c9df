"""A room with the practice bot (issue 39): ``POST /api/rooms`` with ``bot`` seats it; the
creator gets only the other seat; the room's settings and welcome say so; the bot plays
over the node's own websocket endpoint with its seat's token, like a browser.

Implementation test: no rule section (the lobby and the bot are the server's own)."""

from __future__ import annotations

import asyncio
import random

import httpx
import pytest

from protocol.messages import Events, Welcome
from server.bot.seat_client import BotSeat, play
from server.lobby.http import BadRequest
from server.lobby.room_form import parse_room_settings
from testkit.serving import running_server
from testkit.wsclient import Client
from tests.helpers import settings


def test_the_form_takes_a_bot_seat_and_level_and_defaults_to_sensible() -> None:
    chosen = parse_room_settings({"bot": "B"}, settings(), seats_bot=True)
    assert (chosen.bot, chosen.bot_level) == ("B", "sensible")
    chosen = parse_room_settings({"bot": "A", "bot_level": "random"}, settings(), seats_bot=True)
    assert (chosen.bot, chosen.bot_level) == ("A", "random")
    assert parse_room_settings({}, settings(), seats_bot=True).bot == ""


@pytest.mark.parametrize("body", [{"bot": "C"}, {"bot": "B", "bot_level": "cheating"},
                                  {"bot_level": "random"}])
def test_the_form_refuses_a_bad_bot(body: dict[str, object]) -> None:
    with pytest.raises(BadRequest):
        parse_room_settings(body, settings(), seats_bot=True)


def test_a_tournament_room_never_seats_the_bot() -> None:
    with pytest.raises(BadRequest, match="tournament"):
        parse_room_settings({"bot": "B"}, settings())  # the tournaments' call: no seats_bot


@pytest.mark.slow
async def test_a_bot_room_plays_to_its_end_over_the_websocket() -> None:
    """The bot takes seat B; seat A is played by a second bot client of the same kind (from
    A's frames only); a spectator sees the bot choose its army, deploy, spend Orders, and the
    game end by the rules. The seats' budgets of loop time (``server/transport/work_budget``)
    are raised: here the rules core runs from its Python sources, and each seat's ``options``
    and ``sync`` would otherwise wait on its budget (the bot is budgeted like any seat)."""
    server_settings = settings(allow_fixed_seed=True, rate_per_s=500.0, rate_burst=500,
                               work_seat_ms_per_s=1000.0, work_seat_burst_ms=5000.0,
                               work_node_share=1.0)
    async with running_server(server_settings) as url, httpx.AsyncClient(base_url=url) as http:
        response = await http.post("/api/rooms", json={
            "ruleset": "codeone", "table": "sample-open-codeone", "seed": 6, "bot": "B",
            "bot_level": "sensible"})
        assert response.status_code == 201, response.text
        room = response.json()
        assert set(room["seats"]) == {"A"}  # the bot's token is never handed out
        assert room["settings"]["bot"] == {"seat": "B", "level": "sensible"}
        assert room["settings"]["ranked"] is False
        watcher = await Client.connect(url, room["room"])
        assert isinstance(watcher.welcome, Welcome)
        assert watcher.welcome.settings["bot"] == {"seat": "B", "level": "sensible"}
        base = "ws" + url.removeprefix("http")
        human = asyncio.create_task(play(BotSeat(
            base, room["room"], "A", room["seats"]["A"]["token"], "sensible", 500.0, 500),
            random.Random(1)))
        try:
            ended = await watcher.until(Events, lambda m: any(
                e.get("type") == "game_ended" for e in m.events))
        finally:
            human.cancel()
        end = next(e for e in ended.events if e["type"] == "game_ended")
        assert end["result"]["reason"] in ("rounds_completed", "retreat"), end
        seen = [e for m in watcher.of(Events) for e in m.events]
        assert any(e["type"] == "army_chosen" and e["side"] == "B" for e in seen)
        bots = {e["trooper"] for e in seen if e["type"] == "trooper_deployed"
                and str(e["trooper"]).startswith("B-")}
        assert bots, "the bot deployed"
        assert any(e["type"] == "order_spent" and e["trooper"] in bots for e in seen)
        await watcher.close()


async def test_the_bot_stops_when_its_room_does_not_exist() -> None:
    """A room that is gone (or a token that opens no seat) ends the bot rather than a loop of
    reconnections."""
    async with running_server(settings()) as url:
        base = "ws" + url.removeprefix("http")
        await asyncio.wait_for(play(BotSeat(base, "no-such-room", "B", "x" * 40, "sensible")),
                               timeout=20)
