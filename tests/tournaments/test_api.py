"""The tournament HTTP API in one process (rooms and tournaments in memory): creation,
registration, tokens, organizer actions and their refusals, duplicates, results read from
conceded games, corrections and closes (docs/tournaments.md)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import httpx
import pytest

from protocol.messages import Accepted
from server.app import create_app
from server.rules.armies.army_catalogue import sample_armies
from testkit.wsclient import Client
from tests.tournaments.helpers import Organizer, action_id, app_settings, concede, serving

ARMY = "helion-c1-patrol"


@pytest.fixture
async def base() -> AsyncIterator[str]:
    settings = app_settings()
    async with serving(create_app(settings), settings) as url:
        yield url


@pytest.fixture
async def http(base: str) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=base) as client:
        yield client


async def test_creation_is_public_without_tokens_and_a_retry_gets_the_same_answer(
        http: httpx.AsyncClient) -> None:
    body = {"action_id": action_id(), "name": "Retry Cup", "rounds": 3, "ruleset": "codeone",
            "tables": ["sample-open-codeone"]}
    first = (await http.post("/api/tournaments", json=body)).json()
    again = await http.post("/api/tournaments", json=body)
    assert again.status_code == 201
    assert (again.json()["tournament"], again.json()["organizer"]) == (
        first["tournament"], first["organizer"])
    listed = (await http.get("/api/tournaments")).json()["tournaments"]
    assert [t["tournament"] for t in listed].count(first["tournament"]) == 1
    view = (await http.get(f"/api/tournaments/{first['tournament']}")).json()
    assert view["status"] == "registration" and view["settings"]["rounds"] == 3
    assert first["organizer"]["token"] not in str(view)
    refused = await http.post("/api/tournaments", json={**body, "action_id": action_id(),
                                                        "tables": ["no-such-layout"]})
    assert refused.status_code == 400 and refused.json()["error"] == "unknown_table"
    missing = await http.post("/api/tournaments", json={"name": "x", "rounds": 1})
    assert missing.json()["error"] == "action_id_required"
    private = await http.post("/api/tournaments", json={**body, "action_id": action_id(),
                                                        "visibility": "private"})
    listed = (await http.get("/api/tournaments")).json()["tournaments"]
    assert private.json()["tournament"] not in {t["tournament"] for t in listed}


async def test_the_point_limit_defaults_to_the_formats_game_size(
        http: httpx.AsyncClient) -> None:
    """300 points in N5, 30 in CodeOne, when the organizer gives none; a CodeOne army over a
    given limit is refused at registration."""
    limits = {}
    for ruleset in ("n5", "codeone"):
        made = (await http.post("/api/tournaments", json={
            "action_id": action_id(), "name": f"{ruleset} Cup", "rounds": 1,
            "ruleset": ruleset})).json()
        limits[ruleset] = made["view"]["settings"]["point_limit"]
    assert limits == {"n5": 300, "codeone": 30}
    small = (await http.post("/api/tournaments", json={
        "action_id": action_id(), "name": "Small Cup", "rounds": 1, "ruleset": "codeone",
        "point_limit": 10})).json()
    over = await http.post(f"/api/tournaments/{small['tournament']}/players", json={
        "action_id": action_id(), "name": "Alice", "army": ARMY})
    assert sample_armies()[ARMY].points > 10
    assert over.status_code == 400 and over.json()["error"] == "bad_field"


async def test_a_round_of_four_conceded_games_then_standings_corrections_and_csv(
        http: httpx.AsyncClient, base: str) -> None:
    organizer, _ = await Organizer.create(http)
    tokens = {}
    for name in ("Ana", "Ben", "Cy", "=HYPERLINK(\"x\")"):
        made = await organizer.register(name, ARMY)
        tokens[made["player"]] = made["token"]
    wrong_army = await organizer.register("Ed", "helion-vanguard", status=400)
    assert wrong_army["error"] == "bad_field"
    await organizer.act("seed", player="p4", seed=1)
    paired = (await organizer.act("pair"))["view"]
    assert paired["status"] == "paired"
    proposal = paired["proposal"]
    assert proposal["tables"][0]["a"] == "p4", "the seeded player heads round 1"
    b1 = proposal["tables"][0]["b"]
    b2 = proposal["tables"][1]["b"]
    swapped = (await organizer.act("swap", players=[b1, b2], reason="club mates"))["view"]
    assert swapped["proposal"]["tables"][0]["b"] == b2
    assert swapped["proposal"]["swaps"] == [{"players": [b1, b2], "reason": "club mates"}]
    start_id = action_id()
    started = await organizer.act("start_round", id=start_id)
    again = await organizer.act("start_round", id=start_id)
    assert again["duplicate"] is True and len(again["view"]["rounds"]) == 1
    assert started["view"]["rounds"][0]["swaps"][0]["reason"] == "club mates"
    await organizer.act("drop", player="p1", status=409)  # round_in_progress
    late = await organizer.register("Late", ARMY, status=409)
    assert late["error"] == "registration_closed"

    pages = {pid: await organizer.me(token) for pid, token in tokens.items()}
    for pid, page in pages.items():
        current = page["current"]
        assert current["seat_link"] == f"/#room={current['room']}&token={current['seat_token']}"
        for other, other_page in pages.items():
            if other != pid:
                assert current["seat_token"] not in str(other_page["view"])
    view = await organizer.view()
    assert all(p["current"]["seat_token"] not in str(view) for p in pages.values())
    bad = await http.post(f"/api/tournaments/{organizer.tournament}/me", json={"token": "x"})
    assert bad.status_code == 403 and bad.json()["error"] == "bad_player_token"

    board = await organizer.dashboard()
    assert len(board["tables"]) == 2 and board["tables"][0]["phase"] == "army_selection"
    assert board["tables"][0]["caster_link"].startswith(f"/#room={board['tables'][0]['room']}")
    refused = await http.post(f"/api/tournaments/{organizer.tournament}/dashboard",
                              json={"organizer": tokens["p1"]})
    assert refused.status_code == 403 and refused.json()["error"] == "bad_organizer_token"

    # Table 1: seat B concedes; table 2 does not finish and the organizer closes it.
    table1 = view["rounds"][0]["tables"][0]
    await concede(base, pages[table1["b"]])
    view = await organizer.view()
    result = view["rounds"][0]["tables"][0]["result"]
    assert result["winner"] == table1["a"] and result["source"] == "game"
    assert result["tp"] == {table1["a"]: 4, table1["b"]: 0}
    assert result["reason"] == "concession"
    table2 = view["rounds"][0]["tables"][1]
    assert view["status"] == "playing"
    await organizer.act("close", round=1, table=2, reason="out of time",
                        result={"winner": None, "vp": {table2["a"]: 20, table2["b"]: 20}})
    closed = (await organizer.view())["rounds"][0]["tables"][1]["result"]
    assert closed["original"] is None and closed["tp"] == {table2["a"]: 2, table2["b"]: 2}
    await organizer.act("close", round=1, table=2, reason="again", status=409,
                        result={"winner": None, "vp": {table2["a"]: 0, table2["b"]: 0}})
    # A correction keeps the game's result beside it, with its reason.
    corrected = await organizer.act(
        "correct", round=1, table=1, reason="opponent misclicked concede",
        result={"winner": table1["b"], "vp": {table1["a"]: 10, table1["b"]: 25},
                "op": {table1["a"]: 2, table1["b"]: 7}})
    fixed = corrected["view"]["rounds"][0]["tables"][0]["result"]
    assert fixed["winner"] == table1["b"] and fixed["source"] == "organizer"
    assert fixed["original"]["winner"] == table1["a"] and fixed["original"]["reason"] == "concession"
    assert fixed["corrections"][0]["reason"] == "opponent misclicked concede"
    view = corrected["view"]
    assert view["status"] == "between_rounds"
    top = view["standings"][0]
    assert (top["player"], top["tp"], top["op"], top["vp"]) == (table1["b"], 4, 7, 25)
    assert [row["rank"] for row in view["standings"]] == [1, 2, 3, 4]
    csv = await http.get(f"/api/tournaments/{organizer.tournament}/standings.csv")
    lines = csv.text.splitlines()
    assert lines[0] == "rank,player,name,army,tp,op,vp,sos,played,wins,draws,losses,byes,dropped"
    assert lines[1].startswith(f"1,{table1['b']},") and len(lines) == 5
    assert '"\'=HYPERLINK(""x"")"' in csv.text, "a name is never a formula"

    # Between rounds: a player drops, the organizer adds one, round 2 pairs without repeats.
    await organizer.act("drop", player=table2["a"])
    added = await organizer.register("Late", ARMY, organizer=True)
    assert added["player"] == "p5"
    round2 = (await organizer.act("pair"))["view"]["proposal"]
    assert round2["bye"] is None and table2["a"] not in str(round2["tables"])
    played = {frozenset((t["a"], t["b"])) for t in view["rounds"][0]["tables"]}
    assert all(frozenset((t["a"], t["b"])) not in played for t in round2["tables"])
    unknown = await organizer.act("teleport", status=400)
    assert unknown["error"] == "unknown_action"


async def test_results_and_victory_points_wait_for_the_delays_of_their_audience() -> None:
    """A table with a 30 s spectator delay: its result reaches the public view only once
    the end is 30 s old; the dashboard's VP so far are those casters see, 60 s late."""
    settings = app_settings()
    app = create_app(settings)
    now = [1_800_000_000_000]
    app.state.registry.clock = lambda: now[0]
    async with serving(app, settings) as url, httpx.AsyncClient(base_url=url) as http:
        organizer, _ = await Organizer.create(http, rounds=1, spectator_delay_s=30)
        tokens = [(await organizer.register(n, ARMY))["token"] for n in ("Ana", "Ben")]
        await organizer.act("start_round")
        pages = [await organizer.me(token) for token in tokens]
        seats = {}
        for page in pages:
            current = page["current"]
            seats[current["seat"]] = await Client.connect(url, current["room"],
                                                          current["seat_token"])
        for seat, army in (("A", ARMY), ("B", ARMY)):  # both registered with ARMY
            answer = await seats[seat].command({"type": "choose_army", "army": army,
                                                "entropy": ("a" if seat == "A" else "b") * 64})
            assert isinstance(answer, Accepted), answer
            for client in seats.values():
                while client.version < answer.version:
                    await client.next()
        board = (await organizer.dashboard())["tables"][0]
        # Delayed: the organizer sees the game as its spectators do, 30 s late.
        assert board["vp"] is None and board["phase"] == "army_selection"
        assert board["as_of_ms"] == now[0] - 30_000
        now[0] += 61_000
        board = (await organizer.dashboard())["tables"][0]
        assert board["phase"] != "army_selection"
        costs = {seat: sum(e.profile.cost for e in sample_armies()[army].entries)
                 for seat, army in (("A", ARMY), ("B", ARMY))}
        assert board["vp"] == costs and board["vp_as_of_ms"] == now[0] - 60_000

        answer = await seats["B"].command({"type": "concede"})
        assert isinstance(answer, Accepted)
        for client in seats.values():
            await client.close()
        table = (await organizer.view())["rounds"][0]["tables"][0]
        assert table["result"] is None, "the delayed spectators have not seen the end yet"
        assert (await organizer.dashboard())["tables"][0]["over"] is False, "not yet seen"
        now[0] += 29_000
        assert (await organizer.view())["rounds"][0]["tables"][0]["result"] is None
        now[0] += 1_000
        assert (await organizer.dashboard())["tables"][0]["over"] is True
        view = await organizer.view()
        assert view["rounds"][0]["tables"][0]["result"]["winner"] == table["a"]
        assert view["status"] == "finished"


