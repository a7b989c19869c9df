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
"""

from __future__ import annotations

import logging

from server.rooms.aro_window import WindowDeadline
from server.rooms.engine_port import AroWindow
from server.rooms.presence import Presence
from server.store import Deadline, RoomStore, StorageUnavailable

log = logging.getLogger("server.rooms.room")  # (the room's task's lines, as before the split)


class StoredDeadlines:
    __slots__ = ("_fence", "_presence", "_room_id", "_store", "_window")

    def __init__(self, room_id: str, store: RoomStore, fence: int, window: WindowDeadline,
                 presence: Presence) -> None:
        """``fence``: the token the room writes with."""
        self._room_id = room_id
        self._store = store
        self._fence = fence
        self._window = window
        self._presence = presence

    def of(self, window: AroWindow | None, window_deadline_ms: int) -> tuple[Deadline, ...]:
        """The room's deadlines with ``window`` open until ``window_deadline_ms`` (None:
        none open): the window's deadline (and its held close, if one waits), then the
        seats' presence."""
        return (*self._window.deadlines(window, window_deadline_ms), *self._presence.deadlines())

    def now(self) -> tuple[Deadline, ...]:
        """The room's deadlines as its timers stand now."""
        return self.of(self._window.window, self._window.deadline_ms)

    async def hold_close(self) -> None:
        """Keep the held close of the open window with the room's deadlines before it is
        answered (a restart finds it); then wait for its moment. Storage unavailable (it
        raises): nothing waits, and the command is answered "try again"."""
        window = self._window
        deadlines = (*self.now(), *window.hold.deadlines(window.window, waiting=True))
        await self._store.set_deadlines(self._room_id, fence=self._fence, deadlines=deadlines)
        window.hold.wait()

    async def save(self) -> None:
        """Store the seats' presence with the open deadlines; a failure only delays it to
        the next write (presence is not game state: nothing accepted is at stake)."""
        deadlines = self.now()
        try:
            await self._store.set_deadlines(self._room_id, fence=self._fence, deadlines=deadlines)
        except StorageUnavailable as error:
            log.warning("room %s: presence not stored yet: %s", self._room_id, error)
