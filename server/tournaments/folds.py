"""Each table's game as the dashboard shows it, kept between reads so that a read folds only
the events committed since the last one (docs/tournaments.md, the dashboard).

Two states per room: the state shown (phase, round, turn, clocks: the state now in a room
without a spectator delay; in a delayed room the state its spectators see, ``
spectator_delay_s`` late, since fair play promises that nobody but the seats learns a
delayed game live, the organizer included) and the state the room's casters see
(``max(spectator_delay_s, 60)`` s late: the victory points so far, which hidden troopers'
costs are part of). A room's events are append-only and a state
is immutable, so a state at version ``v`` stays that room's state at ``v``: the next read
asks the store only for the events after it (``RoomStore.commits_since``) and folds those.

Each read asks the store for the room's version first and folds no event past it
(``server.store.clipped_reads``): on a Redis Cluster that waits for replicas that version is
confirmed on a replica (an event that landed on the master after it may be on no replica
yet, and a failover could take it back after the dashboard showed it). A read continuing
kept states asks for the version alone (``RoomStore.loaded_version``: one small read, and
on such a cluster a confirming write and ``WAIT``); a read from the first state loads the
room (``load_room``, confirmed the same way).

A kept state is only a cache, and each read checks it before continuing from it:

- the event it ends on must still be in the store at its version, with the same bytes and
  commit time (a room deleted and made again, or a store that lost writes and took other
  ones at those versions, is read again from its first state);
- the casters' state (and a delayed room's shown state) is used only while every event in
  it is at least its delay old now (a node whose clock went back, or a clock moved by a
  test, never shows what its audience has not seen yet: the room is then read again from
  its first state);
- a room the store no longer has is forgotten.

So an answer is always the one a full replay from the room's first state would give, on any
node, after a restart or a takeover (a node's cache starts empty and fills from the store).
Memory: at most ``ROOMS_KEPT`` rooms, least recently read forgotten first."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from protocol.codec import unpack_plain
from server.fanout import Audience
from server.rooms.engine_port import Engine
from server.rooms.numbering import snapshot_state, unpack_room_snapshot
from server.rooms.spectator_delay import delay_ms, released_by
from server.store import RoomMeta, RoomStore, StoredRoom
from server.store.clipped_reads import commits_through, timeline_through

ROOMS_KEPT = 256
"""Rooms whose two states are kept (32 tables of a 64-player event take 32)."""


@dataclass(frozen=True, slots=True)
class Folded:
    """A room's state after its first ``version`` events."""

    version: int
    state: Any
    last_event: bytes
    """The event at ``version`` as stored (b"" at version 0): checked before continuing."""
    last_ms: int
    """Its commit time (Unix ms; 0 at version 0)."""
    latest_ms: int
    """The latest commit time of the events folded (0 at version 0)."""


@dataclass(frozen=True, slots=True)
class TableRead:
    meta: RoomMeta
    shown: Any
    """The state the dashboard shows: the room's state now, or in a room with a spectator
    delay the state its spectators see at ``shown_cutoff_ms`` (None: a delayed room that
    keeps no first state, as rooms stored before it was kept: nothing is shown)."""
    casters: Folded | None
    """The state the casters see at ``cutoff_ms`` (None: the room keeps no first state, as
    rooms stored before it was kept)."""
    cutoff_ms: int
    """Now minus the casters' delay: every event in ``casters`` was committed by then."""
    shown_cutoff_ms: int | None = None
    """Now minus the spectators' delay (None: the room has none, ``shown`` is live)."""


@dataclass(frozen=True, slots=True)
class _Kept:
    meta: RoomMeta
    shown: Folded
    casters: Folded


def shown_cutoff(meta: RoomMeta, now_ms: int) -> int | None:
    """Now minus the room's spectator delay, or None when it has none (shown live)."""
    delay = delay_ms(Audience.SPECTATOR, meta.settings)
    return now_ms - delay if delay > 0 else None


