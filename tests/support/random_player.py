"""A random player that knows only what a seat is told: its own view of the game (a
snapshot's ``state``) and its ``options`` (``server/rules/options/``).

``RandomPlayer.candidates(options, view)`` answers the command bodies the seat could send
now, in the order to try them: first a few random picks among what the options offer
(deployment points drawn inside the seat's zone, short random routes for movement skills,
shots, AROs, passes, Reveal, Lieutenant and Guts choices, Berserk, Mines placed at
deployment and by Place Deployable, Smoke and Eclipse aimed at a point, routes into Special
Terrain...), then every concrete choice
the options name (``offered``), so that a caller who tries them in turn until the rules
core accepts one has proved the seat had at least one legal option. A drawn route or
deployment point may be refused; that is expected, the next candidate follows.

Nothing here reads the rules core's state: the same player drives a game through the rules
core (``tests/rules/test_liveness.py``, which projects the state with ``views``) and through
the real server (``tests/e2e/test_liveness_websocket.py``, from the frames it receives).
Trooper base sizes come from the Silhouette table, which is open static data.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable, Iterator
from typing import Any

from server.bot.offers import aro, close_window, declare
from server.rules.table.silhouettes import silhouette

Body = dict[str, Any]
View = Callable[[], dict[str, Any]]

PROGRESS_KEYS = ("initiative", "deploy", "keep_airborne", "end_deployment_step", "activate",
                 "reveal", "combat_jump", "end_turn", "end_impetuous_phase", "skills", "aros",
                 "close_aro_window", "guts_move")
"""Options that move the game on: the seat the game waits on has at least one of them."""
DODGE_MOVE = 2.0
ZONE_AMMUNITION = ("Smoke", "Eclipse")
"""The ammunition of the weapons aimed at a point (``skills.zones``)."""


def waits_on(options: dict[str, Any]) -> bool:
    """Whether these options let the seat move the game on (the game waits on it)."""
    return any(bool(options.get(key)) for key in PROGRESS_KEYS)


def drawn(body: Body) -> bool:
    """Whether ``body`` holds something the player drew rather than a choice the options
    name as it is: a deployment point (with its Mines), a route, a Burst split between
    targets, the point a Smoke or Eclipse weapon is aimed at in the active turn or where a
    Mine is placed. A Berserk's route and an ARO's screening point are the options' own.
    Every other body a player makes from its options must be accepted."""
    if body["type"] == "deploy":
        return True
    if body["type"] == "combat_jump":  # a landing spot other than the offered fallback
        return bool(body["position"] != body["fallback"])
    skills = []
    if body["type"] in ("declare_skill", "declare_aro"):
        skills = [body["skill"], *(p["skill"] for p in body.get("peripherals") or [])]
    return any((skill.get("route") and skill["type"] != "berserk")
               or len(skill.get("targets") or ()) > 1
               or skill["type"] == "place_deployable"
               or (body["type"] == "declare_skill" and skill.get("zone_at") is not None)
               for skill in skills)


def radius(size: int) -> float:
    return silhouette(size).base_diameter / 2


def offered(options: dict[str, Any]) -> Iterator[Body]:
    """Every concrete command the options name that needs no point drawn by the player
    (deployment points and movement routes aside), cheapest first."""
    yield from options.get("initiative") or []
    window = options.get("close_aro_window")
    if options.get("end_deployment_step"):
        yield {"type": "end_deployment_step"}
    if window:
        yield close_window(window)
    guts = options.get("guts_move")
    if guts:
        yield guts_move(guts)
        yield from (guts_move(guts, point) for point in guts["points"])
    if options.get("end_turn"):
        yield {"type": "end_turn"}
    if options.get("end_impetuous_phase"):
        yield {"type": "end_impetuous_phase"}
    skills = options.get("skills")
    if skills:
        yield from _offered_skills(skills)
    for trooper, choices in (options.get("aros") or {}).items():
        yield {"type": "pass_aro", "trooper": trooper}
        yield from (aro(trooper, skill) for skill in _aro_skills(choices))
    for trooper, kinds in (options.get("activate") or {}).items():
        yield from ({"type": "activate", "trooper": trooper, "order": kind} for kind in kinds)
    yield from ({"type": "reveal", "trooper": t} for t in options.get("reveal") or [])
    yield from ({"type": "keep_airborne", "trooper": t} for t in options.get("keep_airborne") or [])
    for trooper, jump in (options.get("combat_jump") or {}).items():
        yield combat_jump(trooper, jump, jump["fallback"])


def combat_jump(trooper: str, offer: dict[str, Any], landing: list[float]) -> Body:
    """A Combat Jump to ``landing``; the offered spot (``options.combat_jump``) if it fails."""
    return {"type": "combat_jump", "trooper": trooper, "position": landing,
            "facing": offer["fallback_facing"], "fallback": offer["fallback"],
            "fallback_facing": offer["fallback_facing"]}


def guts_move(offer: dict[str, Any], point: list[float] | None = None) -> Body:
    """The Guts movement ``options.guts_move`` offers: the default (no route), or a
    straight route to one of its ``points``."""
    body: Body = {"type": "choose_guts_move", "order": offer["order"], "trooper": offer["trooper"]}
    if point is not None:
        body["route"] = [offer["default"][0], point]
    return body


def _simple_skills(skills: dict[str, Any]) -> list[Body]:
    """Idle, Dodge (staying put), Reset and Suppressive Fire, as offered."""
    return [{"type": name} for name in ("idle", "dodge", "reset", "suppressive_fire")
            if skills.get(name)]


def _attack_skills(skills: dict[str, Any]) -> list[Body]:
    """Every attack the options list, each weapon's full Burst on one target."""
    found: list[Body] = []
    for weapon, info in (skills.get("bs_attack") or {}).items():
        burst = 1 if info["template"] else info["burst"]
        found += [{"type": "bs_attack", "weapon": weapon, "targets": [{"trooper": t, "burst": burst}]}
                  for t in info["targets"]]
    for entry in skills.get("firing_points") or []:
        for weapon, info in entry["bs_attack"].items():
            burst = 1 if info["template"] else info["burst"]
            found += [{"type": "bs_attack", "weapon": weapon, "firing_point": entry["point"],
                       "targets": [{"trooper": t, "burst": burst}]} for t in info["targets"]]
    for weapon, targets in (skills.get("cc_attack") or {}).items():
        found += [{"type": "cc_attack", "weapon": weapon, "target": t} for t in targets]
    found += [{"type": "discover", "target": t} for t in skills.get("discover") or []]
    for program, targets in (skills.get("comms_attack") or {}).items():
        found += [{"type": "comms_attack", "program": program, "target": t} for t in targets]
    # Specialist troopers (combat/support_skills.py, combat/forward_observer.py).
    found += [{"type": "forward_observer", "target": t} for t in skills.get("forward_observer") or {}]
    for name in ("doctor", "paramedic", "engineer"):
        found += [{"type": name, "target": t} for t in skills.get(name) or {}]
    found += [{"type": "engineer", "target": t, "cancel_states": True}
              for t in skills.get("engineer_states") or {}]
    return found


