"""Reads of a room's stored events clipped to the version a load of the room returned.

Outside a live room (a finished game's record, its replay, a tournament's result and
dashboard folds) a reader loads the room first, then reads its events (``events_since``,
``commits_since``, ``timeline``). On a Redis Cluster that waits for replicas the load is
confirmed on a replica (``server.store.cluster_store``) but those event reads read the master
as it is: an event that landed there after the load -- an append refused "try again" that
landed on the master alone -- would be served although a failover could still take it back.
Clipped to the loaded version, everything served was on a replica when the load returned.
On one Redis (or with nothing confirmed) the clip changes nothing a reader could tell apart:
the load's version was the latest a moment before.

``events_through`` and ``commits_through`` answer None where the store's reads would (no
such room, a version the room has not passed) and also when the store holds fewer events
after ``since`` than the loaded version: the room read is not the one loaded (deleted since,
or made again under its id), and a part of it is not what was asked. ``timeline_through``
only clips: a timeline shorter than the version is served as the store has it, as before
(rooms stored before every event was kept; its readers check its length).
"""

from __future__ import annotations

from collections.abc import Sequence

from server.store.interface import Commits, RoomStore, Timeline


async def events_through(store: RoomStore, room_id: str, since: int,
                         version: int) -> Sequence[bytes] | None:
    """The events after ``since`` up to ``version`` (loaded), in order."""
    if since > version:
        return None
    events = await store.events_since(room_id, since)
    if events is None or len(events) < version - since:
        return None
    return events[:version - since]


async def commits_through(store: RoomStore, room_id: str, since: int,
                          version: int) -> Commits | None:
    """``commits_since`` after ``since`` up to ``version`` (loaded)."""
    if since > version:
        return None
    commits = await store.commits_since(room_id, since)
    if commits is None or len(commits.events) < version - since:
        return None
    count = version - since
    return Commits(commits.events[:count], commits.committed_ms[:count])


async def timeline_through(store: RoomStore, room_id: str, version: int) -> Timeline | None:
    """The room's timeline up to ``version`` (loaded): its first ``version`` events."""
    timeline = await store.timeline(room_id)
    if timeline is None or len(timeline.events) <= version:
        return timeline
    return Timeline(timeline.first_snapshot, timeline.events[:version],
                    timeline.committed_ms[:version], timeline.window_ms[:version])
