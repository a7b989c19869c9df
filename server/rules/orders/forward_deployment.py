"""Forward Deployment (N5 Deployment Skill; infinitythewiki "Forward Deployment").

A trooper with Forward Deployment (+N") may deploy up to N inches beyond the limit of its
Deployment Zone, with no roll: the zone it may use is its own, stretched N inches towards
the middle of the table (the limit the zone shares with the rest of the table; the table's
edges bound the others). Never in contact with an enemy Model or Marker and never in the
enemy Deployment Zone, whatever the skill (the wiki's reminder on the same page; checked
by ``deployment.require_beyond_zone``). docs/rules-decisions/deployment-skills.md
"Forward Deployment".
"""

from __future__ import annotations

from ..state import GameState, TrooperState
from ..table.geometry import Body
from ..table.terrain import Zone


def forward_zone(state: GameState, trooper: TrooperState) -> Zone | None:
    """The area ``trooper`` may deploy in with its Forward Deployment, or None without it."""
    reach = trooper.profile.forward_deployment
    if reach <= 0:
        return None
    zone = state.deployment_zones[state.initiative.zones[trooper.side]]
    middle = state.table.depth / 2
    if (zone.y0 + zone.y1) / 2 < middle:
        return Zone(zone.x0, zone.y0, zone.x1, min(zone.y1 + reach, state.table.depth))
    return Zone(zone.x0, max(zone.y0 - reach, 0.0), zone.x1, zone.y1)


def within_forward_reach(state: GameState, trooper: TrooperState, body: Body) -> bool:
    """The whole base is inside the area its Forward Deployment opens."""
    zone = forward_zone(state, trooper)
    return zone is not None and zone.contains_body(body)