def _target(skill: Body) -> list[str]:
    """The troopers a skill names as its targets."""
    if "targets" in skill:
        return [share["trooper"] for share in skill["targets"]]
    return [skill["target"]] if "target" in skill else []


def _alike(skills: dict[str, Any], skill: Body, mine: Body) -> bool:
    """``mine`` may go with ``skill`` in one joint declaration: the same type, and in a
    Coordinated Order (``skills.coordinated``) the same target."""
    return mine["type"] == skill["type"] and (
        not skills.get("coordinated") or _target(mine) == _target(skill))


def _offered_skills(skills: dict[str, Any]) -> Iterator[Body]:
    """The declarations the skills options name, for a joint activation with the same
    skill type for each Peripheral (its first own choice of that type), or each trooper
    of a Coordinated Order (the same target too)."""
    joint = skills.get("peripherals") or {}
    if not joint:  # a Berserk is the lone trooper's Entire Order
        yield from (declare(skill) for skill in _berserks(skills))
    for skill in _simple_skills(skills) + _attack_skills(skills):
        peripherals = []
        for peripheral, own in joint.items():
            same = [s for s in _simple_skills(own) + _attack_skills(own) if _alike(skills, skill, s)]
            if skills.get("fireteam"):  # a Fireteam's members stay Idle unless the leader moves
                same = [{"type": "idle"}] if own.get("idle") else []
            if skill["type"] in (own.get("idle_for") or ()):  # its state forbids the skill
                same = [{"type": "idle"}]
            if not same:
                break
            peripherals.append({"trooper": peripheral, "skill": same[0]})
        else:
            yield declare(skill, peripherals)


def _berserks(skills: dict[str, Any]) -> list[Body]:
    """Every Berserk ``skills.berserk`` offers: per weapon and target, its straight route
    into contact (``options/berserk.py``)."""
    return [{"type": "berserk", "weapon": weapon, "target": target, "route": offer["route"]}
            for weapon, targets in (skills.get("berserk") or {}).items()
            for target, offer in targets.items()]


def _following(skill: Body, start: list[float]) -> Body:
    """A Fireteam member's copy of its leader's movement: the same route shifted to start
    where the member stands (so it ends as far from the leader as it began)."""
    route = skill["route"]
    dx, dy = start[0] - route[0][0], start[1] - route[0][1]
    mine: Body = {"type": skill["type"],
                  "route": [start, *([round(x + dx, 3), round(y + dy, 3)] for x, y in route[1:])]}
    return mine


def _at(skill: Body, point: list[float] | None) -> Body:
    """``skill`` taken at ``point`` of the active trooper's path (None: the server's default)."""
    return skill if point is None else {**skill, "target_point": point}


def _aro_skills(choices: dict[str, Any]) -> list[Body]:
    """Every ARO the options name: a BS Attack or Discover at each point of the route they
    list for it (``shots``, ``discover_rolls``), the rest as they are."""
    targets = choices["targets"]
    found: list[Body] = []
    for weapon, per_target in choices["shots"].items():
        burst = choices.get("bs_burst", {}).get(weapon, 1)  # 3 in Suppressive Fire
        found += [_at({"type": "bs_attack", "weapon": weapon,
                       "targets": [{"trooper": t, "burst": burst}]}, entry["point"])
                  for t, entries in per_target.items() for entry in entries]
    for weapon, ids in targets["cc_attack"].items():
        found += [{"type": "cc_attack", "weapon": weapon, "target": t} for t in ids]
    for program, ids in targets["comms_attack"].items():
        found += [{"type": "comms_attack", "program": program, "target": t} for t in ids]
    found += [_at({"type": "discover", "target": t}, entry["point"])
              for t, entries in choices["discover_rolls"].items() for entry in entries]
    found += [_at({"type": "forward_observer", "target": t}, entry["point"])
              for t, entries in choices.get("forward_observer_rolls", {}).items() for entry in entries]
    found += [{"type": name} for name in ("dodge", "reset") if choices[name]]
    # Smoke or Eclipse thrown at the point that screens the reactor from an activated trooper.
    found += [{"type": "bs_attack", "weapon": weapon, "targets": [], "zone_at": screen["point"]}
              for weapon, zone in (choices.get("zones") or {}).items()
              for screen in zone["screens"].values()]
    return found


def _terrain_choice(options: dict[str, Any], trooper: str) -> Body:
    """Terrain with a choice of Types: ``deploy.terrain`` naming the first Type offered (no
    draw, so the random stream stays as it was)."""
    offered = (options.get("deploy_terrain") or {}).get(trooper)
    return {"terrain": offered[0]} if offered else {}


