"""The benchmark's own arithmetic: percentiles and the latency tail second by second."""

from __future__ import annotations

from bench.measure import by_second, percentiles


def test_percentiles_use_the_nearest_rank() -> None:
    figures = percentiles([float(n) for n in range(1, 101)])
    assert (figures["p50"], figures["p99"], figures["max"], figures["count"]) == (50, 99, 100, 100)


def test_by_second_tells_a_burst_from_a_spread_tail() -> None:
    started = 1000.0
    # Ten quiet seconds of 1 ms commands, then second 7 with a stall of 50 ms.
    sent_at = [started + s + n / 100 for s in range(10) for n in range(100)]
    latencies = [50.0 if int(at - started) == 7 else 1.0 for at in sent_at]
    profile = by_second(sent_at, latencies, started, threshold_ms=20.0)
    assert profile["seconds"] == 10
    assert profile["seconds_over"] == 1
    assert profile["worst"][0] == {"second": 7, "p99": 50.0, "count": 100}
    assert [w["p99"] for w in profile["worst"][1:]] == [1.0] * 4
    assert profile["commands_per_s"] == {"mean": 100.0, "max": 100}


def test_the_offered_rate_leaves_out_the_last_partial_second() -> None:
    started = 0.0
    counts = {0: 10, 1: 30, 2: 20, 3: 2}  # second 3: the phase ended inside it
    sent_at = [second + n / 100 for second, count in counts.items() for n in range(count)]
    profile = by_second(sent_at, [1.0] * len(sent_at), started, threshold_ms=20.0)
    assert profile["commands_per_s"] == {"mean": 20.0, "max": 30}


def test_by_second_of_no_commands_is_empty() -> None:
    assert by_second([], [], 0.0, threshold_ms=20.0) == {
        "seconds": 0, "threshold_ms": 20.0, "seconds_over": 0, "worst": [],
        "commands_per_s": {"mean": 0.0, "max": 0}}
