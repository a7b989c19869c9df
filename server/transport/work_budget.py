"""Budgets of event-loop time for the requests that cost the node more than a command.

A command is cheap where the transport sees it (it joins the room's bounded inbox). But an
``options`` request runs the rules core's ``seat_options`` in the event loop (milliseconds on a
tournament table at each new version: ``bench.table_cost``), ``measure`` a Line of Fire check,
``history`` a page in the room's task (``bench.history_cost``), and ``sync`` a snapshot. Within
the message rate limit, a few sockets asking for them could take the whole core from every
other room of the node (issue 18: 8 seats took 0.9 of it). So each such request draws on
budgets of loop time, measured as it runs in the loop thread's CPU time, at most
``work_lane.MAX_CHARGE_S`` a request (or, for what runs in the room's task, a fixed estimate):

- each **seat** of a room (``work_seat_ms_per_s``, ``work_seat_burst_ms``), kept across
  reconnections, so connecting again gives no fresh budget;
- all the **spectators** of a room together (``work_spectators_ms_per_s``, ...);
- the whole **node** (``work_node_share`` of the loop, ``work_node_burst_ms``).

A request runs while every budget it draws on is out of debt, and is charged afterwards
with what it took, so a budget may go into debt by one request; until it is repaid, that
socket's requests wait in its ``WorkLane``. A room thus takes at most two seats' and its
spectators' share of the loop (2 x 20 + 10 = 50 ms per second by default, after bursts of
up to 500 ms), and all rooms together at most ``work_node_share`` (0.3): the rest is left
for commands, pings and fan-out. A legitimate seat asks for its options once per version:
on a dense N5 table (``bench.table_cost``) the default budget is a new version every few
hundred milliseconds, sustained, and the burst covers a couple of dozen at once.
"""

from __future__ import annotations

from server.config import Settings


class WorkBudget:
    """``rate`` seconds of loop time per second sustained, ``burst`` seconds at once."""

    __slots__ = ("_burst", "_level", "_rate", "_stamp")

    def __init__(self, rate: float, burst: float, now: float) -> None:
        self._rate = rate
        self._burst = burst
        self._level = burst
        self._stamp = now

    def wait_s(self, now: float) -> float:
        """Seconds until the budget is out of debt (0.0: work may run now)."""
        self._refill(now)
        return 0.0 if self._level >= 0.0 else -self._level / self._rate

    def charge(self, seconds: float, now: float) -> None:
        self._refill(now)
        self._level -= seconds

    def full(self, now: float) -> bool:
        """Whether the budget is whole again (then it is no different from a new one)."""
        self._refill(now)
        return self._level >= self._burst

    def _refill(self, now: float) -> None:
        if now > self._stamp:
            self._level = min(self._burst, self._level + (now - self._stamp) * self._rate)
            self._stamp = now


SPECTATORS = "spectators"
SWEEP_AT = 64
"""Budgets of rooms nobody uses are dropped once this many wait: those that are whole."""


class _Shared:
    __slots__ = ("budget", "users")

    def __init__(self, budget: WorkBudget) -> None:
        self.budget = budget
        self.users = 0


class WorkBudgets:
    """The node's budgets: its own, and one per seat of a room and per room's spectators,
    shared by the node's sockets of that room and seat (none when a setting is 0)."""

    def __init__(self, settings: Settings, now: float) -> None:
        self._seat = (settings.work_seat_ms_per_s / 1000.0, settings.work_seat_burst_ms / 1000.0)
        self._spectators = (settings.work_spectators_ms_per_s / 1000.0,
                            settings.work_spectators_burst_ms / 1000.0)
        share = settings.work_node_share
        self.node = (WorkBudget(share, settings.work_node_burst_ms / 1000.0, now)
                     if share > 0 else None)
        self._shared: dict[tuple[str, str], _Shared] = {}
        """(room, seat or SPECTATORS) -> its budget and the sockets drawing on it."""
        self._unused: set[tuple[str, str]] = set()

    def take(self, room_id: str, seat: str | None, now: float) -> tuple[WorkBudget, ...]:
        """The budgets a socket of ``room_id`` (``seat``, or a spectator) draws on; give
        them back with ``give_back`` when it leaves."""
        key = (room_id, seat if seat is not None else SPECTATORS)
        rate, burst = self._seat if seat is not None else self._spectators
        budgets: list[WorkBudget] = []
        if rate > 0:
            shared = self._shared.get(key)
            if shared is None:
                shared = self._shared[key] = _Shared(WorkBudget(rate, burst, now))
            shared.users += 1
            self._unused.discard(key)
            budgets.append(shared.budget)
        if self.node is not None:
            budgets.append(self.node)
        return tuple(budgets)

    def give_back(self, room_id: str, seat: str | None, now: float) -> None:
        key = (room_id, seat if seat is not None else SPECTATORS)
        shared = self._shared.get(key)
        if shared is None:
            return
        shared.users -= 1
        if shared.users <= 0:
            self._unused.add(key)
            if len(self._unused) >= SWEEP_AT:
                self._sweep(now)

    def _sweep(self, now: float) -> None:
        """Forget the unused budgets that are whole: a new one would be the same. One in
        debt stays until repaid, so leaving and coming back repays nothing."""
        for key in [key for key in self._unused if self._shared[key].budget.full(now)]:
            del self._shared[key]
            self._unused.discard(key)

    def __len__(self) -> int:
        return len(self._shared)
