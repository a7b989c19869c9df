"""``python -m bench.load_cost``: CPU of reading plain data back into the rules core, without
sockets or Redis, over the benchmark's scripted game (as ``bench.rules_cost`` plays it).

* ``state_from_plain``: per state, over every 10th state of the game and the final one;
* ``event_from_plain``: per event, over every event of the game;
* ``parse_command``: per command, over every command body of the game;
* ``load a room``: what ``RoomRegistry._load`` does in-process for a room whose latest
  snapshot is 100 events old -- unpack and convert the snapshot, unpack and convert the 100
  events, apply them (the snapshot is the state before the game's last 100 events, at a
  command's boundary).

Each figure is the minimum over ``--repeat`` passes of process CPU time (the machine is
shared: the minimum is the least disturbed pass). The fingerprint hashes the ``repr`` of
every value read back, so two versions can be checked to read the same values.
"""

from __future__ import annotations

import argparse
import hashlib
from collections.abc import Callable
from typing import Any

from bench.rules_cost import ENGINE, commands, min_cpu_us
from protocol import codec


def measure(seed: int, repeat: int) -> dict[str, Any]:
    bodies = [body for _, body in commands(seed)]
    states, events = [ENGINE.new_game("codeone", seed)], []
    for side, body in commands(seed):
        verdict = ENGINE.decide(states[-1], side, ENGINE.parse_command(body))
        batch = list(verdict.events or ())
        events.append(batch)
        states.append(ENGINE.apply_all(states[-1], batch))
    sampled = [*states[::10], states[-1]]
    state_plains = [ENGINE.state_to_plain(s) for s in sampled]
    event_plains = [ENGINE.event_to_plain(e) for batch in events for e in batch]

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

    def best(work: Callable[[], object], count: int) -> float:
        return min_cpu_us(work, repeat, count)

    return {
        "states": len(sampled),
        "events": len(event_plains),
        "commands": len(bodies),
        "loaded_events": len(stored),
        "fingerprint": fingerprint.hexdigest()[:16],
        "us": {
            "state_from_plain (per state)": best(
                lambda: [ENGINE.state_from_plain(p) for p in state_plains], len(state_plains)),
            "state_from_plain (final state)": best(
                lambda: ENGINE.state_from_plain(state_plains[-1]), 1),
            "event_from_plain (per event)": best(
                lambda: [ENGINE.event_from_plain(p) for p in event_plains], len(event_plains)),
            "parse_command (per command)": best(
                lambda: [ENGINE.parse_command(b) for b in bodies], len(bodies)),
            "load a room (snapshot + events)": best(load, 1),
        },
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
          f"{result['fingerprint']}")
    for name, value in result["us"].items():
        print(f"{name:34s} {value:10,.1f} µs")


if __name__ == "__main__":
    main()
