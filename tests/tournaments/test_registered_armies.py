"""A tournament table holds each player to the army they registered (docs/tournaments.md):
over the API and the seats' websockets, a started round's room offers each seat only its
player's registered army, refuses another with ``army_not_registered``, and accepts the
registered one; a bye has no room."""

from __future__ import annotations

import httpx

from protocol.messages import Accepted, Options, OptionsRequest, Rejected
from server.app import create_app
from testkit.wsclient import Client
from tests.tournaments.helpers import Organizer, app_settings, serving

REGISTERED = {"Dmitri": "vesper-c1-cell", "Erin": "helion-c1-patrol", "Femi": "vesper-c1-cell"}
NAMES = {"vesper-c1-cell": "Vesper Cell (CodeOne)", "helion-c1-patrol": "Helion Patrol (CodeOne)"}
OTHER = {"vesper-c1-cell": "helion-c1-patrol", "helion-c1-patrol": "vesper-c1-cell"}


async def test_each_seat_of_a_started_round_may_choose_only_its_registered_army() -> None:
    settings = app_settings()
    async with serving(create_app(settings), settings) as url, \
            httpx.AsyncClient(base_url=url) as http:
        organizer, _ = await Organizer.create(http, rounds=1)
        tokens = {name: (await organizer.register(name, army))["token"]
                  for name, army in REGISTERED.items()}
        await organizer.act("start_round")
        pages = {name: await organizer.me(token) for name, token in tokens.items()}
        seated = {name: page["current"] for name, page in pages.items()
                  if page["current"] is not None and page["current"].get("room")}
        assert len(seated) == 2, "three players: one table, one bye without a room"
        (room,) = {current["room"] for current in seated.values()}

        seats = {name: await Client.connect(url, room, current["seat_token"])
                 for name, current in seated.items()}
        try:
            for name, client in seats.items():
                army = REGISTERED[name]
                await client.send(OptionsRequest())
                offered = await client.until(Options)
                assert offered.options["choose_army"] == [army]

                refused = await client.command({"type": "choose_army", "army": OTHER[army],
                                                "entropy": "c" * 64})
                assert isinstance(refused, Rejected)
                assert refused.code == "army_not_registered"
                assert refused.message == (
                    f"This table is for your registered army, {NAMES[army]}.")

                chosen = await client.command({"type": "choose_army", "army": army,
                                               "entropy": "d" * 64})
                assert isinstance(chosen, Accepted), chosen
                for other in seats.values():
                    while other.version < chosen.version:
                        await other.next()
        finally:
            for client in seats.values():
                await client.close()