async def test_a_retried_registration_gets_its_token_again_and_concurrent_actions_all_land(
        http: httpx.AsyncClient) -> None:
    organizer, _ = await Organizer.create(http)
    body = {"action_id": action_id(), "name": "Ana", "army": ARMY}
    url = f"/api/tournaments/{organizer.tournament}/players"
    first, again = (await http.post(url, json=body)).json(), (await http.post(url, json=body)).json()
    assert (again["player"], again["token"]) == (first["player"], first["token"])
    made = await asyncio.gather(*[http.post(url, json={"action_id": action_id(), "name": f"N{n}",
                                                       "army": ARMY}) for n in range(8)])
    assert all(response.status_code == 201 for response in made)
    assert sorted(r.json()["player"] for r in made) == sorted(f"p{n}" for n in range(2, 10))
    assert len((await organizer.view())["players"]) == 9
    other, _ = await Organizer.create(http)
    wrong = await http.post(f"/api/tournaments/{organizer.tournament}/actions",
                            json={"organizer": other.token, "action_id": action_id(),
                                  "type": "pair"})
    assert wrong.status_code == 403 and wrong.json()["error"] == "bad_organizer_token"
    squatted = await http.post(url, json={"action_id": "result:1:1-padding-text",
                                          "name": "Eve", "army": ARMY})
    assert squatted.status_code == 400, "a game result's id is never taken by a request"
    missing = await http.get("/api/tournaments/nope")
    assert missing.status_code == 404 and missing.json()["error"] == "tournament_not_found"


