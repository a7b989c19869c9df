"""Each audience's own numbering of the events it may see.

The room stores every event under one global version. Each audience (seat A, seat B, the
spectators, the casters) numbers the events it may know of 1, 2, 3... with no gap and no placeholder: an
event a viewer may not know of (a trooper deployed in Hidden Deployment, its ARO pass, a
private choice) is simply not in that viewer's sequence, so neither how many such events
there are nor when they happened reaches that viewer (docs/fair-play.md). Commands,
welcomes, snapshots, answers and resumes all use the viewer's own numbering.

The counts at a snapshot's version are stored with the snapshot (``pack_room_snapshot``),
so a room loaded again counts only the events after it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from protocol import codec
from server.fanout import AUDIENCES, Audience
from server.rooms.engine_port import Engine, Event, Plain, State

Seen = Mapping[Audience, int]
"""How many events each audience has been numbered so far."""

NONE_SEEN: Seen = dict.fromkeys(AUDIENCES, 0)


AudienceViews = Mapping[Audience, list[Plain]]
"""Per audience, the events it may know of, as it sees them, in order. When no event is
seen differently by anyone, every audience holds the same list object."""


def audience_views(engine: Engine, state: State, events: Sequence[Event],
                   plains: Sequence[Plain]) -> AudienceViews:
    """``events`` (with their ``event_to_plain`` forms) as each audience sees them;
    ``state`` is any state after them."""
    if all(engine.same_for_every_viewer(event) for event in events):
        shared = views_for(engine, state, events, plains, Audience.SPECTATOR)
        return dict.fromkeys(AUDIENCES, shared)
    return {audience: views_for(engine, state, events, plains, audience)
            for audience in AUDIENCES}


def views_for(engine: Engine, state: State, events: Sequence[Event], plains: Sequence[Plain],
              audience: Audience) -> list[Plain]:
    """The events ``audience`` may know of, as it sees them, in order."""
    views = (engine.view_event_from_plain(event, plain, audience.value, state)
             for event, plain in zip(events, plains, strict=True))
    return [view for view in views if view is not None]


def counted(seen: Seen, views: AudienceViews) -> dict[Audience, int]:
    """``seen`` after the events of ``views``."""
    return {audience: seen[audience] + len(views[audience]) for audience in AUDIENCES}


def counted_after_load(engine: Engine, state: State, events: Sequence[Event],
                       plains: Sequence[Plain], seen: Seen) -> dict[Audience, int]:
    """``counted(seen, audience_views(...))`` without keeping the views: what a room loaded
    again needs (the events after its snapshot, counted per audience). Decided event by
    event, so one event that audiences see differently does not make every other event's
    view per audience, as ``audience_views`` does for a commit's few events: a load counts
    up to a hundred events and keeps none of their views."""
    counts = dict(seen)
    for event, plain in zip(events, plains, strict=True):
        if engine.same_for_every_viewer(event):
            if engine.view_event_from_plain(event, plain, Audience.SPECTATOR.value,
                                            state) is not None:
                for audience in AUDIENCES:
                    counts[audience] += 1
            continue
        for audience in AUDIENCES:
            if engine.view_event_from_plain(event, plain, audience.value, state) is not None:
                counts[audience] += 1
    return counts


def pack_room_snapshot(state_plain: Plain, seen: Seen) -> bytes:
    """A stored snapshot: the game state and each audience's count at its version."""
    return codec.pack_plain({"state": state_plain,
                             "seen": {audience.value: seen[audience] for audience in AUDIENCES}})


def unpack_room_snapshot(data: bytes,
                         snapshot_version: int = 0) -> tuple[Plain, dict[Audience, int]]:
    """The state and counts of a stored snapshot at ``snapshot_version``. A snapshot stored
    before an audience existed (casters) has no count of it: casters may know of every
    event (``server.rules.views``), so theirs is the snapshot's version."""
    plain = codec.unpack_plain(data)
    seen = plain["seen"]
    return plain["state"], {audience: int(seen.get(audience.value, snapshot_version))
                            for audience in AUDIENCES}


def pack_room_armies(engine: Engine, state: State) -> bytes:
    """The army lists a room stores apart from its snapshots (``engine.armies_of``)."""
    return codec.pack_plain(engine.armies_to_plain(state))


def snapshot_state(engine: Engine, snapshot: bytes, snapshot_version: int,
                   armies: bytes | None) -> tuple[State, dict[Audience, int]]:
    """The state and counts a stored snapshot holds, with the army lists stored apart from
    it (``armies``: None when it holds its own)."""
    state, seen, _ = snapshot_read(engine, snapshot, snapshot_version, armies)
    return state, seen


def snapshot_read(engine: Engine, snapshot: bytes, snapshot_version: int,
                  armies: bytes | None) -> tuple[State, dict[Audience, int], bool]:
    """``snapshot_state``, and whether the state took the army lists stored apart (False:
    the snapshot holds its own, which a store's lists apart, if any, need not match)."""
    state_plain, seen = unpack_room_snapshot(snapshot, snapshot_version)
    took_apart = armies is not None and isinstance(state_plain, dict) \
        and "armies" not in state_plain
    kept_apart = codec.unpack_plain(armies) if took_apart and armies is not None else None
    return engine.state_from_plain(state_plain, kept_apart), seen, took_apart


def state_from_stored(engine: Engine, snapshot: bytes, snapshot_version: int,
                      events: Sequence[bytes], armies: bytes | None = None
                      ) -> tuple[State, dict[Audience, int]]:
    """A room's state and each audience's count back from what the store holds: its latest
    snapshot (at ``snapshot_version``, with ``armies`` when stored apart from it) and the
    events stored after it, replayed (``RoomRegistry`` loading a room; the benchmarks
    measure the same)."""
    state, seen = snapshot_state(engine, snapshot, snapshot_version, armies)
    return replayed(engine, state, seen, events)


def replayed(engine: Engine, state: State, seen: Seen, events: Sequence[bytes]
             ) -> tuple[State, dict[Audience, int]]:
    """``state`` with ``seen`` after the stored ``events``, and the counts after them."""
    if not events:
        return state, dict(seen)
    plains = [codec.unpack_plain(event) for event in events]
    decoded = [engine.event_from_plain(plain) for plain in plains]
    state = engine.apply_all(state, decoded)
    return state, counted_after_load(engine, state, decoded, plains, seen)
