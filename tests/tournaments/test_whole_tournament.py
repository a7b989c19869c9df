"""A whole tournament through the public API on a real node and a real Redis: 4 players,
2 rounds; round 1 has one game played to its end over websockets by a scripted client
(``testkit.full_game``, each command chosen from the room's state read from Redis)
and one conceded; the node is killed (kill -9) the moment round 1's last game ends, before
anything read the tournament, and started again: nothing is lost and both results are
recorded from the stored games. Round 2 is paired without a repeat and conceded; the final
standings and CSV are checked against totals computed here from the games' own records."""

from __future__ import annotations

import csv
import hashlib
import io
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from protocol.messages import Accepted
from server.rooms.numbering import state_from_stored
from server.rooms.rules_engine import RulesCoreEngine
from server.rules.ids import Side
from server.rules.state import GameState, Phase
from server.store.redis_store import RedisRoomStore
from testkit.full_game import next_command
from testkit.redis_process import RedisProcess
from testkit.server_process import ServerProcess
from testkit.wsclient import Client
from tests.tournaments.helpers import Organizer, concede

pytestmark = [pytest.mark.redis, pytest.mark.slow]

ENTROPY = {Side.A: hashlib.sha256(b"tournament: A").hexdigest(),
           Side.B: hashlib.sha256(b"tournament: B").hexdigest()}
ARMIES = ("helion-c1-patrol", "vesper-c1-cell")
ENGINE = RulesCoreEngine()


@pytest.fixture
async def node(redis_server: RedisProcess) -> AsyncIterator[ServerProcess]:
    process = ServerProcess(redis_server.url, env={"REFEREE_RATE_BURST": "10000"})
    await process.start()
    try:
        yield process
    finally:
        await process.stop()


@pytest.fixture
def rooms(redis_store: RedisRoomStore) -> RedisRoomStore:
    """The rooms' store, where the test reads each game's state (tests/store's fixture)."""
    return redis_store


async def stored_state(rooms: RedisRoomStore, room_id: str) -> GameState:
    """The room's game as stored in Redis (what the scripted player reads to choose)."""
    stored = await rooms.load_room(room_id)
    assert stored is not None
    state, _ = state_from_stored(ENGINE, stored.snapshot, stored.snapshot_version,
                                 stored.events, stored.armies)
    assert isinstance(state, GameState)
    return state


async def play_to_the_end(base: str, rooms: RedisRoomStore, page_a: dict[str, Any],
                          page_b: dict[str, Any]) -> None:
    """Both seats of one table play the whole game over their websockets."""
    room_id = page_a["current"]["room"]
    assert page_b["current"]["room"] == room_id
    assert (page_a["current"]["seat"], page_b["current"]["seat"]) == ("A", "B")
    seats = {Side.A: await Client.connect(base, room_id, page_a["current"]["seat_token"]),
             Side.B: await Client.connect(base, room_id, page_b["current"]["seat_token"])}
    try:
        state = await stored_state(rooms, room_id)
        while state.phase is not Phase.GAME_OVER:
            side, body = next_command(state, ENTROPY, "codeone")
            answer = await seats[side].command(body)
            assert isinstance(answer, Accepted), (body, answer)
            for seat in seats.values():  # every frame read, as a browser would
                while seat.version < answer.version:
                    await seat.next()
            state = await stored_state(rooms, room_id)
    finally:
        for seat in seats.values():
            await seat.close()


def expected_standings(view: dict[str, Any], records: dict[str, dict[str, Any]]
                       ) -> list[tuple[str, int, int, int]]:
    """(player, TP, VP, SoS) in rank order, from the games' records alone (ITS 4/2/0; OP 0
    here; ties: SoS then registration order)."""
    tp = {p["player"]: 0 for p in view["players"]}
    vp = dict.fromkeys(tp, 0)
    opponents: dict[str, list[str]] = {p: [] for p in tp}
    for played in view["rounds"]:
        for table in played["tables"]:
            result = records[table["room"]]["result"]
            seats = {"A": table["a"], "B": table["b"]}
            for side, player in seats.items():
                opponents[player].append(seats["B" if side == "A" else "A"])
                vp[player] += result["victory_points"][side]
                tp[player] += (2 if result["winner"] is None
                               else 4 if result["winner"] == side else 0)
    sos = {p: sum(tp[o] for o in opponents[p]) for p in tp}
    order = sorted(tp, key=lambda p: (-tp[p], -vp[p], -sos[p], int(p[1:])))
    return [(p, tp[p], vp[p], sos[p]) for p in order]


