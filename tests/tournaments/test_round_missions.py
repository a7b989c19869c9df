"""A mission per round (docs/tournaments.md, "Missions"): the shipped missions of the
tournament's ruleset, chosen at creation or before a round starts, refused when unknown; a
round's rooms are made with its mission (their game holds it), and the public view names
each round's mission; ``GET /api/missions`` lists them."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator

import httpx
import pytest

from protocol.messages import Accepted, Snapshot
from server.app import create_app
from server.lobby.missions import mission_ids, mission_title
from server.lobby.room_form import parse_room_settings
from server.rooms.room import Room
from server.rules.ids import Side
from server.rules.state import Phase
from server.store import RoomMeta
from server.store.redis_store import _pack_meta, _unpack_meta
from testkit.full_game import next_command
from testkit.wsclient import Client
from tests.tournaments.helpers import Organizer, action_id, app_settings, serving

ARMY = "helion-vanguard"
ENTROPY = {Side.A: hashlib.sha256(b"mission tournament: A").hexdigest(),
           Side.B: hashlib.sha256(b"mission tournament: B").hexdigest()}
N5_MISSIONS = {"n5-relay-station", "n5-flare-line", "n5-quarantine-line"}


def test_mission_ids_are_the_shipped_missions_of_the_ruleset() -> None:
    assert mission_ids("n5") == N5_MISSIONS
    assert mission_ids("codeone") == {"codeone-cold-storage"}
    assert mission_ids("n6") == set()
    assert mission_title("n5-relay-station") == "Relay Station"
    assert mission_title("n5-gone") == "n5-gone", "not shipped here: named by its id"


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    settings = app_settings()
    async with serving(create_app(settings), settings) as url, \
            httpx.AsyncClient(base_url=url) as client:
        yield client


async def test_each_round_is_played_on_its_mission(http: httpx.AsyncClient) -> None:
    refused = await http.post("/api/tournaments", json={
        "action_id": action_id(), "name": "x", "rounds": 2, "ruleset": "codeone",
        "missions": ["n5-relay-station"]})
    assert refused.status_code == 400 and refused.json()["error"] == "unknown_mission"
    assert "codeone-cold-storage" in refused.json()["message"]
    too_many = await http.post("/api/tournaments", json={
        "action_id": action_id(), "name": "x", "rounds": 1, "ruleset": "n5",
        "missions": ["n5-relay-station", "n5-flare-line"]})
    assert too_many.status_code == 400 and too_many.json()["error"] == "bad_field"

    organizer, made = await Organizer.create(http, rounds=2, ruleset="n5",
                                           missions=["n5-relay-station"])
    view = made["view"]
    assert view["missions"] == [
        {"round": 1, "mission": {"id": "n5-relay-station", "title": "Relay Station"}},
        {"round": 2, "mission": None}]
    # Missions chosen: the ITS table unless the organizer says otherwise.
    assert view["settings"]["scoring"]["name"] == "its"
    player_token = (await organizer.register("Ana", ARMY))["token"]
    await organizer.register("Ben", ARMY)
    chosen = await organizer.act("set_mission", round=2, mission="n5-flare-line")
    assert chosen["view"]["missions"][1]["mission"] == {"id": "n5-flare-line",
                                                        "title": "Flare Line"}
    unknown = await organizer.act("set_mission", round=2, mission="n5-nowhere", status=400)
    assert unknown["error"] == "unknown_mission"
    paired = (await organizer.act("pair"))["view"]
    assert paired["proposal"]["mission"]["id"] == "n5-relay-station"

    started = (await organizer.act("start_round"))["view"]
    assert started["rounds"][0]["mission"] == {"id": "n5-relay-station", "title": "Relay Station"}
    room = started["rounds"][0]["tables"][0]["room"]
    described = (await http.get(f"/api/rooms/{room}")).json()
    assert described["settings"]["mission"] == "n5-relay-station"
    late = await organizer.act("set_mission", round=1, mission="n5-flare-line", status=409)
    assert late["error"] == "round_already_started"
    board = await organizer.dashboard()
    assert board["tables"][0]["mission"]["id"] == "n5-relay-station"
    page = await organizer.me(player_token)
    assert page["current"]["mission"]["title"] == "Relay Station"
    assert page["games"][0]["mission"]["id"] == "n5-relay-station"

    # Round 2 on the mission set after creation; taking it away ("") plays annihilation.
    table = started["rounds"][0]["tables"][0]
    await organizer.act("close", round=1, table=1, reason="played at the venue",
                        result={"winner": table["a"], "vp": {table["a"]: 1, table["b"]: 0}})
    await organizer.act("set_mission", round=2, mission="")
    second = (await organizer.act("start_round"))["view"]["rounds"][1]
    assert second["mission"] is None
    described = (await http.get(f"/api/rooms/{second['tables'][0]['room']}")).json()
    assert described["settings"]["mission"] is None


async def test_without_missions_a_tournament_scores_classic_unless_told(
        http: httpx.AsyncClient) -> None:
    _, made = await Organizer.create(http, rounds=1)
    assert made["view"]["settings"]["scoring"]["name"] == "classic"
    assert made["view"]["missions"] == [{"round": 1, "mission": None}]
    _, made = await Organizer.create(http, rounds=1, scoring={"win": 3, "draw": 1})
    assert made["view"]["settings"]["scoring"] == {
        "name": "custom", "win": 3, "draw": 1, "loss": 0, "bye": 4, "offensive_bonus_op": 5,
        "defensive_bonus_margin": 2}
    refused = await http.post("/api/tournaments", json={
        "action_id": action_id(), "name": "x", "rounds": 1, "scoring": "fifa"})
    assert refused.status_code == 400 and refused.json()["error"] == "bad_scoring"


async def test_a_lobby_room_takes_a_mission_and_keeps_it(http: httpx.AsyncClient) -> None:
    made = await http.post("/api/rooms", json={"ruleset": "n5", "mission": "n5-relay-station"})
    assert made.status_code == 201, made.text
    room = made.json()["room"]
    assert made.json()["settings"]["mission"] == "n5-relay-station"
    assert (await http.get(f"/api/rooms/{room}")).json()["settings"]["mission"] == "n5-relay-station"
    spectator = await Client.connect(str(http.base_url).rstrip("/"), room)
    try:
        assert spectator.welcome is not None
        assert spectator.welcome.settings["mission"] == "n5-relay-station", "the welcome says it"
        snapshot = await spectator.until(Snapshot)
        assert snapshot.state["mission"]["title"] == "Relay Station", "the game is played on it"
    finally:
        await spectator.close()
    wrong = await http.post("/api/rooms", json={"ruleset": "codeone", "mission": "n5-relay-station"})
    assert wrong.status_code == 400 and wrong.json()["error"] == "unknown_mission"
    bad = await http.post("/api/rooms", json={"mission": 7})
    assert bad.status_code == 400 and bad.json()["error"] == "bad_field"


def test_a_rooms_mission_is_stored_with_its_meta() -> None:
    settings = parse_room_settings({"ruleset": "codeone", "mission": "codeone-cold-storage"},
                                   app_settings())
    meta = RoomMeta("room-1", settings, "a", "b", 0)
    assert _unpack_meta(_pack_meta(meta)).settings.mission == "codeone-cold-storage"
    assert parse_room_settings({}, app_settings()).mission == ""


async def test_the_lobby_lists_the_missions_of_a_ruleset(http: httpx.AsyncClient) -> None:
    listed = (await http.get("/api/missions", params={"ruleset": "n5"})).json()["missions"]
    assert {m["id"] for m in listed} == N5_MISSIONS
    relay = next(m for m in listed if m["id"] == "n5-relay-station")
    assert relay["title"] == "Relay Station" and relay["objectives"]
    assert all(o["text"] for o in relay["objectives"]), "each objective in words"
    everything = (await http.get("/api/missions")).json()["missions"]
    assert {m["id"] for m in everything} == N5_MISSIONS | {"codeone-cold-storage"}
    bad = await http.get("/api/missions", params={"ruleset": "n6"})
    assert bad.status_code == 400 and bad.json()["error"] == "bad_field"


@pytest.mark.slow  # a whole CodeOne game over websockets
async def test_a_played_mission_games_op_make_the_standings() -> None:
    """A one-round tournament on Cold Storage: the game is played to its end over the
    seats' websockets by the test kit's player; the table's result and the standings take
    each player's OP and VP from the game's own record, and the tournament points from the
    ITS table the mission chose (docs/tournaments.md, "Scoring and standings")."""
    settings = app_settings()
    app = create_app(settings)
    async with serving(app, settings) as url, httpx.AsyncClient(base_url=url) as http:
        organizer, _ = await Organizer.create(http, rounds=1, ruleset="codeone",
                                              missions=["codeone-cold-storage"],
                                              tables=["sample-open-codeone"], aro_min_open_s=0)
        tokens = {}
        for name, army in (("Ana", "helion-c1-patrol"), ("Ben", "vesper-c1-cell")):
            made = await organizer.register(name, army)
            tokens[made["player"]] = made["token"]
        table = (await organizer.act("start_round"))["view"]["rounds"][0]["tables"][0]
        pages = {seat: await organizer.me(tokens[table[seat.lower()]]) for seat in "AB"}
        room = await app.state.registry.open(table["room"])
        assert isinstance(room, Room) and room.state.mission is not None
        seats = {side: await Client.connect(url, table["room"],
                                            pages[side.value]["current"]["seat_token"])
                 for side in Side}
        try:
            while room.state.phase is not Phase.GAME_OVER:
                side, body = next_command(room.state, ENTROPY, "codeone")
                answer = await seats[side].command(body)
                assert isinstance(answer, Accepted), (body, answer)
                for seat in seats.values():
                    while seat.version < room.version:
                        await seat.next()
        finally:
            for seat in seats.values():
                await seat.close()

        view = await organizer.view()
        played = view["rounds"][0]["tables"][0]
        record = (await http.get(played["record"])).json()
        assert record["settings"]["mission"] == "codeone-cold-storage"
        op, vp = record["result"]["op"], record["result"]["victory_points"]
        assert sum(op.values()) > 0, "the game scored objectives"
        players = {"A": table["a"], "B": table["b"]}
        assert played["result"]["op"] == {players[s]: op[s] for s in "AB"}
        assert played["result"]["vp"] == {players[s]: vp[s] for s in "AB"}
        winner = record["result"]["winner"]
        scoring = view["settings"]["scoring"]
        assert scoring["name"] == "its"
        for row in view["standings"]:
            side = next(s for s in "AB" if players[s] == row["player"])
            other = "B" if side == "A" else "A"
            base = (scoring["draw"] if winner is None
                    else scoring["win"] if winner == side else scoring["loss"])
            bonus = int(op[side] >= scoring["offensive_bonus_op"]) + int(
                winner == other and op[other] - op[side] <= scoring["defensive_bonus_margin"])
            assert (row["tp"], row["op"], row["vp"]) == (base + bonus, op[side], vp[side])
