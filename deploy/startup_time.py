"""Time a start-up: run a command, poll a URL until it answers 200, print the seconds, stop it.

    python3 deploy/startup_time.py [--url URL] [--timeout S] [--runs N] -- bash deploy/bin/serve

The command runs in a session of its own; once the URL answers (or the time is up) the whole
process group gets SIGTERM (SIGKILL after 15 s). With ``--runs N`` it runs N times in a row
and prints each figure and the median. Standard library only: it runs before any install.
Used for the start-up figures in README.md and docs/deploy.md ("Start-up").
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request


def answers_200(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=1) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError, ValueError):
        return False


def stop(process: subprocess.Popen[bytes]) -> None:
    for sig, wait_s in ((signal.SIGTERM, 15.0), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            break
        try:
            process.wait(timeout=wait_s)
            break
        except subprocess.TimeoutExpired:
            continue
    # The group may outlive its leader (a child that ignored SIGTERM): end what is left.
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)


def time_once(command: list[str], url: str, timeout_s: float, log: str | None) -> float | None:
    """Seconds from the command's start to the URL's first 200, or None if it never came."""
    out = open(log, "ab") if log else subprocess.DEVNULL  # noqa: SIM115
    start = time.monotonic()
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=out, stderr=out,
                               start_new_session=True)
    try:
        while time.monotonic() - start < timeout_s:
            if answers_200(url):
                return time.monotonic() - start
            if process.poll() is not None:
                print(f"the command exited ({process.returncode}) before {url} answered",
                      file=sys.stderr)
                return None
            time.sleep(0.02)
        print(f"{url} did not answer 200 within {timeout_s} s", file=sys.stderr)
        return None
    finally:
        stop(process)
        if not isinstance(out, int):
            out.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default=None,
                        help="default http://127.0.0.1:$REFEREE_PORT/healthz (port 8000 if unset)")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds to wait per run")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--log", default=None, help="append the command's output to this file")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command given")
    url = args.url or f"http://127.0.0.1:{os.environ.get('REFEREE_PORT', '8000')}/healthz"
    if answers_200(url):
        parser.error(f"{url} already answers 200: something else is serving there")
    figures = []
    for run in range(args.runs):
        seconds = time_once(command, url, args.timeout, args.log)
        if seconds is None:
            return 1
        figures.append(seconds)
        print(f"run {run + 1}: {seconds:.2f} s to {url} 200", flush=True)
    if len(figures) > 1:
        print(f"median of {len(figures)}: {statistics.median(figures):.2f} s "
              f"(min {min(figures):.2f}, max {max(figures):.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
