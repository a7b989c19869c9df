"""The open ARO (or Guts) window's deadline: when the room closes it if nobody does.

The rules core says which window is open (``Engine.pending_aro_window``) and what closing
it does; when it closes unanswered is the room's. A ``WindowDeadline`` follows the rules
core's window after every commit (``sync``): a new window (order, step; a Guts window per
trooper) gets its deadline, the room's clock now + ``aro_window_s`` (now, when its
reactive seat is abandoned: nobody will answer), stored with the room's deadlines
(``ARO_WINDOW``, keyed by the window) in the same append as the events that opened it; the
same window keeps its deadline. A timer posts ``WindowExpired`` to the room's inbox at the
deadline; a command handled after it is too late even if that message still waits
(``overdue``: the room closes the window first). A room loaded again finds the stored
deadline (``restore``). Every frame carries the window as it stands (``fields``, with the
time left when the frame is made).

At the deadline the room feeds the rules core the window's close as the system actor
(``expired``: every eligible trooper that declared nothing loses its ARO; a Guts window's
default movement), decided and committed like any command. If the rules core refuses it,
or the window is still open after it (a bug, logged), the room stops serving the window
and says so (``Room._drop_window``: an ``events`` frame with no event and no window).

When the room's own close at the deadline fails because its store is unavailable (Redis
failing over or restarting), the window *runs again* once the store is back: before
anything else is decided, the room stores a new deadline a full ``aro_window_s`` from then
and tells everyone (``run_again``), so an answer the store failed during the outage, sent
again by the reactive player's client, is taken. Only the room's own close triggers it,
never a player's failed command: whether a window runs again depends on no private fact
(a player's failed command may be private: a hidden trooper's pass). A room loaded
with a window open past its stored deadline is the same case: nobody closed it at its
deadline (its node was down, or its store), so its answers sent meanwhile failed too; it
runs again once loaded -- unless its reactive player's close was held (``window_hold``:
that close was due before the deadline, so by then public), or its reactive seat is
abandoned: those close at once.

A store outage that ends before the window's deadline takes that much of the window from
its reactive player (its declarations refused meanwhile): once the store is back the room
adds the span to the deadline (``lengthen``, from ``server.rooms.store_outage``; stored and
told to everyone as a run again is), as it holds the chess clocks for it. So does a room
loaded after no server ran it for a while, its window still before its deadline
(``ownership.Claimed.unattended_since_ms``).

A window may also be *held* (uniform ARO windows, ``window_hold``): the ``WindowHold`` is
this window's, told when it opens and closes; whether a window is held is judged here, when
it opens, and a held close takes effect here when its moment comes (``held_close_due``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence

from protocol.messages import Command, window_fields
from server.metrics import ARO_CLOSE_LATENESS
from server.rooms.engine_port import AroWindow, Engine, Plain, State, Verdict
from server.rooms.messages import HeldCloseDue, WindowExpired
from server.rooms.spectator_delay import Clock
from server.rooms.window_hold import WindowHold
from server.store import Deadline, RoomSettings, StorageUnavailable

log = logging.getLogger("server.rooms.room")  # (the room's task's lines, as before the split)

Decide = Callable[[str | None, object], Verdict]
"""The room's decision of a command by an actor (None: the system) on its state now."""
Commit = Callable[[Verdict], Awaitable[object]]
"""The room's commit of an accepted verdict: stored, applied, published (it ``sync``s)."""
RunAgain = Callable[[AroWindow, int], Awaitable[None]]
"""The room's write of the window's new deadline with its other deadlines (it raises
``StorageUnavailable`` when the store still fails), then ``ran_again`` and a frame to
everyone with the window as it stands."""

ARO_WINDOW = "aro_window"
"""The deadline kind of an open window: key, the window's key; at_ms, its deadline."""
CLOSE_ARO_WINDOW = "close_aro_window"  # the reactive player's close (a held window's waits)


