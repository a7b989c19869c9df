"""A fuzzer against a real referee (issue 18): generated websocket frames and lobby requests
(``testkit/fuzz/frames.py``), each checked against what protocol/README.md says it
must get, with the server's log read for tracebacks and the rooms' state compared before and
after what was refused.

    .venv/bin/python -m bench.fuzz --frames 100000 --requests 5000

starts a redis-server and ``python -m server`` itself (the server pinned to core 0 and this
process to the others when there are two, as ``bench.run`` does), makes rooms at several
points of a scripted game (armies, deployment, the Orders Phase, an open ARO window, an N5
room on a tournament table), and sends each room batch after batch of generated frames from
seat A, seat B or a spectator. For every batch it checks:

- every frame got what the protocol says: the ``error`` with its code for a frame that is no
  usable message, the ``rejected`` with its id (``bad_message``, ``bad_command``), exactly one
  answer per command and query id, a ``pong`` per ping, an ``options`` per request, a
  snapshot or the events after ``since`` per ``sync``, the close code of an oversized frame
  or of the eleventh unusable one; each command's answer matches the version it was sent
  against (``stale_version``/``future_version``), a malformed body is ``bad_command``, a
  spectator's command ``spectator_read_only``, a repeated id its first answer, and every
  code is a documented one (``internal_error`` never);
- nothing refused changed the room: when no command of the batch was accepted, the room's
  stored version and a spectator's snapshot are the same after it as before;
- nothing went wrong inside the server: no traceback, ERROR or CRITICAL line in its log
  (each round ends with a marked request whose access-log line shows the log is read up to
  there).

The lobby is fuzzed the same way (``requests``): never a 5xx but a documented 503, an error
body ``{"error", "message"}`` for every 4xx of the API, the exact answer where it is known
(a seat token that opens the room, a room that exists or not), and no room stored by a
refused request. It prints a summary and exits 1 on any violation (``--allow-known``: not
for violations of the known bugs listed in ``KNOWN_BUGS``, each pinned by a strict xfail
test). The suite's smoke runs (tests/protocol/test_fuzz_protocol.py, test_fuzz_http.py) use
this same harness at a small size.

The server runs with its per-socket rate limit and its work budgets lifted (as bench.run
lifts the rate limit) so that the fuzzer is not refused for its pace, and with long ARO
windows and grace periods so that no clock changes a room between two checks.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from hypothesis import strategies as st

from testkit.fuzz.frames import requests
from testkit.fuzz.harness import drive, fuzzing, rounds
from testkit.fuzz.oracle import Tally, known_bug


def summary(protocol: Tally, lobby: Tally, seconds: float) -> str:
    violations = protocol.violations + lobby.violations
    known = Counter(bug.name for v in violations if (bug := known_bug(v)) is not None)
    unknown = [v for v in violations if known_bug(v) is None]
    changed = sum(v.kind.startswith("state") for v in protocol.violations)
    lines = [
        f"fuzz: {protocol.frames:,} frames in {protocol.batches:,} batches, "
        f"{lobby.requests:,} lobby requests, {seconds:.0f} s",
        "frames sent: " + ", ".join(f"{k} {n:,}" for k, n in protocol.inputs.most_common()),
        "answers: " + ", ".join(f"{k} {n:,}" for k, n in sorted(protocol.answers.items())),
        "closes: " + ", ".join(f"{code} x{n:,}" for code, n in sorted(protocol.closes.items())),
        f"reconnects {protocol.reconnects:,}, answers lost to a close and asked again "
        f"{protocol.resent:,}, rooms replaced after an accepted command "
        f"{protocol.rooms_replaced:,}",
        f"state checks passed: {protocol.state_checks - changed:,} of {protocol.state_checks:,}",
        "lobby requests: " + ", ".join(f"{k} {n:,}" for k, n in lobby.inputs.most_common()),
        "lobby answers: " + ", ".join(f"{k} {n:,}" for k, n in sorted(lobby.answers.items())),
        f"server log: {protocol.log_lines + lobby.log_lines:,} lines, "
        f"{protocol.tracebacks + lobby.tracebacks} tracebacks, "
        f"{protocol.log_warnings + lobby.log_warnings} warnings",
        f"violations: {len(violations)} ({len(unknown)} not known"
        + "".join(f", {n} {name}" for name, n in known.items()) + ")",
    ]
    for violation in unknown[:20]:
        lines.append(f"  - {violation}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.fuzz", description=__doc__.split(
        "\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--frames", type=int, default=100_000,
                        help="websocket frames to send at least (default 100,000)")
    parser.add_argument("--requests", type=int, default=5_000,
                        help="lobby requests to send at least (default 5,000)")
    parser.add_argument("--seed", type=int, default=1, help="hypothesis seed (default 1)")
    parser.add_argument("--json", type=Path, help="write the figures to this file too, and "
                        "the servers' logs beside it (<name>-server<n>.log)")
    parser.add_argument("--allow-known", action="store_true",
                        help="exit 0 when every violation is one of KNOWN_BUGS")
    args = parser.parse_args(argv)
    server_core = "0" if (os.cpu_count() or 1) >= 2 else None
    if server_core is not None and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, set(range(1, os.cpu_count() or 2)))
    began = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="fuzz-") as workdir, \
            fuzzing(Path(workdir), server_core=server_core) as fuzz:
        chunk = 0
        while (left := args.frames - fuzz.protocol.tally.frames) > 0:
            # a round is some 60 frames (five batches), a lobby batch some 10 requests
            drive(min(50, left // 60 + 1), rounds(), fuzz.protocol_round,
                  seed=args.seed * 100_000 + chunk)
            chunk += 1
            print(f"  {fuzz.protocol.tally.frames:,} frames, "
                  f"{len(fuzz.protocol.tally.violations)} violations "
                  f"({len(fuzz.protocol.tally.unknown())} not known)", flush=True)
        while (left := args.requests - fuzz.lobby.tally.requests) > 0:
            drive(min(50, left // 10 + 1), st.lists(requests(), min_size=1, max_size=20),
                  fuzz.lobby_batch, seed=args.seed * 100_000 + chunk)
            chunk += 1
        seconds = time.monotonic() - began
        report = summary(fuzz.protocol.tally, fuzz.lobby.tally, seconds)
        violations = fuzz.protocol.tally.violations + fuzz.lobby.tally.violations
        if args.json is not None:
            for n, server in enumerate(fuzz.servers, 1):
                log = args.json.with_name(f"{args.json.stem}-server{n}.log")
                log.write_text("\n".join(server.lines) + "\n")
    print(report)
    if args.json is not None:
        args.json.write_text(json.dumps({
            "frames": fuzz.protocol.tally.frames, "batches": fuzz.protocol.tally.batches,
            "requests": fuzz.lobby.tally.requests, "seconds": round(seconds, 1),
            "answers": fuzz.protocol.tally.answers, "closes": fuzz.protocol.tally.closes,
            "lobby_answers": fuzz.lobby.tally.answers,
            "state_checks": fuzz.protocol.tally.state_checks,
            "tracebacks": fuzz.protocol.tally.tracebacks + fuzz.lobby.tally.tracebacks,
            "violations": [str(v) for v in violations]}, indent=1, default=str))
    failing = [v for v in violations if not (args.allow_known and known_bug(v) is not None)]
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
