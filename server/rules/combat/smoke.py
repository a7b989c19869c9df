"""Smoke and Eclipse Ammunition: a BS Attack at a point of the table that leaves a Zero
Visibility Zone there (wiki "Smoke Ammunition", "Eclipse Ammunition", "Zero Visibility
Zone", "Visibility Conditions"; the zone itself: ``table/visibility_zones.py``).

In our words:

* The weapon names no target: it is fired (or thrown) at a point (``BsAttack.zone_at``) the
  shooter has Line of Fire to, rolling BS (PH for a Throwing Weapon: grenades,
  ``combat/attack_attribute.py``) with the weapon's range MOD at the distance to that point;
  nothing else about a target modifies it (there is none).
* The zone is a Circular Template around the point, of infinite height; no Line of Fire
  crosses it, into, out of or through. A Multispectral Visor (any level) sees through Smoke,
  never through Eclipse.
* In the Order it is placed, the roll is Face to Face with every enemy BS Attack whose Line
  of Fire the zone would block (a shooter with a visor, against Smoke, is not blocked and
  is not opposed). The zone stays only if the roll scores, which means it won every one of
  those Face to Face Rolls; an attack whose successes it cancelled hits nothing. A failed
  roll places nothing.
* The zone stays on the table until the States Phase of the Player Turn it was placed in
  (``orders/states_phase.py``).

In ARO it is declared the same way (Burst 1, from where the reactor stands).

Not built (docs/rules-decisions/resolution.md, "Smoke and Eclipse"): a Direct Template or a
CC Attack opposed by the zone (only BS Attacks are). A Dodge inside the zone is a Normal
Roll, as the rules say: a Dodge is never Face to Face with a zone roll.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from ..armies.skills import BsAttack
from ..armies.weapons import ZONE_AMMUNITION, Weapon
from ..decision import require
from ..evolve import replace
from ..ids import TrooperId
from ..reasons import Reason
from ..state import GameState, TrooperState
from ..table.geometry import Body, Point, point_distance
from ..table.line_of_fire import has_line_of_fire
from ..table.visibility_zones import CIRCULAR_TEMPLATE_RADIUS, VisibilityZone, ZoneKind
from .attack_attribute import bs_attack_attribute
from .mods import blocking_bodies, range_reading
from .multispectral_visor import sees_through_smoke
from .outcome import Effect, RollRecord, ZonePlaced
from .plan import Plan, PlannedRoll
from .rolls import Mod, success_value
from .stunned import stunned_mods

POINT_SILHOUETTE = 0
"""The point a zone is aimed at is seen as a Silhouette 0 body standing there."""


def zone_kind(weapon: Weapon) -> ZoneKind | None:
    """The zone a weapon's ammunition places, or None for every other weapon."""
    if weapon.ammo not in ZONE_AMMUNITION:
        return None
    return ZoneKind.SMOKE if weapon.ammo == "Smoke" else ZoneKind.ECLIPSE


def check_zone_declaration(state: GameState, weapon: Weapon, skill: BsAttack) -> None:
    """A Smoke or Eclipse weapon is aimed at a point of the table and at no trooper; any
    other weapon names targets and no point."""
    if zone_kind(weapon) is None:
        require(skill.zone_at is None, Reason.BAD_TARGET,
                f"{weapon.name} is fired at troopers, not at a point of the table.")
        return
    require(not skill.targets and skill.zone_at is not None, Reason.BAD_TARGET,
            f"{weapon.name} is fired at a point of the table (zone_at), not at a trooper.")
    assert skill.zone_at is not None
    x, y = skill.zone_at
    require(0.0 <= x <= state.table.width and 0.0 <= y <= state.table.depth, Reason.BAD_TARGET,
            f"{weapon.name}: the point must be on the table.")


def sees_point(state: GameState, shooter: TrooperState, body: Body, point: Point) -> bool:
    """Line of Fire from ``body`` to the ground at ``point``."""
    return has_line_of_fire(body, Body(point, 0.0, POINT_SILHOUETTE), state.table,
                            blocking_bodies(state, shooter.id), sees_through_smoke(shooter))


def planned_zone_roll(state: GameState, shooter: TrooperState, weapon: Weapon, point: Point,
                      body: Body, burst: int, active: bool) -> Plan | None:
    """The roll of a Smoke or Eclipse shot at ``point`` from ``body``; None without Line of
    Fire to the point (the caller makes the skill Idle)."""
    if not sees_point(state, shooter, body, point):
        return None
    reading = range_reading(weapon.ranges,
                            max(0.0, point_distance(body.position, point) - body.radius))
    mods = () if reading.band is None else (Mod("range", reading.band.mod),)
    attribute, base = bs_attack_attribute(shooter.profile, weapon)
    return Plan(rolls=(PlannedRoll(
        trooper=shooter.id, active=active, skill="bs_attack", target=None, weapon=weapon.id,
        attribute=attribute, base=base, mods=mods, burst=burst,
        out_of_range=reading.band is None, range=reading, zone_at=point),))


SEEN_THROUGH_SMOKE_L1_MOD = -6
"""A Multispectral Visor L1 drawing Line of Fire through a Smoke zone: -6 to the skill (the
wiki page's Level 1; Levels 2 and 3 take no MOD)."""


