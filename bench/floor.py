"""The floor of the referee's CPU in one ``bench.run``: what any referee with this rules core
pays at least, measured in the same run as the referee and the baseline.

Two parts, both paid by the referee and neither avoidable by a better server around the same
rules core:

- the sockets: the baseline's own CPU, measured in the run (one frame received, sent on to
  each other member of the room);
- the rules core and the room's in-process work per command (``bench.rules_cost``, the
  Orders of the bench's game: decide, the stored events, the three audiences' frames, the
  window and summaries read on every commit, the snapshot amortised), which the baseline
  does not do, measured in a subprocess pinned to the referee's core after the baseline's
  phases.

Counting like with like (bench/README.md, "The CPU floor"): a *room command* is one command the
room decides, whether a player sent it or the room's clock closed an ARO window at its
deadline. The load generators count only what players send (``commands``), so in the paced
phase, where every ``--timeout-every``-th window is left to the clock, the room decides
``commands + windows left to time out`` (``window_close_lateness_ms``'s count; a window the
clock closed before its player, ``windows_closed_by_clock_before_player``, adds a clock's
close but takes away the player's stale command, which nets out). The baseline relays each
window's close as a frame whoever would close it, so each of its commands is one room
command. A referee's room command reaches every member (the commander's frame is its
answer): 2 + spectators deliveries; a baseline's relay reaches every other member: 1 +
spectators.

- ``paced_cpu_us_per_order``: (the baseline's paced CPU per command + rules per command)
  x the referee's room commands per Order;
- ``max_cpu_us_per_delivery``: (the baseline's max-rate CPU per delivery x the referee's
  deliveries per room command + rules per command) ÷ the referee's deliveries per room
  command; ``cpu_per_delivery_max_ratio``: that ÷ the baseline's CPU per delivery (the floor
  of issue 38's ratio);
- ``max_cpu_us_per_delivery_low``: the same with the baseline's CPU per command (a relay)
  in place of its per delivery x the referee's deliveries per command: the floor if the
  commander's answer frame, which the baseline does not send, cost nothing.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

from bench import restart_floor
from bench.report_format import fmt

RULES_REPEAT = 5


def rules_cost_argv(seed: int, repeat: int = RULES_REPEAT) -> list[str]:
    """The command measuring the rules part: the Orders of the bench's game, as JSON."""
    return [sys.executable, "-m", "bench.rules_cost", "--seed", str(seed),
            "--repeat", str(repeat), "--orders-only", "--json"]


async def measure_rules(argv: list[str], cwd: str, env: dict[str, str]) -> dict[str, Any]:
    """Run ``argv`` (``rules_cost_argv``, or ``restart_floor.restart_cost_argv`` for the restart's
    floor, pinned as the referee is) and read its JSON."""
    process = await asyncio.create_subprocess_exec(
        *argv, cwd=cwd, env=env, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE)
    out, err = await process.communicate()
    if process.returncode != 0:
        tool = argv[argv.index("-m") + 1] if "-m" in argv else argv[0]
        raise RuntimeError(f"{tool} failed ({process.returncode}): "
                           f"{err.decode(errors='replace')[-2000:]}")
    result: dict[str, Any] = json.loads(out)
    return result


def _per(numerator: float | None, denominator: float | None, digits: int = 2) -> float | None:
    if numerator is None or not denominator:
        return None
    return round(numerator / denominator, digits)


def room_commands(phase: dict[str, Any]) -> int:
    """The commands the referee's rooms decided in a phase: the players' and the clock's
    closes of the windows left to time out."""
    return int(phase["commands"]) + int(phase["window_close_lateness_ms"]["count"])


