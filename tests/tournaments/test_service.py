"""Writes racing on one tournament, on the memory store and on real Redis: every action
lands once, in some order, each decided on the state it was appended after; a repeated
action id is answered, not applied."""

from __future__ import annotations

import asyncio
from typing import Any

from server.store import MemoryRoomStore
from server.store.tournament_store import TournamentStore
from server.tournaments import decide
from server.tournaments.model import Tournament, fold
from server.tournaments.refusals import Refused
from server.tournaments.registered_lists import BroughtArmy
from server.tournaments.service import Tournaments
from tests.tournaments.test_standings import created


async def test_racing_registrations_all_land_once_with_distinct_ids(
        tournament_store: TournamentStore) -> None:
    service = Tournaments(tournament_store, MemoryRoomStore(), clock=lambda: 0)
    tid = f"race-{id(tournament_store)}"
    assert (await tournament_store.append(tid, expected_version=0, action_id="create",
                                          entry={**created(2), "tournament": tid})).status \
        == "appended"

    def registration(n: int) -> Any:
        async def entry(state: Tournament) -> dict[str, Any]:
            await asyncio.sleep(0)  # let the others fold the same version first
            made, _ = decide.registration(state, {"action_id": f"register-{n:012d}",
                                                  "name": f"N{n}", "army": "x"},
                                          by_organizer=False,
                                          bring=lambda _: BroughtArmy("x", "army", None))
            return made
        return entry

    written = await asyncio.gather(*[service.write(tid, f"register-{n:012d}", registration(n))
                                     for n in range(12)])
    assert not any(w.duplicate for w in written)
    state = fold(await service.log(tid))
    assert sorted(state.players) == sorted(f"p{n}" for n in range(1, 13))
    assert sorted(p.name for p in state.players.values()) == sorted(f"N{n}" for n in range(12))
    again = await service.write(tid, "register-000000000003", registration(3))
    assert again.duplicate and again.entry["name"] == "N3" and len(again.state.players) == 12


async def test_a_refused_action_writes_nothing(tournament_store: TournamentStore) -> None:
    service = Tournaments(tournament_store, MemoryRoomStore(), clock=lambda: 0)
    tid = f"refused-{id(tournament_store)}"
    await tournament_store.append(tid, expected_version=0, action_id="create",
                                  entry={**created(1), "tournament": tid})

    async def pair(state: Tournament) -> dict[str, Any]:
        return decide.organizer_action(state, {"action_id": "pair-0000000000001",
                                               "type": "pair"})

    try:
        await service.write(tid, "pair-0000000000001", pair)
    except Refused as refused:
        assert refused.code == "not_enough_players"
    else:
        raise AssertionError("pairing nobody was accepted")
    assert len(await service.log(tid)) == 1
