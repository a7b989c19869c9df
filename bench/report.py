"""The readable report of one benchmark run (markdown), from its results dictionary."""

from __future__ import annotations

from typing import Any

from bench.floor import markdown_lines as floor_lines
from bench.measure import REDIS_LATENCY_THRESHOLD_MS
from bench.report_format import fmt


def _latency_row(label: str, stats: dict[str, Any]) -> str:
    cells = [fmt(stats.get(k)) for k in ("count", "p50", "p90", "p99", "p99.9", "max")]
    return f"| {label} | " + " | ".join(cells) + " |"


def markdown(result: dict[str, Any]) -> str:
    p = result["params"]
    ref, base, ratios = result["referee"], result["baseline"], result["ratios"]
    lines = [
        f"# Benchmark {result['date']} — {p['rooms']} rooms × (2 players + "
        f"{p['spectators']} spectators) = {p['sockets']} sockets",
        "",
        f"Commit `{result['commit']}`"
        + (" (with uncommitted server changes)" if result["uncommitted_server_changes"] else "")
        + f"; {result['machine']['cpus']} CPUs, server on core "
        f"{result['machine']['server_core']}, load on {result['machine']['load_cores']}"
        f" ({ref['workers']} load process(es)); phases of {p['duration_s']} s; paced = one "
        f"Order per room every {p['pace_s']} s, ARO window {p['aro_window_s']} s, every "
        f"{p['timeout_every']}th window left to time out. "
        + (f"{result['rules_core'][0].upper()}{result['rules_core'][1:]}."
           if "rules_core" in result else ""),
        "",
        f"Redis persistence active: **{'yes' if ref['redis_active'] else 'no'}**. "
        f"Setup (armies, initiative, deployment, {fmt(ref['setup_commands'])} commands): "
        f"{fmt(ref['setup_s'])} s; connecting: {fmt(ref['connect_s'])} s.",
        "",
        "## Command to every viewer (ms)",
        "",
        "| run | count | p50 | p90 | p99 | p99.9 | max |",
        "|---|---|---|---|---|---|---|",
        _latency_row("referee, paced", ref["paced"]["latency_ms"]),
        _latency_row("baseline, paced", base["paced"]["latency_ms"]),
        _latency_row("referee, max rate", ref["max"]["latency_ms"]),
        _latency_row("baseline, max rate", base["max"]["latency_ms"]),
        "",
        *_by_second_lines(ref["paced"].get("latency_by_second")),
        *_load_lag_lines(ref["paced"].get("load_loop_lag_ms")),
        *_slow_collection_lines(ref),
        "## ARO window close after the deadline (ms, referee, paced)",
        "",
        "| count | p50 | p90 | p99 | p99.9 | max |",
        "|---|---|---|---|---|---|",
        "| " + " | ".join(fmt(ref["paced"]["window_close_lateness_ms"].get(k))
                         for k in ("count", "p50", "p90", "p99", "p99.9", "max")) + " |",
        "",
        "## Throughput and CPU",
        "",
        "| run | orders/s | commands/s | deliveries/s | server CPU share | CPU µs/order |"
        " CPU µs/command | CPU µs/delivery | server system CPU share |"
        " load generators' CPU share | Redis CPU share | machine steal | errors |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for label, figures in (("referee, paced", ref["paced"]), ("baseline, paced", base["paced"]),
                           ("referee, max rate", ref["max"]), ("baseline, max rate", base["max"])):
        lines.append(
            f"| {label} | {fmt(figures['orders_per_s'])} | {fmt(figures['commands_per_s'])} | "
            f"{fmt(figures['deliveries_per_s'])} | {fmt(figures['server_cpu_share'])} | "
            f"{fmt(figures['cpu_us_per_order'])} | {fmt(figures['cpu_us_per_command'])} | "
            f"{fmt(figures['cpu_us_per_delivery'])} | "
            f"{fmt(figures.get('server_system_cpu_share'))} | "
            f"{fmt(figures.get('load_cpu_share'))} | "
            f"{fmt(figures.get('redis', {}).get('cpu_share'))} | "
            f"{fmt(figures.get('machine_steal_share'))} | {fmt(figures['errors'])} |")
    mem_r, mem_b = ref["memory"], base["memory"]
    lines += [
        "",
        "## Memory (server RSS deltas)",
        "",
        f"- referee: {fmt(mem_r.get('bytes_per_connection'))} B per connection, "
        f"{fmt(mem_r.get('bytes_per_room_created'))} B per room created, "
        f"{fmt(mem_r.get('bytes_per_room_in_play'))} B per room in play (without its "
        f"sockets); RSS {fmt(mem_r.get('rss_in_play_mb'))} MB in play",
        f"- baseline: {fmt(mem_b.get('bytes_per_connection'))} B per connection",
        "",
        "## Redis",
        "",
    ]
    for label, figures in (("paced", ref["paced"]), ("max rate", ref["max"])):
        redis = figures.get("redis")
        if redis:
            lines.append(f"- {label}: {fmt(redis['commands_per_order'])} commands and "
                         f"{fmt(redis['bytes_per_order'])} bytes (in + out) per Order; "
                         f"{fmt(redis.get('forks'))} fork(s) (AOF rewrite); "
                         f"{_latency_events(redis.get('latency_events'))}")
    lines += _balancer_lines(ref.get("balancer_cpu"))
    lines += [
        "",
        "## Ratios to the baseline (referee / baseline)",
        "",
        f"- CPU per delivery at max rate: {fmt(ratios['cpu_per_delivery_max'])} "
        "(target ≤ 2.0, docs/performance.md)",
        f"- CPU per delivery, paced: {fmt(ratios['cpu_per_delivery_paced'])}",
        f"- max deliveries/s: {fmt(ratios['max_deliveries_per_s'])}",
        f"- p99 latency at the same paced load: {fmt(ratios['p99_paced'])}",
        f"- memory per connection: {fmt(ratios['bytes_per_connection'])}",
        "",
        *floor_lines(result.get("floor"), ref, base),
        *_restart_lines(result["restart"], base.get("restart"),
                        ratios.get("restart_all_back"), base.get("greeted_restart"),
                        ratios.get("restart_greeted_all_back")),
        "",
    ]
    errors = ref["paced"]["error_examples"] + ref["max"]["error_examples"]
    if errors:
        lines += ["Errors seen (first few):", "", *[f"- `{e}`" for e in errors], ""]
    reopened = {phase: ref[phase].get("reopened") or 0 for phase in ("paced", "max")}
    if any(reopened.values()):  # (not errors: a client opens its socket again on a 4011)
        lines += ["Sockets the referee closed with 4011 (room stopped) and the load "
                  f"generators opened again: paced {reopened['paced']}, max rate "
                  f"{reopened['max']}.", ""]
    return "\n".join(lines)


