"""One socket's costly requests (``options``, ``measure``, ``history``, ``sync``), in order,
within its budgets of loop time (``server.transport.work_budget``).

While every budget the socket draws on is out of debt, a request runs at once, in the
reader, exactly as it would without a lane. Otherwise it waits in the lane, and a task runs
the lane's requests one by one as the budgets allow; the socket's commands and pings go on
meanwhile (they do not wait behind its queries). An ``options`` request that finds another
one waiting is answered by that one (both would get the same frame: the seat's options when
it runs). A lane holds at most ``LANE_LIMIT`` requests; one more is refused (the endpoint
answers a ``history`` or ``measure`` ``room_busy``). The reader never stops reading: a
socket not read for a while would find, once read again, more frames waiting than its
rate limit's burst, all sent within the limit.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from server.transport.work_budget import WorkBudget

log = logging.getLogger(__name__)

LANE_LIMIT = 16
"""Requests one socket may have waiting for its budgets."""
MAX_CHARGE_S = 0.1
"""The most one request is charged. Nothing a seat may ask for takes this long on its own (an
``options`` on a dense table takes milliseconds: ``bench.table_cost``); a request measured
longer met a collection of the oldest generation or a starved process, and charging all of it
would make a player's next request wait seconds (at 20 ms a second, 0.9 s of debt is 45 s)."""


@dataclass(frozen=True, slots=True)
class Work:
    """A request's work. ``run`` does it (or hands it to the room); the budgets are charged
    with the time ``run`` took, at least ``floor_s`` (what the room's task will spend on
    it later, for work ``run`` only queues). ``merges``: a waiting ``Work`` of the same
    ``kind`` answers this one too."""

    kind: str
    run: Callable[[], None]
    floor_s: float = 0.0
    merges: bool = False


class WorkLane:
    __slots__ = ("_budgets", "_queue", "_task", "ran", "waited")

    def __init__(self, budgets: tuple[WorkBudget, ...]) -> None:
        self._budgets = budgets
        # Made when a request first has to wait (an empty deque is 760 bytes, and most
        # sockets never wait): None while nothing waits.
        self._queue: deque[Work] | None = None
        self._task: asyncio.Task[None] | None = None
        self.ran = 0
        """Requests run (or merged into one waiting)."""
        self.waited = 0
        """Of them, those that had to wait for the budgets."""

    def push(self, work: Work) -> bool:
        """Run ``work`` now if the budgets allow and nothing waits, else queue it (or let a
        waiting one of its kind answer it, when it ``merges``). False: the lane is full
        and ``work`` was neither run nor queued."""
        if not self._queue and (not self._budgets or self._wait_s(time.perf_counter()) <= 0.0):
            self.run(work)
            return True
        queue = self._queue
        if queue is None:
            queue = self._queue = deque()
        if work.merges and any(w.kind == work.kind for w in queue):
            self.ran += 1
            self.waited += 1
            return True
        if len(queue) >= LANE_LIMIT:
            return False
        self.waited += 1
        queue.append(work)
        if self._task is None:
            self._task = asyncio.create_task(self._drain())
        return True

    def run(self, work: Work) -> None:
        """Run ``work`` now, whatever the budgets, and charge them with it."""
        self.ran += 1
        # CPU time of the loop's thread, not the wall clock: on a shared machine the time
        # other processes took the core is not this request's cost.
        started = time.thread_time()
        try:
            work.run()
        except Exception:  # one failed request never ends the socket or the lane
            log.exception("%s request failed", work.kind)
        spent = min(max(time.thread_time() - started, work.floor_s), MAX_CHARGE_S)
        now = time.perf_counter()
        for budget in self._budgets:
            budget.charge(spent, now)

    def close(self) -> None:
        """The socket is gone: drop what waits."""
        self._queue = None
        if self._task is not None:
            self._task.cancel()
            self._task = None

    async def _drain(self) -> None:
        try:
            while self._queue:
                wait = self._wait_s(time.perf_counter())
                if wait > 0.0:
                    await asyncio.sleep(wait)
                    continue
                self.run(self._queue.popleft())
        finally:
            if self._task is asyncio.current_task():
                self._task = None
                if not self._queue:
                    self._queue = None  # nothing waits: the memory goes with it

    def _wait_s(self, now: float) -> float:
        return max((budget.wait_s(now) for budget in self._budgets), default=0.0)
