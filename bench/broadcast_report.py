"""The readable report of one broadcast run (``bench.broadcast``), and the columns of the
summary table over several (``python -m bench.summarize --broadcast``, from the history)."""

from __future__ import annotations

from typing import Any

from bench.report import _latency_row
from bench.report_format import fmt

TARGETS = {"p99_to_last_spectator_ms": 250.0, "cpu_per_spectator_delivery_ratio": 1.5,
           "players_p99_during_joins_ms": 50.0}
"""Issue 20's targets for one room watched by 10,000 spectators on two nodes."""


def markdown(result: dict[str, Any]) -> str:
    p, ref, base, ratios = result["params"], result["referee"], result["baseline"], \
        result["ratios"]
    machine = result["machine"]
    lines = [
        f"# Broadcast {result['date']}: one room, 2 players, {p['spectators']:,} spectators "
        f"on {p['nodes']} nodes",
        "",
        f"Commit `{result['commit']}`"
        + (" (with uncommitted server changes)" if result["uncommitted_server_changes"] else "")
        + f"; {machine['cpus']} CPUs, the nodes on core {machine['server_core']}, players, "
        f"{p['crowd_workers']} crowd processes and Redis on {machine['load_cores']}; load "
        f"average before {machine['load_average_before']}, after "
        f"{machine['load_average_after']}. Joins over {p['join_s']} s with a command every "
        f"{p['join_pace_s']} s; then {p['events']} commands, one every {p['pace_s']} s."
        + (f" The players' process at niceness {p['players_nice']}."
           if p.get("players_nice") else "")
        + (f" The crowd's processes at niceness {p['crowd_nice']}."
           if p.get("crowd_nice") else ""),
        "",
        f"Spectators joined: referee {ref['joined']:,}, baseline {base['joined']:,}; frames "
        f"every spectator got in the events phase: referee "
        f"{ref['events']['frames'] - ref['events']['frames_incomplete']} of "
        f"{ref['events']['frames']}, baseline "
        f"{base['events']['frames'] - base['events']['frames_incomplete']} of "
        f"{base['events']['frames']}. Errors: referee {ref['errors']}, baseline "
        f"{base['errors']}.",
        "",
        "## Command to the last spectator (ms)",
        "",
        "| run | count | p50 | p90 | p99 | p99.9 | max |",
        "|---|---|---|---|---|---|---|",
        _latency_row("referee", ref["events"]["to_last_spectator_ms"]),
        _latency_row("baseline", base["events"]["to_last_spectator_ms"]),
        _latency_row("referee, to the first spectator", ref["events"]["to_first_spectator_ms"]),
        _latency_row("baseline, to the first spectator",
                     base["events"]["to_first_spectator_ms"]),
        "",
        f"Target: p99 ≤ {TARGETS['p99_to_last_spectator_ms']:.0f} ms.",
        "",
        "## The players' commands (ms, command to both players)",
        "",
        "| run | count | p50 | p90 | p99 | p99.9 | max |",
        "|---|---|---|---|---|---|---|",
        _latency_row("referee, while the crowd joins", ref["joins"]["players_latency_ms"]),
        _latency_row("baseline, while the crowd joins", base["joins"]["players_latency_ms"]),
        _latency_row("referee, events phase", ref["events"]["players_latency_ms"]),
        _latency_row("baseline, events phase", base["events"]["players_latency_ms"]),
        *[_latency_row(f"{label}, while the crowd leaves",
                       run["leaves"]["players_latency_ms"])
          for label, run in (("referee", ref), ("baseline", base)) if "leaves" in run],
        *_players_breakdown(ref),
        "",
        f"Target: p99 ≤ {TARGETS['players_p99_during_joins_ms']:.0f} ms while the crowd joins.",
        "",
        *_inside_the_nodes(ref),
        "## Joins",
        "",
        "| run | wall s | spectator to snapshot p50 ms | p99 ms | server CPU s | CPU share |"
        " CPU µs/join | RSS start MB | RSS joined MB (per node) | B/spectator |"
        " others' share of the nodes' core |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for label, run in (("referee", ref), ("baseline", base)):
        joins = run["joins"]
        lines.append(
            f"| {label} | {fmt(joins['wall_s'])} | {fmt(joins['spectator_join_ms']['p50'])} "
            f"| {fmt(joins['spectator_join_ms']['p99'])} | {fmt(joins['server_cpu_s'])} | "
            f"{fmt(joins['server_cpu_share'])} | {fmt(joins['cpu_us_per_join'])} | "
            f"{fmt(joins['rss_start_mb'])} | {fmt(joins['rss_joined_mb'])} "
            f"({', '.join(fmt(x) for x in joins['nodes_rss_mb'])}) | "
            f"{fmt(joins['bytes_per_spectator'])} | "
            f"{fmt(joins.get('others_on_server_core_share'))} |")
    lines += [
        "",
        "## Events phase: CPU",
        "",
        "| run | commands | spectator deliveries | mean frame B | server CPU s (per node) |"
        " CPU µs/spectator delivery | others' share of the nodes' core | machine steal |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for label, run in (("referee", ref), ("baseline", base)):
        events = run["events"]
        lines.append(
            f"| {label} | {events['commands']} | {fmt(events['spectator_deliveries'])} | "
            f"{fmt(events['mean_event_frame_bytes'])} | {fmt(events['server_cpu_s'])} "
            f"({', '.join(fmt(x) for x in events['nodes_cpu_s'])}) | "
            f"{fmt(events['cpu_us_per_spectator_delivery'])} | "
            f"{fmt(events.get('others_on_server_core_share'))} | "
            f"{fmt(events['machine_steal_share'])} |")
    lines += _leaves(ref, base)
    lines += [
        "",
        "## Ratios to the baseline (referee / baseline)",
        "",
        f"- CPU per spectator delivery: {fmt(ratios['cpu_per_spectator_delivery'])} "
        f"(target ≤ {TARGETS['cpu_per_spectator_delivery_ratio']})",
        f"- p99 command to the last spectator: {fmt(ratios['p99_to_last_spectator'])}",
        f"- memory per spectator: {fmt(ratios['bytes_per_spectator'])}",
        "",
    ]
    errors = ref["error_examples"] + base["error_examples"]
    if errors:
        lines += ["Errors seen (first few):", "", *[f"- `{e}`" for e in errors], ""]
    return "\n".join(lines)


def _leaves(ref: dict[str, Any], base: dict[str, Any]) -> list[str]:
    """The crowd's leaving: how long its sockets took to close, the nodes' CPU and memory
    after, and the referee's collections of 20 ms or more in each phase."""
    if "leaves" not in ref:
        return []
    lines = [
        "",
        "## The crowd leaves",
        "",
        "| run | crowd closed in s | still open | server CPU s | RSS after MB (per node) |",
        "|---|---|---|---|---|",
    ]
    for label, run in (("referee", ref), ("baseline", base)):
        leaves = run["leaves"]
        lines.append(
            f"| {label} | {fmt(leaves['crowd_s'])} | {leaves['still_open']} | "
            f"{fmt(leaves['server_cpu_s'])} | "
            f"{', '.join(fmt(x) for x in leaves['nodes_rss_mb'])} |")
    collections = ref.get("slow_collections", {})
    if collections:
        lines += ["", "The referee's collections of 20 ms or more (every room of the node "
                  "waited): " + "; ".join(
                      f"{phase} {c['count']} ({fmt(c['total_ms'])} ms in all, longest "
                      f"{fmt(c['max_ms'])}, by generation {c['by_generation']})"
                      for phase, c in collections.items()) + "."]
    return lines


COLUMNS = (
    ("p50 to last spectator ms", "referee/events/to_last_spectator_ms/p50"),
    ("p99 to last spectator ms", "referee/events/to_last_spectator_ms/p99"),
    ("baseline p50 ms", "baseline/events/to_last_spectator_ms/p50"),
    ("baseline p99 ms", "baseline/events/to_last_spectator_ms/p99"),
    ("CPU µs/spectator delivery", "referee/events/cpu_us_per_spectator_delivery"),
    ("baseline CPU µs/spectator delivery", "baseline/events/cpu_us_per_spectator_delivery"),
    ("CPU ratio", "ratios/cpu_per_spectator_delivery"),
    ("players p50 during joins ms", "referee/joins/players_latency_ms/p50"),
    ("players p99 during joins ms", "referee/joins/players_latency_ms/p99"),
    ("baseline players p99 during joins ms", "baseline/joins/players_latency_ms/p99"),
    ("join to snapshot p99 ms", "referee/joins/spectator_join_ms/p99"),
    ("CPU µs/join", "referee/joins/cpu_us_per_join"),
    ("B/spectator", "referee/joins/bytes_per_spectator"),
    ("baseline B/spectator", "baseline/joins/bytes_per_spectator"),
    ("players p99 while the crowd leaves ms", "referee/leaves/players_latency_ms/p99"),
    ("frames incomplete", "referee/events/frames_incomplete"),
    ("errors", "referee/errors"),
    ("others on the nodes' core, events", "referee/events/others_on_server_core_share"),
)


def bucket_percentile(cumulative: dict[str, float], q: float) -> str:
    """The bound (ms) at or under which a share ``q`` of a histogram's counts fell."""
    total = cumulative.get("+Inf", 0.0)
    if not total:
        return "–"
    for le, count in sorted(((float(le), c) for le, c in cumulative.items()),
                            key=lambda item: item[0]):
        if count >= q * total:
            return "> 5,000" if le == float("inf") else f"≤ {le * 1000:,.4g}"
    return "–"


def _inside_the_nodes(ref: dict[str, Any]) -> list[str]:
    """Where a seat's command waits: in the owner's room (inbox to answer, which a slow
    room, Redis or a queue of joins would lengthen), or in the loops (the loop watch's
    lateness: a busy core or a long callback), from the nodes' /metrics per phase."""
    lines = ["In the nodes (their /metrics; bucket bounds, ms): the owner's command latency "
             "in its room (inbox to answer) p50 / p99, and each node's loop lateness p99:", ""]
    for phase in ("joins", "events"):
        nodes = ref[phase].get("nodes_histograms") or []
        if not nodes:
            return []
        room = nodes[0]["referee_command_latency_seconds"]
        lags = ", ".join(bucket_percentile(node["referee_loop_lag_seconds"], 0.99)
                         for node in nodes)
        lines.append(f"- {phase}: in the room {bucket_percentile(room, 0.5)} / "
                     f"{bucket_percentile(room, 0.99)} ({room.get('+Inf', 0):.0f} commands); "
                     f"loop lateness p99 per node {lags}")
    return [*lines, ""]


def _players_breakdown(ref: dict[str, Any]) -> list[str]:
    """The referee's players' rows split by commander (B's command crosses the room bus
    both ways), the commander's own answer, and the players' process's own lateness."""
    rows: list[str] = []
    for phase, label in (("joins", "while the crowd joins"), ("events", "events phase")):
        run = ref[phase]
        for side, sample in sorted(run.get("players_latency_by_commander_ms", {}).items()):
            rows.append(_latency_row(f"referee, {label}, commands by {side}", sample))
        if run.get("players_answer_ms"):
            rows.append(_latency_row(f"referee, {label}, to the commander's answer",
                                     run["players_answer_ms"]))
    lags = [(phase, ref[phase].get("players_loop_lag_ms")) for phase in ("joins", "events")]
    shown = [f"{phase} p99 {lag['p99']} ms, max {lag['max']} ms" for phase, lag in lags
             if lag and lag.get("count")]
    if shown:
        rows += ["", "The players' own process (its timer's lateness; a late reader counts as "
                 "latency): " + "; ".join(shown) + "; its longest collection "
                 + ", ".join(f"{ref[p].get('players_gc_max_ms', 0):.1f} ms ({p})"
                             for p in ("joins", "events")) + "."]
    return rows