class RandomPlayer:
    """One seat's random choices (see the module docstring). ``observe`` is told the type
    of every event the seat receives, so that Orders are counted per Player Turn."""

    def __init__(self, side: str, seed: int, orders_per_turn: int = 4,
                 greedy_deployment: bool = False) -> None:
        self.side = side
        self.greedy_deployment = greedy_deployment
        """Deploy every trooper offered before ending a step (never end a step early)."""
        self.rng = random.Random(seed)
        self.orders_per_turn = orders_per_turn
        self.spent = 0
        self.aside = 0
        """Choices this turn that do not move the game on (Guts, Lieutenant, Command Tokens)."""
        self.budget = self.rng.randint(0, orders_per_turn)
        self.bound_for_terrain: str | None = None
        """The trooper activated to walk into a Special Terrain area, during its Order."""
        self.bound_for_marker: str | None = None
        """The trooper activated to walk up to a mission marker and activate it."""
        self.markers: list[dict[str, Any]] | None = None
        """The mission's markers (read from the first view; none without a mission)."""

    def observe(self, event_type: str) -> None:
        if event_type == "turn_started":
            self.spent, self.aside = 0, 0
            self.budget = self.rng.randint(1, self.orders_per_turn)

    def accepted(self, body: Body) -> None:
        """The rules core accepted ``body`` from this seat."""
        if body["type"] in ("activate", "coordinate_order", "activate_fireteam"):
            self.spent += 1
        elif body["type"] in ("choose_guts_failure", "appoint_lieutenant", "spend_command_token",
                              "form_fireteam"):
            self.aside += 1

    def candidates(self, options: dict[str, Any], view: View) -> Iterator[Body]:
        yield from self._aside(options)
        if options.get("initiative"):
            yield self.rng.choice(options["initiative"])
        elif options.get("deploy") or options.get("end_deployment_step"):
            yield from self._deployment(options, view)
        elif options.get("close_aro_window"):
            yield from self._aros(options, view)
        elif options.get("guts_move"):
            yield self._guts_move(options["guts_move"])
        elif options.get("skills"):
            yield from self._skills(options, view)
        else:
            yield from self._between_orders(options, view)
        bodies = list(offered(options))
        self.rng.shuffle(bodies)
        yield from bodies
        if options.get("deploy"):
            yield from self._deployment_scan(options, view)

    # -- what does not move the game on -------------------------------------------------

    def _aside(self, options: dict[str, Any]) -> Iterator[Body]:
        tokens = options.get("command_tokens") or []  # complete bodies, offered only for a while
        if tokens and self.aside < 3 and self.rng.random() < 0.2:
            yield self.rng.choice(tokens)
            return
        if self.aside >= 3 or self.rng.random() > 0.05:
            return
        choices: list[Body] = [
            {"type": "choose_guts_failure", "trooper": t, "fail": not failing}
            for t, failing in (options.get("guts_failure") or {}).items()]
        choices += [{"type": "appoint_lieutenant", "trooper": t}
                    for t in options.get("appoint_lieutenant") or []]
        if choices:
            yield self.rng.choice(choices)

    # -- a Guts window -------------------------------------------------------------------

    def _guts_move(self, offer: dict[str, Any]) -> Body:
        """Half the time the default, else another offered point."""
        if self.rng.random() < 0.5 or len(offer["points"]) < 2:
            return guts_move(offer)
        return guts_move(offer, self.rng.choice(offer["points"][1:]))

    # -- deployment ---------------------------------------------------------------------

    def _deployment(self, options: dict[str, Any], view: View) -> Iterator[Body]:
        waiting = options.get("deploy") or []
        early = not self.greedy_deployment and self.rng.random() < 0.3
        if options.get("end_deployment_step") and (not waiting or early):
            yield {"type": "end_deployment_step"}
            return
        if not waiting:
            return
        trooper = self.rng.choice(waiting)
        if trooper in (options.get("keep_airborne") or []) and self.rng.random() < 0.6:
            yield {"type": "keep_airborne", "trooper": trooper}
        hidden = trooper in (options.get("deploy_hidden") or []) and self.rng.random() < 0.6
        state = view()
        zone, facing = self._zone(state)
        size = self._own(state, trooper)["profile"]["silhouette"]
        margin = radius(size) + 0.01
        beyond = (options.get("deploy_beyond_zone") or {}).get(trooper)
        chosen = _terrain_choice(options, trooper)
        if beyond and self.rng.random() < 0.5:  # Forward Deployment / Infiltration
            yield from (body | chosen for body in
                        self._beyond_zone(trooper, beyond, state, zone, facing, margin))
        minelayer = (options.get("minelayer") or {}).get(trooper)
        spots: list[Body] = []
        y0, y1 = zone["y0"] + margin, zone["y1"] - margin
        if self._own(state, trooper)["profile"]["berserk"]:  # at the front, to charge sooner
            y0, y1 = (y1 - 2.0, y1) if facing == 90.0 else (y0, y0 + 2.0)
        for _ in range(12):
            point = [round(self.rng.uniform(zone["x0"] + margin, zone["x1"] - margin), 2),
                     round(self.rng.uniform(y0, y1), 2)]
            spots.append({"type": "deploy", "trooper": trooper, "position": point,
                          "facing": (facing + self.rng.uniform(-60, 60)) % 360, "hidden": hidden,
                          **chosen})
        if minelayer is not None and self.rng.random() < 0.7:  # with its Mines, first
            yield from ({**body, "mines": self._mines(minelayer, body["position"], margin,
                                                      state["table"])} for body in spots)
        yield from spots

    def _mines(self, offer: dict[str, Any], at: list[float], own_radius: float,
               table: dict[str, Any]) -> list[list[float]]:
        """Up to ``offer["mines"]`` Mines (``options.minelayer``) around the spot ``at``, each
        inside the trooper's Zone of Control (``zone_of_control`` inches from its base),
        clear of its base and of each other, on the table; mostly towards the table's middle,
        where the enemy will walk."""
        mines: list[list[float]] = []
        ahead = math.pi / 2 if at[1] < table["depth"] / 2 else -math.pi / 2
        for _ in range(self.rng.randint(1, offer["mines"])):
            heading = ahead + self.rng.uniform(-1.3, 1.3)
            reach = self.rng.uniform(own_radius + 1.0, own_radius + offer["zone_of_control"] - 0.5)
            x = min(max(at[0] + reach * math.cos(heading), 1.0), table["width"] - 1.0)
            y = min(max(at[1] + reach * math.sin(heading), 1.0), table["depth"] - 1.0)
            mines.append([round(x, 2), round(y, 2)])
        return mines

    def _beyond_zone(self, trooper: str, beyond: dict[str, Any], state: dict[str, Any],
                     zone: dict[str, float], facing: float, margin: float) -> Iterator[Body]:
        """Spots outside the zone its options allow: up to the Forward Deployment reach, or
        anywhere short of the enemy zone with Infiltration (with the offered fallback)."""
        depth = state["table"]["depth"]
        north = facing == 270.0  # its zone is the north one
        infiltration = beyond.get("infiltration")
        reach = depth / 2 - 2 * margin if infiltration else beyond["forward_deployment"]
        for _ in range(6):
            out = self.rng.uniform(0.1, max(0.2, reach))
            y = zone["y0"] - out if north else zone["y1"] + out
            point = [round(self.rng.uniform(zone["x0"] + margin, zone["x1"] - margin), 2),
                     round(min(max(y, margin), depth - margin), 2)]
            body: Body = {"type": "deploy", "trooper": trooper, "position": point,
                          "facing": facing, "hidden": False}
            if infiltration and infiltration.get("fallback") is not None:
                body |= {"fallback": infiltration["fallback"], "fallback_facing": facing}
            yield body

    def _deployment_scan(self, options: dict[str, Any], view: View) -> Iterator[Body]:
        """Every half-inch point of the zone for each trooper offered: if none is accepted,
        the seat really had nothing it could deploy."""
        state = view()
        zone, facing = self._zone(state)
        for trooper in options["deploy"]:
            steps_x = int((zone["x1"] - zone["x0"]) * 2)
            steps_y = int((zone["y1"] - zone["y0"]) * 2)
            for j in range(1, steps_y):
                for i in range(1, steps_x):
                    yield {"type": "deploy", "trooper": trooper, "facing": facing,
                           "position": [zone["x0"] + i / 2, zone["y0"] + j / 2],
                           **_terrain_choice(options, trooper)}

    def _zone(self, state: dict[str, Any]) -> tuple[dict[str, float], float]:
        name = state["initiative"]["zones"][self.side]
        zone = state["deployment_zones"][name]
        middle = (zone["y0"] + zone["y1"]) / 2
        return zone, 90.0 if middle < state["table"]["depth"] / 2 else 270.0

    def _own(self, state: dict[str, Any], trooper: str) -> dict[str, Any]:
        return next(t for t in state["troopers"] if t["id"] == trooper)

    # -- the active player between Orders ------------------------------------------------

    def _nearest_to_enemy(self, state: dict[str, Any], candidates: list[str]) -> str | None:
        enemies = [t["position"] for t in state["troopers"]
                   if t["side"] != self.side and t.get("position") is not None]
        mine = [t for t in state["troopers"] if t["id"] in candidates and t.get("position") is not None]
        if not enemies or not mine:
            return None
        return str(min(mine, key=lambda t: min(math.dist(t["position"], e) for e in enemies))["id"])

    def _between_orders(self, options: dict[str, Any], view: View) -> Iterator[Body]:
        if options.get("reveal") and self.rng.random() < 0.3:
            yield {"type": "reveal", "trooper": self.rng.choice(options["reveal"])}
        jumps = options.get("combat_jump") or {}
        if jumps and self.rng.random() < 0.4:  # land anywhere on the table, if it is legal there
            trooper = self.rng.choice(sorted(jumps))
            table = view()["table"]
            for area in self.rng.sample(table.get("special_terrain") or [], 1) \
                    if table.get("special_terrain") and self.rng.random() < 0.5 else []:
                xs, ys = [x for x, _ in area["polygon"]], [y for _, y in area["polygon"]]
                for _ in range(3):  # into a Special Terrain area (its bounding box)
                    yield combat_jump(trooper, jumps[trooper],
                                      [round(self.rng.uniform(min(xs) + 0.6, max(xs) - 0.6), 2),
                                       round(self.rng.uniform(min(ys) + 0.6, max(ys) - 0.6), 2)])
            for _ in range(6):
                landing = [round(self.rng.uniform(1.0, table["width"] - 1.0), 2),
                           round(self.rng.uniform(1.0, table["depth"] - 1.0), 2)]
                yield combat_jump(trooper, jumps[trooper], landing)
        activate = options.get("activate") or {}
        if options.get("end_impetuous_phase") and (not activate or self.rng.random() < 0.3):
            yield {"type": "end_impetuous_phase"}
        yield from self._fireteams(options.get("fireteams") or {})
        coordinate = options.get("coordinate") or {}
        if coordinate and self.spent < self.budget and self.rng.random() < 0.15:
            spearhead = self.rng.choice(sorted(coordinate))
            joining = coordinate[spearhead]
            yield {"type": "coordinate_order", "spearhead": spearhead,
                   "troopers": self.rng.sample(joining, min(len(joining), self.rng.randint(1, 3)))}
        if activate and self.spent < self.budget:
            trooper = self.rng.choice(sorted(activate))
            controllers = sorted(c for c in options.get("peripherals") or {} if c in activate)
            roll = self.rng.random()
            gifted = self._gifted(view(), sorted(activate)) if roll < 0.25 else []
            areas = view()["table"].get("special_terrain") or []
            self.bound_for_terrain = None
            self.bound_for_marker = None
            if self._markers(view) and self.rng.random() < 0.5:  # to a mission marker
                trooper = self._nearest_to_marker(view(), sorted(activate))
                self.bound_for_marker = trooper
            elif gifted:  # a trooper with a rarer skill or weapon to use (Berserk, Mines, Smoke)
                trooper = self.rng.choice(gifted)
            elif (berserker := self._berserker_near_enemy(view(), sorted(activate))) is not None:
                trooper = berserker
            elif areas and roll < 0.35:  # walk one into the table's Special Terrain
                trooper = self._nearest_to_area(view(), sorted(activate), areas)
                self.bound_for_terrain = trooper
            elif self.rng.random() < 0.4:  # press the attack: the trooper nearest an enemy
                trooper = self._nearest_to_enemy(view(), sorted(activate)) or trooper
            elif controllers and self.rng.random() < 0.3:  # a Controller with its Peripherals
                trooper = self.rng.choice(controllers)
            kind = self.rng.choice(activate[trooper])
            body: Body = {"type": "activate", "trooper": trooper, "order": kind}
            joining = (options.get("peripherals") or {}).get(trooper) or []
            if joining and self.rng.random() < 0.6:
                body["peripherals"] = joining
            yield body
        if options.get("end_turn"):
            yield {"type": "end_turn"}

    def _markers(self, view: View) -> list[dict[str, Any]]:
        if self.markers is None:
            self.markers = list((view().get("mission") or {}).get("markers") or [])
        return self.markers

    def _nearest_to_marker(self, state: dict[str, Any], candidates: list[str]) -> str:
        mine = [t for t in state["troopers"] if t["id"] in candidates and t.get("position") is not None]
        if not mine:
            return candidates[0]
        spots = [(m["x"], m["y"]) for m in self._markers(lambda: state)]
        return str(min(mine, key=lambda t: min(math.dist(t["position"], s) for s in spots))["id"])

    def _to_marker(self, state: dict[str, Any], skills: dict[str, Any]) -> list[Body]:
        """Movements of the trooper bound for a mission marker: straight towards the nearest
        one (into base contact when it is within reach), or around an obstacle by a corner."""
        trooper = self._acting(state, None)
        start = trooper["position"]
        name = "move" if "move" in skills["route_skills"] else skills["route_skills"][0]
        allowance = float(skills["allowances"][name])
        marker = min(self._markers(lambda: state), key=lambda m: math.dist(start, (m["x"], m["y"])))
        end = (marker["x"], marker["y"])
        reach = radius(2) + radius(trooper["profile"]["silhouette"]) - 0.01
        routes: list[list[list[float]]] = []
        for bend in (0.0, 1.5, -1.5, 3.0, -3.0):
            heading = math.atan2(end[1] - start[1], end[0] - start[0])
            side = (-math.sin(heading) * bend, math.cos(heading) * bend)
            middle = [(start[0] + end[0]) / 2 + side[0], (start[1] + end[1]) / 2 + side[1]]
            points, left, here = [], allowance - 0.02, start
            for target in (middle, end):
                gap = math.dist(here, target) - (reach if target is end else 0.0)
                step = min(gap, left)
                if step <= 0:
                    break
                angle = math.atan2(target[1] - here[1], target[0] - here[0])
                here = [round(here[0] + step * math.cos(angle), 3),
                        round(here[1] + step * math.sin(angle), 3)]
                points.append(here)
                left -= step
            if points:
                routes.append([start, *points])
        return [self._joint(skills, {"type": name, "route": route}, lambda: state, state)
                for route in routes]

    def _gifted(self, state: dict[str, Any], candidates: list[str]) -> list[str]:
        """Of ``candidates``, the troopers with Berserk, Minelayer, or a Smoke or Eclipse
        weapon (their profiles and the army's arsenal are the seat's own open data)."""
        arsenal = {w["id"]: w for w in state["armies"][self.side]["arsenal"]}
        return [t["id"] for t in state["troopers"] if t["id"] in candidates and (
            t["profile"]["berserk"] or t["profile"]["minelayer"]
            or any(arsenal[w]["ammo"] in ZONE_AMMUNITION for w in t["profile"]["weapons"]))]

    def _berserker_near_enemy(self, state: dict[str, Any], candidates: list[str]) -> str | None:
        """Mostly, a trooper with Berserk (it closes in, then charges), if any."""
        enemies = [t["position"] for t in state["troopers"]
                   if t["side"] != self.side and t.get("position") is not None]
        near = [t["id"] for t in state["troopers"] if t["id"] in candidates
                and t["profile"]["berserk"] and t.get("position") is not None
                and any(math.dist(t["position"], e) < 30.0 for e in enemies)]
        return self.rng.choice(near) if near and self.rng.random() < 0.8 else None

    def _nearest_to_area(self, state: dict[str, Any], candidates: list[str],
                         areas: list[dict[str, Any]]) -> str:
        mine = [t for t in state["troopers"] if t["id"] in candidates and t.get("position") is not None]
        corners = [corner for area in areas for corner in area["polygon"]]
        return str(min(mine, key=lambda t: min(math.dist(t["position"], c) for c in corners))["id"])

    def _fireteams(self, offer: dict[str, Any]) -> Iterator[Body]:
        """Sometimes form a Fireteam the options list (a leader and a legal number of its
        listed troopers), or spend an Order on a team."""
        form = offer.get("form") or {}
        if form and self.aside < 3 and self.rng.random() < 0.5:
            kind = self.rng.choice(sorted(form))
            leader = self.rng.choice(sorted(form[kind]["leaders"]))
            joining = form[kind]["leaders"][leader]
            fewest, most = form[kind]["sizes"]
            chart = form[kind].get("chart")
            for _ in range(20 if chart is not None else 1):
                size = self.rng.randint(fewest, min(most, len(joining) + 1))
                members = self.rng.sample(joining, size - 1)
                if chart is None or _one_of_the_charts_teams(chart, [leader, *members]):
                    yield {"type": "form_fireteam", "kind": kind, "leader": leader,
                           "members": members}
                    break
        leaders = offer.get("activate") or []
        if leaders and self.spent < self.budget and self.rng.random() < 0.5:
            yield {"type": "activate_fireteam", "leader": self.rng.choice(sorted(leaders))}

    # -- the active trooper's skills ------------------------------------------------------

    def _skills(self, options: dict[str, Any], view: View) -> Iterator[Body]:
        skills = options["skills"]
        attacks = _attack_skills(skills)
        roll = self.rng.random()
        declarations: list[Body | None] = []
        # A mission marker in reach (missions/consoles.py): activate it most of the time.
        if skills.get("activate") and not skills.get("peripherals") and self.rng.random() < 0.8:
            declarations += [declare({"type": "activate", "marker": marker})
                             for marker in skills["activate"]]
        solo = not skills.get("peripherals")
        berserks = _berserks(skills) if solo else []
        if berserks and self.rng.random() < 0.5:
            declarations.append(declare(self.rng.choice(berserks)))
        if berserks or not skills["route_skills"]:
            pass
        elif self._acting(view(), None)["profile"]["berserk"] and not skills.get("impetuous") \
                and self.rng.random() < 0.9:
            declarations += [self._joint(skills, self._closing_in(view(), skills), view)
                             for _ in range(3)]
        if self.bound_for_marker is not None and skills["route_skills"] and not skills.get("activate"):
            state = view()
            if self.bound_for_marker == state["order"]["trooper"]:
                declarations += self._to_marker(state, skills)
        if skills.get("place_deployable") and solo and self.rng.random() < 0.4:
            declarations += [declare(self._placed_mine(skills["place_deployable"], view()))
                             for _ in range(3)]
        areas = view()["table"].get("special_terrain") or []
        if areas and skills["route_skills"] and self.bound_for_terrain is not None:
            state = view()
            if self.bound_for_terrain == state["order"]["trooper"]:
                trooper = self._acting(state, None)
                name = self.rng.choice(skills["route_skills"])
                routes = _routes_to_area(areas, trooper["position"],
                                         radius(trooper["profile"]["silhouette"]),
                                         float(skills["allowances"][name]), state["table"])
                declarations += [self._joint(skills, {"type": name, "route": route}, view, state)
                                 for route in routes]
        if skills.get("zones") and self.rng.random() < 0.3:
            state = view()
            declarations += [self._joint(skills, throw, view, state)
                             for throw in self._zone_throws(options, state)]
        if "move" in skills["route_skills"] and self.rng.random() < 0.6:
            state = view()
            charge = self._charge(state, skills)
            if charge is not None:
                declarations.append(self._joint(skills, charge, view, state))
        if attacks and roll < 0.55:
            declarations += [self._joint(skills, self._split(skill, skills), view)
                             for skill in self.rng.sample(attacks, min(3, len(attacks)))]
        elif skills["route_skills"] and roll < 0.9:
            state = view()
            declarations += [
                self._joint(skills, self._route_skill(state, self.rng.choice(skills["route_skills"]),
                                                      skills, None), view, state)
                for _ in range(3)]
        simple = _simple_skills(skills)
        if simple:
            declarations.append(self._joint(skills, self.rng.choice(simple), view))
        yield from (body for body in declarations if body is not None)

    def _charge(self, state: dict[str, Any], skills: dict[str, Any]) -> Body | None:
        """A Move into base contact with the nearest enemy model, if it is within reach."""
        trooper = self._acting(state, None)
        start = trooper["position"]
        models = [t for t in state["troopers"] if t["side"] != self.side and not t.get("marker")
                  and t.get("position") is not None and t.get("condition", "normal") == "normal"]
        if not models:
            return None
        nearest = min(models, key=lambda t: math.dist(start, t["position"]))
        (ex, ey), gap = nearest["position"], math.dist(start, nearest["position"])
        contact = radius(trooper["profile"]["silhouette"]) + radius(nearest["profile"]["silhouette"])
        if not 0 < gap - contact <= float(skills["allowances"]["move"]):
            return None
        t = (gap - contact - 0.02) / gap  # stop 0.02" short: the bases touch
        end = [round(start[0] + (ex - start[0]) * t, 3), round(start[1] + (ey - start[1]) * t, 3)]
        return {"type": "move", "route": [start, end]}

    def _closing_in(self, state: dict[str, Any], skills: dict[str, Any]) -> Body:
        """A Berserk trooper out of reach (no ``skills.berserk``) moves its allowance
        straight towards the nearest enemy, to be within reach next time."""
        trooper = self._acting(state, None)
        name = self.rng.choice(skills["route_skills"])
        start = trooper["position"]
        enemies = [t["position"] for t in state["troopers"]
                   if t["side"] != self.side and t.get("position") is not None]
        if not enemies:
            return self._route_skill(state, name, skills, None)
        ex, ey = min(enemies, key=lambda e: math.dist(start, e))
        heading = math.atan2(ey - start[1], ex - start[0]) + self.rng.uniform(-0.5, 0.5)
        apart = math.dist(start, (ex, ey))
        nearest = [start[0] + apart * math.cos(heading), start[1] + apart * math.sin(heading)]
        return {"type": name, "route": _cut([start, nearest], min(
            float(skills["allowances"][name]) - 0.01, max(0.5, math.dist(start, nearest) - 2.0)))}

    def _placed_mine(self, offer: dict[str, Any], state: dict[str, Any]) -> Body:
        """Place Deployable (``skills.place_deployable``): one of the Mines offered, its
        base touching the trooper's at a point of its path this Order, mostly on the side
        of the nearest enemy (where the Mine may go off without the trooper under it)."""
        weapon = self.rng.choice(sorted(offer))
        x, y = self.rng.choice(offer[weapon]["path"])
        enemies = [t["position"] for t in state["troopers"]
                   if t["side"] != self.side and t.get("position") is not None]
        heading = self.rng.uniform(0, 2 * math.pi)
        if enemies and self.rng.random() < 0.8:
            ex, ey = min(enemies, key=lambda e: math.dist((x, y), e))
            heading = math.atan2(ey - y, ex - x) + self.rng.uniform(-0.5, 0.5)
        reach = offer[weapon]["contact"] + 0.02  # clear of the base, within the contact tolerance
        return {"type": "place_deployable", "weapon": weapon,
                "position": [round(x + reach * math.cos(heading), 3),
                             round(y + reach * math.sin(heading), 3)]}

    def _zone_throws(self, options: dict[str, Any], state: dict[str, Any]) -> list[Body]:
        """Smoke or Eclipse (``skills.zones``) aimed at a point the trooper sees: on the line
        to an enemy in its Line of Fire (``options.sight``), half-way or at the end of the
        weapon's best range band, whichever is nearer; or a few inches ahead of it."""
        trooper = self._acting(state, None)
        weapon = self.rng.choice(sorted(options["skills"]["zones"]))
        best = options["skills"]["zones"][weapon]["bands"][0]["up_to"]
        (x, y), own = trooper["position"], radius(trooper["profile"]["silhouette"])
        seen = set((options.get("sight") or {}).get(trooper["id"]) or ())
        aims = [t["position"] for t in state["troopers"] if t["id"] in seen and t.get("position")]
        points = []
        for ex, ey in self.rng.sample(aims, min(2, len(aims))):
            apart = math.dist((x, y), (ex, ey))
            reach = min(apart / 2, own + best * self.rng.uniform(0.5, 1.0))
            points.append([x + (ex - x) * reach / apart, y + (ey - y) * reach / apart])
        ahead = math.radians(trooper["facing"] + self.rng.uniform(-45, 45))
        reach = own + self.rng.uniform(2.0, best)
        points.append([x + reach * math.cos(ahead), y + reach * math.sin(ahead)])
        return [{"type": "bs_attack", "weapon": weapon, "targets": [],
                 "zone_at": [round(px, 3), round(py, 3)]} for px, py in points]

    def _split(self, skill: Body, skills: dict[str, Any]) -> Body:
        """Sometimes split a BS Attack's Burst between two of the weapon's targets."""
        if skill["type"] != "bs_attack" or "firing_point" in skill:
            return skill
        info = skills["bs_attack"][skill["weapon"]]
        if info["template"] or info["burst"] < 2 or len(info["targets"]) < 2 or self.rng.random() < 0.5:
            return skill
        first, second = self.rng.sample(info["targets"], 2)
        share = self.rng.randint(1, info["burst"] - 1)
        return {**skill, "targets": [{"trooper": first, "burst": share},
                                     {"trooper": second, "burst": info["burst"] - share}]}

    def _joint(self, skills: dict[str, Any], skill: Body, view: View,
               state: dict[str, Any] | None = None) -> Body | None:
        """The declaration, with the same skill type for each Peripheral of a joint
        activation (its own route or target, from its own options); None when a Peripheral
        has no choice of that type."""
        joint = skills.get("peripherals") or {}
        peripherals = []
        for peripheral, own in joint.items():
            if skill["type"] in (own.get("idle_for") or ()):  # its state forbids the skill
                mine: Body = {"type": "idle"}
            elif skills.get("fireteam") and "route" in skill:  # follow the leader, same offset
                state = state or view()
                mine = _following(skill, self._own(state, peripheral)["position"])
                allowance = (own.get("allowances") or {}).get(skill["type"])
                if allowance is not None:  # a member moves no farther than its own allowance
                    mine["route"] = _cut(mine["route"], float(allowance) - 0.01)
            elif skills.get("fireteam"):
                if not own.get("idle"):
                    return None
                mine = {"type": "idle"}
            elif "route" in skill:
                state = state or view()
                if skill["type"] not in own["allowances"]:
                    return None  # a movement the Peripheral may not make now
                mine = self._route_skill(state, skill["type"], own, peripheral)
            else:
                same = [s for s in _simple_skills(own) + _attack_skills(own) if _alike(skills, skill, s)]
                if not same:
                    return None
                mine = self.rng.choice(same)
            peripherals.append({"trooper": peripheral, "skill": mine})
        return declare(skill, peripherals)

    def _route_skill(self, state: dict[str, Any], name: str, skills: dict[str, Any],
                     trooper_id: str | None) -> Body:
        trooper = self._acting(state, trooper_id)
        # How far this movement may go now: MOV, Special Terrain's MOD and the Terrain bonus
        # (``skills.allowances``).
        allowance = float(skills["allowances"][name])
        start = trooper["position"]
        impetuous = skills.get("impetuous")
        areas = state["table"].get("special_terrain") or []
        if impetuous and not impetuous["inside_enemy_zone"] and self.rng.random() < 0.8:
            route = [start, self._towards_zone(state, impetuous, start, name)]
        elif areas and not impetuous and self.rng.random() < 0.3:
            route = [start, _towards_area(areas, start, radius(trooper["profile"]["silhouette"]),
                                          allowance)]
        else:
            route = [start, *self._path(state, trooper, start, allowance)]
        skill: Body = {"type": name, "route": route}
        if self.rng.random() < 0.3:
            skill["facing"] = round(self.rng.uniform(0, 360), 1)
        return skill

    def _towards_zone(self, state: dict[str, Any], impetuous: dict[str, Any], start: list[float],
                      name: str) -> list[float]:
        """An Impetuous movement (DIGEST 3.6, ``skills.impetuous``): the full MOV value
        straight towards the enemy Deployment Zone (refused if an enemy is within reach)."""
        zone = state["deployment_zones"][impetuous["enemy_zone"]]
        full = float(impetuous["full_mov"][name])
        ahead = 1.0 if zone["y0"] > start[1] else -1.0
        return [start[0], round(start[1] + ahead * full, 3)]

    def _acting(self, state: dict[str, Any], trooper_id: str | None) -> dict[str, Any]:
        order = state["order"]
        wanted = trooper_id or order["trooper"]
        return self._own(state, wanted)

    def _path(self, state: dict[str, Any], trooper: dict[str, Any], start: list[float],
              allowance: float) -> list[list[float]]:
        """One or two segments, towards an enemy, a mission marker or anywhere."""
        enemies = [t for t in state["troopers"]
                   if t["side"] != self.side and t.get("position") is not None]
        markers = (state.get("mission") or {}).get("markers") or []
        if markers and self.rng.random() < 0.3:
            marker = min(markers, key=lambda m: math.dist(start, (m["x"], m["y"])))
            heading = math.atan2(marker["y"] - start[1], marker["x"] - start[0])
            gap = (math.dist(start, (marker["x"], marker["y"])) - radius(2)
                   - radius(trooper["profile"]["silhouette"]) + 0.01)
            if gap <= allowance:  # stop beside it, in base contact
                return [[round(start[0] + gap * math.cos(heading), 3),
                         round(start[1] + gap * math.sin(heading), 3)]]
        elif enemies and self.rng.random() < 0.7:
            nearest = min(enemies, key=lambda t: math.dist(start, t["position"]))
            ex, ey = (nearest if self.rng.random() < 0.6 else self.rng.choice(enemies))["position"]
            heading = math.atan2(ey - start[1], ex - start[0]) + self.rng.uniform(-0.6, 0.6)
        else:
            heading = self.rng.uniform(0, 2 * math.pi)
        points: list[list[float]] = []
        x, y = start
        left = allowance * self.rng.uniform(0.3, 1.0)
        for _ in range(self.rng.randint(1, 2)):
            step = left * self.rng.uniform(0.4, 1.0)
            x, y = x + step * math.cos(heading), y + step * math.sin(heading)
            points.append([round(x, 3), round(y, 3)])
            left -= step
            heading += self.rng.uniform(-0.8, 0.8)
        return points

    # -- the reactive player ------------------------------------------------------------

    def _aros(self, options: dict[str, Any], view: View) -> Iterator[Body]:
        aros = options.get("aros") or {}
        window = options["close_aro_window"]
        if not aros or self.rng.random() < 0.15:
            yield close_window(window)
            return
        trooper = self.rng.choice(sorted(aros))
        choices = _aro_skills(aros[trooper])
        screens = [skill for skill in choices if "zone_at" in skill]
        if screens and self.rng.random() < 0.3:  # Smoke or Eclipse between it and the attacker
            choices = screens
        if choices and self.rng.random() < 0.7:
            skill = self.rng.choice(choices)
            if skill["type"] == "dodge" and self.rng.random() < 0.5:
                start = self._own(view(), trooper)["position"]
                heading = self.rng.uniform(0, 2 * math.pi)
                step = self.rng.uniform(0.2, DODGE_MOVE)
                end = [round(start[0] + step * math.cos(heading), 3),
                       round(start[1] + step * math.sin(heading), 3)]
                yield aro(trooper, {"type": "dodge", "route": [start, end]})
            yield aro(trooper, skill)
        yield {"type": "pass_aro", "trooper": trooper}
        yield close_window(window)


