"""The restart's floor in one ``bench.run`` (issue 38, target 3: every room back after a
``kill -9`` within 1.25 x the baseline's own restart in the same run): the least wall time
any referee built on this rules core and this Python websocket stack needs to have every
member of every room back, from figures of the same run (bench/README.md, "The restart's
floor").

Two parts:

- (a) the baseline's greeted restart (``baseline.greeted_restart``, measured after its own
  restart, ``baseline.restart``): killed again and started sending each new socket one frame
  of as many bytes as each of the referee's reconnected sockets read in its restart; from the
  kill, its new process serving (``process_start_s``) and every member holding that frame
  (``kill_to_all_rooms_back_s``), and its CPU after serving: the socket work of the restart,
  which any referee does too (the same handshakes, from the same load generator, and at
  least one frame to tell each returning member where its room stands). A run without it
  (``--no-greeted-restart``) takes the baseline's own restart, a member back when its
  socket is open, which errs low;
- (b) the in-process CPU a referee spends and the baseline does not (``bench.restart_cost``,
  pinned to the referee's core after the baseline, the least of several warm passes): per
  room, reading it back from one snapshot of its state at the kill and the first frame of
  each audience, times the rooms. CPU seconds are seconds of the one core the referee has.

The floor, ``restart_all_back_s`` = max((a)'s wall time from the kill, (a)'s time to
serving + its CPU after serving + (b)): a referee can be no faster than (a) (the same
handshakes and the same load generator, which has as much to read at least), nor than its
one core can do (a)'s socket work and (b) one after the other. (b) is not simply added to
(a)'s wall time: in the runs so far the baseline's core was busy 0.56-0.64 of the time while
its members reconnected (it waited on the load generator's handshakes), and a referee can
do (b) in that idle time (e.g. read its rooms while the first handshakes are in flight), so
the sum would not be a floor; ``restart_all_back_serial_s`` is that sum, the time if none of
(b) overlapped (a)'s waits, beside it. ``restart_all_back_ratio``: the floor ÷ the
baseline's own wall time (target 3 is against that restart), the least target 3's ratio
can be with this rules core; ``restart_greeted_ratio``, (a)'s wall time ÷ the same, is what
the greeting alone costs.

Where the referee's restart goes beyond it (no per-part counters in the referee: the run
records its start-up CPU and its CPU after serving): ``restart_overhead_s`` (its wall time -
the floor), ``restart_startup_overhead_cpu_s`` (its start-up CPU - the baseline's),
``restart_overhead_cpu_s`` (its CPU after serving - (a)'s - (b)), of which
``restart_replay_cpu_s`` is its in-process load of the rooms as it stores them (the latest
snapshot its policy stored and the events after it) beyond one snapshot's read, measured
in-process like (b).
"""

from __future__ import annotations

import sys
from typing import Any

from bench.report_format import fmt

NOT_MEASURED_KEY = "restart_why_not_measured"


def orders_at_kill(referee: dict[str, Any], rooms: int) -> int:
    """The Orders a room had played when the referee was killed: the paced and max-rate
    phases' Orders over the rooms, rounded (each room plays whole Orders; their counts
    differ a little, the paced phase starting each room at a random offset)."""
    played = int(referee["paced"]["orders"]) + int(referee["max"]["orders"])
    return round(played / rooms) if rooms else 0


def restart_cost_argv(seed: int, orders: int, repeat: int = 5) -> list[str]:
    """The command measuring (b) at the kill's point of the game, as JSON."""
    return [sys.executable, "-m", "bench.restart_cost", "--seed", str(seed),
            "--orders", str(orders), "--repeat", str(repeat), "--json"]


def figures(referee: dict[str, Any] | None, baseline: dict[str, Any] | None,
            cost: dict[str, Any], rooms: int,
            greeted: dict[str, Any] | None = None) -> dict[str, Any]:
    """The restart's part of the run's floor section (keys ``restart_*``), from the
    referee's and the baseline's ``restart`` figures, the baseline's greeted restart's when
    measured, and ``bench.restart_cost``'s result."""
    if not referee or not referee.get("measured") or not baseline \
            or not baseline.get("measured"):
        return {NOT_MEASURED_KEY: "no restart of the referee and of the baseline in this run"}
    per_room = float(cost["us_per_room"]["total"])
    in_process = rooms * per_room / 1e6
    base_wall = float(baseline["kill_to_all_rooms_back_s"])
    part_a = greeted if greeted and greeted.get("measured") else baseline
    a_wall = float(part_a["kill_to_all_rooms_back_s"])
    a_after = float(part_a["server_cpu_s"]) - float(part_a["server_cpu_serving_s"])
    cpu_bound = float(part_a["process_start_s"]) + a_after + in_process
    floor = max(a_wall, cpu_bound)
    serial = a_wall + in_process
    referee_after = float(referee["server_cpu_s"]) - float(referee["server_cpu_serving_s"])
    beside = cost["beside"]
    return {
        "restart_rules_core": cost["rules_core"],
        "restart_orders_at_kill": cost["orders"],
        "restart_version_at_kill": cost["version"],
        "restart_us_per_room": per_room,
        "restart_parts_us_per_room": cost["us_per_room"],
        "restart_in_process_s": round(in_process, 6),  # (a tiny run: a millisecond or less)
        "restart_cpu_bound_s": round(cpu_bound, 3),
        "restart_floor_greeted": part_a is greeted,
        "restart_greeting_bytes": part_a.get("greeting_bytes"),
        "restart_greeted_s": round(a_wall, 3) if part_a is greeted else None,
        "restart_greeted_ratio": _ratio(a_wall, base_wall) if part_a is greeted else None,
        "restart_all_back_s": round(floor, 3),
        "restart_all_back_ratio": _ratio(floor, base_wall),
        "restart_all_back_serial_s": round(serial, 3),
        "restart_all_back_serial_ratio": _ratio(serial, base_wall),
        "restart_overhead_s": round(float(referee["kill_to_all_rooms_back_s"]) - floor, 3),
        "restart_startup_overhead_cpu_s": round(float(referee["server_cpu_serving_s"])
                                                - float(baseline["server_cpu_serving_s"]), 3),
        "restart_overhead_cpu_s": round(referee_after - a_after - in_process, 3),
        "restart_referee_events_after_snapshot": cost["referee_stored"]["events_after"],
        "restart_referee_load_us_per_room": beside["referee_load_as_stored"],
        "restart_replay_cpu_s": round(rooms * (beside["referee_load_as_stored"]
                                               - cost["us_per_room"]["snapshot_to_state"])
                                      / 1e6, 3),
        "restart_snapshot_frames_us_per_room": beside["snapshot_frames_3_audiences"],
    }


