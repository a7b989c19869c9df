"""Registering with your own list (docs/tournaments.md, "Registering"): a player brings a list
document or an army code instead of a shipped list; the server checks it as a game checks a
brought list, stores the checked document, shows the organizer each registration's validity
and coverage, shows the public the list's name and faction only, and the round's rooms hold
each seat to the registered document."""

from __future__ import annotations

import copy
import json
from collections.abc import AsyncIterator
from importlib import resources
from typing import Any

import httpx
import pytest

from protocol.messages import Accepted, Options, OptionsRequest
from server.app import create_app
from server.config import Settings
from server.rooms.rules_engine import ArmyCodeRefused
from server.rules.armies.army_list import ListFormat
from server.store import RoomStore
from server.store.memory import MemoryRoomStore
from server.store.redis_store import RedisRoomStore
from server.tournaments import views
from server.tournaments.model import fold
from server.tournaments.refusals import Refused
from server.tournaments.registered_lists import BroughtArmy, brought_army, review
from testkit.army_codes import legal_army_code
from testkit.redis_process import RedisProcess
from testkit.synthetic_army_data import SYNTHETIC_ARMY_DATA
from testkit.wsclient import Client
from tests.tournaments.helpers import Organizer, action_id, app_settings, serving


def shipped_document(army_id: str) -> dict[str, Any]:
    """A shipped list's file as plain data, to make brought lists from."""
    folder = resources.files("server.rules").joinpath("data", "armies")
    return dict(json.loads(folder.joinpath(f"{army_id}.json").read_text(encoding="utf-8")))


def my_cell() -> dict[str, Any]:
    """A CodeOne list of 30 points a player brings: the Vesper cell renamed, its ghost's
    unit named so that a test can tell whether its troopers were shown."""
    document = copy.deepcopy(shipped_document("vesper-c1-cell"))
    document.update(id="my-cell", name="Night Shift", description="")
    for unit in document["units"]:
        unit["name"] = f"Secret {unit['name']}"
    return document


async def register(organizer: Organizer, name: str, status: int = 201,
                   **army: Any) -> dict[str, Any]:
    response = await organizer.http.post(
        f"/api/tournaments/{organizer.tournament}/players",
        json={"action_id": action_id(), "name": name, **army})
    assert response.status_code == status, response.text
    return response.json()  # type: ignore[no-any-return]


@pytest.fixture
async def served() -> AsyncIterator[httpx.AsyncClient]:
    settings = app_settings()
    async with serving(create_app(settings), settings) as url, \
            httpx.AsyncClient(base_url=url) as http:
        yield http


# -- registration with a list --------------------------------------------------------------

async def test_a_list_document_is_registered_and_the_public_sees_its_name_and_faction_only(
        served: httpx.AsyncClient) -> None:
    organizer, _ = await Organizer.create(served)
    made = await register(organizer, "Ines", list=my_cell())
    other = await register(organizer, "Jon", army="helion-c1-patrol")

    public = await organizer.view()
    (ines,) = [p for p in public["players"] if p["name"] == "Ines"]
    assert {k: ines[k] for k in ("army", "army_name", "army_faction", "army_source")} == {
        "army": "my-cell", "army_name": "Night Shift", "army_faction": "Vesper Syndicate",
        "army_source": "list"}
    # Nobody but the organizer and Ines sees its troopers (who leads, who is hidden).
    assert "Secret" not in json.dumps(public)
    assert "Secret" not in json.dumps(await organizer.me(other["token"]))
    own = (await organizer.me(made["token"]))["registration"]
    assert own["valid"] is True and own["list"]["name"] == "Night Shift"
    assert "Secret" in json.dumps(await organizer.dashboard())


async def test_a_shipped_list_is_registered_as_before(served: httpx.AsyncClient) -> None:
    organizer, _ = await Organizer.create(served)
    await register(organizer, "Kai", army="vesper-c1-cell")
    (kai,) = (await organizer.view())["players"]
    assert (kai["army"], kai["army_name"], kai["army_faction"], kai["army_source"]) == (
        "vesper-c1-cell", "Vesper Cell (CodeOne)", "Vesper Syndicate", "army")


# -- refusals ------------------------------------------------------------------------------

def unknown_weapon() -> dict[str, Any]:
    document = my_cell()
    document["units"][0]["weapons"] = ["laser_spoon"]
    return document


def two_lieutenants() -> dict[str, Any]:
    document = my_cell()
    for entry in document["entries"][:2]:
        entry["lieutenant"] = True
    return document


