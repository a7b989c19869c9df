"""When a room's events were committed (``server.replay.timing``): events that share a commit
time are one commit, whose last event's state every view judges them by; a timeline that
does not hold exactly the record's events, or holds no times, leaves every time unknown."""

from __future__ import annotations

from server.replay.timing import from_timeline, unknown
from server.store import Timeline


def timeline(committed: tuple[int, ...], windows: tuple[int, ...]) -> Timeline:
    return Timeline(None, tuple(b"e" for _ in committed), committed, windows)


def test_events_committed_together_end_at_their_commit_s_last_event() -> None:
    timing = from_timeline(timeline((100, 100, 250, 400, 400, 400), (0, 0, 900, 0, 0, 0)), 6)
    assert timing.commit_end == (2, 2, 3, 6, 6, 6)
    assert [timing.at_ms(version) for version in range(7)] == [None, 100, 100, 250, 400, 400, 400]
    assert timing.window_ms == (0, 0, 900, 0, 0, 0)


def test_a_timeline_that_does_not_match_the_record_leaves_the_times_unknown() -> None:
    for found in (None, timeline((100, 200), (0, 0)), timeline((0, 0, 300), (0, 0, 0))):
        timing = from_timeline(found, 3)
        assert timing == unknown(3)
        assert timing.commit_end == (1, 2, 3) and timing.committed_ms == (None, None, None)