async def test_the_tables_get_the_tournaments_settings_and_chess_clocks(
        http: httpx.AsyncClient) -> None:
    organizer, _ = await Organizer.create(
        http, rounds=1, clock_s=4500, spectator_delay_s=5, aro_window_s=45,
        tables=["sample-open-codeone"], visibility="private")
    for name in ("Ana", "Ben"):
        await organizer.register(name, ARMY)
    table = (await organizer.act("start_round"))["view"]["rounds"][0]["tables"][0]
    room = (await http.get(f"/api/rooms/{table['room']}")).json()
    assert room["settings"]["clock_s"] == 4500
    assert (room["settings"]["ruleset"], room["settings"]["aro_window_s"],
            room["settings"]["spectator_delay_s"], room["settings"]["visibility"]) == (
        "codeone", 45.0, 5.0, "private")
    assert room["settings"]["table"]["id"] == table["layout"] == "sample-open-codeone"
    # Uniform ARO windows: on by default in a tournament's rooms (docs/fair-play.md).
    assert room["settings"]["aro_min_open_s"] == 3.0
    row = (await organizer.dashboard())["tables"][0]
    assert row["clocks"] is not None and row["clocks"]["A"] == row["clocks"]["B"] == 4_500_000
    refused = await http.post("/api/tournaments", json={
        "action_id": action_id(), "name": "x", "rounds": 1, "clock_s": 99_999})
    assert refused.status_code == 400 and refused.json()["error"] == "bad_field"


async def test_a_tournament_may_choose_its_rooms_uniform_aro_windows_or_turn_them_off(
        http: httpx.AsyncClient) -> None:
    for chosen in (0, 5):
        organizer, _ = await Organizer.create(http, rounds=1, aro_min_open_s=chosen)
        assert (await organizer.view())["settings"]["aro_min_open_s"] == chosen
        for name in ("Ana", "Ben"):
            await organizer.register(name, ARMY)
        table = (await organizer.act("start_round"))["view"]["rounds"][0]["tables"][0]
        room = (await http.get(f"/api/rooms/{table['room']}")).json()
        assert room["settings"]["aro_min_open_s"] == chosen
    refused = await http.post("/api/tournaments", json={
        "action_id": action_id(), "name": "x", "rounds": 1, "aro_min_open_s": 31})
    assert refused.status_code == 400 and refused.json()["error"] == "bad_field"