@pytest.mark.parametrize(("fields", "code", "message"), [
    ({"list": unknown_weapon()}, "bad_army_list",
     "unknown weapon 'laser_spoon'"),
    ({"list": two_lieutenants()}, "bad_army_list", "Lieutenant"),
    ({"list": shipped_document("vesper-raiders")}, "bad_army_list",
     "'Vesper Raiders' is a standard list; this tournament plays codeone lists"),
    ({"list": "my-cell"}, "bad_army_list", "list must be an army document"),
    ({"list": {**my_cell(), "description": "x" * 17_000}}, "bad_army_list",
     "more than the 16384 a table takes"),
    ({"code": "AAAAAAAAAAAAAAAA"}, "no_army_data", "REFEREE_ARMY_DATA"),
    ({"code": ""}, "bad_army_list", "code must be the army code's text"),
    ({"army": "vesper-c1-cell", "list": my_cell()}, "bad_field", "exactly one of"),
    ({}, "bad_field", "exactly one of"),
])
async def test_a_list_or_code_the_tournament_does_not_take_is_refused_with_its_first_problem(
        served: httpx.AsyncClient, fields: dict[str, Any], code: str, message: str) -> None:
    organizer, _ = await Organizer.create(served)
    refused = await register(organizer, "Lea", status=400, **fields)
    assert refused["error"] == code
    assert message in refused["message"], refused["message"]
    assert (await organizer.view())["players"] == []


async def test_a_list_over_the_tournaments_points_is_refused(served: httpx.AsyncClient) -> None:
    organizer, _ = await Organizer.create(served, point_limit=25)
    refused = await register(organizer, "Mo", status=400, list=my_cell())
    assert refused == {"error": "bad_army_list", "message": "'Night Shift' is a list of 30 "
                       "points, over the tournament's limit of 25"}


def test_a_list_whose_troopers_cost_more_than_its_limit_is_refused() -> None:
    document = my_cell()
    document["points"] = 20
    with pytest.raises(Refused) as refused:
        brought_army({"list": document}, ruleset="codeone", point_limit=30, read_code=None)
    assert refused.value.code == "bad_army_list"
    assert refused.value.message.startswith("The troopers cost 30 points; the list allows 20.")


# -- registration with a code --------------------------------------------------------------

def test_a_code_is_read_with_the_servers_reader_and_checked_like_a_list() -> None:
    """The tournament's side of a code: the rooms' reader gets the text and the tournament's
    list format; its document is checked and kept, its refusal said (the reader itself is
    server/node/army_codes.py's, tested there)."""
    calls: list[tuple[str, ListFormat]] = []

    def read(text: str, list_format: ListFormat) -> dict[str, Any]:
        calls.append((text, list_format))
        return my_cell()

    brought = brought_army({"code": " Zm9vYmFy \n"}, ruleset="codeone", point_limit=30,
                           read_code=read)
    assert calls == [("Zm9vYmFy", ListFormat.CODEONE)]
    assert brought == BroughtArmy("my-cell", "code", my_cell())

    def over(text: str, list_format: ListFormat) -> dict[str, Any]:
        return {**my_cell(), "points": 40}

    def unknown(text: str, list_format: ListFormat) -> dict[str, Any]:
        raise ArmyCodeRefused("the army data has no unit 77 in faction 901.")

    for reader, message in ((over, "'Night Shift' is a list of 40 points, over the "
                             "tournament's limit of 30"),
                            (unknown, "army code: the army data has no unit 77 in faction "
                             "901.")):
        with pytest.raises(Refused) as refused:
            brought_army({"code": "Zm9vYmFy"}, ruleset="codeone", point_limit=30,
                         read_code=reader)
        assert (refused.value.code, refused.value.message) == ("bad_army_list", message)


