"""A mission per round (docs/tournaments.md, "Missions"): the ids known from the missions'
index, chosen at creation or before a round starts, refused when unknown; a round's rooms
are made with its mission, and the public view names each round's mission. The index is a
temporary one (``missions_known.INDEX`` pointed at it)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from server.app import create_app
from server.lobby.room_form import parse_room_settings
from server.store import RoomMeta
from server.store.redis_store import _pack_meta, _unpack_meta
from server.tournaments import missions_known
from server.tournaments.missions_known import mission_ids, mission_title
from testkit.wsclient import Client
from tests.tournaments.helpers import Organizer, action_id, app_settings, serving

ARMY = "helion-c1-patrol"


def write_index(folder: Path) -> Path:
    index = folder / "index.json"
    index.write_text(json.dumps({"n5": ["n5-relay"], "codeone": ["c1-uplink", "c1-vault"]}))
    (folder / "c1-uplink.json").write_text(json.dumps({"id": "c1-uplink",
                                                       "title": "Uplink Grab"}))
    return index


@pytest.fixture
def index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = write_index(tmp_path)
    monkeypatch.setattr(missions_known, "INDEX", path)
    return path


def test_mission_ids_come_from_the_index_and_none_without_one(tmp_path: Path) -> None:
    index = write_index(tmp_path)
    assert mission_ids("codeone", index) == {"c1-uplink", "c1-vault"}
    assert mission_ids("n5", index) == {"n5-relay"}
    assert mission_ids("n6", index) == set()
    assert mission_ids("n5", tmp_path / "missing" / "index.json") == set()
    assert mission_title("c1-uplink", index) == "Uplink Grab"
    assert mission_title("c1-vault", index) == "c1-vault", "no document: named by its id"


@pytest.fixture
async def http(index: Path) -> AsyncIterator[httpx.AsyncClient]:
    settings = app_settings()
    async with serving(create_app(settings), settings) as url, \
            httpx.AsyncClient(base_url=url) as client:
        yield client


async def test_each_round_is_played_on_its_mission(http: httpx.AsyncClient) -> None:
    refused = await http.post("/api/tournaments", json={
        "action_id": action_id(), "name": "x", "rounds": 2, "ruleset": "codeone",
        "missions": ["n5-relay"]})
    assert refused.status_code == 400 and refused.json()["error"] == "unknown_mission"
    assert "c1-uplink, c1-vault" in refused.json()["message"]
    too_many = await http.post("/api/tournaments", json={
        "action_id": action_id(), "name": "x", "rounds": 1, "ruleset": "codeone",
        "missions": ["c1-uplink", "c1-vault"]})
    assert too_many.status_code == 400 and too_many.json()["error"] == "bad_field"

    organizer, made = await Organizer.create(http, rounds=2, missions=["c1-uplink"])
    view = made["view"]
    assert view["missions"] == [
        {"round": 1, "mission": {"id": "c1-uplink", "title": "Uplink Grab"}},
        {"round": 2, "mission": None}]
    # Missions chosen: the ITS table unless the organizer says otherwise.
    assert view["settings"]["scoring"]["name"] == "its"
    player_token = (await organizer.register("Ana", ARMY))["token"]
    await organizer.register("Ben", ARMY)
    chosen = await organizer.act("set_mission", round=2, mission="c1-vault")
    assert chosen["view"]["missions"][1]["mission"] == {"id": "c1-vault", "title": "c1-vault"}
    unknown = await organizer.act("set_mission", round=2, mission="c1-nowhere", status=400)
    assert unknown["error"] == "unknown_mission"
    paired = (await organizer.act("pair"))["view"]
    assert paired["proposal"]["mission"]["id"] == "c1-uplink"

    started = (await organizer.act("start_round"))["view"]
    assert started["rounds"][0]["mission"] == {"id": "c1-uplink", "title": "Uplink Grab"}
    room = started["rounds"][0]["tables"][0]["room"]
    described = (await http.get(f"/api/rooms/{room}")).json()
    assert described["settings"]["mission"] == "c1-uplink"
    late = await organizer.act("set_mission", round=1, mission="c1-vault", status=409)
    assert late["error"] == "round_already_started"
    board = await organizer.dashboard()
    assert board["tables"][0]["mission"]["id"] == "c1-uplink"
    page = await organizer.me(player_token)
    assert page["current"]["mission"]["title"] == "Uplink Grab"
    assert page["games"][0]["mission"]["id"] == "c1-uplink"

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
    made = await http.post("/api/rooms", json={"ruleset": "n5", "mission": "n5-relay"})
    assert made.status_code == 201, made.text
    room = made.json()["room"]
    assert made.json()["settings"]["mission"] == "n5-relay"
    assert (await http.get(f"/api/rooms/{room}")).json()["settings"]["mission"] == "n5-relay"
    spectator = await Client.connect(str(http.base_url).rstrip("/"), room)
    try:
        assert spectator.welcome is not None
        assert spectator.welcome.settings["mission"] == "n5-relay", "the welcome says it"
    finally:
        await spectator.close()
    wrong = await http.post("/api/rooms", json={"ruleset": "codeone", "mission": "n5-relay"})
    assert wrong.status_code == 400 and wrong.json()["error"] == "unknown_mission"
    bad = await http.post("/api/rooms", json={"mission": 7})
    assert bad.status_code == 400 and bad.json()["error"] == "bad_field"


def test_a_rooms_mission_is_stored_with_its_meta(index: Path) -> None:
    settings = parse_room_settings({"ruleset": "codeone", "mission": "c1-vault"},
                                   app_settings())
    meta = RoomMeta("room-1", settings, "a", "b", 0)
    assert _unpack_meta(_pack_meta(meta)).settings.mission == "c1-vault"
    assert parse_room_settings({}, app_settings()).mission == ""