def _one_of_the_charts_teams(chart: list[dict[str, Any]], team: list[str]) -> bool:
    """Whether ``team`` (leader included) is one of the army's Fireteams Chart teams as
    ``options.fireteams.form[kind].chart`` describes them (``orders/fireteam_chart.chart_offer``)."""
    for offered in chart:
        units = offered["units"]
        counts = [sum(m in unit["troopers"] for m in team) for unit in units]
        wild = sum(m in offered["wildcards"] for m in team)
        if sum(counts) + wild != len(team) or not sum(counts):
            continue
        if any(not unit["min"] <= count <= unit["max"] for unit, count in zip(units, counts, strict=True)):
            continue
        marked = [count for unit, count in zip(units, counts, strict=True) if unit["required"]]
        if not marked or any(marked):
            return True
    return False


def _nearest_on_segment(p: list[float], a: list[float], b: list[float]) -> tuple[float, float]:
    (px, py), (ax, ay), (bx, by) = p, a, b
    length = (bx - ax) ** 2 + (by - ay) ** 2
    t = 0.0 if length == 0 else max(0.0, min(1.0, ((px - ax) * (bx - ax) + (py - ay) * (by - ay)) / length))
    return ax + t * (bx - ax), ay + t * (by - ay)


def _towards_area(areas: list[dict[str, Any]], start: list[float], own: float,
                  allowance: float) -> list[float]:
    """Where a straight movement towards the nearest Special Terrain area of the table
    (``state.table.special_terrain``, convex polygons) ends: where the base first touches it
    (0.03" in, within the contact tolerance: entering an area ends the movement), or as far
    as ``allowance`` goes on the way there."""
    edges = [(polygon[i], polygon[(i + 1) % len(polygon)])
             for polygon in (area["polygon"] for area in areas) for i in range(len(polygon))]
    nearest = min((_nearest_on_segment(start, a, b) for a, b in edges),
                  key=lambda q: math.dist(start, q))
    gap = math.dist(start, nearest)
    if gap == 0:
        return start
    ux, uy = (nearest[0] - start[0]) / gap, (nearest[1] - start[1]) / gap
    travel = min(max(0.0, gap - own + 0.03), allowance - 0.01)  # rounding stays within
    return [round(start[0] + ux * travel, 3), round(start[1] + uy * travel, 3)]