async def test_a_player_registers_with_an_army_code_and_the_organizer_sees_its_coverage(
        ) -> None:
    settings = app_settings(army_data=SYNTHETIC_ARMY_DATA)
    async with serving(create_app(settings), settings) as url, \
            httpx.AsyncClient(base_url=url) as http:
        organizer, _ = await Organizer.create(http, ruleset="n5")
        await register(organizer, "Nia", code=legal_army_code(seed=3))
        (nia,) = (await organizer.view())["players"]
        assert (nia["army_name"], nia["army_faction"], nia["army_source"]) == (
            "Generated list 3", "Lantern Accord", "code")
        assert "not_refereed" not in json.dumps(await organizer.view())
        (row,) = (await organizer.dashboard())["registrations"]
        assert (row["valid"], row["list"]["troopers"], row["list"]["points"]) == (True, 6, 82)
        # The troopers carrying items the referee does not play, as the code's list has them.
        carrying = [t for t in row["list"]["roster"] if t["not_refereed"]]
        assert row["coverage"] == {"troopers": 4, "items": [
            {"entry": t["entry"], "unit": t["unit"], "not_refereed": t["not_refereed"]}
            for t in carrying]}
        assert ["Relay Antenna — played without it"] in [t["not_refereed"] for t in carrying]

        refused = await register(organizer, "Oz", status=400, code="not a code at all")
        assert refused["error"] == "bad_army_list"
        assert refused["message"].startswith("army code: ")


# -- the organizer's view ------------------------------------------------------------------

async def test_the_organizers_view_shows_each_registrations_list_and_coverage(
        served: httpx.AsyncClient) -> None:
    organizer, _ = await Organizer.create(served)
    await register(organizer, "Pia", list=my_cell())
    await register(organizer, "Quin", army="helion-c1-patrol")
    rows = (await organizer.dashboard())["registrations"]
    assert [(r["name"], r["army_source"], r["valid"], r["problem"]) for r in rows] == [
        ("Pia", "list", True, None), ("Quin", "army", True, None)]
    shown = dict(rows[0]["list"])
    roster = shown.pop("roster")
    assert shown == {"id": "my-cell", "name": "Night Shift", "faction": "Vesper Syndicate",
                     "format": "codeone", "points": 30, "cost": 30, "swc": shown["swc"],
                     "troopers": len(my_cell()["entries"])}
    units = {u["id"]: u["name"] for u in my_cell()["units"]}
    assert [(r["entry"], r["unit"], r["lieutenant"]) for r in roster] == [
        (e["id"], units[e["unit"]], e.get("lieutenant", False)) for e in my_cell()["entries"]]
    assert sum(r["cost"] for r in roster) == 30
    assert rows[0]["coverage"] == {"troopers": 0, "items": []}
    assert rows[1]["list"]["name"] == "Helion Patrol (CodeOne)"


def test_a_registration_no_longer_valid_shows_its_problem_to_the_organizer() -> None:
    """A list checked at registration may not load after the server's rules or weapons
    changed: the organizer sees why before starting a round with it."""
    broken = unknown_weapon()
    state = fold([
        {"type": "created", "tournament": "t1", "name": "Old Open", "organizer_hash": "h",
         "sealed_organizer": "s", "created_ms": 1,
         "settings": {"rounds": 1, "ruleset": "codeone", "point_limit": 30,
                      "aro_window_s": 30, "spectator_delay_s": 0, "visibility": "public"}},
        {"type": "registered", "player": "p1", "name": "Rae", "army": "my-cell",
         "token_hash": "h1", "sealed_token": "s1", "source": "list", "list": broken},
        {"type": "registered", "player": "p2", "name": "Sol", "army": "retired-list",
         "token_hash": "h2", "sealed_token": "s2"}])
    rae, sol = views.registrations(state)
    assert (rae["valid"], rae["list"]["name"], rae["coverage"]) == (False, "Night Shift", None)
    assert "unknown weapon 'laser_spoon'" in rae["problem"]
    assert (sol["valid"], sol["problem"]) == (
        False, "there is no army 'retired-list' (GET /api/armies lists them)")


def test_coverage_counts_the_troopers_with_items_the_referee_does_not_play() -> None:
    document = my_cell()
    document["entries"][0]["not_refereed"] = ["Multispectral Visor L1", "Sensor"]
    document["entries"][2]["not_refereed"] = ["Sensor"]
    shown = review(document, "my-cell", "codeone", 30)
    assert shown["valid"] is True
    units = {u["id"]: u["name"] for u in document["units"]}
    first, third = document["entries"][0], document["entries"][2]
    assert shown["coverage"] == {"troopers": 2, "items": [
        {"entry": first["id"], "unit": units[first["unit"]],
         "not_refereed": ["Multispectral Visor L1", "Sensor"]},
        {"entry": third["id"], "unit": units[third["unit"]], "not_refereed": ["Sensor"]}]}


# -- the round's rooms ---------------------------------------------------------------------