def _latency_events(events: list[dict[str, Any]] | None) -> str:
    if events is None:
        return "latency events not recorded"
    if not events:
        return f"no latency event of {REDIS_LATENCY_THRESHOLD_MS} ms or more"
    slowest = ", ".join(f"{e['event']} {e['ms']} ms (s{e['second']})" for e in events[:5])
    return (f"{len(events)} latency event(s) of {REDIS_LATENCY_THRESHOLD_MS} ms or more, "
            f"slowest: {slowest}")


def _load_lag_lines(lag: dict[str, Any] | None) -> list[str]:
    if not lag or not lag["count"]:
        return []
    return [f"The load generators' own event loops, paced (a late one reads frames late, "
            f"which counts as latency): a timer every 50 ms fired p50 {fmt(lag['p50'])}, "
            f"p99 {fmt(lag['p99'])}, max {fmt(lag['max'])} ms late.", ""]


def _slow_collection_lines(ref: dict[str, Any]) -> list[str]:
    phases = [(name, ref[phase]["slow_collections"]) for phase, name in
              (("paced", "paced"), ("max", "max rate"), ("restart", "restart"))
              if phase in ref and "slow_collections" in ref[phase]]
    if not phases:
        return []
    said = "; ".join(f"{name} {fmt(c['count'])}" + (f" ({fmt(c['total_ms'])} ms in all, "
                                                    f"longest {fmt(c['max_ms'])})"
                                                    if c["count"] else "")
                     for name, c in phases)
    return [f"The referee's garbage collections of 20 ms or more (its log's `server.gc` "
            f"warnings; every room waited): {said}.", ""]


def _by_second_lines(profile: dict[str, Any] | None) -> list[str]:
    if not profile or not profile["seconds"]:
        return []
    worst = ", ".join(f"s{w['second']}: {fmt(w['p99'])} ms ({w['count']})"
                      for w in profile["worst"])
    rate = profile.get("commands_per_s") or {}
    offered = (f" Commands sent per second: mean {fmt(rate['mean'])}, busiest {rate['max']}."
               if rate else "")
    return [f"Referee, paced, second by second: the p99 of {profile['seconds_over']} of "
            f"{profile['seconds']} seconds was over {fmt(profile['threshold_ms'])} ms; "
            f"worst seconds (p99, commands sent in it): {worst}.{offered}", ""]


