"""``python -m bench.restart_load``: the referee's side of a restart without sockets -- N rooms
in a real redis-server opened at once by a new ``RoomRegistry`` (claim, read, decode and
replay, start the actor), as every hello does after a ``kill -9``.

Every room is the benchmark's scripted game (``testkit.scripted_game``, seed 7) stored as a room
stores it: its state at version 0, a snapshot at a multiple of ``snapshot_every`` and the
events after it, room ``i`` with ``i mod 100`` events after its snapshot (the spread the
rooms of ``bench.run`` have when they are killed). Passes alternate between the reads in
batches (``RoomStore.load_rooms``, ``server.rooms.room_loads``) and one ``load_room`` per
room (the registry before the batches); each pass opens every room with a fresh registry
and reports the wall time until the last room runs and the process CPU spent, and the CPU
of the replay alone (decode + apply + the audiences' counts, no store).

A micro-benchmark of the registry's room loading (``server.rooms.registry.RoomRegistry``,
``server.rooms.numbering``, ``server.store.redis_store.RedisRoomStore``), reached on purpose.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from bench.rules_cost import ENGINE, commands
from bench.run import cores, redis_server
from protocol import codec
from server.config import Settings
from server.fanout import LocalFanout
from server.rooms.numbering import (
    NONE_SEEN,
    audience_views,
    counted,
    pack_room_armies,
    pack_room_snapshot,
    state_from_stored,
)
from server.rooms.registry import RoomRegistry
from server.rooms.rules_engine import RulesCoreEngine
from server.store import RoomMeta, RoomSettings
from server.store.redis_store import RedisRoomStore

SNAPSHOT_EVERY = Settings().snapshot_every


def game(seed: int) -> tuple[list[Any], list[bytes]]:
    """The scripted game's states (one per event) and its stored events."""
    states, stored = [ENGINE.new_game("codeone", seed)], []
    for side, body in commands(seed):
        verdict = ENGINE.decide(states[-1], side, ENGINE.parse_command(body))
        for event in verdict.events or ():
            states.append(ENGINE.apply_all(states[-1], [event]))
            stored.append(codec.pack_plain(ENGINE.event_to_plain(event)))
    return states, stored


async def store_rooms(store: RedisRoomStore, count: int, seed: int) -> list[str]:
    states, stored = game(seed)
    base = (len(stored) // SNAPSHOT_EVERY - 1) * SNAPSHOT_EVERY  # a snapshot inside the game
    before = stored[:base]
    plains = [codec.unpack_plain(e) for e in before]
    seen = counted(NONE_SEEN, audience_views(
        ENGINE, states[base], [ENGINE.event_from_plain(p) for p in plains], plains))
    # As the room stores it (``SnapshotPolicy``): the state without its army lists, kept apart.
    snapshot = pack_room_snapshot(ENGINE.state_to_plain(states[base], armies=False), seen)
    armies = pack_room_armies(ENGINE, states[base])
    first = pack_room_snapshot(ENGINE.state_to_plain(states[0]), NONE_SEEN)
    settings = RoomSettings("codeone", 60.0, "private", fixed_seed=seed)
    ids = []
    for n in range(count):
        room_id = f"r{n}-{uuid.uuid4().hex[:8]}"
        meta = RoomMeta(room_id, settings, "a" * 64, "b" * 64, 0, "", "")
        await store.create_room(meta, first, None)
        fence = await store.claim_room(room_id, "bench")
        assert fence is not None
        await store.append(room_id, fence=fence, expected_version=0, events=before,
                           snapshot=snapshot, armies=armies, deadlines=(), listing=None)
        after = stored[base:base + n % SNAPSHOT_EVERY]
        if after:
            await store.append(room_id, fence=fence, expected_version=base, events=after,
                               snapshot=None, deadlines=(), listing=None)
        ids.append(room_id)
    return ids


async def open_all(url: str, ids: list[str], batched: bool) -> tuple[float, float, int]:
    """(wall s, CPU s, rooms whose open failed): a failed open is what a hello would answer
    ``storage_unavailable`` (e.g. no pooled connection free within the pool's timeout)."""
    store = RedisRoomStore.from_url(url)
    registry = RoomRegistry(store, LocalFanout(), RulesCoreEngine(), Settings(freeze_gc=False))
    if not batched:
        registry._loads.load = store.load_room  # type: ignore[method-assign]
    wall, cpu = time.perf_counter(), time.process_time()
    rooms = await asyncio.gather(*(registry.open(room_id) for room_id in ids),
                                 return_exceptions=True)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    failed = sum(1 for room in rooms if isinstance(room, BaseException))
    assert all(room is not None for room in rooms)
    await registry.shutdown()
    await store.close()
    return wall, cpu, failed


async def replay_cpu(url: str, ids: list[str]) -> float:
    """What ``RoomRegistry._load`` does in-process after the read, for every room."""
    store = RedisRoomStore.from_url(url)
    read = await store.load_rooms(ids)
    await store.close()
    started = time.process_time()
    for room in read:
        assert room is not None
        state_from_stored(ENGINE, room.snapshot, room.snapshot_version, room.events,
                          room.armies)
    return time.process_time() - started


async def measure(args: argparse.Namespace) -> None:
    _, load_core = cores()
    with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
        async with redis_server(Path(tmp), load_core) as url:
            store = RedisRoomStore.from_url(url)
            ids = await store_rooms(store, args.rooms, args.seed)
            await store.close()
            print(f"{len(ids)} rooms stored")
            figures: dict[str, list[tuple[float, float, int]]] = {
                "batched": [], "one by one": []}
            for _ in range(args.passes):
                for name, batched in (("batched", True), ("one by one", False)):
                    figures[name].append(await open_all(url, ids, batched))
            replay = min([await replay_cpu(url, ids) for _ in range(args.passes)])
    for name, runs in figures.items():
        walls, cpus = [w for w, _, _ in runs], [c for _, c, _ in runs]
        print(f"{name:11s} all open: wall median {statistics.median(walls):6.2f} s "
              f"({min(walls):.2f}-{max(walls):.2f}), CPU median "
              f"{statistics.median(cpus):6.2f} s, {statistics.median(cpus) / len(ids) * 1e6:,.0f}"
              f" µs per room; failed opens per pass {[f for _, _, f in runs]}")
    print(f"replay alone (decode + apply + counts, least of {args.passes}): {replay:.2f} s CPU, "
          f"{replay / len(ids) * 1e6:,.0f} µs per room")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.restart_load", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rooms", type=int, default=3000)
    parser.add_argument("--passes", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    asyncio.run(measure(parser.parse_args(argv)))


if __name__ == "__main__":
    main()
