"""The random level: a uniformly random choice among what the options offer (as
``tests/support/random_player.py`` plays, from the options only): every command they name,
a deployment point drawn in the zone, a short route in a random direction."""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from typing import Any

from server.bot import ground
from server.bot.offers import Body, appointments, declare, idle_peripherals, named

View = dict[str, Any]


def plan(view: View, options: dict[str, Any], seat: str, rng: random.Random) -> Iterator[Body]:
    choices = [*named(options), *appointments(view, options)]
    if options.get("choose_army"):
        choices.append({"type": "choose_army", "army": rng.choice(options["choose_army"]),
                        "entropy": rng.randbytes(32).hex()})
    for trooper in options.get("deploy") or []:
        zone, facing = ground.own_zone(view, seat)
        choices.append({"type": "deploy", "trooper": trooper, "facing": facing, "hidden": False,
                        "position": [round(rng.uniform(zone["x0"] + 1, zone["x1"] - 1), 2),
                                     round(rng.uniform(zone["y0"] + 1, zone["y1"] - 1), 2)]})
    skills = options.get("skills") or {}
    joined = idle_peripherals(skills) if skills else None
    order = view.get("order") or {}
    me = next((t for t in view["troopers"] if t["id"] == order.get("trooper")), None)
    if joined is not None and me is not None and me.get("position") is not None:
        for name in skills.get("route_skills") or []:
            heading = rng.uniform(0, 2 * math.pi)
            step = rng.uniform(0.5, float(skills["allowances"][name]) - 0.02)
            x, y = me["position"]
            end = [round(x + step * math.cos(heading), 3), round(y + step * math.sin(heading), 3)]
            choices.append(declare({"type": name, "route": [[x, y], end]}, joined))
    rng.shuffle(choices)
    yield from choices
