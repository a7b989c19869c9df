"""Uniform ARO windows: a held window closes no sooner than a minimum after it opened.

Without it, when an ARO window closes tells the active player something private: the
reactive player's app closes a window at once when none of its troopers may answer, and
waits for its player when one may -- a trooper in Hidden Deployment, or a Camouflage Marker
eligible through its private profile. In a room whose ``aro_min_open_s`` is above 0, a
window is *held* when, from public facts only, the reactive side could hold such a trooper
(``Engine.may_react_unseen``: a Camouflage Marker, or a trooper whose list entry may deploy
hidden or by Combat Jump that is not on the table as a model). A held window's close
command (``close_aro_window``) is decided at once and answered ``accepted`` when the rules
accept it, but takes effect only ``aro_min_open_s`` after the window opened (at once if that
time has passed): the events frame that closes it reaches everyone then. So with nothing
to declare, or with a hidden trooper that declares or passes within that time, the window
closes at the same moment. Until then the window is open by the rules: the player may still
declare or pass, and options still offer it. The deadline, a reactive seat abandoned
(public) and Guts windows (the Guts Roll that opened one is public) are not held.

The moment a held window may close is the window's own opening time: its stored deadline
less ``aro_window_s``, so a room loaded again after a restart finds the same moment. A
held close is kept with the room's deadlines (``HELD_CLOSE``, keyed by the window, at that
moment), so it survives a restart and takes effect at the same time.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial

from server.rooms.engine_port import AroWindow
from server.rooms.messages import HeldCloseDue
from server.rooms.spectator_delay import Clock
from server.rooms.wake_up import WakeUp
from server.store import Deadline

HELD_CLOSE = "aro_close_held"
"""The deadline kind of a held close: key, the window's key; at_ms, when it takes effect."""


class WindowHold:
    """The open window's hold: when its close may take effect, and a close waiting for it."""

    def __init__(self, min_open_s: float, window_s: float, clock: Clock,
                 post: Callable[[HeldCloseDue], None], stored: Sequence[Deadline]) -> None:
        """``stored``: the room's stored deadlines (a held close found in them waits again
        for the window it was for)."""
        self._min_open_ms = round(min_open_s * 1000)
        self._window_ms = round(window_s * 1000)
        self._clock = clock
        self._post = post
        self._restored = {d.key: d.at_ms for d in stored if d.kind == HELD_CLOSE}
        self._key: str | None = None  # the held window's key (None: none is held)
        self._until_ms = 0
        self._waiting = False  # a close of the held window was accepted and waits
        self._wake: WakeUp | None = None

    @property
    def enabled(self) -> bool:
        """The room holds windows at all (``aro_min_open_s`` above 0)."""
        return self._min_open_ms > 0

    def opened(self, window: AroWindow, deadline_ms: int, held: bool) -> None:
        """A window opened (or was found open when the room was loaded) with that deadline;
        ``held``: the judgement that it is held (``WindowDeadline._held``)."""
        self.closed()
        if not held:
            return
        self._key = window.key
        self._until_ms = deadline_ms - self._window_ms + self._min_open_ms
        if self._restored.pop(window.key, None) is not None:
            self._wait()
        self._restored.clear()

    def stored_close(self, key: str) -> bool:
        """The room was loaded with a held close of window ``key`` stored (its reactive
        player had closed it; not yet judged by ``opened``)."""
        return key in self._restored

    def closed(self) -> None:
        """The window closed (by any means): nothing is held any more."""
        if self._wake is not None:
            self._wake.close()
            self._wake = None
        self._key = None
        self._waiting = False

    def holds(self, window: AroWindow) -> bool:
        """A close of ``window`` must wait: it is held and its moment has not come."""
        return self._key == window.key and self._clock() < self._until_ms

    def deadlines(self, window: AroWindow | None, waiting: bool = False) -> tuple[Deadline, ...]:
        """What the store keeps of the hold with ``window`` open: its held close, if one
        waits (or ``waiting``: is about to)."""
        if window is None or window.key != self._key or not (waiting or self._waiting):
            return ()
        return (Deadline(HELD_CLOSE, window.key, self._until_ms),)

    def wait(self) -> None:
        """A close of the held window was accepted (and stored): it takes effect when due."""
        assert self._key is not None
        self._wait()

    def due(self, key: str) -> bool:
        """At a wake-up: whether the close waiting for window ``key`` takes effect now (it is
        then no longer waiting). An early wake-up (a test's fake clock) waits again."""
        if key != self._key or not self._waiting:
            return False
        if self._clock() < self._until_ms:
            self._wait()
            return False
        self._waiting = False
        if self._wake is not None:
            self._wake.close()
        return True

    @property
    def waiting(self) -> bool:
        return self._waiting

    def _wait(self) -> None:
        assert self._key is not None
        self._waiting = True
        if self._wake is None:
            self._wake = WakeUp(partial(self._post, HeldCloseDue(self._key)), self._clock)
        self._wake.arm(self._until_ms)