@pytest.fixture(params=["memory", "redis"])
async def room_store(request: pytest.FixtureRequest) -> AsyncIterator[RoomStore]:
    if request.param == "memory":
        yield MemoryRoomStore()
        return
    server: RedisProcess = request.getfixturevalue("redis_server")
    store = RedisRoomStore.from_url(server.url)
    try:
        yield store
    finally:
        await store.close()


async def test_a_rounds_room_holds_each_seat_to_its_registered_document(
        room_store: RoomStore) -> None:
    settings: Settings = app_settings()
    async with serving(create_app(settings, store=room_store), settings) as url, \
            httpx.AsyncClient(base_url=url) as http:
        organizer, _ = await Organizer.create(http, rounds=1)
        await register(organizer, "Tam", list=my_cell())
        theirs = {**shipped_document("helion-c1-patrol"), "id": "their-patrol"}
        await register(organizer, "Uma", list=theirs)
        started = await organizer.act("start_round")
        ((table,),) = [r["tables"] for r in started["view"]["rounds"]]
        stored = await room_store.load_room(table["room"])
        assert stored is not None
        by_name = {p["player"]: p["name"] for p in started["view"]["players"]}
        documents = {"Tam": my_cell(), "Uma": theirs}
        assert dict(stored.meta.settings.armies) == {
            "A": documents[by_name[table["a"]]], "B": documents[by_name[table["b"]]]}
        # The room's public description never shows a registered list.
        described = await http.get(f"/api/rooms/{table['room']}")
        assert described.status_code == 200 and "Secret" not in described.text


async def test_a_seat_of_the_round_chooses_its_registered_document_by_its_id() -> None:
    settings = app_settings()
    async with serving(create_app(settings), settings) as url, \
            httpx.AsyncClient(base_url=url) as http:
        organizer, _ = await Organizer.create(http, rounds=1)
        made = await register(organizer, "Vic", list=my_cell())
        await register(organizer, "Wen", army="helion-c1-patrol")
        await organizer.act("start_round")
        current = (await organizer.me(made["token"]))["current"]
        client = await Client.connect(url, current["room"], current["seat_token"])
        try:
            await client.send(OptionsRequest())
            offered = await client.until(Options)
            assert offered.options["choose_army"] == ["my-cell"]
            chosen = await client.command({"type": "choose_army", "army": "my-cell",
                                           "entropy": "d" * 64})
            assert isinstance(chosen, Accepted), chosen
        finally:
            await client.close()


async def test_a_round_plays_a_code_registered_list_after_both_players_accept_its_items(
        ) -> None:
    """A registration's code becomes the table's list: the seat chooses the registered
    document by its id (no army data needed at the table: the room holds the document), its
    not-refereed items are reviewed and accepted by both players, and the game begins."""
    settings = app_settings(army_data=SYNTHETIC_ARMY_DATA)
    async with serving(create_app(settings), settings) as url, \
            httpx.AsyncClient(base_url=url) as http:
        organizer, _ = await Organizer.create(http, rounds=1, ruleset="n5")
        nia = await register(organizer, "Nia", code=legal_army_code(seed=3))
        oli = await register(organizer, "Oli", army="helion-vanguard")
        await organizer.act("start_round")
        listed = {p["name"]: p["army"] for p in (await organizer.view())["players"]}
        assert listed["Nia"].startswith("code-")
        pages = {"Nia": await organizer.me(nia["token"]), "Oli": await organizer.me(oli["token"])}
        seats = {name: await Client.connect(url, page["current"]["room"],
                                            page["current"]["seat_token"])
                 for name, page in pages.items()}
        try:
            async def settle(version: int) -> None:
                for other in seats.values():
                    while other.version < version:
                        await other.next()

            for name, client in seats.items():
                await client.send(OptionsRequest())
                assert (await client.until(Options)).options["choose_army"] == [listed[name]]
                chosen = await client.command({"type": "choose_army", "army": listed[name],
                                               "entropy": "e" * 64})
                assert isinstance(chosen, Accepted), chosen
                await settle(chosen.version)
            for client in seats.values():
                await client.send(OptionsRequest())
                assert (await client.until(Options)).options.get("accept_armies") is True
                accepted = await client.command({"type": "accept_armies"})
                assert isinstance(accepted, Accepted), accepted
                await settle(accepted.version)
            for client in seats.values():
                await client.send(OptionsRequest())
                assert (await client.until(Options)).options["accept_armies"] is False
        finally:
            for client in seats.values():
                await client.close()
        (table,) = (await organizer.dashboard())["tables"]
        assert table["phase"] == "initiative"
