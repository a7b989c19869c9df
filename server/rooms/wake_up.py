"""A wake-up set for a moment on a clock: the one timer behind a room's chess clock
(``clock_timer``), its delayed feeds' releases (``delayed_viewers``) and its paced calls
(``paced_call``).

``arm(at)`` sets the call for the moment ``at`` of the clock (a room's Unix ms, or monotonic
seconds: ``per_s`` says how many units make a second), replacing the one set before; a
moment already past calls at once (on the loop's next turn); ``close`` cancels it. The wait
is worked out when it is set and handed to the event loop, so with a test's fake clock
the call comes at the wrong real time: whoever is woken reads the clock again (``due``)
and a call made early changes nothing. ``armed`` is true from ``arm`` until the call is
made (or cancelled); ``at`` stays until the next ``arm`` or ``close``, so ``due`` can still
be asked once the call has come.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Protocol


class Cancellable(Protocol):
    def cancel(self) -> None: ...


class Scheduler(Protocol):
    """What of an event loop a wake-up uses (a test passes one whose time it moves)."""

    def call_later(self, delay: float, callback: Callable[[], object], /) -> Cancellable: ...


class WakeUp:
    __slots__ = ("_call", "_clock", "_handle", "_loop", "_per_s", "at")

    def __init__(self, call: Callable[[], object], clock: Callable[[], float], *,
                 per_s: float = 1000.0, loop: Scheduler | None = None) -> None:
        self._call = call
        self._clock = clock
        self._per_s = per_s
        self._loop = loop  # None: the running loop's, found when armed
        self._handle: Cancellable | None = None
        self.at: float | None = None
        """The moment set (in the clock's units), or None."""

    @property
    def armed(self) -> bool:
        """The call is set and not made yet."""
        return self._handle is not None

    def arm(self, at: float | None) -> None:
        """Call at the moment ``at`` instead of any moment set before; None: never."""
        self.close()
        self.at = at
        if at is not None:
            loop = asyncio.get_running_loop() if self._loop is None else self._loop
            self._handle = loop.call_later(max(0.0, (at - self._clock()) / self._per_s),
                                           self._fire)

    def due(self) -> bool:
        """The moment set has come by the clock (whether or not the call was made)."""
        return self.at is not None and self._clock() >= self.at

    def close(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        self.at = None

    def stop(self) -> None:
        """Closed for good: the call is dropped too. It is often its owner's bound method,
        and the owner holds this wake-up: a reference cycle until then."""
        self.close()
        self._call = _nothing

    def _fire(self) -> None:
        self._handle = None
        self._call()


def _nothing() -> None:
    """A stopped wake-up's call."""
