"""A room stored before troopers' entries were written by reference (its first snapshot holds
every trooper's entry in full) still replays from that first state
(``record_input.with_stored_first_state``)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from server.rooms.numbering import pack_room_snapshot, unpack_room_snapshot
from server.rooms.rules_engine import RulesCoreEngine
from server.rules.plain import to_plain
from server.store import RoomMeta
from server.store.memory import MemoryRoomStore
from tests.replay.test_replay_routes import (
    Server,
    conceded_scenario_replays_from_its_first_state,
    serve,
)

ENGINE = RulesCoreEngine()


class StoresTheOldForm(MemoryRoomStore):
    """A store that keeps each new room's snapshot as the code before references wrote it:
    the generic plain form of the state, every trooper's entry in full."""

    def __init__(self) -> None:
        super().__init__()
        self.troopers_written: list[dict[str, Any]] = []

    async def create_room(self, meta: RoomMeta, snapshot: bytes, listing: Any,
                          *, retention_ms: int = 0) -> None:
        plain, seen = unpack_room_snapshot(snapshot)
        old = to_plain(ENGINE.state_from_plain(plain))
        self.troopers_written.append(old["troopers"])
        await super().create_room(meta, pack_room_snapshot(old, seen), listing,
                                  retention_ms=retention_ms)


@pytest.fixture
async def old_store_server() -> AsyncIterator[tuple[Server, StoresTheOldForm]]:
    store = StoresTheOldForm()
    async for running in serve(store):
        yield running, store


async def test_a_room_whose_first_snapshot_has_entries_in_full_replays_from_it(
        old_store_server: tuple[Server, StoresTheOldForm]) -> None:
    server, store = old_store_server
    room_id = await conceded_scenario_replays_from_its_first_state(server)
    [troopers] = store.troopers_written
    assert troopers and all(isinstance(t["entry"], dict) for t in troopers.values())
    last = await server.http.get(f"/api/rooms/{room_id}/replay/state",
                                 params={"view": "revealed", "step": "1"})
    assert last.status_code == 200, last.text
    assert last.json()["state"]["phase"] == "game_over"
