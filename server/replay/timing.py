"""When each event of a room was committed, and the deadline of the ARO window open after it:
the room's timeline (``RoomStore.timeline``), as its delayed feeds read it
(``server.rooms.spectator_delay.load_feed``). An uploaded record has none: its replay's
times are unknown (null).

Events committed together (one command's) are told apart from the next commit by their
commit time, as the delayed feeds do: events of one commit share it (two commits in the same
millisecond read as one).
"""

from __future__ import annotations

from dataclasses import dataclass

from server.store import Timeline


@dataclass(frozen=True, slots=True)
class Timing:
    """Per event (index = its global version - 1): when it was committed (None: unknown),
    the deadline of the ARO window open after its commit (0: none or unknown), and the
    global version of the last event of its commit."""

    committed_ms: tuple[int | None, ...]
    window_ms: tuple[int, ...]
    commit_end: tuple[int, ...]

    @property
    def known(self) -> bool:
        return any(at is not None for at in self.committed_ms)

    def at_ms(self, version: int) -> int | None:
        """When the event at global ``version`` (1, 2, ...) was committed."""
        return self.committed_ms[version - 1] if version else None


def unknown(count: int) -> Timing:
    """``count`` events whose times are not known: each its own commit."""
    return Timing((None,) * count, (0,) * count, tuple(range(1, count + 1)))


def from_timeline(timeline: Timeline | None, count: int) -> Timing:
    """The room's timeline for its ``count`` events; unknown when it is missing or does
    not hold exactly those events (a room stored before commit times were: 0s)."""
    if timeline is None or len(timeline.committed_ms) != count \
            or len(timeline.window_ms) != count or not all(timeline.committed_ms):
        return unknown(count)
    committed = timeline.committed_ms
    ends = [0] * count
    end = count
    for index in range(count - 1, -1, -1):
        if index + 1 < count and committed[index] != committed[index + 1]:
            end = index + 1
        ends[index] = end
    return Timing(tuple(committed), tuple(timeline.window_ms), tuple(ends))