def _ratio(ours: float, theirs: float) -> float | None:
    return round(ours / theirs, 2) if theirs else None



def markdown_lines(floor: dict[str, Any], referee: dict[str, Any] | None,
                   baseline: dict[str, Any] | None,
                   greeted: dict[str, Any] | None = None) -> list[str]:
    """The restart's lines of the report's "Floor" section (none without its figures)."""
    if NOT_MEASURED_KEY in floor:
        return [f"Restart floor: not measured ({floor[NOT_MEASURED_KEY]}).", ""]
    if "restart_all_back_s" not in floor or not referee or not baseline:
        return []
    parts = ", ".join(f"{name} {fmt(value)}"
                      for name, value in floor["restart_parts_us_per_room"].items()
                      if name != "total")
    part_a, named = ((greeted, "the baseline's greeted restart's")
                     if floor.get("restart_floor_greeted") and greeted
                     else (baseline, "the baseline's"))
    greeting = "" if part_a is baseline else (
        f" The greeted restart (one frame of {floor['restart_greeting_bytes']:,} bytes to each "
        f"returning member) took {fmt(floor['restart_greeted_ratio'])} × the baseline's own.")
    return [
        "### The restart's floor (bench/README.md, \"The restart's floor\")",
        "",
        f"Rooms at the kill: the setup and {floor['restart_orders_at_kill']} Orders (version "
        f"{floor['restart_version_at_kill']}). In-process per room, one snapshot read and "
        f"each audience's first frame ({floor['restart_rules_core']}, on the server core after "
        f"the baseline): **{fmt(floor['restart_us_per_room'])} µs** ({parts}), "
        f"{fmt(floor['restart_in_process_s'])} s for the rooms.",
        "",
        "| restart | referee | floor | baseline | referee − floor |",
        "|---|---|---|---|---|",
        f"| every member back, s from the kill | "
        f"{fmt(referee['kill_to_all_rooms_back_s'])} | "
        f"{fmt(floor['restart_all_back_s'])} (no overlap: "
        f"{fmt(floor['restart_all_back_serial_s'])}) | "
        f"{fmt(baseline['kill_to_all_rooms_back_s'])} | "
        f"{fmt(floor['restart_overhead_s'])} |",
        "",
        f"Floor = max({named} {fmt(part_a['kill_to_all_rooms_back_s'])} s, its "
        f"serving {fmt(part_a['process_start_s'])} s + its CPU after serving + the "
        f"in-process part = {fmt(floor['restart_cpu_bound_s'])} s; its core was busy "
        f"{fmt(part_a.get('server_cpu_share'))} of the time while reconnecting).{greeting} "
        f"Floor of the restart ratio, against the baseline's own restart: "
        f"**{fmt(floor['restart_all_back_ratio'])}** (no overlap: "
        f"{fmt(floor['restart_all_back_serial_ratio'])}; target ≤ 1.25).",
        "",
        f"The referee's CPU beyond the floor: start-up "
        f"{fmt(floor['restart_startup_overhead_cpu_s'])} s more than the baseline's; after "
        f"serving {fmt(floor['restart_overhead_cpu_s'])} s more than {named} and the "
        f"in-process part, of which {fmt(floor['restart_replay_cpu_s'])} s its rooms' load "
        f"as stored beyond one snapshot's read ({floor['restart_referee_events_after_snapshot']}"
        f" events after its latest snapshot: {fmt(floor['restart_referee_load_us_per_room'])}"
        f" µs per room); the rest is not apportioned (the hello, Redis, claims and presence, "
        f"the joins, the welcome and a catch-up per member, collections). Members returning "
        f"without their version would need their views too: "
        f"{fmt(floor['restart_snapshot_frames_us_per_room'])} µs per room, not in the floor.",
        "",
    ]