def visor_through_smoke_mods(state: GameState, seer: TrooperState, seer_body: Body,
                             target: TrooperState, seen: Body) -> tuple[Mod, ...]:
    """-6 for a Level 1 visor when its Line of Fire to ``seen`` exists only through Smoke."""
    if seer.profile.multispectral_visor != 1 or not state.table.zones:
        return ()
    blockers = blocking_bodies(state, seer.id, target.id)
    if has_line_of_fire(seer_body, seen, state.table, blockers):
        return ()  # some sight line misses every zone
    return (Mod("smoke", SEEN_THROUGH_SMOKE_L1_MOD),)


def zone_of(state: GameState, roll: PlannedRoll) -> VisibilityZone:
    assert roll.zone_at is not None and roll.weapon is not None
    kind = zone_kind(state.armies[state.trooper(roll.trooper).side].weapon(roll.weapon))
    assert kind is not None
    return VisibilityZone(kind, roll.zone_at, CIRCULAR_TEMPLATE_RADIUS, roll.trooper)


def with_screens(state: GameState, plan: Plan) -> Plan:
    """Each Smoke or Eclipse roll with the enemy BS Attacks its zone would block: those it
    is Face to Face with (``attacks.face_to_face_opponents``)."""
    if not any(r.zone_at is not None for r in plan.rolls):
        return plan
    rolls = tuple(replace(r, screens=_screened(state, r, plan.rolls)) if r.zone_at is not None
                  else r for r in plan.rolls)
    return replace(plan, rolls=rolls)


def _screened(state: GameState, smoke: PlannedRoll,
              rolls: Sequence[PlannedRoll]) -> tuple[tuple[TrooperId, TrooperId], ...]:
    zone = zone_of(state, smoke)
    with_zone = replace(state.table, zones=(*state.table.zones, zone))
    found: list[tuple[TrooperId, TrooperId]] = []
    for roll in rolls:
        if (roll.skill != "bs_attack" or roll.active == smoke.active or roll.sight is None
                or roll.target is None):
            continue
        attacker = state.trooper(roll.trooper)
        through = sees_through_smoke(attacker)
        if through and zone.kind is ZoneKind.SMOKE:
            continue  # a visor sees through Smoke: no Face to Face against it
        shooter, victim = roll.sight
        blockers = blocking_bodies(state, roll.trooper, roll.target)
        if not has_line_of_fire(shooter, victim, with_zone, blockers, through):
            found.append((roll.trooper, roll.target))
    return tuple(found)


def screens(smoke: PlannedRoll, attack: PlannedRoll) -> bool:
    """Whether the Smoke or Eclipse roll ``smoke`` is Face to Face with ``attack``."""
    return smoke.zone_at is not None and (attack.trooper, attack.target) in smoke.screens \
        and attack.zone_at is None


def zones_placed(state: GameState, rolled: Sequence[tuple[PlannedRoll, RollRecord]]) -> tuple[Effect, ...]:
    """A zone for each Smoke or Eclipse roll that kept a success (it won every Face to Face
    Roll it was in): placed in the Effects step."""
    return tuple(
        ZonePlaced(plan.trooper, plan.weapon, zone_of(state, plan))
        for plan, record in rolled
        if plan.zone_at is not None and plan.weapon is not None
        and record.successes + record.criticals > 0
    )


def zone_offer(shooter: TrooperState, weapon: Weapon, burst: int) -> dict[str, Any]:
    """What ``options`` shows of a Smoke or Eclipse weapon: the zone it places and, for each
    range band, the final Success Value at a point in that band (the range MOD and the
    shooter's own state MODs, e.g. Stunned; nothing else modifies it). The point must be on
    the table and in the shooter's Line of Fire: without it the roll is Idle."""
    kind = zone_kind(weapon)
    assert kind is not None
    own = stunned_mods(shooter)
    attribute, base = bs_attack_attribute(shooter.profile, weapon)
    low = 0.0
    bands: list[dict[str, Any]] = []
    for band in weapon.ranges:
        mods = (Mod("range", band.mod), *own)
        bands.append({"from": low, "up_to": band.up_to, "mod": band.mod,
                      "sv": success_value(base, mods)})
        low = band.up_to
    return {"kind": kind.value, "radius": CIRCULAR_TEMPLATE_RADIUS, "attribute": attribute,
            "base": base, "burst": burst, "bands": bands}


def screening_point(shooter: TrooperState, weapon: Weapon,
                    towards: TrooperState) -> dict[str, Any] | None:
    """A point on the line from ``shooter`` to ``towards`` where a zone screens the two from
    each other, with the final Success Value of the roll there: half-way, but no farther than
    the weapon's first (best) range band from the shooter's base. None when the two stand on
    one spot or the weapon has no range. The caller checks that the point is a legal aim (the
    shooter's Line of Fire to it)."""
    if shooter.position is None or towards.position is None or not weapon.ranges:
        return None
    (sx, sy), (tx, ty) = shooter.position, towards.position
    apart = math.hypot(tx - sx, ty - sy)
    if apart == 0.0:
        return None
    radius = shooter.body().radius
    reach = min(apart / 2, radius + weapon.ranges[0].up_to)
    point = (sx + (tx - sx) * reach / apart, sy + (ty - sy) * reach / apart)
    reading = range_reading(weapon.ranges, max(0.0, reach - radius))
    assert reading.band is not None  # within the first band by construction
    _, base = bs_attack_attribute(shooter.profile, weapon)
    mods = (Mod("range", reading.band.mod), *stunned_mods(shooter))
    return {"point": [round(point[0], 2), round(point[1], 2)], "sv": success_value(base, mods)}


def states_phase_clears(state: GameState) -> int:
    """How many zones the States Phase removes: every one (they last the Player Turn)."""
    return len(state.table.zones)
