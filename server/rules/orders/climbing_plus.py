"""Climbing Plus (N5 Special Skill; infinitythewiki "Climbing Plus"; DIGEST 9 Climb).

The user moves on vertical surfaces as on horizontal ones: it needs no Climb to go up a
wall. The table here is flat footprints with heights (no floors, no falls), where a Climb
is a route that may pass over any scenery (``activation._check_movement``); with Climbing
Plus a Move or a Cautious Movement may do the same, within its own MOV and keeping its
own category (a Move stays a Short Movement Skill, so it may be followed by a BS Attack).
A Dodge's movement does not (N5: Climbing Plus no longer lets Dodge or Guts movement
climb). docs/rules-decisions/deployment-skills.md "Climbing Plus".
"""

from __future__ import annotations

from ..armies.skills import CautiousMove, Move, Skill
from ..state import TrooperState


def climbs_while_moving(trooper: TrooperState, skill: Skill) -> bool:
    """Its Move or Cautious Movement may pass over scenery of any height."""
    return trooper.profile.climbing_plus and isinstance(skill, Move | CautiousMove)
