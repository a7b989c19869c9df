"""A room's stored snapshot writes each trooper's army list entry by reference to its army's
entry and each army list packed (``server/rules/plain/state_form.py``), and a room stored
before, whose snapshot has every entry in full or its army lists unpacked, still loads to the
same state and plays on."""

from __future__ import annotations

import uuid
from dataclasses import replace
from functools import cache

from protocol import codec
from protocol.messages import Accepted, Command
from server.config import Settings
from server.fanout import Audience, LocalFanout
from server.rooms.numbering import NONE_SEEN, pack_room_snapshot, unpack_room_snapshot
from server.rooms.registry import RoomRegistry
from server.rooms.rules_engine import RulesCoreEngine
from server.rules import engine
from server.rules.plain import to_plain
from server.rules.state import GameState, Phase
from server.store import MemoryRoomStore, RoomMeta, RoomSettings
from testkit.scripted_game import plan
from tests.doubles.members import RecordingMember

ENGINE = RulesCoreEngine()
SETTINGS = RoomSettings("codeone", 600.0, "private", fixed_seed=7)


@cache
def _orders_phase() -> tuple[GameState, tuple[tuple[str | None, dict[str, object]], ...]]:
    """The scripted game's first state in the Orders Phase, and the commands after it."""
    moves = plan(seed=7, max_orders=2).commands()
    state = ENGINE.new_game("codeone", 7)
    for n, (side, body) in enumerate(moves):
        if state.phase is Phase.ORDERS:
            return state, tuple(moves[n:])
        verdict = ENGINE.decide(state, side, ENGINE.parse_command(body))
        assert verdict.events is not None, body
        state = ENGINE.apply_all(state, verdict.events)
    raise AssertionError("the scripted game never reached the Orders Phase")


def _meta() -> RoomMeta:
    return RoomMeta(f"f{uuid.uuid4().hex[:10]}", SETTINGS, "a" * 64, "b" * 64, 1_000)


async def _stored_and_opened(snapshot_plain: object
                             ) -> tuple[GameState, bytes, bytes | None]:
    """A room stored with ``snapshot_plain`` as its state, opened by a registry, one more
    command played in it: the state it opened with, the snapshot stored after and the army
    lists stored apart with it."""
    _, moves = _orders_phase()
    store = MemoryRoomStore()
    meta = _meta()
    await store.create_room(meta, pack_room_snapshot(snapshot_plain, NONE_SEEN), None)
    settings = replace(Settings(freeze_gc=False, static_dir=None), snapshot_every=1)
    registry = RoomRegistry(store, LocalFanout(), ENGINE, settings)
    try:
        room = await registry.open(meta.room_id)
        assert room is not None
        opened = room.state
        seats = {side: RecordingMember(Audience(side)) for side in ("A", "B")}
        for side, member in seats.items():
            await room.join(member, side, None)
        side, body = moves[0]
        assert side is not None
        assert room.submit(seats[side], side, Command("c1", room.version, body))
        assert isinstance(await seats[side].answer("c1"), Accepted)
        stored = await store.load_room(meta.room_id)
        assert stored is not None and stored.snapshot_version == 1
        return opened, stored.snapshot, stored.armies
    finally:
        await registry.shutdown()


async def test_a_room_stored_with_entries_in_full_loads_the_same_state_and_plays_on() -> None:
    state, _ = _orders_phase()
    old = to_plain(state)  # every snapshot stored before references
    assert all(isinstance(t["entry"], dict) for t in old["troopers"].values())
    opened, _, _ = await _stored_and_opened(old)
    assert opened == state and to_plain(opened) == to_plain(state)


async def test_a_room_stores_troopers_entries_by_reference_and_loads_them() -> None:
    state, _ = _orders_phase()
    opened, snapshot, _ = await _stored_and_opened(ENGINE.state_to_plain(state))
    assert opened == state and to_plain(opened) == to_plain(state)
    written, _ = unpack_room_snapshot(snapshot)
    assert {key: t["entry"] for key, t in written["troopers"].items()} == \
        {str(key): t.entry.id for key, t in state.troopers.items()}
    assert len(snapshot) < 0.7 * len(pack_room_snapshot(to_plain(state), NONE_SEEN))


async def test_a_room_stored_with_its_army_lists_unpacked_loads_the_same_state() -> None:
    state, _ = _orders_phase()
    old = engine.state_to_plain(state)  # entries by reference, army lists as maps
    assert all(isinstance(army, dict) for army in old["armies"].values())
    opened, _, _ = await _stored_and_opened(old)
    assert opened == state and to_plain(opened) == to_plain(state)


async def test_a_room_stores_its_army_lists_packed_apart_from_its_snapshot() -> None:
    state, _ = _orders_phase()
    opened, snapshot, armies = await _stored_and_opened(ENGINE.state_to_plain(state))
    assert opened == state and to_plain(opened) == to_plain(state)
    written, _ = unpack_room_snapshot(snapshot)
    assert "armies" not in written and armies is not None
    assert {side: codec.unpack_plain(army)
            for side, army in codec.unpack_plain(armies).items()} \
        == {side: to_plain(army) for side, army in state.armies.items()}
