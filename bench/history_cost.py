"""``python -m bench.history_cost``: CPU of a whole N5 game's ``history`` for each viewer.

The game is the one the tests play to its end (``testkit.full_game.whole_game``: an
N5 game that shoots whenever it can). Its events are stored in an in-memory store, and each
audience (seat A, seat B, spectators) pages through its whole history with the room's own
code (``server.rooms.history.HistoryPages``, 500 events a page), each page encoded as the
``history`` frame the room sends. Redis is left out: its read (one XRANGE per page) costs
Redis and the socket, not the room's Python. Each figure is the minimum over ``--repeat``
passes of process CPU time (the machine is shared: the least disturbed pass).

A micro-benchmark of the room's history paging (``server.rooms.history.HistoryPages``,
``server.rooms.numbering``), reached on purpose.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import time
from typing import Any

from protocol import codec
from protocol.messages import History
from server.fanout import AUDIENCES, Audience
from server.rooms.history import HistoryPages
from server.rooms.numbering import NONE_SEEN, audience_views, counted, pack_room_snapshot
from server.rooms.rules_engine import RulesCoreEngine
from server.rules.ids import Side
from server.store import MemoryRoomStore, RoomMeta, RoomSettings
from testkit.full_game import whole_game

ENGINE = RulesCoreEngine()
ROOM = "history-bench"


async def _stored_game(seed: int) -> tuple[MemoryRoomStore, Any, int, dict[Audience, int]]:
    """The whole game in a store; its final state, version and per-audience counts."""
    entropy = {side: hashlib.sha256(f"{seed}:{side.value}".encode()).hexdigest() for side in Side}
    secret = hashlib.sha256(f"history-bench:{seed}".encode()).hexdigest()
    state, events = whole_game("n5", secret, entropy)
    plains = [ENGINE.event_to_plain(event) for event in events]
    store = MemoryRoomStore()
    meta = RoomMeta(ROOM, RoomSettings("n5", 30.0, "private"), "a", "b", 0)
    await store.create_room(meta, pack_room_snapshot({}, NONE_SEEN), None)
    fence = await store.claim_room(ROOM, "bench")
    assert fence is not None
    await store.append(ROOM, fence=fence, expected_version=0,
                       events=[codec.pack_plain(plain) for plain in plains], snapshot=None,
                       deadlines=(), listing=None)
    seen = counted(NONE_SEEN, audience_views(ENGINE, state, events, plains))
    return store, state, len(events), seen


async def _whole_history(store: MemoryRoomStore, state: Any, version: int,
                         seen: dict[Audience, int], audience: Audience) -> tuple[int, int]:
    """Page through ``audience``'s history as a client does, with a room's fresh
    checkpoints (a room just loaded); (pages, bytes of frames)."""
    pages = HistoryPages(ROOM, ENGINE, store, version, seen)
    last, first, count, size = seen[audience], 1, 0, 0
    while first <= last:
        events = await pages.page(state, audience, first, version, last)
        size += len(codec.encode(History(f"q{count}", first, events, last)))
        first += len(events)
        count += 1
    return count, size


def measure(seed: int, repeat: int) -> dict[str, Any]:
    return asyncio.run(_measure(seed, repeat))


async def _measure(seed: int, repeat: int) -> dict[str, Any]:
    store, state, version, seen = await _stored_game(seed)
    audiences: dict[str, dict[str, Any]] = {}
    for audience in AUDIENCES:
        fastest = float("inf")
        for _ in range(repeat):
            started = time.process_time()
            pages, size = await _whole_history(store, state, version, seen, audience)
            fastest = min(fastest, time.process_time() - started)
        audiences[audience.value] = {
            "events": seen[audience], "pages": pages, "frame_bytes": size,
            "ms": round(fastest * 1e3, 2),
            "us_per_event": round(fastest / max(1, seen[audience]) * 1e6, 1)}
    return {"stored_events": version, "audiences": audiences}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.history_cost", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    result = measure(args.seed, args.repeat)
    print(f"a whole N5 game: {result['stored_events']} stored events")
    for name, figures in result["audiences"].items():
        print(f"{name:10s} {figures['events']:6,d} events {figures['pages']:3d} pages "
              f"{figures['frame_bytes']:10,d} B of frames {figures['ms']:9.2f} ms CPU "
              f"({figures['us_per_event']:.1f} µs per event)")


if __name__ == "__main__":
    main()
