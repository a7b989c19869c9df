"""The restart's floor of a ``bench.run`` (``bench.restart_floor``, ``bench.restart_cost``): the
rooms read back at the point of the game they stood at when killed, the floor's arithmetic
against the baseline's restart, and the run's record and report. No servers, no timing
thresholds."""

from __future__ import annotations

from typing import Any

import pytest

from bench import floor, restart_cost, restart_floor
from bench.run_history import record
from bench.summarize import COLUMNS
from testkit.scripted_game import plan
from tests.bench.test_floor import RULES, tiny_run


def restart(*, wall_s: float, start_s: float, cpu_s: float, serving_cpu_s: float,
            share: float = 0.6) -> dict[str, Any]:
    """The part of a server's ``restart`` figures (``bench.run.restart_figures``) the floor
    reads."""
    return {"measured": True, "kill_to_all_rooms_back_s": wall_s, "process_start_s": start_s,
            "server_cpu_s": cpu_s, "server_cpu_serving_s": serving_cpu_s,
            "server_cpu_share": share}


def cost(per_room: float, *, snapshot: float, load_as_stored: float) -> dict[str, Any]:
    """``bench.restart_cost``'s result, as the floor reads it."""
    return {"rules_core": "rules core: interpreted", "orders": 7, "version": 96,
            "us_per_room": {"snapshot_to_state": snapshot,
                            "catch_up_frames_3_audiences": per_room - snapshot,
                            "total": per_room},
            "referee_stored": {"snapshot_version": 33, "events_after": 63,
                               "snapshots_taken": 3},
            "beside": {"referee_load_as_stored": load_as_stored,
                       "snapshot_frames_3_audiences": 1000.0}}


REFEREE = restart(wall_s=20.0, start_s=1.0, cpu_s=18.0, serving_cpu_s=0.7, share=0.9)


def test_a_baseline_that_waited_on_its_clients_is_the_floor_when_the_rooms_fit_in_its_idle_time(
) -> None:
    # 8.6 s from the kill, its core busy 5 s of the 8.2 s after serving: 1,000 rooms of
    # 500 µs (0.5 s) fit in the 3.2 s it waited, so the floor is its own wall time
    baseline = restart(wall_s=8.6, start_s=0.4, cpu_s=5.1, serving_cpu_s=0.1)
    figures = restart_floor.figures(REFEREE, baseline, cost(500.0, snapshot=490.0,
                                                            load_as_stored=1500.0), 1000)
    assert figures["restart_in_process_s"] == 0.5
    assert figures["restart_cpu_bound_s"] == pytest.approx(0.4 + 5.0 + 0.5)
    assert figures["restart_all_back_s"] == 8.6
    assert figures["restart_all_back_ratio"] == 1.0
    # none of it overlapping the baseline's waits: the sum, beside it
    assert figures["restart_all_back_serial_s"] == pytest.approx(9.1)
    assert figures["restart_all_back_serial_ratio"] == pytest.approx(1.06)
    assert figures["restart_overhead_s"] == pytest.approx(20.0 - 8.6)
    # the referee's CPU beyond the floor: start-up, and after serving beyond the baseline's
    # and the rooms' read; of it, the replay of its stored events beyond one snapshot's read
    assert figures["restart_startup_overhead_cpu_s"] == pytest.approx(0.6)
    assert figures["restart_overhead_cpu_s"] == pytest.approx(17.3 - 5.0 - 0.5)
    assert figures["restart_replay_cpu_s"] == pytest.approx(1000 * (1500 - 490) / 1e6)


def test_the_rooms_read_after_the_baseline_socket_work_on_one_core_bound_the_floor() -> None:
    # 3,000 rooms of 2 ms: 6 s more than the baseline's core can hide in its waits
    baseline = restart(wall_s=8.6, start_s=0.4, cpu_s=5.1, serving_cpu_s=0.1)
    figures = restart_floor.figures(REFEREE, baseline, cost(2000.0, snapshot=1990.0,
                                                            load_as_stored=2500.0), 3000)
    assert figures["restart_all_back_s"] == pytest.approx(0.4 + 5.0 + 6.0)
    assert figures["restart_all_back_ratio"] == pytest.approx(11.4 / 8.6, abs=0.01)
    assert figures["restart_all_back_serial_s"] == pytest.approx(14.6)


