"""A referee node whose event loop records the CPU time of every callback it runs.

``python -m bench.loop_cpu OUT.json -m server --port ...`` runs ``python -m server ...``
with two changes, for diagnosis only (``bench.broadcast --loop-cpu``):

- the loop is asyncio's own, not uvloop (uvloop's callbacks cannot be timed from Python);
  its callbacks cost more than uvloop's, but which of them hold the loop longest, and what
  share of the CPU each kind takes, is what this is for;
- every callback (a task's step, a reader's ``data_received``, a ``call_soon``) is timed
  with the thread's CPU clock, which other processes on the core do not move (the machine
  is shared: wall-clock latencies there are noise). At exit ``OUT.json`` gets, per kind of
  callback (a task's coroutine and where it stopped, else the callback's name), its count,
  CPU total and longest; and every callback of ``LONG_MS`` or more with its time (wall
  clock, ``time.time``) to be matched against a bench's phases.
"""

from __future__ import annotations

import asyncio
import atexit
import json
import runpy
import signal
import sys
import time
from collections.abc import Callable
from typing import Any

LONG_MS = 5.0
"""Callbacks that took this much CPU or more are listed one by one."""


def _where(callback: Callable[..., object]) -> str:
    """A task's coroutine and the innermost await it stopped at; else the callback."""
    task = getattr(callback, "__self__", None)
    if isinstance(task, asyncio.Task):
        coro: Any = task.get_coro()
        names = [getattr(coro, "__qualname__", type(coro).__name__)]
        inner = getattr(coro, "cr_await", None)
        depth = 0
        while inner is not None and depth < 12:
            name = getattr(inner, "__qualname__", None)
            if name is None:
                break
            names.append(name)
            inner = getattr(inner, "cr_await", None) or getattr(inner, "gi_yieldfrom", None)
            depth += 1
        return "task " + " > ".join(names)
    owner = getattr(callback, "__self__", None)
    name = getattr(callback, "__qualname__", None) or repr(callback)
    if owner is not None and not isinstance(owner, type):
        return f"{type(owner).__qualname__}.{getattr(callback, '__name__', name)}"
    return str(name)


class CallbackCpu:
    def __init__(self) -> None:
        self.kinds: dict[str, list[float]] = {}  # name -> [count, cpu_s, longest_s]
        self.long: list[tuple[float, float, float, str]] = []  # (t, cpu_ms, wall_ms, name)
        self.total = 0.0
        self.count = 0
        self.marks: list[dict[str, Any]] = []  # the figures up to each SIGUSR1, then reset

    def mark(self, signum: int, frame: object) -> None:
        """SIGUSR1 (``bench.broadcast`` at each phase's end): keep the figures so far apart."""
        self.marks.append(self.figures())
        self.kinds, self.total, self.count = {}, 0.0, 0

    def install(self) -> None:
        run = asyncio.events.Handle._run
        cpu_clock, wall, record = time.thread_time, time.time, self.record

        def timed_run(handle: asyncio.events.Handle) -> None:
            started, at = cpu_clock(), wall()
            try:
                run(handle)
            finally:
                record(handle, cpu_clock() - started, at)

        asyncio.events.Handle._run = timed_run  # type: ignore[method-assign,assignment]

    def record(self, handle: asyncio.events.Handle, cpu: float, at: float) -> None:
        self.total += cpu
        self.count += 1
        name = _where(handle._callback)  # type: ignore[attr-defined]
        entry = self.kinds.get(name)
        if entry is None:
            entry = self.kinds[name] = [0, 0.0, 0.0]
        entry[0] += 1
        entry[1] += cpu
        if cpu > entry[2]:
            entry[2] = cpu
        if cpu * 1000 >= LONG_MS:
            self.long.append((round(at, 4), round(cpu * 1000, 2),
                              round((time.time() - at) * 1000, 2), name))

    def figures(self) -> dict[str, Any]:
        kinds = sorted(self.kinds.items(), key=lambda item: -item[1][1])
        return {"t": time.time(), "callbacks": self.count, "cpu_s": round(self.total, 3),
                "kinds": [{"name": name, "count": int(count), "cpu_s": round(cpu, 4),
                           "longest_ms": round(top * 1000, 2)}
                          for name, (count, cpu, top) in kinds[:80]]}

    def dump(self, path: str) -> None:
        with open(path, "w") as out:
            json.dump({**self.figures(), "long_ms": LONG_MS, "marks": self.marks,
                       "long": self.long}, out)


def _exit(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def main() -> None:
    out, rest = sys.argv[1], sys.argv[2:]
    if rest[:1] != ["-m"]:
        raise SystemExit("usage: python -m bench.loop_cpu OUT.json -m MODULE [ARGS...]")
    import uvicorn.loops.uvloop as uvloop_setup

    # uvicorn asks this for its loop ("uvloop" in server/__main__.py): asyncio's instead.
    uvloop_setup.uvloop_loop_factory = (
        lambda use_subprocess=False: asyncio.new_event_loop)
    watch = CallbackCpu()
    watch.install()
    atexit.register(watch.dump, out)
    # uvicorn re-raises SIGTERM once it has shut down; killed by it, a process runs no
    # atexit: as SystemExit it does.
    signal.signal(signal.SIGTERM, _exit)
    signal.signal(signal.SIGUSR1, watch.mark)
    sys.argv = [rest[1], *rest[2:]]
    runpy.run_module(rest[1], run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