def _restart_lines(restart: dict[str, Any], baseline: dict[str, Any] | None,
                   all_back_ratio: float | None,
                   greeted: dict[str, Any] | None = None,
                   greeted_ratio: float | None = None) -> list[str]:
    """The referee's restart, beside the baseline's and, when measured, the baseline's
    greeted restart (each returning member sent one frame)."""
    if not restart.get("measured"):
        return [f"Restart recovery: not measured ({restart.get('why', '')})."]
    lines = [
        "## Restart (kill -9 of the referee after the max-rate phase)",
        "",
        f"- new process serving: {fmt(restart['process_start_s'])} s after the kill",
        f"- every member of all {restart['rooms']:,} rooms ({restart['sockets']:,} sockets) "
        f"back at its version: {fmt(restart['rooms_back_s'])} s after that "
        f"({fmt(restart['kill_to_all_rooms_back_s'])} s from the kill)",
        f"- new process CPU until then: {fmt(restart['server_cpu_s'])} s; RSS "
        f"{fmt(restart['rss_new_process_mb'])} MB at start, "
        f"{fmt(restart['rss_all_back_mb'])} MB with every room back",
        f"- errors: {restart['errors']}",
    ]
    by_type = restart.get("frames_per_socket_by_type")
    if by_type:
        kinds = ", ".join(f"{kind} {fmt(count)}" for kind, count in by_type.items())
        lines.append(f"- frames each reconnected socket read: {fmt(restart['frames_per_socket'])}"
                     f" ({kinds})")
    redis = restart.get("redis")
    if redis:
        busiest = ", ".join(f"{name} {fmt(calls)}" for name, calls
                            in list(redis["commands_per_room_by_name"].items())[:6])
        lines.append(f"- Redis from the kill until every member was back (on the load core): "
                     f"{fmt(redis['cpu_s'])} s of CPU ({fmt(redis['cpu_us_per_socket'])} µs "
                     f"per reconnected socket), {fmt(redis['commands_per_room'])} commands "
                     f"per room ({busiest})")
    if not baseline or "server_cpu_us_per_socket" not in restart:
        return lines
    rows = (
        ("new process serving, s after the kill", "process_start_s"),
        ("every member back, s after serving", "rooms_back_s"),
        ("every member back, s after the kill", "kill_to_all_rooms_back_s"),
        ("new process CPU until every member back, s", "server_cpu_s"),
        ("of which its start-up (until serving), s", "server_cpu_serving_s"),
        ("server CPU µs per reconnected socket (after serving)", "server_cpu_us_per_socket"),
        ("server core share while reconnecting", "server_cpu_share"),
        ("load generators' CPU from the kill, s", "load_cpu_s"),
        ("load generators' CPU while reconnecting, s", "load_cpu_reconnecting_s"),
        ("load generators' CPU µs per reconnected socket", "load_cpu_us_per_socket"),
        ("load core share while reconnecting", "load_cpu_share"),
        ("frames each reconnected socket read", "frames_per_socket"),
        ("bytes each reconnected socket read", "bytes_per_socket"),
        ("connections a full listen queue turned away (host)", "listen_overflows"),
        ("errors", "errors"),
    )
    servers = [restart, baseline, *([greeted] if greeted else [])]
    cores = sorted(set.intersection(*(set(server.get("cores_busy_share", {}))
                                       for server in servers)))
    greeted_text = "" if not greeted else (
        f" Then killed once more and started greeting each new socket with one frame of "
        f"{greeted['greeting_bytes']:,} bytes (what each of the referee's reconnected sockets "
        f"read, in one frame): a member is back when it has read it; "
        f"{fmt(greeted_ratio)} × the baseline's restart (the restart's floor).")
    return [
        *lines,
        "",
        "### The same restart of the baseline (its floor)",
        "",
        "The baseline killed with -9 after its max-rate phase and started again on the same "
        "port and core; every member reconnects the same way (as many handshakes in flight per "
        "load process). It has no state: a member is back when its socket is open again. "
        f"Referee / baseline, every member back from the kill: {fmt(all_back_ratio)}."
        f"{greeted_text}",
        "",
        "| restart | referee | baseline |" + (" baseline, greeted |" if greeted else ""),
        "|---|---|---|" + ("---|" if greeted else ""),
        *["| " + " | ".join([label, *(fmt(server.get(key)) for server in servers)]) + " |"
          for label, key in rows],
        *["| " + " | ".join([f"{share} of the rooms back, s after serving",
                             *(fmt((server.get("rooms_back_progress_s") or {}).get(share))
                               for server in servers)]) + " |"
          for share in ("25%", "50%", "75%", "90%")],
        *["| " + " | ".join([f"core {core} busy while reconnecting (anything on it)",
                             *(fmt(server["cores_busy_share"][core]) for server in servers)])
          + " |" for core in cores],
        *["| " + " | ".join([label, *(fmt((server.get("cores_bound_s") or {}).get(key))
                                      for server in servers)]) + " |"
          for label, key in (
              ("s the server's core was full while the load core waited (in 0.2 s steps)",
               "server_bound_s"),
              ("s the load core was full (in 0.2 s steps)", "load_bound_s"))],
    ]


def _balancer_lines(balancer: dict[str, Any] | None) -> list[str]:
    """The load balancer's own CPU (``bench.run --balancer``: nginx on the load core)."""
    if not balancer:
        return []
    paced, peak = balancer["paced"], balancer["max"]
    return [
        "",
        "## The load balancer (nginx, on the load core)",
        "",
        f"- opening the sockets: {fmt(balancer['connected']['cpu_us_per_socket'])} µs of CPU "
        "per socket",
        f"- paced: {fmt(paced['cpu_us_per_order'])} µs per Order, "
        f"{fmt(paced['cpu_us_per_delivery'])} µs per delivery, "
        f"{fmt(paced['over_referee_cpu'])} × the referee nodes' CPU",
        f"- max rate: {fmt(peak['cpu_us_per_order'])} µs per Order, "
        f"{fmt(peak['cpu_us_per_delivery'])} µs per delivery, "
        f"{fmt(peak['over_referee_cpu'])} × the referee nodes' CPU",
    ]
