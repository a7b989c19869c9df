"""The benchmark's own arithmetic: percentiles, the latency tail second by second, and
Redis's stalls of a phase."""

from __future__ import annotations

from pathlib import Path

import pytest
import redis

from bench.measure import (
    CoreTimeline,
    by_second,
    core_jiffies,
    core_list,
    cores_busy_share,
    events_between,
    percentiles,
    progress,
    redis_latency_events,
)
from testkit.redis_process import RedisProcess


def test_a_timeline_says_how_long_the_server_core_was_full_while_the_load_core_waited(
) -> None:
    timeline = CoreTimeline()
    ticks = {"0": (0, 0), "1": (0, 0), "2": (0, 0)}

    def step(server: int, load_one: int, load_two: int) -> dict[str, tuple[int, int]]:
        # 20 ticks a core per 0.2 s reading, ``server``/``load_*`` of them busy
        for core, busy in (("0", server), ("1", load_one), ("2", load_two)):
            ticks[core] = (ticks[core][0] + busy, ticks[core][1] + 20)
        return dict(ticks)

    timeline.readings = [(0.0, dict(ticks)), (0.2, step(20, 8, 10)),  # server-bound
                         (0.4, step(19, 20, 19)),  # both full: the load side sets the pace
                         (0.6, step(10, 20, 20)),  # load-bound
                         (0.8, step(20, 16, 16)),  # neither: the load core is not waiting
                         (1.0, step(20, 2, 2))]  # after the phase
    bound = timeline.bound(0.8, "0", ["1", "2"])
    assert bound == {"server_bound_s": 0.2, "load_bound_s": 0.4, "measured_s": 0.8}
    assert timeline.bound(0.8, None, ["1"]) is None  # one CPU: no server core of its own


def test_a_core_list_names_each_core_of_its_ranges() -> None:
    assert core_list("1") == ["1"]
    assert core_list("1-3") == ["1", "2", "3"]
    assert core_list("1,3-4") == ["1", "3", "4"]
    assert core_list(None) == []


def test_each_cores_busy_share_is_its_busy_ticks_over_all_its_ticks() -> None:
    before = {"0": (100, 1_000), "1": (500, 1_000)}
    after = {"0": (175, 1_100), "1": (600, 1_100)}  # core 0 busy 75 of 100 ticks, core 1 all
    assert cores_busy_share(before, after) == {"0": 0.75, "1": 1.0}
    now = core_jiffies()
    assert now and all(0 <= busy <= total for busy, total in now.values())


def test_percentiles_use_the_nearest_rank() -> None:
    figures = percentiles([float(n) for n in range(1, 101)])
    assert (figures["p50"], figures["p99"], figures["max"], figures["count"]) == (50, 99, 100, 100)


def test_progress_says_when_each_share_was_done() -> None:
    started = 100.0
    # 80 rooms back at an even pace over 8 s, then 20 late ones at 20 s.
    done_at = [started + n / 10 for n in range(80)] + [started + 20.0] * 20
    assert progress(done_at, started) == {"10%": 0.9, "25%": 2.4, "50%": 4.9, "75%": 7.4,
                                          "90%": 20.0, "100%": 20.0}
    assert progress([], started)["50%"] is None


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


def test_a_phase_keeps_its_own_redis_events_slowest_first() -> None:
    events = [("aof-write", 999, 40), ("fork", 1000, 12), ("aof-write", 1007, 55),
              ("command", 1031, 80)]
    assert events_between(events, started=1000.4, ended=1030.2) == [
        {"event": "aof-write", "second": 7, "ms": 55},
        {"event": "fork", "second": 0, "ms": 12}]


@pytest.mark.redis
@pytest.mark.slow  # a redis-server of its own
def test_redis_latency_events_reads_what_the_latency_monitor_recorded(tmp_path: Path) -> None:
    server = RedisProcess(tmp_path, extra_args=["--latency-monitor-threshold", "5",
                                                "--enable-debug-command", "local"])
    server.start()
    try:
        assert redis_latency_events(server.url) == []
        client = redis.Redis.from_url(server.url)
        client.execute_command("DEBUG", "SLEEP", "0.02")  # Redis stalls for 20 ms
        client.close()
        [(name, at, ms)] = redis_latency_events(server.url)
        assert name == "command"
        assert ms >= 20
        assert at > 0
    finally:
        server.stop()


def test_no_redis_no_latency_events() -> None:
    assert redis_latency_events(None) == []


def test_a_process_trees_cpu_counts_its_running_children() -> None:
    # A parent and one child, each burning some CPU: the tree's figure holds both.
    import subprocess
    import sys

    from bench.measure import cpu_seconds, tree_cpu_seconds
    burn = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.2: pass\n"
    script = (f"import subprocess, sys\n{burn}"
              f"child = subprocess.Popen([sys.executable, '-c', {burn + 'input()'!r}], "
              "stdin=subprocess.PIPE)\nprint(child.pid, flush=True)\ninput()\n"
              "child.communicate(b'\\n')\n")
    parent = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None
        child = int(parent.stdout.readline())
        while cpu_seconds(child) < 0.2:  # (the child's burn, read from /proc)
            pass
        assert tree_cpu_seconds(parent.pid) >= cpu_seconds(parent.pid) + cpu_seconds(child) - 0.02
        assert tree_cpu_seconds(parent.pid) >= 0.4 - 0.02
    finally:
        assert parent.stdin is not None
        parent.stdin.write("\n")
        parent.stdin.flush()
        parent.wait()
