"""The slow-command log: one line a second at most per node, naming what it left out."""

from __future__ import annotations

import pytest

from server.rooms.slow_commands import SlowCommands


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "server.rooms.room"]


def test_a_fast_command_is_not_logged(caplog: pytest.LogCaptureFixture) -> None:
    log = SlowCommands(0.05, 1.0, Clock())
    with caplog.at_level("WARNING"):
        log.took("r1", 0.01, 0.0399, 0.03)
    assert lines(caplog) == []


def test_a_slow_command_says_where_its_time_went(caplog: pytest.LogCaptureFixture) -> None:
    log = SlowCommands(0.05, 1.0, Clock())
    with caplog.at_level("WARNING"):
        log.took("r1", 0.02, 0.06, 0.055)
        log.took("r2", 0.0, 0.09, 0.001, 0.004)  # (a line a second: r2 is counted, not logged)
    assert lines(caplog) == ["room r1: a command took 80.0 ms in the room (20.0 ms waiting in "
                             "its inbox, 60.0 ms handled, of which the last store append "
                             "55.0 ms)"]


def test_a_slow_command_says_how_much_cpu_the_loop_used_meanwhile(
        caplog: pytest.LogCaptureFixture) -> None:
    log = SlowCommands(0.05, 1.0, Clock())
    with caplog.at_level("WARNING"):
        log.took("r2", 0.0, 0.09, 0.001, 0.004)  # handled 90 ms, 4 of them on the core
    assert lines(caplog) == ["room r2: a command took 90.0 ms in the room (0.0 ms waiting in "
                             "its inbox, 90.0 ms handled, of which the last store append "
                             "1.0 ms; the loop's CPU meanwhile 4.0 ms)"]


def test_an_overloaded_node_writes_one_line_a_second_counting_the_rest(
        caplog: pytest.LogCaptureFixture) -> None:
    clock = Clock()
    log = SlowCommands(0.05, 1.0, clock)
    with caplog.at_level("WARNING"):
        for _ in range(1000):  # a thousand slow commands within the same second
            log.took("r1", 0.0, 0.2, 0.1)
            clock.now += 0.0005
        clock.now += 1.0
        log.took("r2", 0.0, 0.3, 0.1)
        log.took("r3", 0.0, 0.01, 0.0)  # fast: neither logged nor counted
        clock.now += 1.0
        log.took("r4", 0.0, 0.3, 0.1)
    logged = lines(caplog)
    assert len(logged) == 3
    assert logged[0].startswith("room r1: ") and "more slow commands" not in logged[0]
    assert logged[1].startswith("room r2: ")
    assert logged[1].endswith("; 999 more slow commands on this node since the last such line")
    assert logged[2].startswith("room r4: ") and "more slow commands" not in logged[2]