def _routes_to_area(areas: list[dict[str, Any]], start: list[float], own: float,
                    allowance: float, table: dict[str, Any]) -> list[list[list[float]]]:
    """Routes towards the nearest Special Terrain area, for a player who cannot see which
    scenery is in the way: straight to its nearest point, and around (one leg along each
    axis) to each of its corners, each ending where the base first touches the area (the
    movement ends there) or cut at ``allowance`` inches on the way."""
    nearest_area = min(areas, key=lambda area: math.dist(start, _nearest_on_polygon(
        start, area["polygon"])))
    polygon = nearest_area["polygon"]
    routes = [[start, _towards_area([nearest_area], start, own, allowance)]]
    margin = own + 0.01
    for cx, cy in polygon:
        cx = min(max(cx, margin), table["width"] - margin)
        cy = min(max(cy, margin), table["depth"] - margin)
        for corner, last_axis in (([start[0], cy], 0), ([cx, start[1]], 1)):
            end = [cx, cy]
            ahead = 1.0 if end[last_axis] > corner[last_axis] else -1.0
            end[last_axis] -= ahead * (own - 0.03)  # the base touches the area's edge
            routes.append(_cut([start, corner, end], allowance - 0.01))
    return routes


def _nearest_on_polygon(p: list[float], polygon: list[list[float]]) -> tuple[float, float]:
    return min((_nearest_on_segment(p, polygon[i], polygon[(i + 1) % len(polygon)])
                for i in range(len(polygon))), key=lambda q: math.dist(p, q))


def _cut(route: list[list[float]], length: float) -> list[list[float]]:
    """``route`` up to ``length`` inches along it (points rounded to 0.001")."""
    kept = [route[0]]
    left = length
    for a, b in itertools.pairwise(route):
        step = math.dist(a, b)
        if step == 0:
            continue
        if step >= left:
            kept.append([a[0] + (b[0] - a[0]) * left / step, a[1] + (b[1] - a[1]) * left / step])
            break
        kept.append(b)
        left -= step
    return [[round(x, 3), round(y, 3)] for x, y in kept]
