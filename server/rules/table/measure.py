"""A ruler and a Line of Fire check on the table, answered by the rules core's geometry.

Players measure and check sight before they commit to an Order; the answer must be the
one the rules will use, so it is made here from the functions attacks use: range between
two bases (``geometry.distance``, DIGEST 10.4), Line of Fire (``line_of_fire``, with the
blockers of ``mods``), the front arc (``geometry.in_front_arc``) and each weapon's range
MOD (``weapons.range_mod``).

From a trooper, the question is "a target of Silhouette S standing at this point": the
distance is between the two bases, as an attack's range is. A model whose base covers
the point is taken to be that target (it does not block the sight lines to itself, as
the target of an attack does not). Between two points the distance is centre to centre.

What the asker may know (docs/fair-play.md): a seat measures from its own troopers and
from enemy troopers on the table; a spectator from any trooper on the table. A trooper in
Hidden Deployment, or not deployed, is answered exactly as an id that names nobody
(``unknown_trooper``). A Camouflage Marker is on the table where it stands, so it may be
measured from like a model; what it is stays private: an enemy marker's answer has no
weapons, and its Line of Fire is a marker's (all-round, its public Silhouette).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..armies.weapons import range_mod
from ..combat.mines import target_or_mine
from ..combat.mods import blocking_bodies_by_trooper
from ..combat.multispectral_visor import sees_through_smoke
from ..decision import Rejection, require
from ..ids import Side, TrooperId, Viewer, WeaponId
from ..reasons import Reason
from ..state import GameState, TrooperState
from .geometry import Body, Point, distance, in_front_arc, point_distance
from .line_of_fire import has_line_of_fire
from .silhouettes import KNOWN_SIZES


@dataclass(frozen=True, slots=True)
class WeaponRange:
    """A weapon of the measuring trooper at the measured distance: its range MOD, or None
    when the target is out of its range (``weapons.range_mod``)."""

    weapon: WeaponId
    name: str
    mod: int | None


@dataclass(frozen=True, slots=True)
class Measurement:
    """``distance`` in inches; the rest only when measured from a trooper (else None):
    the target's ``silhouette``, ``line_of_fire`` to it, whether it is ``in_front_arc``,
    and ``weapons`` (None also when the asker may not know the trooper's profile)."""

    distance: float
    silhouette: int | None = None
    line_of_fire: bool | None = None
    in_front_arc: bool | None = None
    weapons: tuple[WeaponRange, ...] | None = None


def measure(state: GameState, viewer: Viewer, origin: TrooperId | Point, to: Point,
            silhouette: int | None = None) -> Measurement:
    """What ``viewer`` asks: from a trooper (its id) or a point, to the point ``to``.

    Raises ``Rejection``: ``unknown_trooper`` for an id the viewer may not know of (none,
    or an enemy not on the table), ``trooper_not_on_table`` for the viewer's own trooper
    not deployed, ``bad_position`` for a point off the table, ``bad_target`` for a
    Silhouette the rules do not define."""
    require_on_table(state, to, "to")
    if isinstance(origin, str):
        trooper = _visible_trooper(state, viewer, origin)
        return from_trooper(state, viewer, trooper, to, silhouette)
    require_on_table(state, origin, "from")
    return Measurement(point_distance(origin, to))


def from_trooper(state: GameState, viewer: Viewer, trooper: TrooperState, to: Point,
                 silhouette: int | None = None) -> Measurement:
    """From ``trooper`` (on the table or hidden: it has a position) to a target of
    ``silhouette`` (default the trooper's own Silhouette, a marker's shown one) at ``to``."""
    size = trooper.profile.silhouette if silhouette is None else silhouette
    require(size in KNOWN_SIZES, Reason.BAD_TARGET,
            f"There is no Silhouette {size}; the sizes are {KNOWN_SIZES[0]}-{KNOWN_SIZES[-1]}.")
    body = trooper.body()
    target = Body(to, 0.0, size)
    inches = distance(body, target)
    blockers = tuple(other for trooper_id, other in blocking_bodies_by_trooper(state)
                     if trooper_id != trooper.id and not _covers(other, to))
    weapons = None
    if _knows_profile(viewer, trooper) and trooper.id in state.troopers:  # not a Mine
        weapons = tuple(WeaponRange(weapon.id, weapon.name, range_mod(weapon, inches))
                        for weapon in state.armies[trooper.side].weapons(trooper.entry.id))
    return Measurement(
        distance=inches,
        silhouette=size,
        line_of_fire=has_line_of_fire(body, target, state.table, blockers,
                                      _knows_profile(viewer, trooper) and sees_through_smoke(trooper)),
        in_front_arc=in_front_arc(body, target),
        weapons=weapons,
    )


def require_on_table(state: GameState, point: Point, name: str) -> None:
    """``point`` lies on the table (its edges included), or ``bad_position``."""
    x, y = point
    table = state.table
    on_table = (math.isfinite(x) and math.isfinite(y)
                and 0.0 <= x <= table.width and 0.0 <= y <= table.depth)
    require(on_table, Reason.BAD_POSITION,
            f"'{name}' ({x:g}, {y:g}) is off the table "
            f"(0-{table.width:g} by 0-{table.depth:g} inches).")


def _visible_trooper(state: GameState, viewer: Viewer, trooper_id: TrooperId) -> TrooperState:
    """The trooper ``viewer`` may measure from; an enemy it may not know of (hidden, not
    deployed) is refused with the words of an id that names nobody (no oracle)."""
    trooper = target_or_mine(state, trooper_id)  # a Mine's marker as a trooper's (mines.py)
    own = trooper is not None and trooper.side is viewer
    if trooper is None or not (own or trooper.on_table):
        raise Rejection(Reason.UNKNOWN_TROOPER, f"There is no trooper {trooper_id}.")
    require(trooper.position is not None, Reason.TROOPER_NOT_ON_TABLE,
            f"{trooper.profile.name} is not deployed yet.")
    return trooper


def _knows_profile(viewer: Viewer, trooper: TrooperState) -> bool:
    """Its owner knows its profile; everyone else, once it is a model (not a marker)."""
    return (isinstance(viewer, Side) and trooper.side is viewer) or not trooper.marker


def _covers(body: Body, point: Point) -> bool:
    """``point`` lies on the base of ``body``: that model is the target standing there."""
    return point_distance(body.position, point) <= body.radius
