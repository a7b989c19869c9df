"""How ``bench.broadcast`` counts the events phase's frames from its crowd processes' tallies:
a frame of the joins phase that reaches some spectators only after the events phase began
(a slow crowd process) is neither one of the phase's frames nor counted in its arrivals."""

from __future__ import annotations

from bench.broadcast import event_latencies

MS = 1_000_000  # ns


def tally(frames: dict[int, tuple[int, int, int]]) -> dict[str, object]:
    """One crowd process's result: per frame number, (count, first arrival, last arrival)."""
    return {"events": {"frames": {str(n): list(v) for n, v in frames.items()}}}


def test_a_late_frame_of_the_joins_phase_is_not_counted_as_this_phases() -> None:
    sent_at = [1.0, 2.0]  # the events phase's two commands, in seconds
    crowd = [
        # frame 7 was the joins phase's last: two spectators of this process got it late,
        # before the phase's first command was sent
        tally({7: (2, 900 * MS, 950 * MS), 8: (3, 1_001 * MS, 1_003 * MS),
               9: (3, 2_001 * MS, 2_002 * MS)}),
        tally({8: (2, 1_002 * MS, 1_004 * MS), 9: (2, 2_001 * MS, 2_005 * MS)}),
    ]
    counted = event_latencies(crowd, sent_at, spectators=5)
    assert counted["frames"] == 2
    assert counted["frames_of_the_joins_phase"] == 1
    assert counted["frames_incomplete"] == 0
    assert counted["spectator_event_frames"] == 2 * 5  # not 12: frame 7's arrivals left out


def test_a_frame_some_spectators_missed_is_incomplete_and_counted_as_received() -> None:
    crowd = [tally({8: (4, 1_001 * MS, 1_003 * MS)})]
    counted = event_latencies(crowd, [1.0], spectators=5)
    assert (counted["frames"], counted["frames_incomplete"]) == (1, 1)
    assert counted["spectator_event_frames"] == 4