class Folds:
    def __init__(self, store: RoomStore, engine: Engine, capacity: int = ROOMS_KEPT) -> None:
        self._store = store
        self.engine = engine
        self._capacity = capacity
        self._kept: OrderedDict[str, _Kept] = OrderedDict()

    def __len__(self) -> int:
        return len(self._kept)

    async def read(self, room_id: str, now_ms: int) -> TableRead | None:
        """The room now and as its casters see it at ``now_ms``; None: the room is gone."""
        kept = self._kept.get(room_id)
        if kept is not None:
            # Continued: the version alone (confirmed as a load is: see the module's doc).
            version = await self._store.loaded_version(room_id)
            if version is None:
                self._kept.pop(room_id, None)
                return None
            cutoff = now_ms - delay_ms(Audience.CASTER, kept.meta.settings)
            shown = shown_cutoff(kept.meta, now_ms)
            if kept.casters.latest_ms <= cutoff and (shown is None
                                                     or kept.shown.latest_ms <= shown):
                read = await self._continue(room_id, kept, cutoff, shown, version)
                if read is not None:
                    return read
            self._kept.pop(room_id, None)
        stored = await self._store.load_room(room_id)  # (its version: see the module's doc)
        if stored is None:
            return None
        return await self._from_start(stored, now_ms)

    async def _continue(self, room_id: str, kept: _Kept, cutoff: int,
                        shown_at: int | None, version: int) -> TableRead | None:
        """Continue both kept states with the events since the casters' up to ``version``
        (None: the store's history is not the one kept: read from the start)."""
        base = kept.casters.version
        since = max(base - 1, 0)  # one event before: the casters' last, to check it
        commits = await commits_through(self._store, room_id, since, version)
        if commits is None:
            return None
        events, times = commits.events, commits.committed_ms
        if base > 0:
            if not events or not _same(events, times, 0, kept.casters):
                return None
            events, times = events[1:], times[1:]
        # events[i] is version base + 1 + i
        shown_from = kept.shown.version - base
        if len(events) < shown_from or (shown_from > 0 and not _same(
                events, times, shown_from - 1, kept.shown)):
            return None
        decoded = _Decoded(self.engine, events)
        released = released_by(times, cutoff)
        shown_to = len(events) if shown_at is None else released_by(times, shown_at)
        if shown_to < max(released, shown_from):
            return None  # (commit times out of order: read from the start)
        casters = _fold(self.engine, kept.casters, decoded, times, 0, released)
        if casters.version >= kept.shown.version:
            shown = _fold(self.engine, casters, decoded, times, released, shown_to)
        else:
            shown = _fold(self.engine, kept.shown, decoded, times, shown_from, shown_to)
        self._keep(room_id, _Kept(kept.meta, shown, casters))
        return TableRead(kept.meta, shown.state, casters, cutoff, shown_at)

    async def _from_start(self, stored: StoredRoom, now_ms: int) -> TableRead:
        room_id = stored.meta.room_id
        cutoff = now_ms - delay_ms(Audience.CASTER, stored.meta.settings)
        shown_at = shown_cutoff(stored.meta, now_ms)
        timeline = await timeline_through(self._store, room_id, stored.version)
        if timeline is None or timeline.first_snapshot is None:
            # No first state kept: no casters' view, and a delayed room shows nothing.
            if shown_at is not None:
                return TableRead(stored.meta, None, None, cutoff, shown_at)
            # The state now from the latest snapshot.
            state, _ = snapshot_state(self.engine, stored.snapshot, stored.snapshot_version,
                                      stored.armies)
            if stored.events:
                state = self.engine.apply_all(state, [self.engine.event_from_plain(
                    unpack_plain(e)) for e in stored.events])
            return TableRead(stored.meta, state, None, cutoff)
        first_plain, _ = unpack_room_snapshot(timeline.first_snapshot)
        start = Folded(0, self.engine.state_from_plain(first_plain), b"", 0, 0)
        events, times = timeline.events, timeline.committed_ms
        decoded = _Decoded(self.engine, events)
        released = released_by(times, cutoff)
        shown_to = len(events) if shown_at is None else max(released_by(times, shown_at),
                                                            released)
        casters = _fold(self.engine, start, decoded, times, 0, released)
        shown = _fold(self.engine, casters, decoded, times, released, shown_to)
        self._keep(room_id, _Kept(stored.meta, shown, casters))
        return TableRead(stored.meta, shown.state, casters, cutoff, shown_at)

    def _keep(self, room_id: str, kept: _Kept) -> None:
        earlier = self._kept.get(room_id)
        if earlier is not None and earlier.shown.version > kept.shown.version:
            return  # a read that overtook this one kept a later state
        self._kept[room_id] = kept
        self._kept.move_to_end(room_id)
        while len(self._kept) > self._capacity:
            self._kept.popitem(last=False)


class _Decoded:
    """The events of one read, each decoded at most once (both states may fold it)."""

    def __init__(self, engine: Engine, raw: Sequence[bytes]) -> None:
        self._engine = engine
        self.raw = raw
        self._done: dict[int, Any] = {}

    def __getitem__(self, index: int) -> Any:
        found = self._done.get(index)
        if found is None:
            found = self._done[index] = self._engine.event_from_plain(
                unpack_plain(self.raw[index]))
        return found


def _fold(engine: Engine, start: Folded, events: _Decoded, times: Sequence[int],
          begin: int, end: int) -> Folded:
    """``start`` with events[begin:end] folded (events[begin] comes right after it)."""
    if end <= begin:
        return start
    state = engine.apply_all(start.state, [events[i] for i in range(begin, end)])
    return Folded(start.version + end - begin, state, events.raw[end - 1], times[end - 1],
                  max(start.latest_ms, *times[begin:end]))


def _same(events: Sequence[bytes], times: Sequence[int], index: int, kept: Folded) -> bool:
    return events[index] == kept.last_event and times[index] == kept.last_ms
