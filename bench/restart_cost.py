"""``python -m bench.restart_cost``: the in-process CPU per room that any referee on this rules
core pays to have a room back after a ``kill -9`` and the baseline does not, at the point of
the scripted game the bench's rooms stand at when killed (the restart part of ``bench.run``'s
floor, bench/floor.py and bench/README.md "The restart's floor").

``--orders K``: the rooms have played the setup and the game's first K Orders (``bench.run``
passes the referee's paced and max-rate Orders per room: a room plays whole Orders, so the
kill finds it between two, with no ARO window open). Per room, each the least of
``--repeat`` passes (the machine is shared: the least disturbed pass; so it errs low):

- ``snapshot_to_state``: reading the room back into the rules core from ONE stored snapshot
  of its state at the kill, with its army lists stored apart (``numbering.snapshot_state``,
  as ``RoomRegistry._load`` reads one). The least any referee storing state this way pays: a
  referee could store a snapshot with every version, so no replay of events is counted;
- ``window_on_start``: the open ARO window read from the state when the room starts
  (``WindowDeadline.restore``): what the first frames must say;
- ``catch_up_frames_3_audiences``: the first frame a returning member must receive, once per
  audience of the room (seat A, seat B, the spectators: every member of an audience can be
  sent the same bytes). The bench's members return with ``since`` = the version they hold,
  so the room sends them an ``events`` frame with no event and the window as it stands
  (``CatchUp.catch_up``), not their view of the state; the ``welcome`` the room sends first
  is not counted (a referee could say what it must in that one frame).

Beside them, not part of the floor:

- ``referee_load_as_stored``: what ``RoomRegistry._load`` does in-process for the room as the
  referee stores it (its ``SnapshotPolicy``'s latest snapshot at or before the kill, and the
  events after it: unpacked, read, replayed, counted per audience): the referee's in-process
  load, to set beside ``snapshot_to_state``;
- ``referee_load_first_read``: ``referee_load_as_stored`` with the node's shared values
  forgotten before each read (``decoders.forget_shared``): a room whose army lists no other
  room on the node fields. The bench's rooms all field the same two lists, so after the first
  room each list is read from bytes already read (``server.rules.plain.packed``) and its
  entries are values already built: the figures above are for rooms that share their lists;
  this one for a room that shares nothing;
- ``snapshot_frames_3_audiences``: the first frames of members that return without their
  version (a reloaded page): each audience's view of the state, made and encoded once per
  audience (``CatchUp.snapshot_frame``; a seat's view is made per connection, a crowd's
  shared).

A micro-benchmark of the room's loading and greeting through the engine port's adapter
(``server.rooms.rules_engine.RulesCoreEngine``) and the room's frames (``server/rooms/
frames.py``, ``numbering.py``, ``snapshot_policy.py``), reached on purpose.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from bench.load_cost import played
from bench.measure import min_cpu_us
from bench.rules_cost import ENGINE, snapshots_taken
from protocol import codec
from protocol.messages import window_fields
from server.config import Settings
from server.fanout import Audience
from server.rooms import frames
from server.rooms.numbering import (
    NONE_SEEN,
    audience_views,
    counted,
    pack_room_armies,
    pack_room_snapshot,
    snapshot_state,
    state_from_stored,
)
from server.rules import native
from server.rules.plain.decoders import forget_shared
from testkit.scripted_game import Script, plan

REPEAT = 5
READS_PER_PASS = 20
"""Rooms read in one timed pass (a room's read is well under a millisecond)."""
DEADLINE_MS = 1_800_000_000_000  # an open window's deadline, as frames carry it
AUDIENCES_GREETED = (Audience.A, Audience.B, Audience.SPECTATOR)
"""The audiences of the bench's rooms: two seats and their spectators (no casters)."""


def script_at_kill(seed: int, orders: int) -> Script:
    """The scripted game as far as a room that played the setup and ``orders`` Orders (at
    most the whole game)."""
    script = plan(seed)
    return Script(script.seed, script.setup, script.orders[:max(0, orders)])


@dataclass(frozen=True)
class AtKill:
    """A room of the bench's game as a restarted referee finds it."""

    orders: int
    commands: int
    state: Any
    version: int
    seen: Mapping[Audience, int]
    snapshot: bytes
    """The floor's stored form: one snapshot of the state at the kill (its army lists
    apart, ``stored_armies``: the bench's rooms choose them in the setup)."""
    stored_version: int
    stored_snapshot: bytes
    stored_armies: bytes
    stored_events: list[bytes]
    """The referee's stored form: its ``SnapshotPolicy``'s latest snapshot at or before the
    kill (the new room's, at version 0, if none since) and the events after it."""
    snapshots_taken: int

    def read_snapshot(self) -> Any:
        """The floor's read: the state back from its one snapshot."""
        state, _ = snapshot_state(ENGINE, self.snapshot, self.version, self.stored_armies)
        return state

    def load_first_read(self) -> tuple[Any, Mapping[Audience, int]]:
        """``load_as_stored`` by a node that has read no value of this room before."""
        forget_shared()
        return self.load_as_stored()

    def load_as_stored(self) -> tuple[Any, Mapping[Audience, int]]:
        """``RoomRegistry._load``, in-process: the state and each audience's count."""
        return state_from_stored(ENGINE, self.stored_snapshot, self.stored_version,
                                 self.stored_events, self.stored_armies)


def at_kill(seed: int, orders: int) -> AtKill:
    """The room after the setup and ``orders`` Orders, stored both ways."""
    script = script_at_kill(seed, orders)
    moves = script.commands(clock_closes_windows=True)
    states, batches = played(seed, moves)
    seen_after = [NONE_SEEN]
    for after, batch in zip(states[1:], batches, strict=True):
        plains = [ENGINE.event_to_plain(e) for e in batch]
        seen_after.append(counted(seen_after[-1], audience_views(ENGINE, after, batch, plains)))
    taken = snapshots_taken(states[:-1], states[1:], [_Events(b) for b in batches],
                            Settings.from_env().snapshot_every)
    last = max((i + 1 for i, due in enumerate(taken) if due), default=0)
    return AtKill(
        orders=len(script.orders), commands=len(moves), state=states[-1],
        version=sum(len(batch) for batch in batches), seen=seen_after[-1],
        snapshot=pack_room_snapshot(ENGINE.state_to_plain(states[-1], armies=False),
                                    seen_after[-1]),
        stored_version=sum(len(batch) for batch in batches[:last]),
        stored_snapshot=pack_room_snapshot(ENGINE.state_to_plain(states[last], armies=False),
                                           seen_after[last]),
        stored_armies=pack_room_armies(ENGINE, states[last]),
        stored_events=[codec.pack_plain(ENGINE.event_to_plain(e))
                       for batch in batches[last:] for e in batch],
        snapshots_taken=sum(taken))


def measure(seed: int, orders: int, repeat: int = REPEAT) -> dict[str, Any]:
    """The per-room figures (``us_per_room``: the floor's parts and their ``total``;
    ``beside``: the referee's own load and the snapshot frames) at the kill point."""
    room = at_kill(seed, orders)
    state, seen = room.state, room.seen
    open_window = ENGINE.pending_aro_window(state)
    fields = None if open_window is None else window_fields(
        open_window.order, open_window.step, open_window.reactive, DEADLINE_MS, DEADLINE_MS)

    def window() -> object:
        return ENGINE.pending_aro_window(state)

    def catch_up_frames() -> object:
        # (no chess clock in the bench's rooms: the frames carry no clocks)
        return [frames.events(seen[audience] + 1, [], fields, None)
                for audience in AUDIENCES_GREETED]

    def snapshot_frames() -> object:
        seats = {"A": "connected", "B": "connected"}
        out = [frames.seat_snapshot(seen[audience], ENGINE.view_state(state, audience.value),
                                    fields, seats, None)
               for audience in (Audience.A, Audience.B)]
        packed = frames.packed_view(ENGINE.view_state(state, Audience.SPECTATOR.value))
        out.append(frames.crowd_snapshot(seen[Audience.SPECTATOR], packed, fields, seats, None))
        return out

    def per_room(work: Callable[[], object]) -> float:
        return min_cpu_us(lambda: [work() for _ in range(READS_PER_PASS)], repeat,
                          READS_PER_PASS)

    parts = {
        "snapshot_to_state": per_room(room.read_snapshot),
        "window_on_start": per_room(window),
        "catch_up_frames_3_audiences": per_room(catch_up_frames),
    }
    return {
        "rules_core": native.status(),
        "orders": room.orders,
        "commands": room.commands,
        "version": room.version,
        "window_open": open_window is not None,
        "snapshot_bytes": len(room.snapshot),
        "us_per_room": {**parts, "total": round(sum(parts.values()), 1)},
        "referee_stored": {"snapshot_version": room.stored_version,
                           "events_after": len(room.stored_events),
                           "snapshots_taken": room.snapshots_taken},
        "beside": {
            "referee_load_as_stored": per_room(room.load_as_stored),
            "referee_load_first_read": per_room(room.load_first_read),
            "snapshot_frames_3_audiences": per_room(snapshot_frames),
        },
    }


class _Events:
    """A verdict as ``rules_cost.snapshots_taken`` reads it: only its events."""

    __slots__ = ("events",)

    def __init__(self, events: list[Any]) -> None:
        self.events = events


def main(args: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.restart_cost", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--orders", type=int, default=8,
                        help="Orders each room played before the kill (after the setup)")
    parser.add_argument("--repeat", type=int, default=REPEAT)
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parsed = parser.parse_args(args)
    result = measure(parsed.seed, parsed.orders, parsed.repeat)
    if parsed.json:
        print(json.dumps(result))
        return
    print(f"{result['rules_core']}; the setup and {result['orders']} Orders "
          f"({result['commands']} commands, version {result['version']}, snapshot "
          f"{result['snapshot_bytes']:,} bytes, window open: {result['window_open']})")
    for name, value in result["us_per_room"].items():
        print(f"  {name:34s} {value:10,.1f} µs/room")
    stored = result["referee_stored"]
    print(f"beside (the referee's snapshot at version {stored['snapshot_version']}, "
          f"{stored['events_after']} events after it):")
    for name, value in result["beside"].items():
        print(f"  {name:34s} {value:10,.1f} µs/room")


if __name__ == "__main__":
    main()