def test_the_baselines_greeted_restart_is_the_floors_socket_part_and_the_ratio_stays_on_its_own(
) -> None:
    """Killed again and greeting each returning member with one frame, the baseline took
    10.75 s where its own restart took 8.6: the floor starts there (a referee tells each
    member where its room stands), and its ratio is still taken against the bare 8.6 s,
    target 3's denominator."""
    baseline = restart(wall_s=8.6, start_s=0.4, cpu_s=5.1, serving_cpu_s=0.1)
    greeted = {**restart(wall_s=10.75, start_s=0.4, cpu_s=6.1, serving_cpu_s=0.1),
               "greeting_bytes": 812}
    figures = restart_floor.figures(REFEREE, baseline, cost(500.0, snapshot=490.0,
                                                            load_as_stored=1500.0), 1000,
                                    greeted)
    assert figures["restart_floor_greeted"] is True
    assert figures["restart_greeting_bytes"] == 812
    assert figures["restart_greeted_s"] == 10.75
    assert figures["restart_greeted_ratio"] == 1.25
    assert figures["restart_cpu_bound_s"] == pytest.approx(0.4 + 6.0 + 0.5)
    assert figures["restart_all_back_s"] == 10.75
    assert figures["restart_all_back_ratio"] == 1.25
    assert figures["restart_all_back_serial_ratio"] == pytest.approx(11.25 / 8.6, abs=0.01)
    # the referee's CPU beyond the floor is beyond the greeted restart's
    assert figures["restart_overhead_cpu_s"] == pytest.approx(17.3 - 6.0 - 0.5)
    lines = "\n".join(restart_floor.markdown_lines(figures, REFEREE, baseline, greeted))
    assert "Floor = max(the baseline's greeted restart's 10.8 s" in lines
    assert "one frame of 812 bytes to each returning member) took 1.25 × the baseline's own" \
        in lines
    # without it (--no-greeted-restart) the baseline's own restart is the socket part
    bare = restart_floor.figures(REFEREE, baseline, cost(500.0, snapshot=490.0,
                                                         load_as_stored=1500.0), 1000)
    assert bare["restart_floor_greeted"] is False and bare["restart_greeted_ratio"] is None
    assert bare["restart_all_back_s"] == 8.6


def test_no_restart_floor_without_both_restarts() -> None:
    figures = restart_floor.figures(None, restart(wall_s=1, start_s=0.1, cpu_s=1,
                                                  serving_cpu_s=0.1),
                                    cost(1.0, snapshot=1.0, load_as_stored=1.0), 2)
    assert "restart_all_back_s" not in figures
    lines = restart_floor.markdown_lines(figures, None, None)
    assert lines[0].startswith("Restart floor: not measured")


def test_the_rooms_stand_where_the_paced_and_max_rate_phases_left_them() -> None:
    referee = {"paced": {"orders": 8_430}, "max": {"orders": 13_630}}
    assert restart_floor.orders_at_kill(referee, 3000) == 7  # 22,060 / 3,000 = 7.35


def test_a_runs_record_report_and_summary_carry_the_restart_floor() -> None:
    run = tiny_run()
    run["referee"]["restart"] = REFEREE
    run["baseline"]["restart"] = restart(wall_s=8.6, start_s=0.4, cpu_s=5.1, serving_cpu_s=0.1)
    section = floor.figures(run["referee"], run["baseline"], RULES)
    section.update(restart_floor.figures(run["referee"]["restart"], run["baseline"]["restart"],
                                         cost(500.0, snapshot=490.0, load_as_stored=1500.0),
                                         1000))
    result = {
        "date": "2026-11-29T23:00:00+00:00", "commit": "aaaaaaa",
        "uncommitted_server_changes": False,
        "params": {"rooms": 1000, "spectators": 4, "nodes": 1, "sockets": 6000,
                   "duration_s": 2.0},
        **run, "floor": section,
    }
    figures = record(result, source="bench.run")["figures"]
    assert figures["floor/restart_all_back_s"] == 8.6
    assert figures["floor/restart_all_back_ratio"] == 1.0
    assert figures["floor/restart_us_per_room"] == 500.0
    assert figures["floor/restart_orders_at_kill"] == 7
    lines = "\n".join(floor.markdown_lines(section, run["referee"], run["baseline"]))
    assert "### The restart's floor" in lines
    assert "| every member back, s from the kill | 20 | 8.6 (no overlap: 9.1) | 8.6 | 11.4 |" \
        in lines
    assert ("Floor of the restart ratio, against the baseline's own restart: **1** (no "
            "overlap: 1.06; target ≤ 1.25)") in lines
    assert ("floor restart ratio", "floor/restart_all_back_ratio") in COLUMNS


def test_a_room_is_read_back_from_one_snapshot_as_the_referee_loads_it_from_its_own() -> None:
    room = restart_cost.at_kill(7, 8)  # (8 Orders: 9 events after the latest snapshot)
    assert room.orders == 8 and room.commands > len(plan(7).setup)
    # the referee's latest snapshot is older: it replays the events after it
    assert room.stored_version < room.version
    assert len(room.stored_events) == room.version - room.stored_version
    loaded, counts = room.load_as_stored()
    assert restart_cost.ENGINE.state_to_plain(room.read_snapshot()) \
        == restart_cost.ENGINE.state_to_plain(room.state) \
        == restart_cost.ENGINE.state_to_plain(loaded)
    assert dict(counts) == dict(room.seen)
    # past the game's end, the whole game
    assert restart_cost.at_kill(7, 10_000).orders == len(plan(7).orders)


def test_the_measurement_runs_and_gives_positive_figures() -> None:
    result = restart_cost.measure(7, 8, repeat=1)
    parts = result["us_per_room"]
    assert parts["snapshot_to_state"] > 0 and parts["catch_up_frames_3_audiences"] > 0
    assert parts["total"] == pytest.approx(sum(v for k, v in parts.items() if k != "total"),
                                           abs=0.1)
    assert result["orders"] == 8 and not result["window_open"]  # between two Orders
    assert result["referee_stored"]["events_after"] > 0
    assert result["beside"]["referee_load_as_stored"] > 0
    assert result["beside"]["snapshot_frames_3_audiences"] > 0
