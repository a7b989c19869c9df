"""``python -m bench.profile_groups PROFILE``: where a recorded referee spent its CPU.

Reads the raw folded stacks that ``bench.run --profile`` writes (py-spy's ``-f raw``: one
line per distinct stack, frames separated by ``;``, then a space and a sample count) and
puts every busy sample in the first group, in the order of ``GROUPS``, that one of its
frames belongs to. Samples of a thread that waits (the event loop in ``epoll``, the lease
thread between its ticks) are counted apart and left out of the shares: they are not CPU.

Read it on a profile recorded with the referee paused for each sample (the default of
``bench.run --profile``, or ``--profile-native``). Sampled without pausing, py-spy often
reads a stack while the interpreter changes it and keeps only its base: in an unpaused paced
profile at ``cfec66d`` (2026-11-21) 43% of the samples named nothing below the event loop's
``Runner.run``, where a paused profile of the same phase (``8a2ee1d``) finds 6%
(docs/performance.md).

Compiled modules (mypyc) show up only in native profiles, as ``CPyDef_<module>___...``
functions; in a Python-only profile their time counts in their interpreted caller.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

_RULES_GEOMETRY = ("aro", "aro_eligibility", "line_of_fire", "sight_lines", "route_sight",
                   "zone_of_control", "terrain", "polygons", "engaged", "routes", "geometry")

GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("lease renewal thread", ("renewer.py", "renewal.py")),
    # A write on a socket runs the kernel's whole loopback delivery: the same cost per frame
    # for the baseline, which is why it is a group of its own.
    ("socket writes (the write system call)", ("UVStream__try_write",)),
    # Mostly ARO eligibility (who sees the mover along its route); also movement checks.
    ("rules: geometry (line of fire, zone of control, movement against terrain)",
     tuple(f"rules/{name}.py" for name in _RULES_GEOMETRY)
     + tuple(f"CPyDef_{name}___" for name in _RULES_GEOMETRY)),
    ("rules: plain data and snapshots (plain)", ("rules/plain/",)),
    ("rules: the rest (decide, apply, views, replace)", ("server/rules/",)),
    ("Redis client (group commit, appends)", ("server/store/", "redis/", "hiredis")),
    ("sending frames (encoding, fan-out, session, uvicorn's send, websockets' framing)",
     ("encode (protocol/", "server/fanout/", "server/cluster/fanout.py", "session.py", "eager.py",
      "direct_frames.py", "WebSocketsSansIOProtocol.send", "Protocol.send_", "Frame.serialize",
      "send_keepalive_ping")),
    ("receiving commands (websockets' parsing, uvicorn's queue, decoding, checks)",
     ("data_received", "endpoint.py", "Protocol.parse", "receive_data", "protocol/",
      "server/transport/")),
    ("the room actor, its inbox and timers", ("server/rooms/",)),
)
OTHER = "other (the event loop's own code, start-up, anything unnamed)"
_WAITING_LEAVES = frozenset({
    "epoll_wait", "epoll_pwait", "poll", "select", "internal_select",  # waiting for a socket
    "PyThread_acquire_lock_timed", "pthread_cond_timedwait", "futex_wait",  # for a lock
    "clock_nanosleep", "nanosleep",
    # Without --native, a thread blocked on a lock shows the Python call that took it: the
    # lease thread between its ticks, in ``threading.Condition.wait``'s acquire.
    "Condition.wait"})


@dataclass(frozen=True, slots=True)
class Breakdown:
    busy: Counter[str]
    """Samples per group, busy threads only."""
    waiting: int
    """Samples of a thread waiting (not CPU)."""

    @property
    def busy_total(self) -> int:
        return sum(self.busy.values())

    def lines(self) -> Iterator[str]:
        total = self.busy_total or 1
        for name, _ in (*GROUPS, (OTHER, ())):
            if self.busy[name]:
                yield f"{100 * self.busy[name] / total:5.1f}%  {name}"
        yield f"{self.busy_total} busy samples ({self.waiting} more of a thread waiting)"


def read_folded(lines: Iterable[str]) -> Iterator[tuple[list[str], int]]:
    """(frames, samples) per line of a raw folded profile; blank lines skipped."""
    for line in lines:
        stack, _, count = line.rstrip("\n").rpartition(" ")
        if stack:
            yield stack.split(";"), int(count)


def is_waiting(frames: list[str]) -> bool:
    """True for a thread blocked in the kernel or on a lock: one of its innermost frames
    (the call itself may have unnamed frames below it) is a waiting call, matched by its
    whole function name: ``army_selection.py`` holds "select" and waits for nothing."""
    return any(frame.split(" (", 1)[0] in _WAITING_LEAVES for frame in frames[-3:])


def group_of(frames: list[str]) -> str:
    for name, patterns in GROUPS:
        if any(pattern in frame for frame in frames for pattern in patterns):
            return name
    return OTHER


def breakdown(lines: Iterable[str]) -> Breakdown:
    busy: Counter[str] = Counter()
    waiting = 0
    for frames, samples in read_folded(lines):
        if is_waiting(frames):
            waiting += samples
        else:
            busy[group_of(frames)] += samples
    return Breakdown(busy, waiting)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.profile_groups", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("profile", type=Path, help="raw folded stacks (bench.run --profile)")
    args = parser.parse_args(argv)
    with args.profile.open() as lines:
        sys.stdout.write("\n".join(breakdown(lines).lines()) + "\n")


if __name__ == "__main__":
    main()
