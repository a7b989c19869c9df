"""The lease renewal thread: a busy event loop does not cost a live node its rooms.

asyncio has no priorities: a renewal scheduled on a loop at 100% CPU waits behind every
callback already queued, and in the 5,000-room benchmark a live node's leases expired that
way (docs/performance.md). So the renewal round trip (``LeaseRenewal``, its own synchronous
Redis connection) runs on a thread of its own, once per ``lease_renew_s``; the interpreter
hands that thread the GIL within its switch interval (5 ms) however busy the loop is.

A thread alone would keep the leases of a node whose loop is hung for good (a deadlock, a
runaway computation), and its rooms would never move. Hence the **loop heartbeat**: the loop
stamps the time every ``lease_renew_s / 2`` (``call_later``); the thread renews only while
that stamp is at most ``lease_loop_stall_s`` old. A loop stalled longer than that loses its
leases ``lease_s`` later at the latest, exactly as a dead node does. Each round also stamps
the room time of the last heartbeat in Redis (``lease.Stamp``): the last moment this
process is known to have run its rooms, from which a node that takes them over after it
died gives the time back.

What the loop must act on (lost leases, holders of relayed rooms, dead nodes, confirmed
releases) comes back through ``call_soon_threadsafe``; reports the loop has not read yet
are merged, so a lagging loop reads one report, not a backlog.

Shared state (``_Watchlist``, under a lock): the owned rooms and their fences, updated by the
loop the moment a room starts or stops here (a room claimed during a stall is renewed from
the next round on), the relayed rooms and watched nodes (refreshed with each heartbeat), and
the fenced releases still to send.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Callable, Sequence

from server.cluster.lease import TickReport
from server.cluster.renewal import LeaseRenewal
from server.metrics import LEASE_RENEWALS, LEASE_ROUND_FAILED, LEASE_ROUND_OK, LEASE_ROUND_STALLED
from server.store.redis_errors import StorageUnavailable

log = logging.getLogger(__name__)

Watched = tuple[Sequence[str], Sequence[str]]  # relayed rooms, nodes whose liveness matters


def _wall_ms() -> int:
    return int(time.time() * 1000)


class _Watchlist:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._owned: dict[str, int] = {}
        self._releases: list[tuple[str, int]] = []
        self._watched: Watched = ((), ())

    def own(self, room_id: str, fence: int) -> None:
        with self._lock:
            self._owned[room_id] = fence

    def disown(self, room_id: str, fence: int, release: bool) -> None:
        with self._lock:
            if self._owned.get(room_id) == fence:
                del self._owned[room_id]
            if release:
                self._releases.append((room_id, fence))

    def watch(self, watched: Watched) -> None:
        with self._lock:
            self._watched = watched

    def read(self) -> tuple[list[tuple[str, int]], Watched]:
        with self._lock:
            return list(self._owned.items()), self._watched

    def take_releases(self) -> list[tuple[str, int]]:
        with self._lock:
            releases, self._releases = self._releases, []
            return releases


class RenewalThread:
    """Renews this node's leases off the event loop while the loop shows it is alive.

    ``watched`` runs on the loop at each heartbeat; ``on_report`` and ``on_released`` run
    on the loop with what a round learned and with the rooms whose release was sent."""

    def __init__(self, renewal: LeaseRenewal, renew_s: float, stall_s: float,
                 watched: Callable[[], Watched], on_report: Callable[[TickReport], None],
                 on_released: Callable[[list[str]], None]) -> None:
        self._renewal = renewal
        self._renew_s = renew_s
        self._stall_s = stall_s
        self._watched = watched
        self._on_report = on_report
        self._on_released = on_released
        self._list = _Watchlist()
        self._wake = threading.Event()
        self._stopping = False
        self._thread = threading.Thread(target=self._run, name="lease-renewal", daemon=True)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._beat_handle: asyncio.TimerHandle | None = None
        self._beat_at = 0.0  # written by the loop, read by the thread (a float: atomic)
        self._beat_ms = 0  # the room time of that beat (likewise)
        self.room_clock: Callable[[], int] = _wall_ms
        """The rooms' clock (Unix ms; ``create_app`` gives the registry's, which tests
        move): each beat's room time is stamped as this process's last sign of life."""
        self._pending: TickReport | None = None
        self._pending_lock = threading.Lock()
        self._stalled = False
        self.rounds = 0
        """Renewal round trips done (for tests and logs)."""
        self.refused = 0
        """Rounds not sent because the loop's heartbeat was too old."""
        self.failing_since: float | None = None
        """``time.monotonic()`` of the first failed round of the current run of failures
        (Redis down, refusing, or slow), None after a round that went through: until then
        this node's leases are not renewed, and an expired one not re-taken."""

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    # --- on the event loop ----------------------------------------------------------------

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._beat()
        self._thread.start()

    def own(self, room_id: str, fence: int) -> None:
        """Renew this room's lease under ``fence`` from the next round on."""
        self._list.own(room_id, fence)

    def disown(self, room_id: str, fence: int, release: bool) -> None:
        """Stop renewing it; with ``release``, give the lease back (after any renewal)."""
        self._list.disown(room_id, fence, release)
        if release:
            self._wake.set()

    async def stop(self) -> None:
        """No renewal after this returns (unless a round trip hangs past its timeout): the
        caller releases the leases next, and a renewal after that would take them back."""
        if self._beat_handle is not None:
            self._beat_handle.cancel()
        self._stopping = True
        self._wake.set()
        if self._thread.is_alive():
            # A round trip in progress ends within its socket timeout (a lease).
            await asyncio.to_thread(self._thread.join, self._renewal.lease_ms / 1000 + 1)
        if self._thread.is_alive():
            log.warning("lease renewal thread did not stop; leases are released anyway")
        else:
            self._renewal.close()

    def _beat(self) -> None:
        assert self._loop is not None
        self._beat_at = time.monotonic()
        self._beat_ms = self.room_clock()
        try:
            self._list.watch(self._watched())
        finally:
            self._beat_handle = self._loop.call_later(self._renew_s / 2, self._beat)

    def _deliver(self) -> None:
        with self._pending_lock:
            report, self._pending = self._pending, None
        if report is not None and not self._stopping:
            self._on_report(report)

    # --- on the renewal thread ------------------------------------------------------------

    def _run(self) -> None:
        next_round = time.monotonic()
        while True:
            self._wake.wait(max(0.0, next_round - time.monotonic()))
            self._wake.clear()
            if self._stopping:
                return
            self._release()
            now = time.monotonic()
            if now >= next_round:
                self._round(now)
                # Four times as often while failing: once Redis answers again, this node
                # re-takes the leases that expired meanwhile before another node's viewer
                # can find them free, and reports ready again soon after (``/readyz``).
                failing = self.failing_since is not None
                next_round = now + (self._renew_s / 4 if failing else self._renew_s)

    def _failed(self, now: float) -> None:
        LEASE_ROUND_FAILED.inc()
        if self.failing_since is None:
            self.failing_since = now

    def _round(self, now: float) -> None:
        stall = now - self._beat_at
        if stall > self._stall_s:
            self.refused += 1
            LEASE_ROUND_STALLED.inc()
            if not self._stalled:
                log.warning("event loop stalled for %.1f s: leases no longer renewed", stall)
                self._stalled = True
            return
        self._stalled = False
        owned, (rooms, nodes) = self._list.read()
        try:
            report = self._renewal.tick(owned, rooms, nodes, self._beat_ms)
        except StorageUnavailable as error:
            log.warning("lease renewal: %s", error)
            self._failed(now)
            return
        except Exception:
            log.exception("lease renewal failed")
            self._failed(now)
            return
        self.failing_since = None
        self.rounds += 1
        LEASE_ROUND_OK.inc()
        LEASE_RENEWALS.inc(len(owned) - len(report.lost_leases))
        with self._pending_lock:
            pending = self._pending
            self._pending = report if pending is None else pending.merged(report)
        if pending is None:
            self._call_on_loop(self._deliver)

    def _release(self) -> None:
        releases = self._list.take_releases()
        if not releases:
            return
        try:
            self._renewal.release_rooms(releases)
        except StorageUnavailable as error:
            log.warning("leases not released (they will expire): %s", error)
            return
        except Exception:
            log.exception("lease release failed (the leases will expire)")
            return
        self._call_on_loop(self._on_released, [room_id for room_id, _ in releases])

    def _call_on_loop(self, callback: Callable[..., None], *args: object) -> None:
        assert self._loop is not None
        with contextlib.suppress(RuntimeError):  # the loop is closed: the process is ending
            self._loop.call_soon_threadsafe(callback, *args)
