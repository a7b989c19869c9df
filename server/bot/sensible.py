"""The sensible level: a plan from the seat's view and options, best choice first.

- Setup: the first list offered, both lists accepted, Initiative kept and the first turn
  taken, troopers deployed behind cover in the zone (hidden when the options allow it; a
  trooper that may join a Fireteam next to its teammates, the team formed: ``teams``).
- Its turn: an Order for a trooper with an enemy in sight (``options.sight``, with its
  Fireteam when it leads one), which activates a marker in reach, tries a Classified
  Objective offered, shoots with the weapon and target whose previewed Success Value and
  Burst hit most often (``odds.normal_odds``), or charges into close combat, else Discovers
  a marker in sight; else a few Orders moving troopers towards the mission's markers and
  zones or the next cover ahead (a team's members following), none for a trooper with
  nowhere to go; then the turn ends.
- Reactive: each ARO offered is weighed by the exact Face to Face odds (``odds``): shoot
  when it hits more often than it is hit, Dodge or throw Smoke between it and the attacker
  when the attacker out-shoots it, Discover a marker on the move, pass when nothing is
  worth it.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterator
from typing import Any

from server.bot import ground, teams
from server.bot.fruitless import Fruitless
from server.bot.odds import convention_of, face_to_face_odds, normal_odds
from server.bot.offers import (
    Body,
    appointments,
    aro,
    aro_shots,
    close_window,
    declare,
    guts_default,
    idle_peripherals,
    shots,
)
from server.rules.combat.rolls import CritConvention

View = dict[str, Any]
Options = dict[str, Any]
MOVES_PER_TURN = 3
"""Orders a turn spends moving troopers that have nothing to shoot (then the turn ends)."""
WORTH_SHOOTING = 0.2
"""The least chance to hit at which an active trooper's shot is taken (else it moves)."""
WORTH_AN_ARO = 0.15
"""The least chance to hit at which an ARO is declared against a trooper not shooting at it."""
SPECIALISTS = ("specialist_operative", "hacker", "doctor", "paramedic", "engineer",
               "forward_observer")
GUESSED_BURST = 3
"""The Burst assumed for an attacker whose weapon the seat cannot see."""
ARRIVED = 1.0
"""Inches from its goal at which a trooper has arrived: no Order is spent moving it then."""
DISCOVER_WEIGHT = 0.5
"""What a Discover ARO is worth against a shot ARO as likely to pass."""
WORTH_AN_OBJECTIVE = 6
"""The least Success Value at which a Classified Objective's WIP Roll is tried (30 %)."""


def plan(view: View, options: Options, seat: str, rng: random.Random,
         moves_per_turn: int = MOVES_PER_TURN, fruitless: Fruitless | None = None) -> Iterator[Body]:
    idle = (fruitless or Fruitless()).of(view)
    if options.get("choose_army"):
        yield {"type": "choose_army", "army": options["choose_army"][0],
               "entropy": rng.randbytes(32).hex()}
    if options.get("accept_armies"):
        yield {"type": "accept_armies"}
    for body in options.get("initiative") or []:
        if body.get("keep") == "initiative" and body.get("first"):
            yield body
    yield from appointments(view, options)
    if options.get("deploy") or options.get("end_deployment_step"):
        yield from _deployment(view, options, seat)
    elif options.get("close_aro_window"):
        yield from _aros(view, options, seat)
    elif options.get("guts_move"):
        yield guts_default(options["guts_move"])
    elif options.get("skills"):
        yield from _skills(view, options, seat, idle)
    else:
        yield from _between_orders(view, options, seat, moves_per_turn, idle)


# -- deployment ---------------------------------------------------------------------------

def _deployment(view: View, options: Options, seat: str) -> Iterator[Body]:
    waiting = options.get("deploy") or []
    for trooper in (options.get("keep_airborne") or []):
        if trooper in waiting:  # a Combat Jump later lands where it is needed
            yield {"type": "keep_airborne", "trooper": trooper}
    if not waiting:
        yield from teams.formations(options)  # every member placed: the team is formed now
        yield {"type": "end_deployment_step"}
        return
    trooper_id = waiting[0]
    trooper = _trooper(view, trooper_id)
    _, facing = ground.own_zone(view, seat)
    hidden = trooper_id in (options.get("deploy_hidden") or [])
    terrain = (options.get("deploy_terrain") or {}).get(trooper_id)
    extra = {"terrain": terrain[0]} if terrain else {}
    spots = ground.deployment_spots(view, seat, trooper["profile"]["silhouette"])
    for spot in teams.near_teammates(view, seat, trooper, spots):
        yield {"type": "deploy", "trooper": trooper_id, "position": spot, "facing": facing,
               "hidden": hidden, **extra}


