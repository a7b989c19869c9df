"""What the store keeps of a room's timers, so a room loaded again keeps its moments.

A room's timers run in its process; a restart or a takeover by another node loads the
room from the store, and the moments must not move: the open ARO window's deadline
(``aro_window``), a held close waiting for its moment (``window_hold``), and each seat's
presence -- an away seat's grace deadline, an abandoned seat (``presence``). The store
keeps them as one set, replaced whole at each write (``RoomStore.set_deadlines``, or with a
commit's append): ``of`` is that set for a window (the one a commit opens, or the one open
now). A held close is stored before it is answered, so a restart finds it
(``hold_close``). A change of presence is stored on its own (``save``), best effort: it is
not game state, and a failure only delays it to the next write.

A write the store would not notice is not made (``save``): the room remembers the set the
store holds -- as loaded, or as it last wrote it (a write that failed leaves it unknown) --
and a presence save that would write that same set again, in a room whose keys are kept
for ever (a write would renew nothing), is skipped. A room reloaded after a restart holds
"connected" for each seat connected then: that seat coming back within its grace period
makes the stored set true again, and nothing is written. A seat's join stores its presence
with the next message when more wait in the room's inbox (``joined``; a
``PresenceDue`` is posted behind them): when both seats come back in the same moment, one
save covers both joins (and, after a restart, is the set the store holds: none is made);
a room that stops first stores it then (``stopping``). A seat's leave and the end of its
grace period are stored at once: an away seat's deadline is what a restart must find. (A
write not made checks no fence: a room that lost its right to write learns it at its next
write, or from its lease.)
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Sequence

from server.rooms.aro_window import WindowDeadline
from server.rooms.engine_port import AroWindow
from server.rooms.presence import Presence
from server.store import Deadline, RoomStore, StaleWriter, StorageUnavailable

log = logging.getLogger("server.rooms.room")  # (the room's task's lines, as before the split)


class StoredDeadlines:
    __slots__ = ("_busy", "_due", "_fence", "_pending", "_post_due", "_presence", "_renews", "_room_id",
                 "_store", "_stored", "_window")

    def __init__(self, room_id: str, store: RoomStore, fence: int, window: WindowDeadline,
                 presence: Presence, stored: Sequence[Deadline], renews: Callable[[], bool],
                 post_due: Callable[[], None], busy: Callable[[], bool]) -> None:
        """``fence``: the token the room writes with; ``stored``: the room's deadlines as
        it was loaded; ``renews``: whether a write renews the room's retention (the store
        keeps it for a while after each write, not for ever); ``post_due``: posts a
        ``PresenceDue`` to the room's inbox; ``busy``: more messages wait in it."""
        self._room_id = room_id
        self._store = store
        self._fence = fence
        self._window = window
        self._presence = presence
        self._stored: tuple[Deadline, ...] | None = tuple(stored)
        """The set the store holds, as far as the room knows (None: unknown)."""
        self._renews = renews
        self._post_due = post_due
        self._busy = busy
        self._due = False  # a PresenceDue is in the inbox
        self._pending = False  # a join's presence waits for it

    def of(self, window: AroWindow | None, window_deadline_ms: int) -> tuple[Deadline, ...]:
        """The room's deadlines with ``window`` open until ``window_deadline_ms`` (None:
        none open): the window's deadline (and its held close, if one waits), then the
        seats' presence."""
        return (*self._window.deadlines(window, window_deadline_ms), *self._presence.deadlines())

    def now(self) -> tuple[Deadline, ...]:
        """The room's deadlines as its timers stand now."""
        return self.of(self._window.window, self._window.deadline_ms)

    def writing(self) -> None:
        """The room is writing its deadlines (with a commit's append): until ``written``,
        what the store holds is unknown (the write may fail, or land unheard)."""
        self._stored = None

    def written(self, deadlines: tuple[Deadline, ...]) -> None:
        """The store holds ``deadlines`` now (a write of them succeeded)."""
        self._stored = deadlines
        self._pending = False  # (a join's presence is in them)

    async def hold_close(self) -> None:
        """Keep the held close of the open window with the room's deadlines before it is
        answered (a restart finds it); then wait for its moment. Storage unavailable (it
        raises): nothing waits, and the command is answered "try again"."""
        window = self._window
        deadlines = (*self.now(), *window.hold.deadlines(window.window, waiting=True))
        await self._write(deadlines)
        window.hold.wait()

    async def store_window(self, window: AroWindow, deadline_ms: int) -> None:
        """Store the room's deadlines with ``window`` open until ``deadline_ms`` (a window
        running again); storage unavailable: it raises, and nothing changed."""
        await self._write(self.of(window, deadline_ms))

    async def joined(self) -> None:
        """A seat joined: store the seats' presence now, or -- when more messages wait in
        the room's inbox -- with a ``PresenceDue`` posted behind them (one for
        every join meanwhile; a commit's append or a leave's save before it stores it too)."""
        if not self._busy():
            await self.save()
            return
        self.moved()

    def moved(self) -> None:
        """The seats' presence changed (a join behind other messages, or an away seat's
        grace deadline moved on as the room was loaded): stored with a ``PresenceDue``."""
        self._pending = True
        if not self._due:
            self._due = True
            self._post_due()

    async def due(self) -> None:
        """A ``PresenceDue``: store the presence the joins since it was posted left to
        store (nothing if a write stored it meanwhile)."""
        self._due = False
        if self._pending:
            await self.save()

    async def stopping(self) -> None:
        """The room stops: store a join's presence still waiting for its ``PresenceDue``
        (best effort; a room that lost its right to write stores nothing)."""
        if self._pending:
            with contextlib.suppress(StaleWriter):
                await self.save()

    async def save(self) -> None:
        """Store the seats' presence with the open deadlines; a failure only delays it to
        the next write (presence is not game state: nothing accepted is at stake). Nothing
        is written when the store holds that set already and a write would renew nothing."""
        self._pending = False
        deadlines = self.now()
        if deadlines == self._stored and not self._renews():
            return
        try:
            await self._write(deadlines)
        except StorageUnavailable as error:
            log.warning("room %s: presence not stored yet: %s", self._room_id, error)

    async def _write(self, deadlines: tuple[Deadline, ...]) -> None:
        self.writing()
        await self._store.set_deadlines(self._room_id, fence=self._fence, deadlines=deadlines)
        self.written(deadlines)
