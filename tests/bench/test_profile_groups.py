"""bench.profile_groups: busy samples grouped by the first group one of their frames is in."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import profile_groups
from bench.profile_groups import OTHER, breakdown, group_of, is_waiting

LOOP = "Runner.run (asyncio/runners.py:118);run_forever (loop.c:33192);uv_run (core.c:452)"
WRITE = ("Session._send_now (server/transport/session.py:97);UVStream__try_write (loop.c:1);"
         "write (libc.so.6)")
DECIDE = "Room._decide (server/rooms/room.py:300);decide (server/rules/decide.py:40)"
LOF = DECIDE + ";CPyDef_line_of_fire___has_line_of_fire (line_of_fire.c:9)"


def folded(*lines: tuple[str, int]) -> list[str]:
    return [f"{stack} {count}\n" for stack, count in lines]


def test_a_socket_write_counts_as_the_write_even_under_the_fan_out() -> None:
    assert group_of(f"{LOOP};{WRITE}".split(";")) == "socket writes (the write system call)"


def test_compiled_geometry_counts_as_geometry_not_as_the_rest_of_the_rules() -> None:
    assert group_of(f"{LOOP};{LOF}".split(";")).startswith("rules: geometry")
    assert group_of(f"{LOOP};{DECIDE}".split(";")).startswith("rules: the rest")


def test_a_stack_with_nothing_known_below_the_loop_is_other() -> None:
    assert group_of(LOOP.split(";")) == OTHER


def test_waiting_threads_are_told_apart_from_busy_ones() -> None:
    assert is_waiting(f"{LOOP};uv__io_poll (linux.c:1);epoll_pwait (libc.so.6)".split(";"))
    assert is_waiting(["run (renewer.py:40)", "wait (threading.py:1)",
                       "PyThread_acquire_lock_timed (thread.c:1)"])
    assert is_waiting(["RenewalThread._run (renewer.py:165)", "Event.wait (threading.py:629)",
                       "Condition.wait (threading.py:331)"])  # a profile without --native
    assert not is_waiting(f"{LOOP};{WRITE}".split(";"))
    assert not is_waiting([*LOOP.split(";"),
                           "choose_army (server/rules/armies/army_selection.py:40)"])


def test_shares_are_of_busy_samples_only() -> None:
    result = breakdown(folded((f"{LOOP};{WRITE}", 3), (f"{LOOP};{LOF}", 1),
                              (f"{LOOP};epoll_pwait (libc.so.6)", 96)))
    assert result.waiting == 96
    assert result.busy_total == 4
    lines = list(result.lines())
    assert lines[0] == " 75.0%  socket writes (the write system call)"
    assert lines[1].startswith(" 25.0%  rules: geometry")
    assert lines[-1] == "4 busy samples (96 more of a thread waiting)"


def test_main_prints_the_breakdown_of_a_file(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    profile = tmp_path / "profile.txt"
    profile.write_text("".join(folded((f"{LOOP};{DECIDE}", 2), ("", 0))))
    profile_groups.main([str(profile)])
    out = capsys.readouterr().out.splitlines()
    assert out == ["100.0%  rules: the rest (decide, apply, views, replace)",
                   "2 busy samples (0 more of a thread waiting)"]


def test_encoding_a_frame_is_sending_and_decoding_one_is_receiving() -> None:
    room = "events_delivery (server/rooms/event_frames.py:30)"
    assert group_of([room, "encode (protocol/codec.py:51)"]).startswith("sending frames")
    assert group_of(["_serve (server/transport/endpoint.py:80)",
                     "_decode (protocol/codec.py:85)"]).startswith("receiving commands")