# -- the active turn ----------------------------------------------------------------------

def _between_orders(view: View, options: Options, seat: str, moves_per_turn: int,
                    idle: set[str]) -> Iterator[Body]:
    """``idle``: the troopers that found nothing to do this turn: never activated again in
    it (with nobody else to act, the turn ends)."""
    for trooper, jump in (options.get("combat_jump") or {}).items():
        yield {"type": "combat_jump", "trooper": trooper, "position": jump["fallback"],
               "facing": jump["fallback_facing"], "fallback": jump["fallback"],
               "fallback_facing": jump["fallback_facing"]}
    activate = {t: kinds for t, kinds in (options.get("activate") or {}).items() if t not in idle}
    if options.get("end_impetuous_phase"):
        yield {"type": "end_impetuous_phase"}
    if (options.get("fireteams") or {}).get("cost") == "command_token":
        # Its Command Tokens have no other use of the bot's: one re-forms a team.
        yield from teams.formations(options)
    sight = options.get("sight") or {}
    shooters = sorted((t for t in activate if sight.get(t)),
                      key=lambda t: -_trooper(view, t)["profile"]["bs"])
    leading = teams.leads(options)
    for trooper in shooters:
        if trooper in leading:  # the team's bonuses on the leader's shot
            yield teams.team_activation(trooper)
        yield _activation(trooper, activate[trooper])
    if activate and _spent_this_turn(view, seat) < moves_per_turn + len(shooters):
        # No Order on a trooper at its goal already, or with no way towards it: it would
        # only declare Idle.
        movers = sorted(activate, key=lambda t: _distance_to_goal(view, seat, t))
        useful = (t for t in movers if _may_get_somewhere(view, seat, t))
        for trooper in itertools.islice(useful, 2):
            if trooper in leading:  # the team follows its leader
                yield teams.team_activation(trooper)
            yield _activation(trooper, activate[trooper])
    if options.get("end_turn"):
        yield {"type": "end_turn"}


def _spent_this_turn(view: View, seat: str) -> int:
    """About how many Orders this Player Turn spent: the troopers that gave the turn's
    Orders (its own, on the table, not Null, not hidden) less the Orders left in its pools
    and its Irregular troopers' (the view's ``orders``). The view holds no count kept from
    the turn's start in every ruleset, so this is read off what is left."""
    orders = view.get("orders") or {}
    left = sum(int(n) for n in (orders.get("pools") or {}).values())
    left += len(orders.get("irregular") or [])
    giving = sum(1 for t in view["troopers"] if t["side"] == seat and t.get("position") is not None
                 and t.get("condition", "normal") == "normal" and not t.get("hidden"))
    return max(0, giving - left)


def _activation(trooper: str, kinds: list[str]) -> Body:
    kind = "regular" if "regular" in kinds else kinds[0]
    return {"type": "activate", "trooper": trooper, "order": kind}


def _distance_to_goal(view: View, seat: str, trooper_id: str) -> float:
    trooper = _trooper(view, trooper_id)
    goals = _goals(view, seat, trooper)
    start = trooper.get("position") or [0.0, 0.0]
    return min((math.dist(start, g) for g in goals), default=math.inf)


def _goals(view: View, seat: str, trooper: dict[str, Any]) -> list[ground.Point]:
    """Where a trooper with nothing to shoot goes: the mission's spots (markers only for a
    Specialist), else the next cover ahead, else the nearest enemy."""
    start = trooper.get("position")
    if start is None:
        return []
    specialist = any(trooper["profile"].get(flag) for flag in SPECIALISTS)
    mission = view.get("mission") or {}
    markers = {(float(m["x"]), float(m["y"])) for m in mission.get("markers") or []}
    spots = [s for s in ground.objectives(view, seat) if specialist or tuple(s) not in markers]
    if spots:
        return spots
    spots = ground.cover_ahead(view, seat, start, trooper["profile"]["silhouette"])[:2]
    enemies = [t["position"] for t in view["troopers"]
               if t["side"] != seat and t.get("position") is not None]
    return spots or sorted(enemies, key=lambda e: math.dist(start, e))[:1]