async def test_four_players_two_rounds_with_a_restart_in_the_middle(
        node: ServerProcess, rooms: RedisRoomStore) -> None:
    async with httpx.AsyncClient(base_url=node.base, timeout=60) as http:
        # Without uniform ARO windows (on by default in tournaments): the random players
        # answer every window at once and would wait 3 s of wall time on each one;
        # tests/rooms/test_uniform_aro_windows.py covers the hold.
        organizer, _ = await Organizer.create(http, tables=["sample-open-codeone"],
                                              aro_min_open_s=0)
        tokens = {}
        for n, name in enumerate(("Ana", "Ben", "Cy", "Di")):
            made = await organizer.register(name, ARMIES[n % 2])
            tokens[made["player"]] = made["token"]
        started = (await organizer.act("start_round"))["view"]
        assert started["status"] == "playing" and len(started["rounds"][0]["tables"]) == 2
        pages = {pid: await organizer.me(token) for pid, token in tokens.items()}
        table1, table2 = started["rounds"][0]["tables"]

        await concede(node.base, pages[table2["a"]])
        await play_to_the_end(node.base, rooms, pages[table1["a"]], pages[table1["b"]])

    # Nothing read the tournament since both games ended: kill -9, then start again.
    await node.kill()
    await node.start()

    async with httpx.AsyncClient(base_url=node.base, timeout=60) as http:
        organizer = Organizer(http, organizer.tournament, organizer.token)
        view = await organizer.view()
        assert view["status"] == "between_rounds" and view["round"] == 1
        assert [p["player"] for p in view["players"]] == ["p1", "p2", "p3", "p4"]
        played1, played2 = view["rounds"][0]["tables"]
        assert played2["result"]["winner"] == table2["b"]
        assert played2["result"]["reason"] == "concession"
        assert played1["result"]["source"] == "game" and played1["room"] == table1["room"]
        record = (await http.get(played1["record"])).json()
        assert record["result"]["reason"] == played1["result"]["reason"] != "concession"
        assert sum(e["event"]["type"] == "order_resolved" for e in record["events"]) >= 5, \
            "table 1 was played, Orders and dice"
        vp = record["result"]["victory_points"]
        assert played1["result"]["vp"] == {table1["a"]: vp["A"], table1["b"]: vp["B"]}

        round2 = (await organizer.act("start_round"))["view"]["rounds"][1]
        met = {frozenset((t["a"], t["b"])) for t in view["rounds"][0]["tables"]}
        assert all(frozenset((t["a"], t["b"])) not in met for t in round2["tables"])
        pages = {pid: await organizer.me(token) for pid, token in tokens.items()}
        board = await organizer.dashboard()
        assert [row["room"] for row in board["tables"]] == [t["room"] for t in round2["tables"]]
        assert board["tables"][0]["phase"] == "army_selection"
        await concede(node.base, pages[round2["tables"][0]["b"]])
        await concede(node.base, pages[round2["tables"][1]["a"]])

        final = await organizer.view()
        assert final["status"] == "finished"
        records = {t["room"]: (await http.get(t["record"])).json()
                   for r in final["rounds"] for t in r["tables"]}
        want = expected_standings(final, records)
        got = [(row["player"], row["tp"], row["vp"], row["sos"]) for row in final["standings"]]
        assert got == want
        assert [row["rank"] for row in final["standings"]] == [1, 2, 3, 4]
        assert sum(row["tp"] for row in final["standings"]) == 4 * 4  # 4 games, 4 TP each

        standings = (await http.get(
            f"/api/tournaments/{organizer.tournament}/standings")).json()
        assert standings["standings"] == final["standings"]
        exported = await http.get(f"/api/tournaments/{organizer.tournament}/standings.csv")
        assert exported.headers["content-type"].startswith("text/csv")
        rows = list(csv.DictReader(io.StringIO(exported.text)))
        assert [(r["player"], int(r["tp"]), int(r["vp"]), int(r["sos"])) for r in rows] == want
        names = {p["player"]: p["name"] for p in final["players"]}
        assert all(r["name"] == names[r["player"]] and r["dropped"] == "false" for r in rows)
        listed = (await http.get("/api/tournaments")).json()["tournaments"]
        assert any(t["tournament"] == organizer.tournament and t["status"] == "finished"
                   for t in listed)
