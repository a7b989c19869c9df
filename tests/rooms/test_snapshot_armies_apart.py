"""A room's snapshots hold its state without the army lists, which the store keeps apart and
writes only with the first snapshot after they change (``server/rooms/snapshot_policy.py``):
every snapshot with the army lists stored then reads back to the room's very state, a room
loaded again writes them again only if they change, and a room stored before (its army
lists in its snapshot) loads the same and keeps them apart from its next snapshot on."""

from __future__ import annotations

import itertools
from dataclasses import replace
from typing import Any

from protocol.messages import Accepted, Command
from server.config import Settings
from server.fanout import Audience, LocalFanout
from server.rooms.numbering import (
    NONE_SEEN,
    pack_room_snapshot,
    snapshot_state,
    unpack_room_snapshot,
)
from server.rooms.registry import RoomRegistry
from server.rooms.room import Room
from server.rooms.rules_engine import RulesCoreEngine
from server.rules.plain import to_plain
from server.rules.state import Phase
from server.store import MemoryRoomStore, RoomMeta, RoomSettings
from testkit.scripted_game import plan
from tests.doubles.members import RecordingMember

ENGINE = RulesCoreEngine()
SETTINGS = replace(Settings(freeze_gc=False, static_dir=None), snapshot_every=1)
COMMAND_IDS = (f"c{n}" for n in itertools.count())


class RecordingStore(MemoryRoomStore):
    """Keeps every snapshot appended, with the army lists appended with it (or None)."""

    def __init__(self) -> None:
        super().__init__()
        self.snapshots: list[tuple[int, bytes, bytes | None]] = []

    async def append(self, room_id: str, **fields: Any) -> int:
        version = await super().append(room_id, **fields)
        if fields["snapshot"] is not None:
            self.snapshots.append((version, fields["snapshot"], fields.get("armies")))
        return version


async def _seated(registry: RoomRegistry, room_id: str
                  ) -> tuple[Room, dict[str, RecordingMember]]:
    room = await registry.open(room_id)
    assert room is not None
    seats = {side: RecordingMember(Audience(side)) for side in ("A", "B")}
    for side, member in seats.items():
        await room.join(member, side, None)
    return room, seats


async def _play(room: Room, seats: dict[str, RecordingMember],
                moves: list[tuple[str | None, dict[str, Any]]]) -> None:
    for side, body in moves:
        assert side is not None
        command_id = next(COMMAND_IDS)
        assert room.submit(seats[side], side, Command(command_id, room.version, body))
        assert isinstance(await seats[side].answer(command_id), Accepted), body


async def test_snapshots_leave_the_army_lists_out_and_store_them_only_when_they_change(
        ) -> None:
    store = RecordingStore()
    registry = RoomRegistry(store, LocalFanout(), ENGINE, SETTINGS)
    try:
        created = await registry.create(RoomSettings("codeone", 600.0, "private",
                                                     fixed_seed=7))
        room, seats = await _seated(registry, created.meta.room_id)
        states = {}
        for move in plan(seed=7, max_orders=2).commands():
            await _play(room, seats, [move])
            states[room.version] = room.state
        assert len(store.snapshots) == len(states)  # (snapshot_every=1)
        apart, previous = None, None
        for version, snapshot, armies in store.snapshots:
            plain, _ = unpack_room_snapshot(snapshot, version)
            assert "armies" not in plain
            state = states[version]
            changed = previous is None or state.armies is not previous.armies
            assert (armies is not None) == changed, version
            apart = armies or apart
            assert apart is not None, "the first snapshot stores the army lists"
            read, _ = snapshot_state(ENGINE, snapshot, version, apart)
            assert read == state and to_plain(read) == to_plain(state)
            previous = state
        assert sum(armies is not None for _, _, armies in store.snapshots) >= 2
        assert room.state.phase is Phase.ORDERS
    finally:
        await registry.shutdown()


async def test_a_room_loaded_again_writes_its_army_lists_again_only_if_they_change() -> None:
    store = RecordingStore()
    first = RoomRegistry(store, LocalFanout(), ENGINE, SETTINGS)
    moves = plan(seed=7, max_orders=3).commands()
    created = await first.create(RoomSettings("codeone", 600.0, "private", fixed_seed=7))
    room, seats = await _seated(first, created.meta.room_id)
    await _play(room, seats, moves[:-6])
    assert room.state.phase is Phase.ORDERS
    before = room.state
    await first.shutdown()

    second = RoomRegistry(store, LocalFanout(), ENGINE, SETTINGS)
    try:
        reopened, seats = await _seated(second, created.meta.room_id)
        assert reopened.state == before
        written = len(store.snapshots)
        await _play(reopened, seats, moves[-6:])
        later = store.snapshots[written:]
        assert later and all(armies is None for _, _, armies in later)
        stored = await store.load_room(created.meta.room_id)
        assert stored is not None
        read, _ = snapshot_state(ENGINE, stored.snapshot, stored.snapshot_version,
                                 stored.armies)
        assert read == reopened.state
    finally:
        await second.shutdown()