class WindowDeadline:
    """The window open now (``window``, None: none) and its ``deadline_ms`` (Unix ms, the
    room's clock)."""

    __slots__ = (
        "_abandoned", "_clock", "_close_failed", "_commit", "_decide", "_drop", "_engine",
        "_post", "_ran_again", "_run_again", "_stored", "_timer", "_window_s", "deadline_ms",
        "hold", "room_id", "window"
    )

    def __init__(self, room_id: str, settings: RoomSettings, engine: Engine, clock: Clock,
                 post: Callable[[WindowExpired | HeldCloseDue], None],
                 stored: Sequence[Deadline], abandoned: Callable[[str], bool],
                 decide: Decide, commit: Commit, drop: Callable[[], None],
                 run_again: RunAgain) -> None:
        """``stored``: the room's stored deadlines, as it was loaded; ``abandoned``: whether
        a side's seat is abandoned now; ``drop``: the room stops serving the window
        without an event (it ``close``s it and tells the viewers)."""
        self.room_id = room_id
        self.window: AroWindow | None = None
        self.deadline_ms = 0
        self._window_s = settings.aro_window_s
        self._engine = engine
        self._clock = clock
        self._post = post
        self._abandoned = abandoned
        self._decide = decide
        self._commit = commit
        self._drop = drop
        self._run_again = run_again
        self._close_failed: str | None = None
        """The key of the open window whose close at its deadline the store failed."""
        self._ran_again = False
        """The open window ran again: a ``WindowExpired`` before its new deadline (the
        failed close's retry, or its timer early by the room's clock) sets the timer anew."""
        self._stored = {d.key: d.at_ms for d in stored if d.kind == ARO_WINDOW}
        self._timer: asyncio.TimerHandle | None = None
        self.hold = WindowHold(settings.aro_min_open_s, self._window_s, clock, post, stored)

    def restore(self, state: State) -> None:
        """The room was loaded with ``state``: a window open in it keeps its stored deadline
        (one never stored gets a full one from now); one past it runs again."""
        window = self._engine.pending_aro_window(state)
        if window is None:
            return
        stored_ms = self._stored.get(window.key)
        closed_by_its_player = self.hold.stored_close(window.key)
        self.open(window, stored_ms, state)
        if stored_ms is not None and stored_ms <= self._clock() and not closed_by_its_player:
            self._close_failed = window.key  # (its timer, due now, makes it run again)

    def deadline_for(self, window: AroWindow | None) -> int:
        """The deadline ``window`` (open after a commit) has: the open window's own if it is
        the same one; 0 for none."""
        if window is None:
            return 0
        if self.window is not None and self.window.key == window.key:
            return self.deadline_ms
        if self._abandoned(window.reactive):
            return self._clock()  # nobody will answer: it closes on its deadline, now
        return self._clock() + int(self._window_s * 1000)

    def deadlines(self, window: AroWindow | None, deadline_ms: int) -> tuple[Deadline, ...]:
        """What the store keeps of ``window`` open until ``deadline_ms``: its deadline and
        its hold's held close, if one waits."""
        if window is None:
            return ()
        return (Deadline(ARO_WINDOW, window.key, deadline_ms), *self.hold.deadlines(window))

    def sync(self, window: AroWindow | None, deadline_ms: int, state: State) -> None:
        """Follow the rules core's window (open in ``state``): (re)arm or cancel the
        deadline's timer. Viewers learn of it from the ``window`` of the events frame the
        room publishes next."""
        current = self.window
        if current is not None and (window is None or window.key != current.key):
            self.close()
        if window is not None and self.window is None:
            self.open(window, deadline_ms, state)

    def open(self, window: AroWindow, deadline_ms: int | None, state: State) -> None:
        if deadline_ms is None:
            deadline_ms = self._clock() + int(self._window_s * 1000)
        self.window = window
        self._arm(window, deadline_ms)
        self.hold.opened(window, deadline_ms, self._held(window, deadline_ms, state))

    def _arm(self, window: AroWindow, deadline_ms: int) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self.deadline_ms = deadline_ms
        delay = max(0.0, (deadline_ms - self._clock()) / 1000)
        self._timer = asyncio.get_running_loop().call_later(
            delay, self._post, WindowExpired(window.key))

    def _held(self, window: AroWindow, deadline_ms: int, state: State) -> bool:
        """Whether ``window``'s close waits for its minimum time (``window_hold``): the room
        holds windows, it is an ARO window (a Guts window follows a public roll), it runs
        its full length (not one closing at once for an abandoned seat), and by public
        facts its reactive side could hold a trooper it may react with unseen."""
        return (self.hold.enabled and window.guts is None
                and deadline_ms - self._clock() > 0
                and self._engine.may_react_unseen(state, window.reactive))

    def close(self) -> None:
        """The window closed (by the rules, or dropped by the room): no timer, no hold."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.window = None
        self._close_failed = None
        self._ran_again = False
        self.hold.closed()

    def is_open(self, key: str) -> bool:
        """The window ``key`` is the one open (not closed early, nor an older one)."""
        return self.window is not None and self.window.key == key

    def overdue(self) -> bool:
        """A window is open and its deadline has passed by the room's clock."""
        return self.window is not None and self._clock() >= self.deadline_ms

    def holds_close(self, command: Command) -> bool:
        """``command`` (accepted by the rules) closes the open window, which is held: its
        close must wait (``window_hold``)."""
        window = self.window
        return (window is not None and command.body.get("type") == CLOSE_ARO_WINDOW
                and self.hold.holds(window))

    async def expired(self, key: str) -> None:
        """Window ``key``'s deadline came (or its reactive seat was abandoned): the room
        closes it as the system actor."""
        window = self.window
        if window is None or window.key != key:
            return  # closed early, or an older window's timer
        abandoned = self._abandoned(window.reactive)
        if self._ran_again and self._clock() < self.deadline_ms and not abandoned:
            # Posted before it ran again (the failed close's retry), or its own timer a
            # moment early by the room's clock: wait for the deadline again.
            self._arm(window, self.deadline_ms)
            return
        if self._close_failed == key and not abandoned:
            await self._run_again(window, self._clock() + int(self._window_s * 1000))
            return
        deadline_ms = self.deadline_ms
        verdict = self._decide(None, self._engine.close_window_command(window))
        if verdict.events is None:
            log.error("room %s: closing ARO window %s refused: %s", self.room_id, key, verdict.code)
            self._drop()
            return
        try:
            await self._commit(verdict)
        except StorageUnavailable:
            # Answers sent meanwhile failed too, and are being sent again: once the store
            # is back the window runs again instead of closing on them (the retry of this
            # close, or the next command's ``due_first``).
            self._close_failed = key
            raise
        late_s = self._clock() / 1000 - deadline_ms / 1000
        if late_s >= 0:  # (not a window closed early: its reactive seat was abandoned)
            ARO_CLOSE_LATENESS.observe(late_s)
        if self.is_open(key):
            log.error("room %s: ARO window %s still open after its close", self.room_id, key)
            self._drop()

    def ran_again(self, window: AroWindow, deadline_ms: int) -> None:
        """The window's new deadline is stored (``run_again``): its timer runs to it."""
        if self.is_open(window.key):
            self._close_failed = None
            self._ran_again = True
            self._arm(window, deadline_ms)

    async def lengthen(self, since_ms: int, now_ms: int) -> None:
        """The store refused the room's public writes from ``since_ms`` until now, while
        this window was open (none opens without a write): its deadline moves on by that
        span, if it is still ahead (one that passed meanwhile runs again in full: its close
        failed) and its reactive seat is not abandoned (it closes at once)."""
        window = self.window
        if window is None:
            return
        # Not from before the window's run began (its deadline less its length): a span
        # that starts at a dead server's last stamp may (``Claimed.unattended_since_ms``);
        # a store outage's never does, as no window opens or runs again while it lasts.
        since_ms = max(since_ms, self.deadline_ms - int(self._window_s * 1000))
        if (now_ms <= since_ms or self.deadline_ms <= now_ms
                or self._close_failed == window.key or self._abandoned(window.reactive)):
            return
        await self._run_again(window, self.deadline_ms + (now_ms - since_ms))

    async def due_first(self) -> None:
        """Before a command is decided: a deadline passed, or a held close whose moment
        came, takes effect first, even if its timer's message still waits."""
        if self.window is not None and self.overdue():
            await self.expired(self.window.key)
        if self.window is not None and self.hold.waiting:
            await self.held_close_due(self.window.key)

    async def held_close_due(self, key: str) -> None:
        """A held close's moment came: the reactive player's close takes effect now (as that
        player's command, already answered)."""
        window = self.window
        if window is None or window.key != key or not self.hold.due(key):
            return  # closed since (the deadline, an abandoned seat), or an early wake-up
        verdict = self._decide(window.reactive, self._engine.close_window_command(window))
        if verdict.events is None:
            log.error("room %s: held close of ARO window %s refused: %s", self.room_id, key,
                      verdict.code)
            return  # (the deadline closes it)
        await self._commit(verdict)

    def fields(self) -> dict[str, Plain] | None:
        """The open window as frames carry it (``remaining_ms`` as of now), or None."""
        window = self.window
        if window is None:
            return None
        return window_fields(window.order, window.step, window.reactive, self.deadline_ms,
                             max(0, self.deadline_ms - self._clock()), window.guts)

    def shut(self) -> None:
        """The room stopped: nothing more is posted (the window stays as it stood)."""
        if self._timer is not None:
            self._timer.cancel()
        self.hold.closed()
