"""The commands a seat's ``options`` name as they are (``server/rules/options/``), as
command bodies: the choices both levels pick from, and the last resort of the sensible
level (an offer the rules accept as offered, so the bot always has a legal move).

Only the options are read, never the game: deployment points and routes are the levels'
own (``ground``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

Body = dict[str, Any]


def close_window(window: dict[str, Any]) -> Body:
    return {"type": "close_aro_window", "order": window["order"], "step": window["step"]}


def guts_default(offer: dict[str, Any]) -> Body:
    """The Guts movement's default (no route): the server's own choice."""
    return {"type": "choose_guts_move", "order": offer["order"], "trooper": offer["trooper"]}


def declare(skill: Body, peripherals: list[Body] | None = None) -> Body:
    body: Body = {"type": "declare_skill", "skill": skill}
    if peripherals:
        body["peripherals"] = peripherals
    return body


def aro(trooper: str, skill: Body) -> Body:
    return {"type": "declare_aro", "trooper": trooper, "skill": skill}


def idle_peripherals(skills: dict[str, Any]) -> list[Body] | None:
    """Each Peripheral of a joint activation Idle (the lead trooper acts alone), or None when
    one of them may not stay Idle."""
    joined = []
    for peripheral, own in (skills.get("peripherals") or {}).items():
        if not own.get("idle"):
            return None
        joined.append({"trooper": peripheral, "skill": {"type": "idle"}})
    return joined


def shots(skills: dict[str, Any]) -> Iterator[tuple[Body, dict[str, Any]]]:
    """Every BS Attack the active trooper's options offer, each weapon's full Burst on one
    target, with the server's preview of it (Success Value, MODs, Burst)."""
    for weapon, info in (skills.get("bs_attack") or {}).items():
        burst = 1 if info["template"] else info["burst"]
        for target in info["targets"]:
            preview = (info.get("shots") or {}).get(target)
            if preview is not None:
                yield ({"type": "bs_attack", "weapon": weapon,
                        "targets": [{"trooper": target, "burst": burst}]}, preview)


def aro_shots(choices: dict[str, Any]) -> Iterator[tuple[Body, dict[str, Any]]]:
    """Every BS Attack ARO offered to one trooper (``options.aros[trooper]``), at each point
    of the active trooper's route the options list, with its preview."""
    for weapon, per_target in (choices.get("shots") or {}).items():
        burst = (choices.get("bs_burst") or {}).get(weapon, 1)
        for target, entries in per_target.items():
            for entry in entries:
                skill: Body = {"type": "bs_attack", "weapon": weapon,
                               "targets": [{"trooper": target, "burst": burst}]}
                if entry.get("point") is not None:
                    skill["target_point"] = entry["point"]
                yield skill, entry


def appointments(view: dict[str, Any], options: dict[str, Any]) -> list[Body]:
    """A new Lieutenant to name (``options.appoint_lieutenant``), while the seat has named
    none yet: the choice may be changed until it takes effect, and naming it again would
    not move the game on."""
    if view.get("lieutenant_choice") is not None:
        return []
    return [{"type": "appoint_lieutenant", "trooper": t}
            for t in options.get("appoint_lieutenant") or []]


def named(options: dict[str, Any]) -> Iterator[Body]:
    """Every command the options name that needs no point or route of the player's own."""
    yield from options.get("initiative") or []
    if options.get("accept_armies"):
        yield {"type": "accept_armies"}
    if options.get("end_deployment_step"):
        yield {"type": "end_deployment_step"}
    window = options.get("close_aro_window")
    if window:
        yield close_window(window)
    if options.get("guts_move"):
        yield guts_default(options["guts_move"])
    if options.get("end_turn"):
        yield {"type": "end_turn"}
    if options.get("end_impetuous_phase"):
        yield {"type": "end_impetuous_phase"}
    skills = options.get("skills")
    if skills:
        joined = idle_peripherals(skills)
        if joined is not None:
            for name in ("idle", "dodge", "reset"):
                if skills.get(name):
                    yield declare({"type": name}, joined)
            for skill, _ in shots(skills):
                yield declare(skill, joined)
            for weapon, targets in (skills.get("cc_attack") or {}).items():
                yield from (declare({"type": "cc_attack", "weapon": weapon, "target": t}, joined)
                            for t in targets)
            yield from (declare({"type": "activate", "marker": m}, joined)
                        for m in skills.get("activate") or [])
    for trooper, choices in (options.get("aros") or {}).items():
        yield {"type": "pass_aro", "trooper": trooper}
        yield from (aro(trooper, skill) for skill, _ in aro_shots(choices))
        if choices.get("dodge"):
            yield aro(trooper, {"type": "dodge"})
    for trooper, kinds in (options.get("activate") or {}).items():
        yield from ({"type": "activate", "trooper": trooper, "order": kind} for kind in kinds)
    for trooper, jump in (options.get("combat_jump") or {}).items():
        yield {"type": "combat_jump", "trooper": trooper, "position": jump["fallback"],
               "facing": jump["fallback_facing"], "fallback": jump["fallback"],
               "fallback_facing": jump["fallback_facing"]}
    yield from ({"type": "keep_airborne", "trooper": t} for t in options.get("keep_airborne") or [])