async def test_a_room_stored_with_its_army_lists_in_its_snapshot_keeps_them_apart_after(
        ) -> None:
    state = ENGINE.new_game("codeone", 7)
    moves = plan(seed=7, max_orders=2).commands()
    setup = 0  # the setup's commands: the scripted game's first Order comes after them
    while state.phase is not Phase.ORDERS:
        side, body = moves[setup]
        verdict = ENGINE.decide(state, side, ENGINE.parse_command(body))
        assert verdict.events is not None, body
        state = ENGINE.apply_all(state, verdict.events)
        setup += 1
    store = RecordingStore()
    meta = RoomMeta("beforeapart", RoomSettings("codeone", 600.0, "private", fixed_seed=7),
                    "a" * 64, "b" * 64, 1_000)
    # As every room stored before: the whole state, army lists in it, no army lists apart.
    await store.create_room(meta, pack_room_snapshot(ENGINE.state_to_plain(state), NONE_SEEN),
                            None)
    registry = RoomRegistry(store, LocalFanout(), ENGINE, SETTINGS)
    try:
        room, seats = await _seated(registry, meta.room_id)
        assert room.state == state
        await _play(room, seats, moves[setup:setup + 2])
        (version, snapshot, armies), *later = store.snapshots
        assert armies is not None and all(apart is None for _, _, apart in later)
        read, _ = snapshot_state(ENGINE, snapshot, version, armies)
        assert read.armies == state.armies
    finally:
        await registry.shutdown()


async def test_with_the_army_lists_not_apart_every_snapshot_holds_them() -> None:
    """``snapshot_armies_apart`` off (what a node sharing rooms with a version before this
    one runs): every snapshot holds its army lists and none are stored apart."""
    store = RecordingStore()
    settings = replace(SETTINGS, snapshot_armies_apart=False)
    registry = RoomRegistry(store, LocalFanout(), ENGINE, settings)
    try:
        created = await registry.create(RoomSettings("codeone", 600.0, "private",
                                                     fixed_seed=7))
        room, seats = await _seated(registry, created.meta.room_id)
        await _play(room, seats, plan(seed=7, max_orders=1).commands()[:4])
        assert store.snapshots and all(armies is None for _, _, armies in store.snapshots)
        for version, snapshot, _ in store.snapshots:
            plain, _ = unpack_room_snapshot(snapshot, version)
            assert "armies" in plain
        stored = await store.load_room(created.meta.room_id)
        assert stored is not None and stored.armies is None
        read, _ = snapshot_state(ENGINE, stored.snapshot, stored.snapshot_version, None)
        assert read == room.state and len(read.armies) == 2
    finally:
        await registry.shutdown()


async def test_army_lists_that_changed_while_snapshots_held_their_own_are_stored_again(
        ) -> None:
    """The store's army lists apart are A's alone; then, snapshots holding their own, B
    chooses its army; a node keeping them apart again writes both with its next snapshot,
    never a snapshot read with A's alone."""
    store = RecordingStore()
    moves = plan(seed=7, max_orders=1).commands()
    apart = RoomRegistry(store, LocalFanout(), ENGINE, SETTINGS)
    created = await apart.create(RoomSettings("codeone", 600.0, "private", fixed_seed=7))
    room_id = created.meta.room_id
    room, seats = await _seated(apart, room_id)
    await _play(room, seats, moves[:1])  # A's army: stored apart
    await apart.shutdown()
    whole = RoomRegistry(store, LocalFanout(),
                         ENGINE, replace(SETTINGS, snapshot_armies_apart=False))
    room, seats = await _seated(whole, room_id)
    await _play(room, seats, moves[1:2])  # B's army: in the snapshot only
    await whole.shutdown()
    stored = await store.load_room(room_id)
    assert stored is not None and stored.armies is not None
    assert len(snapshot_state(ENGINE, stored.snapshot, stored.snapshot_version,
                              stored.armies)[0].armies) == 2

    again = RoomRegistry(store, LocalFanout(), ENGINE, SETTINGS)
    try:
        room, seats = await _seated(again, room_id)
        written = len(store.snapshots)
        await _play(room, seats, moves[2:3])
        (_, _, armies), = store.snapshots[written:]
        assert armies is not None  # both lists, stored apart again
        stored = await store.load_room(room_id)
        assert stored is not None
        read, _ = snapshot_state(ENGINE, stored.snapshot, stored.snapshot_version,
                                 stored.armies)
        assert read == room.state and len(read.armies) == 2
    finally:
        await again.shutdown()
