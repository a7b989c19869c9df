"""Handing a crowd its frames in slices, so that one fan-out never holds the event loop.

A frame for 5,000 spectators is ~75 ms of CPU written in one go (``bench.broadcast``):
meanwhile no seat's command is read, no timer fires and no other room runs. ``Slices``
keeps one queue of fan-outs per event loop and hands out at most ``size`` deliveries per
loop turn, then gives the loop back (``call_soon``) and goes on at its next turn.

Order: the queue is first in, first out across all rooms and frames, so a socket gets a
later frame only once every earlier fan-out that holds it has reached it; a frame is
handed out at once only when nothing is queued (and then at most ``size`` deliveries of it;
the rest is queued). Who gets a frame is decided when it is published: each job holds the
list of its subscribers then, so a socket that joins meanwhile (its snapshot already newer)
gets none of the older frames still being handed out; and ``still`` is asked just before
each delivery, so a socket that left meanwhile gets nothing more.
"""

from __future__ import annotations

import asyncio
import weakref
from collections import deque
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

T = TypeVar("T")

SLICE_SIZE = 256
"""Deliveries per loop turn: at ~15 µs each (``bench.broadcast``), ~4 ms of the loop."""


class _Job(Generic[T]):
    __slots__ = ("_deliver", "_done", "_targets")

    def __init__(self, targets: Sequence[T], deliver: Callable[[T], None]) -> None:
        self._targets = targets
        self._deliver = deliver
        self._done = 0

    def run(self, budget: int) -> int:
        """Deliver to up to ``budget`` more targets; how many were taken."""
        start = self._done
        stop = min(start + budget, len(self._targets))
        deliver, targets = self._deliver, self._targets
        for index in range(start, stop):
            self._done = index + 1  # first: a target whose delivery raises is not retried
            deliver(targets[index])
        return stop - start

    @property
    def finished(self) -> bool:
        return self._done >= len(self._targets)


class Slices:
    """One loop's queue of fan-outs, ``size`` deliveries per loop turn."""

    def __init__(self, size: int = SLICE_SIZE) -> None:
        self.size = size
        self._jobs: deque[_Job[object]] = deque()
        self._scheduled = False
        self.turns = 0  # loop turns that handed out a slice (tests, metrics)

    @property
    def pending(self) -> int:
        """How many fan-outs are not finished yet."""
        return len(self._jobs)

    def add(self, targets: Sequence[T], deliver: Callable[[T], None], *,
            defer: bool = False) -> None:
        """Call ``deliver(target)`` for each of ``targets`` in order, after every fan-out
        added before; the first slice at once when nothing is queued and not ``defer``."""
        if not targets:
            return
        job: _Job[T] = _Job(targets, deliver)
        if self._jobs or defer:
            self._jobs.append(job)  # type: ignore[arg-type]
            self._schedule()
            return
        try:
            job.run(self.size)
        finally:
            if not job.finished:
                self._jobs.append(job)  # type: ignore[arg-type]
                self._schedule()

    def run_slice(self) -> None:
        """Hand out one slice (the loop's callback; tests may call it directly)."""
        self._scheduled = False
        self.turns += 1
        jobs = self._jobs
        budget = self.size
        try:
            while jobs and budget > 0:
                job = jobs[0]
                budget -= job.run(budget)
                if job.finished:
                    jobs.popleft()
        finally:
            if jobs:
                self._schedule()

    def _schedule(self) -> None:
        if not self._scheduled:
            self._scheduled = True
            asyncio.get_running_loop().call_soon(self.run_slice)


_per_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Slices] = (
    weakref.WeakKeyDictionary())


def loop_slices() -> Slices | None:
    """The running loop's one ``Slices`` (None outside a loop: nothing can be queued then):
    every fan-out of a node shares it, so frames keep their order per socket whichever
    room or relay hands them out."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return None
    slices = _per_loop.get(loop)
    if slices is None:
        slices = _per_loop[loop] = Slices()
    return slices
