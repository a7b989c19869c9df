"""A viewer's own events, a page at a time: the answer to ``history``.

A client that loads a room fresh (a reload, a late spectator) gets a snapshot and no log;
it asks for its events from version 1 on, in its own numbering (``numbering``). Each
event is projected as the resume path projects it (``engine.view_event_from_plain`` on
the stored plain form, with the room's current state, as ``numbering.views_for`` does), so
a page holds exactly the event forms the viewer would have received live, and nothing it
may not see.

The store keeps every event under its global version; the viewer asks by its own. To find
where the viewer's ``first``-th event lies without projecting the whole game for every
page, the room keeps ``Checkpoints``: per audience, a few exact (global version, count)
pairs, at most one per ``CHECKPOINT_EVERY`` global versions, noted at commits and while
pages are made. A page reads the events after the last checkpoint before it and projects
them one by one until it is full: at most ``CHECKPOINT_EVERY`` events plus one commit's
are projected only to be counted. Nothing is kept per viewer: the events are read from
the store for each page and dropped once it is sent.
"""

from __future__ import annotations

from protocol import codec
from server.fanout import AUDIENCES, Audience
from server.rooms.engine_port import Engine, Plain, State
from server.rooms.numbering import Seen
from server.store import RoomStore

PAGE_EVENTS = 500
"""Most events in one ``history`` page."""
PAGE_BYTES = 256 * 1024
"""A page closes once its events' stored forms reach this size (a frame of a few hundred
KiB at most: events are 100 B to 8 KiB)."""
CHECKPOINT_EVERY = 128
"""Global versions between two checkpoints of an audience."""


class HistoryUnavailable(RuntimeError):
    """The store does not hold the events the room counted (it never should)."""


class Checkpoints:
    """Per audience, exact pairs (global version, how many events the audience may know
    of up to it), at most one per ``CHECKPOINT_EVERY`` global versions: a few dozen small
    tuples for a game of thousands of events."""

    def __init__(self, version: int, seen: Seen) -> None:
        self._points: dict[Audience, dict[int, tuple[int, int]]] = {
            audience: {0: (0, 0)} for audience in AUDIENCES}
        self.committed(version, seen)

    def committed(self, version: int, seen: Seen) -> None:
        """The room stands at ``version`` with the counts ``seen``."""
        for audience in AUDIENCES:
            self.note(audience, version, seen[audience])

    def note(self, audience: Audience, version: int, count: int) -> None:
        """``audience`` may know of ``count`` events among global versions 1..``version``."""
        self._points[audience].setdefault(version // CHECKPOINT_EVERY, (version, count))

    def start_for(self, audience: Audience, first: int) -> tuple[int, int]:
        """The latest checkpoint before the audience's ``first``-th event: (global
        version, count) with count < ``first``."""
        start = (0, 0)
        for version, count in self._points[audience].values():
            if count < first and version > start[0]:
                start = (version, count)
        return start


class HistoryPages:
    """Makes one room's ``history`` pages (called from its actor, between inbox messages,
    so the room's version cannot move while a page is made)."""

    def __init__(self, room_id: str, engine: Engine, store: RoomStore,
                 version: int, seen: Seen) -> None:
        self._room_id = room_id
        self._engine = engine
        self._store = store
        self.checkpoints = Checkpoints(version, seen)

    async def page(self, state: State, audience: Audience, first: int, version: int,
                   last: int) -> list[Plain]:
        """``audience``'s events from its ``first``-th (1 <= first <= ``last``, its count
        at global ``version``), as it sees them, at most a page of them."""
        checkpoints = self.checkpoints
        start, count = checkpoints.start_for(audience, first)
        payloads = await self._store.events_since(self._room_id, start)
        if payloads is None or len(payloads) != version - start:
            raise HistoryUnavailable(f"room {self._room_id}: events after {start} are missing")
        engine, viewer = self._engine, audience.value
        page: list[Plain] = []
        size = 0
        for at, payload in enumerate(payloads, start + 1):
            plain = codec.unpack_plain(payload)
            view = engine.view_event_from_plain(engine.event_from_plain(plain), plain, viewer,
                                                state)
            if view is not None:
                count += 1
                if count >= first:
                    page.append(view)
                    size += len(payload)
            if at % CHECKPOINT_EVERY == 0:
                checkpoints.note(audience, at, count)
            if count == last or len(page) >= PAGE_EVENTS or size >= PAGE_BYTES:
                checkpoints.note(audience, at, count)
                return page
        raise HistoryUnavailable(f"room {self._room_id}: {count} events for {viewer}, "
                                 f"counted {last}")
