"""Dominating a zone (``DominateZone``): at the end of a Game Round and/or of the game, as the
objective says, a side dominates a zone when its troopers inside are worth more army points
(``by`` "points") or are more troopers (``by`` "count") than the other side's; equal, or
none at all, and nobody does.

Who counts (docs/rules-decisions/missions.md): a trooper on the table as a model, not in a
Null state. Not a trooper in Hidden Deployment or Airborne Deployment (not on the table),
not a Camouflage Marker (what it is stays private; counting it would tell its points), not a
Mine or any other marker (not troopers). Inside: the centre of the trooper's base lies in
the zone, edges included (``MissionZone.holds``) - for a straight edge, at least half of
the base.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..ids import Side
from ..state import GameState, TrooperState
from .mission import DominateZone, MissionZone


def counts(trooper: TrooperState) -> bool:
    """Whether the trooper may dominate a zone at all (wherever it stands)."""
    return trooper.on_table and not trooper.is_null and not trooper.marker


def inside(state: GameState, zone: MissionZone, side: Side) -> tuple[TrooperState, ...]:
    return tuple(t for t in state.troopers_of(side)
                 if counts(t) and t.position is not None and zone.holds(t.position))


def strength(troopers: Sequence[TrooperState], by: str) -> int:
    return sum(t.profile.cost for t in troopers) if by == "points" else len(troopers)


def dominator(state: GameState, zone: MissionZone, by: str) -> tuple[Side | None, dict[Side, int]]:
    """The side that dominates ``zone`` now (None: nobody), and each side's strength there."""
    held = {side: strength(inside(state, zone, side), by) for side in (Side.A, Side.B)}
    if held[Side.A] == held[Side.B]:
        return None, held
    return (Side.A if held[Side.A] > held[Side.B] else Side.B), held


def awards(state: GameState, objective: DominateZone,
           when: str) -> Sequence[tuple[Side, int, str]]:
    """(side, OP, reason) for each zone dominated, if ``objective`` is scored ``when``."""
    if when not in objective.when:
        return ()
    mission = state.mission
    assert mission is not None
    unit = "points" if objective.by == "points" else "troopers"
    out = []
    for zone_id in objective.zones:
        zone = mission.zone(zone_id)
        side, held = dominator(state, zone, objective.by)
        if side is not None:
            out.append((side, objective.op, f"dominates the {zone.name} ({held[side]} {unit} "
                                            f"inside against {held[side.other]})"))
    return out
