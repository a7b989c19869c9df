"""What a room gives back once its store takes writes again after refusing them.

While the store refuses the room's writes (Redis failing over or restarting) nobody can
play, yet time runs: the running chess clock goes on, and so does the open ARO window's
countdown. So the room notes when the store first refused one of its **public** writes (a
commit whose events everyone sees: ``Room._commit``) and, before it decides anything once
the store is back (a seat's command, a deadline, or the retry it posts itself every
``STORAGE_RETRY_S`` so that the span ends within that of the store's return), gives that
span back: the chess clocks are held for it (``ClockTimer.give_back``: the rules core's
``hold_clocks``), then an ARO window still before its deadline gets it added to its
deadline (``WindowDeadline.lengthen``). A window whose deadline passed meanwhile runs again
in full instead (its close at the deadline failed: ``aro_window``).

Only a public write starts the span: its start is public (in ``clocks_held`` and the
window's new deadline), and a private write's time would tell when a player did what only
that player may know of. The note is in memory; a room loaded again after its server died
or shut down (``unattended``) starts its span at that server's last stamp instead
(``server.cluster.lease``: the room time of its last heartbeat, which no player's action
sets), which covers an outage of the store before it too (docs/fair-play.md).
"""

from __future__ import annotations

from server.rooms.spectator_delay import Clock


class StoreOutage:
    __slots__ = ("_clock", "clocks_due", "since")

    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self.since: int | None = None
        """Room time of the first public write the store refused, until the span is given
        back; None: nothing to give back."""
        self.clocks_due = False
        """The chess clocks are still to be held for the span (they are held once, even
        when the window's part is tried again)."""

    def refused(self) -> bool:
        """The store refused a public write: True if that starts a span (the room then
        posts itself a retry until it is given back)."""
        if self.since is not None:
            return False
        self.since = self._clock()
        self.clocks_due = True
        return True

    def unattended(self, since_ms: int) -> bool:
        """The room was loaded after no server ran it from room time ``since_ms``: True if
        that starts a span to give back (one already past, a clock set back, does not)."""
        if since_ms >= self._clock():
            return False
        self.since = since_ms
        self.clocks_due = True
        return True

    def given_back(self) -> None:
        self.since = None
        self.clocks_due = False
