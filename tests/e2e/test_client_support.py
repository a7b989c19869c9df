"""What the browser client needs from the server beside the game itself: a seat's legal
options on request, the spectator count, and the catalogue of sample armies."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from protocol.messages import Options, OptionsRequest, Snapshot, Spectators
from server.app import create_app
from server.rules.armies.army_catalogue import sample_army
from testkit.serving import running_server
from tests.e2e.test_game_e2e import A1, B_SHOOTER, MOVE, Game, start_game
from tests.helpers import settings


@pytest.fixture
async def game() -> AsyncIterator[Game]:
    async for game in start_game():
        yield game


async def test_options_answer_the_seat_with_what_the_rules_core_allows(game: Game) -> None:
    a, b = await game.seat("A"), await game.seat("B")
    await a.until(Snapshot)
    await a.send(OptionsRequest())
    options = await a.until(Options)
    assert options.version == a.version
    assert options.options["activate"][A1] == ["regular"]
    await a.command({"type": "activate", "trooper": A1, "order": "regular"})
    await a.command(MOVE)
    await b.until(Snapshot)
    await b.send(OptionsRequest())
    reactive = await b.until(Options, lambda o: o.version == a.version)
    assert "punch_carbine" in reactive.options["aros"][B_SHOOTER]["bs_attack"]


async def test_spectators_get_no_options_and_everyone_sees_the_spectator_count(game: Game) -> None:
    a = await game.seat("A")
    first = await game.spectator()
    assert first.welcome.spectators == 1
    assert (await a.until(Spectators)).count == 1
    second = await game.spectator()
    assert second.welcome.spectators == 2
    assert (await first.until(Spectators, lambda s: s.count == 2)).count == 2
    await second.close()
    await a.until(Spectators, lambda s: s.count == 1)
    await first.send(OptionsRequest())
    assert (await first.until(Options)).options == {}


async def test_armies_route_lists_the_sample_lists_by_ruleset_without_private_fields() -> None:
    app_settings = settings()
    app = create_app(app_settings)
    async with running_server(app_settings, app=app) as base, httpx.AsyncClient(base_url=base) as http:
        everything = (await http.get("/api/armies")).json()["armies"]
        codeone = (await http.get("/api/armies", params={"ruleset": "codeone"})).json()["armies"]
        bad = await http.get("/api/armies", params={"ruleset": "chess"})
    assert {"helion-vanguard", "vesper-raiders", "helion-c1-patrol"} <= {a["id"] for a in everything}
    assert codeone and all(a["format"] == "codeone" for a in codeone)
    assert "lieutenant" not in str(everything) and "cost" not in str(everything)
    assert bad.status_code == 400
    # The roster is what an opponent sees in the game: no trooper whose presence is Private
    # Information (Hidden Deployment, Combat Jump; DIGEST 11.2).
    for listed in everything:
        army = sample_army(listed["id"])
        assert listed["roster"] == [
            {"unit": entry.profile.name, "combat_group": entry.combat_group} for entry in army.entries
            if not entry.profile.hidden_deployment and not entry.profile.combat_jump]
    names = {unit["unit"] for listed in everything for unit in listed["roster"]}
    assert not names & {"Stormdrop Jumper", "Petrel Skydiver", "Petrel Heavy Skydiver", "Veil Lurker"}
