"""A room stores a snapshot only every ``snapshot_every`` versions (and at a change of
phase, round or turn) and events in between; a room opened again from the store is its
latest snapshot with the events after it replayed -- the same state as before."""

from __future__ import annotations

import itertools
from dataclasses import replace
from typing import Any

from protocol.messages import Accepted, Command
from server.config import Settings
from server.fanout import Audience, LocalFanout
from server.rooms.numbering import unpack_room_snapshot
from server.rooms.registry import RoomRegistry
from server.rooms.room import Room
from server.rooms.rules_engine import RulesCoreEngine
from server.store import MemoryRoomStore, RoomSettings
from testkit.scripted_game import plan
from tests.doubles.members import RecordingMember

ENGINE = RulesCoreEngine()
COMMAND_IDS = (f"c{n}" for n in itertools.count())


def commands(max_orders: int) -> list[tuple[str | None, dict[str, Any]]]:
    """The benchmark's scripted game (setup, then Orders), as (seat, command body)."""
    return plan(seed=7, max_orders=max_orders).commands()


async def play(room: Room, seats: dict[str, RecordingMember],
               moves: list[tuple[str, dict[str, Any]]]) -> None:
    for side, body in moves:
        command_id = next(COMMAND_IDS)
        assert room.submit(seats[side], side, Command(command_id, room.version, body))
        answer = await seats[side].answer(command_id)
        assert isinstance(answer, Accepted), (body, answer)


async def test_a_room_loads_from_an_old_snapshot_plus_the_events_after_it() -> None:
    # Many events after the snapshot: loading must find every one of them.
    settings = replace(Settings(freeze_gc=False, static_dir=None), snapshot_every=1000)
    store = MemoryRoomStore()
    first = RoomRegistry(store, LocalFanout(), ENGINE, settings)
    created = await first.create(RoomSettings("codeone", 600.0, "private", fixed_seed=7))
    room = await first.open(created.meta.room_id)
    assert room is not None
    seats = {side: RecordingMember(Audience(side)) for side in ("A", "B")}
    for side, member in seats.items():
        await room.join(member, side, None)
    await play(room, seats, commands(max_orders=3))
    before_version, before_state = room.version, ENGINE.state_to_plain(room.state)
    await first.shutdown()

    stored = await store.load_room(created.meta.room_id)
    assert stored is not None and stored.version == before_version
    assert 0 < stored.snapshot_version < stored.version - 3, \
        "the test must load from an old snapshot and several events after it"
    assert unpack_room_snapshot(stored.snapshot)[0] != before_state

    second = RoomRegistry(store, LocalFanout(), ENGINE, settings)
    try:
        reopened = await second.open(created.meta.room_id)
        assert reopened is not None
        assert reopened.version == before_version
        assert ENGINE.state_to_plain(reopened.state) == before_state
    finally:
        await second.shutdown()


async def test_snapshots_are_taken_every_n_versions_and_at_a_change_of_turn() -> None:
    settings = replace(Settings(freeze_gc=False, static_dir=None), snapshot_every=4)
    store = MemoryRoomStore()
    registry = RoomRegistry(store, LocalFanout(), ENGINE, settings)
    try:
        created = await registry.create(RoomSettings("codeone", 600.0, "private", fixed_seed=7))
        room = await registry.open(created.meta.room_id)
        assert room is not None
        seats = {side: RecordingMember(Audience(side)) for side in ("A", "B")}
        for side, member in seats.items():
            await room.join(member, side, None)
        snapshot_versions, behind = set(), 0
        summary = ENGINE.public_summary(room.state)
        for move in commands(max_orders=2):
            await play(room, seats, [move])
            stored = await store.load_room(room.room_id)
            assert stored is not None and stored.version == room.version
            assert stored.version - stored.snapshot_version < settings.snapshot_every
            new_summary = ENGINE.public_summary(room.state)
            if any(summary[key] != new_summary[key] for key in ("phase", "round", "turn")):
                assert stored.snapshot_version == stored.version, f"no snapshot at {move}"
            summary = new_summary
            snapshot_versions.add(stored.snapshot_version)
            behind += stored.snapshot_version < stored.version
        assert len(snapshot_versions) > 2
        assert behind > 0, "not a snapshot at every version"
    finally:
        await registry.shutdown()
