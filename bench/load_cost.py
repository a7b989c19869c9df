"""``python -m bench.load_cost``: CPU of reading plain data back into the rules core, without
sockets or Redis, over the benchmark's scripted game (as ``bench.rules_cost`` plays it).

* ``state_from_plain``: per state, over every 10th state of the game and the final one;
  and of the mid-game state, also as a first read (the shared catalogue values that
  ``serial`` keeps between reads forgotten before each read: the first room a new process
  loads pays this, the others with the same armies the warm figure);
* ``event_from_plain``: per event, over every event of the game;
* ``state_to_plain`` / ``event_to_plain``: the other way, the same states and events;
* ``parse_command``: per command, over every command body of the game;
* ``load a room``: what ``RoomRegistry._load`` does in-process for a room whose latest
  snapshot is 100 events old -- unpack and convert the snapshot, unpack and convert the 100
  events, apply them (the snapshot is the state before the game's last 100 events, at a
  command's boundary).

Each figure is the least and the median over ``--repeat`` passes of process CPU time (the
machine is shared: the least is the least disturbed pass). The fingerprint hashes the
``repr`` of every value read back, so two versions can be checked to read the same values
(and ``written`` the plain data of the states and events: they write the same).

A micro-benchmark of the rules core's plain-data readers and writers through the engine
port's adapter (``server.rooms.rules_engine.RulesCoreEngine``); the first-read figure reaches
``server.rules.plain.decoders.forget_shared`` on purpose.
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

from bench.rules_cost import ENGINE, commands
from protocol import codec
from server.rules.plain import decoders as plain_decoders


def played(seed: int, moves: Sequence[tuple[str | None, dict[str, Any]]]
           ) -> tuple[list[Any], list[list[Any]]]:
    """``moves`` played from the new game of ``seed``: every state (the new game's first,
    then one after each command) and each command's events (``bench.restart_cost`` reads
    the rooms' states at the kill from it)."""
    states, events = [ENGINE.new_game("codeone", seed)], []
    for side, body in moves:
        verdict = ENGINE.decide(states[-1], side, ENGINE.parse_command(body))
        batch = list(verdict.events or ())
        events.append(batch)
        states.append(ENGINE.apply_all(states[-1], batch))
    return states, events


def measure(seed: int, repeat: int) -> dict[str, Any]:
    bodies = [body for _, body in commands(seed)]
    states, events = played(seed, commands(seed))
    sampled = [*states[::10], states[-1]]
    state_plains = [ENGINE.state_to_plain(s) for s in sampled]
    all_events = [e for batch in events for e in batch]
    event_plains = [ENGINE.event_to_plain(e) for e in all_events]
    middle = state_plains[len(state_plains) // 2]

    # The snapshot: the state after the command at which 100 or more events remain.
    start, remaining = len(events), 0
    while start > 0 and remaining < 100:
        start -= 1
        remaining += len(events[start])
    snapshot = codec.pack_plain(ENGINE.state_to_plain(states[start]))
    stored = [codec.pack_plain(ENGINE.event_to_plain(e)) for b in events[start:] for e in b]

    def load() -> Any:
        state = ENGINE.state_from_plain(codec.unpack_plain(snapshot))
        return ENGINE.apply_all(state, [ENGINE.event_from_plain(codec.unpack_plain(e))
                                        for e in stored])

    fingerprint = hashlib.sha256()
    for plain in state_plains:
        fingerprint.update(repr(ENGINE.state_from_plain(plain)).encode())
    for plain in event_plains:
        fingerprint.update(repr(ENGINE.event_from_plain(plain)).encode())
    for body in bodies:
        fingerprint.update(repr(ENGINE.parse_command(body)).encode())
    fingerprint.update(repr(load()).encode())
    written = hashlib.sha256(repr((state_plains, event_plains)).encode())

    def first_read() -> object:
        plain_decoders.forget_shared()
        return ENGINE.state_from_plain(middle)

    least: dict[str, float] = {}
    median: dict[str, float] = {}

    def cpu(name: str, work: Callable[[], object], count: int) -> None:
        runs = []
        for _ in range(repeat):
            started = time.process_time()
            work()
            runs.append((time.process_time() - started) / count * 1e6)
        least[name] = round(min(runs), 1)
        median[name] = round(statistics.median(runs), 1)

    cpu("state_from_plain (per state)",
        lambda: [ENGINE.state_from_plain(p) for p in state_plains], len(state_plains))
    cpu("state_from_plain (final state)", lambda: ENGINE.state_from_plain(state_plains[-1]), 1)
    cpu("state_from_plain (mid-game state)",
        lambda: [ENGINE.state_from_plain(middle) for _ in range(10)], 10)
    cpu("state_from_plain (mid-game, first read)", first_read, 1)
    cpu("event_from_plain (per event)",
        lambda: [ENGINE.event_from_plain(p) for p in event_plains], len(event_plains))
    cpu("parse_command (per command)",
        lambda: [ENGINE.parse_command(b) for b in bodies], len(bodies))
    cpu("state_to_plain (per state)",
        lambda: [ENGINE.state_to_plain(s) for s in sampled], len(sampled))
    cpu("event_to_plain (per event)",
        lambda: [ENGINE.event_to_plain(e) for e in all_events], len(all_events))
    cpu("load a room (snapshot + events)", load, 1)
    return {
        "states": len(sampled),
        "events": len(event_plains),
        "commands": len(bodies),
        "loaded_events": len(stored),
        "fingerprint": fingerprint.hexdigest()[:16],
        "written": written.hexdigest()[:16],
        "us": least,
        "median_us": median,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.load_cost", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    result = measure(args.seed, args.repeat)
    print(f"{result['states']} states, {result['events']} events, {result['commands']} "
          f"commands, a room loaded with {result['loaded_events']} events; values read "
          f"{result['fingerprint']}, plain written {result['written']}")
    print(f"{'µs of process CPU':40s} {'least':>10s} {'median':>10s}")
    for name, value in result["us"].items():
        print(f"{name:40s} {value:10,.1f} {result['median_us'][name]:10,.1f}")


if __name__ == "__main__":
    main()
