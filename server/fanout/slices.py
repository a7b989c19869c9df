"""Handing a crowd its frames in slices, so that one fan-out never holds the event loop.

A frame for thousands of spectators is tens of milliseconds of CPU written in one go
(``bench.broadcast``): meanwhile no seat's command is read, no timer fires and no other room runs. ``Slices``
keeps one queue of fan-outs per event loop and hands out at most ``size`` deliveries per
loop turn, then gives the loop back (``call_soon``) and goes on at its next turn.

Order: the queue is first in, first out across all rooms and frames, so a socket gets a
later frame only once every earlier fan-out that holds it has reached it; a frame is
handed out at once only when nothing is queued (and then at most ``size`` deliveries of it;
the rest is queued). Who gets a frame is decided when it is published: each job holds the
list of its subscribers then, so a socket that joins meanwhile (its snapshot already newer)
gets none of the older frames still being handed out; and ``still`` is asked just before
each delivery, so a socket that left meanwhile gets nothing more.

Seats first, on the loop too: a seat's command in flight on this node (a room deciding and
storing it, a relay waiting for its answer from the owner) takes a ``hold``, and while one
is held no slice of a crowd (a fan-out larger than one slice) is handed out. Without it,
each of the half-dozen loop turns a command crosses (its read, the store's reply, the room
bus's write, the relay's read) waited behind a slice of a crowd's deliveries
(``bench.broadcast`` traced it: the slow commands were those that met a crowd's fan-out;
docs/performance.md, "Big audiences"). A hold never delays seats' frames, nor small crowds' (handed
out at once as before), and keeps a crowd waiting ``hold_limit_s`` at most: then slices
run again, held or not, until every hold is released. What a hold cannot spare a command is
the slice under way when it arrives, hence slices of 128.
"""

from __future__ import annotations

import asyncio
import time
import weakref
from collections import deque
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

from server.metrics import CROWD_HELD_TURNS, CROWD_HOLD_LIMITS

T = TypeVar("T")

SLICE_SIZE = 128
"""Deliveries per loop turn: a couple of milliseconds of the loop. 256 made a command's
read wait longer (the players' p99 while 10,000 spectators join, ``bench.broadcast``); 64
cost more CPU per delivery for no better tail (docs/performance.md, "Big audiences";
the runs in bench/history.jsonl)."""

HOLD_LIMIT_S = 0.04
"""How long seats' commands may keep a crowd's fan-out waiting at most (from the first
hold taken while none was): a command's path on a node takes 1-5 ms, 10-30 ms on a
crowded core; a crowd must not starve while one command follows another."""


class _Job(Generic[T]):
    __slots__ = ("_deliver", "_done", "_targets", "crowd")

    def __init__(self, targets: Sequence[T], deliver: Callable[[T], None], crowd: bool) -> None:
        self._targets = targets
        self._deliver = deliver
        self._done = 0
        self.crowd = crowd  # more targets than a slice: holds keep it waiting

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


class Hold:
    """A seat's command in flight: a crowd's slices wait until ``release`` (idempotent)."""

    __slots__ = ("_slices",)

    def __init__(self, slices: Slices) -> None:
        self._slices: Slices | None = slices

    def release(self) -> None:
        slices, self._slices = self._slices, None
        if slices is not None:
            slices._released()


class Slices:
    """One loop's queue of fan-outs, ``size`` deliveries per loop turn."""

    def __init__(self, size: int = SLICE_SIZE, hold_limit_s: float = HOLD_LIMIT_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.size = size
        self.hold_limit_s = hold_limit_s
        self._clock = clock
        self._jobs: deque[_Job[object]] = deque()
        self._crowds = 0  # queued jobs of more than ``size`` targets
        self._scheduled = False
        self._holds = 0
        self._held_since = 0.0  # when the holds went from none to one
        self._limit_timer: asyncio.TimerHandle | None = None
        self.turns = 0  # loop turns that handed out a slice (tests, metrics)
        self.held_turns = 0  # loop turns a hold kept a crowd waiting (tests, metrics)
        self.limits_reached = 0  # times crowds went on at the limit, still held (tests, metrics)

    @property
    def pending(self) -> int:
        """How many fan-outs are not finished yet."""
        return len(self._jobs)

    @property
    def holding(self) -> int:
        """How many holds are taken and not released."""
        return self._holds

    @property
    def held(self) -> bool:
        """Whether a crowd's slices wait now: a hold is taken, for less than the limit."""
        return self._holds > 0 and self._clock() - self._held_since < self.hold_limit_s

    def hold(self) -> Hold:
        """A seat's command is in flight: crowds wait until the hold is released (or
        ``hold_limit_s`` after the first of the holds taken now)."""
        if self._holds == 0:
            self._held_since = self._clock()
        self._holds += 1
        return Hold(self)

    def add(self, targets: Sequence[T], deliver: Callable[[T], None], *,
            defer: bool = False) -> None:
        """Call ``deliver(target)`` for each of ``targets`` in order, after every fan-out
        added before; the first slice at once when nothing is queued and not ``defer``
        (nor a crowd held)."""
        if not targets:
            return
        job: _Job[T] = _Job(targets, deliver, len(targets) > self.size)
        if self._jobs or defer or (job.crowd and self.held):
            self._queue(job)  # type: ignore[arg-type]
            return
        try:
            job.run(self.size)
        finally:
            if not job.finished:
                self._queue(job)  # type: ignore[arg-type]

    def run_slice(self) -> None:
        """Hand out one slice (the loop's callback; tests may call it directly)."""
        self._scheduled = False
        if self._crowds and self.held:
            self.held_turns += 1
            CROWD_HELD_TURNS.inc()
            self._wake_at_limit()  # (or sooner, when the last hold is released)
            return
        self.turns += 1
        jobs = self._jobs
        budget = self.size
        try:
            while jobs and budget > 0:
                job = jobs[0]
                budget -= job.run(budget)
                if job.finished:
                    jobs.popleft()
                    if job.crowd:
                        self._crowds -= 1
        finally:
            if jobs:
                self._schedule()

    def _queue(self, job: _Job[object]) -> None:
        self._jobs.append(job)
        if job.crowd:
            self._crowds += 1
        self._schedule()

    def _released(self) -> None:
        self._holds -= 1
        if self._holds == 0:
            if self._limit_timer is not None:  # (the next hold counts its limit anew)
                self._limit_timer.cancel()
                self._limit_timer = None
            if self._jobs:
                self._schedule()

    def _wake_at_limit(self) -> None:
        if self._limit_timer is None:
            loop = asyncio.get_running_loop()
            # (the loop's own clock: ``_clock`` may be a test's)
            self._limit_timer = loop.call_later(
                max(0.0, self._held_since + self.hold_limit_s - self._clock()),
                self.limit_passed)

    def limit_passed(self) -> None:
        """The crowds waited ``hold_limit_s`` for holds not all released yet: they go on
        (the limit's timer; cancelled when the last hold is released; tests may call it)."""
        self._limit_timer = None
        self.limits_reached += 1
        CROWD_HOLD_LIMITS.inc()
        if self._jobs:
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
