"""A tournament's reads of a table's room fold and report only the events up to the version
their load of the room returned, never one that landed after it
(``server.store.clipped_reads``): on a Redis Cluster only the load is confirmed on a
replica, and a failover could take back an event read past it -- after the dashboard
showed it, or after it became a result."""

from __future__ import annotations

from protocol.codec import pack_plain
from server.store import RoomMeta, RoomSettings
from server.tournaments.folds import Folds
from server.tournaments.model import Table
from server.tournaments.results import read_outcome
from tests.doubles.lands_after_load import LandsAfterLoad
from tests.tournaments.test_folds import ENGINE, Room, bench_game

START = 1_800_000_000_000
LATER = START + 1_000_000  # every event released to the casters


async def test_the_folds_stop_at_the_loaded_version_from_the_start_and_continuing() -> None:
    first, batches = bench_game()
    store = LandsAfterLoad()
    room = Room(store, "clipped", first)
    await room.create()
    clock = await room.play(batches[:20], START)
    loaded_state, loaded_version = room.state, room.version

    async def next_batch() -> None:  # lands after the load
        await room.play(batches[20:21], clock)
    folds = Folds(store, ENGINE)
    store.after_next_load = next_batch
    read = await folds.read("clipped", LATER)
    assert room.version > loaded_version  # it landed
    assert read is not None and read.casters is not None
    assert (read.shown, read.casters.version) == (loaded_state, loaded_version)

    # Continuing from the kept states: the next load sees that batch; one lands after it.
    seen_state, seen_version = room.state, room.version

    async def two_more() -> None:
        await room.play(batches[21:23], clock + 1_000)
    store.after_next_load = two_more
    read = await folds.read("clipped", LATER + 1_000)
    assert room.version > seen_version
    assert read is not None and read.casters is not None
    assert (read.shown, read.casters.version) == (seen_state, seen_version)
    read = await folds.read("clipped", LATER + 2_000)  # (and the next read folds them)
    assert read is not None and read.casters is not None
    assert (read.shown, read.casters.version) == (room.state, room.version)


async def test_a_game_end_that_lands_after_the_load_is_not_a_result_yet() -> None:
    store = LandsAfterLoad()
    meta = RoomMeta("ending", RoomSettings("n5", 30.0, "public"), "a" * 64, "b" * 64, 0)
    await store.create_room(meta, b"s0", None)
    fence = await store.claim_room("ending", "node")
    assert fence is not None
    await store.append("ending", fence=fence, expected_version=0,
                       events=[pack_plain({"type": "order_spent"})], snapshot=None,
                       deadlines=(), listing=None, committed_ms=1)
    ended = pack_plain({"type": "game_ended", "result": {
        "winner": "A", "victory_points": {"A": 3, "B": 1}, "reason": "concession"}})

    async def end() -> None:
        await store.append("ending", fence=fence, expected_version=1, events=[ended],
                           snapshot=None, deadlines=(), listing=None, committed_ms=2)
    table = Table(1, "p1", "p2", False, "ending", None, "", "", "")
    store.after_next_load = end
    assert await read_outcome(store, table, 10_000) is None  # the load saw no end
    outcome = await read_outcome(store, table, 10_000)  # the next load sees it
    assert outcome is not None and (outcome.winner, outcome.vp) == ("p1", {"p1": 3, "p2": 1})