def _skills(view: View, options: Options, seat: str, idle: set[str]) -> Iterator[Body]:
    skills = options["skills"]
    joined = idle_peripherals(skills)
    if joined is None:
        return  # a joint Order whose Peripherals must act: the offers' fallback decides
    for marker in skills.get("activate") or []:
        yield declare({"type": "activate", "marker": marker}, joined)
    yield from _classified(options)
    convention = convention_of(view["ruleset"])
    ranked = sorted(((normal_odds(int(preview["sv"]), int(preview["burst"]), convention)
                      * (1.0 + 0.1 * int(preview["burst"])), skill)
                     for skill, preview in shots(skills)
                     if preview.get("automatic_failure") is None),
                    key=lambda item: -item[0])
    for chance, skill in ranked:
        if chance >= WORTH_SHOOTING:
            yield declare(skill, joined)
    for weapon, targets in (skills.get("cc_attack") or {}).items():
        yield from (declare({"type": "cc_attack", "weapon": weapon, "target": t}, joined)
                    for t in targets)
    order = view.get("order") or {}
    trooper = _trooper(view, order.get("trooper", ""))
    # Nothing worth shooting but a Camouflage marker or a hidden trooper in sight: find out
    # what it is before moving on (nearest first).
    for target in sorted(skills.get("discover") or [],
                         key=lambda t: _distance(trooper, _trooper(view, t))):
        yield declare({"type": "discover", "target": target}, joined)
    route_skills = skills.get("route_skills") or []
    name = "move" if "move" in route_skills else (route_skills[0] if route_skills else None)
    if name is not None and trooper.get("position") is not None:
        allowance = float(skills["allowances"][name])
        for goal in _goals(view, seat, trooper):
            for route in _routes(view, trooper, goal, allowance):
                team = teams.followers(view, skills, name, route)
                if team is not None:  # the members follow the leader
                    yield declare({"type": name, "route": route}, team)
                yield declare({"type": name, "route": route}, joined)
    for chance, skill in ranked:
        if chance > 0:
            yield declare(skill, joined)
    if skills.get("idle"):
        # Everything above refused or absent: this trooper has nothing to do this turn.
        idle.add(str(order.get("trooper", "")))
        yield declare({"type": "idle"}, joined)


def _routes(view: View, trooper: dict[str, Any], goal: ground.Point,
            allowance: float) -> list[list[ground.Point]]:
    """The trooper's straight routes towards ``goal`` (``ground.routes``), clear of the
    scenery and of the other bases in the view, stopping short of base contact."""
    own = ground.radius(trooper["profile"]["silhouette"])
    stop = own + ground.radius(2) - 0.02
    others = [(t["position"], ground.radius((t.get("profile") or t)["silhouette"]))
              for t in view["troopers"]  # a marker carries its Silhouette itself
              if t.get("position") is not None and t["id"] != trooper["id"]
              and "silhouette" in (t.get("profile") or t)]
    return ground.routes(view, trooper["position"], goal, allowance, own, others, stop)


def _may_get_somewhere(view: View, seat: str, trooper_id: str) -> bool:
    """Whether activating the trooper to move is worth an Order: it is not at its goal yet
    and some route of its first MOV value leads towards one (else the Order would end in
    an Idle that changes nothing)."""
    trooper = _trooper(view, trooper_id)
    if trooper.get("position") is None or _distance_to_goal(view, seat, trooper_id) <= ARRIVED:
        return False
    mov = (trooper.get("profile") or {}).get("mov") or [0]
    return any(_routes(view, trooper, goal, float(mov[0]))
               for goal in _goals(view, seat, trooper))


def _classified(options: Options) -> Iterator[Body]:
    """The Classified Objectives' Short Skills offered to the active trooper
    (``options.classified_action``: card, target, the WIP Roll's preview), likeliest first,
    when the roll passes often enough."""
    tries = [(int(preview["sv"]), card, target)
             for card, per_target in (options.get("classified_action") or {}).items()
             for target, preview in per_target.items()
             if preview.get("automatic_failure") is None]
    for sv, card, target in sorted(tries, key=lambda item: -item[0]):
        if sv >= WORTH_AN_OBJECTIVE:
            skill: Body = {"type": "classified_action", "card": card}
            if target:
                skill["target"] = target
            yield declare(skill)


def _distance(one: dict[str, Any], other: dict[str, Any]) -> float:
    if one.get("position") is None or other.get("position") is None:
        return math.inf
    return math.dist(one["position"], other["position"])


# -- the reactive turn --------------------------------------------------------------------

