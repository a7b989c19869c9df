"""``python -m bench.rules_cost``: CPU per command of the referee's in-process work, without
sockets or Redis, over the benchmark's scripted game (setup and every Order).

For each command of the game (as ``testkit.scripted_game`` plans it): ``decide``, ``apply``, the
snapshot (``SnapshotPolicy.take``: the state without its army lists, which the store keeps
apart and a snapshot writes only when they changed; taken only every ``snapshot_every``
versions),
the events' plain form + msgpack (stored on every command) and the frames for the room's
three audiences, made as the room makes them (``server/rooms/event_frames.py``, with the
ARO window they carry, and a seat's command named in its commander's frame). Each figure
is the minimum over ``--repeat`` passes of process CPU time (the machine is shared: the
minimum is the least disturbed pass), divided by the number of commands. The fingerprint
hashes every decision, so two versions of the rules core can be checked to decide the
same game identically.

What the room pays in-process per command (``room_us_per_command``, the rules part of
``bench.run``'s floor, bench/README.md): ``decide``; ``apply`` only for a verdict that does
not carry the state the engine reached while deciding (the room applies none of the others,
``Room._commit``); the stored events; the frames; the open window and the public summaries
the room reads on every commit (``window_and_summaries``); and the snapshots the room's
``SnapshotPolicy`` takes over the game (``snapshot_every`` as the server's settings say, and
every change of phase, round or turn), timed as taken and spread over the commands. ``--orders-only``
measures the Orders alone (the bench's paced and max-rate phases play no setup command);
``--json`` prints the whole result as JSON.

A micro-benchmark of the room's in-process work per command: the rules core through the
engine port's adapter (``server.rooms.rules_engine.RulesCoreEngine``) and the room's frames
(``server.rooms.event_frames``, ``server.rooms.numbering``), reached on purpose. Its
``ENGINE`` and ``commands`` are the other cost tools' game too.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from collections.abc import Callable
from typing import Any

from bench.measure import min_cpu_us
from protocol import codec
from protocol.messages import window_fields
from server.config import Settings
from server.fanout import Audience
from server.rooms.event_frames import Answering, events_delivery
from server.rooms.numbering import NONE_SEEN, audience_views
from server.rooms.rules_engine import RulesCoreEngine
from server.rooms.snapshot_policy import SnapshotPolicy
from server.rules import native
from testkit.scripted_game import plan

ENGINE = RulesCoreEngine()
DEADLINE_MS = 1_800_000_000_000  # an ARO window's deadline, as frames carry it


def commands(seed: int) -> list[tuple[str | None, dict[str, Any]]]:
    """The scripted game as (seat or None for the room's clock, command body)."""
    return plan(seed).commands(clock_closes_windows=True)


def snapshots_taken(states: list[Any], afters: list[Any], verdicts: list[Any],
                    every: int) -> list[bool]:
    """Per command, whether the room stores a snapshot with its commit: its
    ``SnapshotPolicy`` replayed over the game from the new room's snapshot at version 0."""
    policy = SnapshotPolicy(ENGINE, every, 0)
    version = 0
    taken = []
    for before, after, verdict in zip(states, afters, verdicts, strict=True):
        version += len(verdict.events or ())
        due = policy.due(before, ENGINE.public_summary(after), version)
        if due:
            policy.stored(version, policy.take(after, NONE_SEEN))
        taken.append(due)
    return taken


def snapshots_stored(first: Any, afters: list[Any], taken: list[bool], every: int) -> None:
    """The snapshots a room's ``SnapshotPolicy`` takes over ``afters`` where ``taken``
    says, its store holding the army lists of ``first`` (the state before them) apart."""
    policy = SnapshotPolicy(ENGINE, every, 0, ENGINE.armies_of(first))
    for version, (after, due) in enumerate(zip(afters, taken, strict=True)):
        if due:
            policy.stored(version, policy.take(after, NONE_SEEN))


def measure(seed: int, repeat: int, *, orders_only: bool = False) -> dict[str, Any]:
    """The figures the CLI prints (``us_per_command``: each part's CPU per command) and what
    the room pays in-process per command in all (``room_us_per_command``), over the whole
    game, or with ``orders_only`` over its Orders (the setup commands are still played)."""
    moves = commands(seed)
    states, parsed, verdicts = [], [], []
    state = ENGINE.new_game("codeone", seed)
    for side, body in moves:
        command = ENGINE.parse_command(body)
        verdict = ENGINE.decide(state, side, command)
        if verdict.events is None:
            raise RuntimeError(f"scripted command refused: {body} {verdict.code}")
        states.append(state)
        parsed.append((side, command))
        verdicts.append(verdict)
        state = ENGINE.apply_all(state, verdict.events)
    afters = [*states[1:], state]
    # (the whole game's, whatever part is measured: it names the game)
    fingerprint = hashlib.sha256()
    for before, (side, command) in zip(states, parsed, strict=True):
        fingerprint.update(repr(ENGINE.decide(before, side, command)).encode())
    every = Settings.from_env().snapshot_every
    snapshots = snapshots_taken(states, afters, verdicts, every)
    if orders_only:
        first = len(plan(seed).setup)
        moves, states, parsed, verdicts, afters, snapshots = (
            moves[first:], states[first:], parsed[first:], verdicts[first:], afters[first:],
            snapshots[first:])

    def best(work: Callable[[], object]) -> float:
        return min_cpu_us(work, repeat, len(moves))

    # The plain forms are made once for the store (``events_to_store``) and reused here.
    plains = [[ENGINE.event_to_plain(e) for e in v.events or ()] for v in verdicts]

    # The room asks the rules core for the open window on every command anyway (its timer
    # follows it); the frames only add the window's fields, built when the frame is.
    windows = [ENGINE.pending_aro_window(after) for after in afters]

    # A seat's command is answered in its commander's frame; the clock's are nobody's.
    answering = [None if side is None else Answering(Audience(side), "c1") for side, _ in moves]

    def views() -> None:
        # What the room does after storing a command's events (server/rooms/event_frames.py).
        for verdict, plain, after, window, answer in zip(verdicts, plains, afters, windows,
                                                         answering, strict=True):
            fields = None if window is None else window_fields(
                window.order, window.step, window.reactive, DEADLINE_MS, DEADLINE_MS)
            events = verdict.events or ()
            events_delivery(1, NONE_SEEN, audience_views(ENGINE, after, events, plain), fields,
                            lambda _audience: True, answer)

    # A verdict carrying the state the engine reached while deciding is not applied again.
    unapplied = [(s, v) for s, v in zip(states, verdicts, strict=True) if v.state is None]

    def window_and_summaries() -> None:
        # Read by the room on every commit: the open window (its timer follows it), the new
        # state's public summary, and the old one's (``SnapshotPolicy.due``).
        for before, after in zip(states, afters, strict=True):
            ENGINE.pending_aro_window(after)
            ENGINE.public_summary(after)
            ENGINE.public_summary(before)

    figures = {
        "decide": best(lambda: [ENGINE.decide(s, side, c)
                                for s, (side, c) in zip(states, parsed, strict=True)]),
        "apply": best(lambda: [ENGINE.apply_all(s, v.events or ())
                               for s, v in zip(states, verdicts, strict=True)]),
        "snapshot_if_taken_every_command": best(
            lambda: snapshots_stored(states[0], afters, [True] * len(afters), every)),
        "events_to_store": best(lambda: [[codec.pack_plain(ENGINE.event_to_plain(e))
                                          for e in v.events or ()] for v in verdicts]),
        "views_and_frames_3_audiences": best(views),
    }
    taken = sum(snapshots)
    room = {
        "decide": figures["decide"],
        "apply_not_kept_by_decide": best(lambda: [ENGINE.apply_all(s, v.events or ())
                                                  for s, v in unapplied]) if unapplied else 0.0,
        "events_to_store": figures["events_to_store"],
        "views_and_frames_3_audiences": figures["views_and_frames_3_audiences"],
        "window_and_summaries": best(window_and_summaries),
        "snapshot_amortised": best(
            lambda: snapshots_stored(states[0], afters, snapshots, every)),
    }
    return {
        "rules_core": native.status(),
        "part": "orders" if orders_only else "game",
        "commands": len(moves),
        "events": sum(len(v.events or ()) for v in verdicts),
        "decision_fingerprint": fingerprint.hexdigest()[:16],
        "us_per_command": figures,
        "snapshot_every": every,
        "snapshots_taken": taken,
        "verdicts_applied_by_room": len(unapplied),
        "room_us_per_command": {**room, "total": round(sum(room.values()), 1)},
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.rules_cost", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--orders-only", action="store_true",
                        help="measure the Orders' commands only (as the bench's phases play)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args(argv)
    result = measure(args.seed, args.repeat, orders_only=args.orders_only)
    if args.json:
        print(json.dumps(result))
        return
    print(result["rules_core"])
    print(f"{result['commands']} commands, {result['events']} events, decisions "
          f"{result['decision_fingerprint']}")
    for name, value in result["us_per_command"].items():
        print(f"{name:34s} {value:10,.1f} µs/command")
    print(f"the room in-process: {result['snapshots_taken']} snapshots (every "
          f"{result['snapshot_every']} versions and at each phase, round or turn), "
          f"{result['verdicts_applied_by_room']} verdicts applied apart from deciding")
    for name, value in result["room_us_per_command"].items():
        print(f"  {name:32s} {value:10,.1f} µs/command")


if __name__ == "__main__":
    main()