def figures(referee: dict[str, Any], baseline: dict[str, Any],
            rules: dict[str, Any]) -> dict[str, Any]:
    """The floor section of a run's results, from its referee's and baseline's figures and
    ``bench.rules_cost``'s result (``measure(..., orders_only=True)``)."""
    rules_us = float(rules["room_us_per_command"]["total"])
    paced, paced_base = referee["paced"], baseline["paced"]
    top, top_base = referee["max"], baseline["max"]
    room_per_order = _per(room_commands(paced), paced["orders"])
    paced_floor = (None if room_per_order is None or paced_base["cpu_us_per_command"] is None
                   else round((paced_base["cpu_us_per_command"] + rules_us) * room_per_order, 1))
    deliveries_per_command = _per(top["deliveries"], room_commands(top))
    base_delivery = top_base["cpu_us_per_delivery"]
    max_floor = max_low = None
    if deliveries_per_command and base_delivery is not None:
        max_floor = round((base_delivery * deliveries_per_command + rules_us)
                          / deliveries_per_command, 2)
        if top_base["cpu_us_per_command"] is not None:
            max_low = round((top_base["cpu_us_per_command"] + rules_us)
                            / deliveries_per_command, 2)
    referee_order, referee_delivery = paced["cpu_us_per_order"], top["cpu_us_per_delivery"]
    return {
        "measured": True,
        "rules_core": rules["rules_core"],
        "rules_commands": rules["commands"],
        "rules_us_per_command": rules_us,
        "rules_parts_us_per_command": rules["room_us_per_command"],
        "snapshot_every": rules["snapshot_every"],
        "snapshots_taken": rules["snapshots_taken"],
        "referee_commands_per_order": _per(paced["commands"], paced["orders"]),
        "clock_closes_per_order": _per(paced["window_close_lateness_ms"]["count"],
                                       paced["orders"]),
        "room_commands_per_order": room_per_order,
        "baseline_commands_per_order": _per(paced_base["commands"], paced_base["orders"]),
        "referee_deliveries_per_command": deliveries_per_command,
        "baseline_deliveries_per_command": _per(top_base["deliveries"], top_base["commands"]),
        "paced_cpu_us_per_order": paced_floor,
        "paced_overhead_us_per_order": (None if paced_floor is None or referee_order is None
                                        else round(referee_order - paced_floor, 1)),
        "max_cpu_us_per_delivery": max_floor,
        "max_cpu_us_per_delivery_low": max_low,
        "cpu_per_delivery_max_ratio": _per(max_floor, base_delivery),
        "max_overhead_us_per_delivery": (None if max_floor is None or referee_delivery is None
                                         else round(referee_delivery - max_floor, 2)),
    }


def not_measured(why: str) -> dict[str, Any]:
    return {"measured": False, "why": why}



def markdown_lines(floor: dict[str, Any] | None, referee: dict[str, Any],
                   baseline: dict[str, Any]) -> list[str]:
    """The report's "Floor" section."""
    if not floor:
        return []
    if not floor.get("measured"):
        return [f"Floor: not measured ({floor.get('why', '')}).", ""]
    parts = ", ".join(f"{name} {fmt(value)}"
                      for name, value in floor["rules_parts_us_per_command"].items()
                      if name != "total")
    return [
        "## Floor (what any referee with this rules core pays: bench/README.md, \"The CPU floor\")",
        "",
        f"Rules core and room in-process, per command ({floor['rules_commands']} commands of "
        f"the game's Orders, {floor['rules_core']}, on the server core after the baseline): "
        f"**{fmt(floor['rules_us_per_command'])} µs** ({parts}; {floor['snapshots_taken']} "
        f"snapshots, every {floor['snapshot_every']} versions or phase, round, turn).",
        "",
        f"Paced, per Order: the referee's rooms decided "
        f"{fmt(floor['room_commands_per_order'])} commands per Order "
        f"({fmt(floor['referee_commands_per_order'])} sent by players, "
        f"{fmt(floor['clock_closes_per_order'])} ARO windows' closes by the clock; the baseline "
        f"relayed {fmt(floor['baseline_commands_per_order'])} per Order).",
        "",
        "| figure | referee | floor | baseline | referee − floor |",
        "|---|---|---|---|---|",
        f"| paced CPU µs/order | {fmt(referee['paced']['cpu_us_per_order'])} | "
        f"{fmt(floor['paced_cpu_us_per_order'])} | "
        f"{fmt(baseline['paced']['cpu_us_per_order'])} | "
        f"{fmt(floor['paced_overhead_us_per_order'])} |",
        f"| max-rate CPU µs/delivery | {fmt(referee['max']['cpu_us_per_delivery'])} | "
        f"{fmt(floor['max_cpu_us_per_delivery'])} (low "
        f"{fmt(floor['max_cpu_us_per_delivery_low'])}) | "
        f"{fmt(baseline['max']['cpu_us_per_delivery'])} | "
        f"{fmt(floor['max_overhead_us_per_delivery'])} |",
        "",
        f"Deliveries per command at max rate: referee {fmt(floor['referee_deliveries_per_command'])}"
        f" (every member), baseline {fmt(floor['baseline_deliveries_per_command'])} (every "
        f"other member). Floor of the CPU per delivery ratio: "
        f"**{fmt(floor['cpu_per_delivery_max_ratio'])}** (target ≤ 2.0).",
        "",
        *restart_floor.markdown_lines(floor, referee.get("restart"), baseline.get("restart"),
                                      baseline.get("greeted_restart")),
    ]