def _aros(view: View, options: Options, seat: str) -> Iterator[Body]:
    window = options["close_aro_window"]
    convention = convention_of(view["ruleset"])
    order = view.get("order") or {}
    attacker = _trooper(view, order.get("trooper", ""))
    weighed: list[tuple[float, Body]] = []
    for trooper_id, choices in (options.get("aros") or {}).items():
        me = _trooper(view, trooper_id)
        threat = _threat(order, attacker, trooper_id)
        for skill, preview in aro_shots(choices):
            if preview.get("automatic_failure") is not None:
                continue
            sv, burst = int(preview["sv"]), int(preview.get("burst") or 1)
            if threat is None:
                value = normal_odds(sv, burst, convention)
                if value < WORTH_AN_ARO:
                    continue
            else:
                their_sv = threat + int(preview.get("net_mod") or 0)
                value = (face_to_face_odds(sv, burst, their_sv, GUESSED_BURST, convention)
                         - face_to_face_odds(their_sv, GUESSED_BURST, sv, burst, convention))
            weighed.append((value, aro(trooper_id, skill)))
        if threat is None:
            weighed.extend(_discoveries(trooper_id, choices, convention))
        if threat is not None:
            weighed.extend(_screens(trooper_id, choices, attacker, threat, convention))
        if threat is not None and choices.get("dodge") and me.get("profile"):
            dodge_sv = int(me["profile"]["ph"]) + int(me["profile"].get("dodge_mod") or 0)
            hit_anyway = face_to_face_odds(threat, GUESSED_BURST, dodge_sv, 1, convention)
            unopposed = normal_odds(threat, GUESSED_BURST, convention)
            if hit_anyway < unopposed:
                weighed.append((-hit_anyway, aro(trooper_id, {"type": "dodge"})))
    weighed.sort(key=lambda item: -item[0])
    yield from (body for _, body in weighed)
    yield close_window(window)


def _discoveries(trooper_id: str, choices: dict[str, Any], convention: CritConvention
                 ) -> Iterator[tuple[float, Body]]:
    """Discover AROs against a marker or hidden trooper on the move (``discover_rolls``: each
    target's points with the WIP Roll's preview), weighed below a shot as likely (a marker
    found may be shot at later, a trooper hit now is worth more), when the roll passes at
    least as often as an ARO shot is worth taking."""
    for target, entries in (choices.get("discover_rolls") or {}).items():
        for entry in entries:
            if entry.get("automatic_failure") is not None:
                continue
            chance = normal_odds(int(entry["sv"]), 1, convention)
            if chance < WORTH_AN_ARO:
                continue
            skill: Body = {"type": "discover", "target": target}
            if entry.get("point") is not None:
                skill["target_point"] = entry["point"]
            yield DISCOVER_WEIGHT * chance, aro(trooper_id, skill)


def _screens(trooper_id: str, choices: dict[str, Any], attacker: dict[str, Any], threat: int,
             convention: CritConvention) -> Iterator[tuple[float, Body]]:
    """Smoke or Eclipse thrown between the reactor and the trooper shooting at it
    (``zones[weapon].screens[attacker]``: the point and its Success Value), weighed as a Dodge
    is, by the chance to be hit anyway: the zone's roll is Face to Face with the attack and
    cancels its hits when it wins. Smoke is no screen against a Multispectral Visor."""
    visor = int((attacker.get("profile") or {}).get("multispectral_visor") or 0)
    unopposed = normal_odds(threat, GUESSED_BURST, convention)
    for weapon, zone in (choices.get("zones") or {}).items():
        screen = (zone.get("screens") or {}).get(attacker.get("id"))
        if screen is None or (zone.get("kind") == "smoke" and visor > 0):
            continue
        hit_anyway = face_to_face_odds(threat, GUESSED_BURST, int(screen["sv"]), 1, convention)
        if hit_anyway < unopposed:
            yield -hit_anyway, aro(trooper_id, {"type": "bs_attack", "weapon": weapon,
                                                "targets": [], "zone_at": screen["point"]})


def _threat(order: dict[str, Any], attacker: dict[str, Any], trooper_id: str) -> int | None:
    """The attacker's BS if its declared skills this Order attack ``trooper_id`` (the view
    shows the declarations), else None."""
    profile = attacker.get("profile")
    if not profile:
        return None
    for skill in order.get("skills") or []:
        targets = [t.get("trooper") for t in skill.get("targets") or []]
        if skill.get("target") is not None:
            targets.append(skill["target"])
        if trooper_id in targets:
            return int(profile["bs"] if skill.get("type") == "bs_attack" else profile["cc"])
    return None


def _trooper(view: View, trooper_id: str) -> dict[str, Any]:
    return next((t for t in view["troopers"] if t["id"] == trooper_id), {})
