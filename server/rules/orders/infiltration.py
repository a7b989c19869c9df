"""Infiltration (N5 Deployment Skill; infinitythewiki "Infiltration", "Deployment Phase",
"Minelayer" for what a failed roll costs).

* A trooper with Infiltration may deploy outside its Deployment Zone anywhere in its own
  half of the table, with no roll (``deployment.decide_deploy`` asks ``needs_roll``).
* It may deploy in the enemy half too, never touching the enemy Deployment Zone, on a PH
  Roll with a -3 MOD (``infiltration_roll``). Passed, it stands where the player placed it
  (as a Camouflage Marker if it has Camouflage); failed, it loses the Marker and deploys as
  a Model inside its own Deployment Zone, at the spot the player named in the same
  ``deploy`` command (``fallback``): the game never stops to ask, as for a failed Combat
  Jump (docs/rules-decisions/deployment-skills.md "Infiltration").
* Not built: Hidden Deployment in the enemy half (refused ``skill_not_allowed``): its roll
  would be private, and every later die would shift with it, so what the opponent sees
  would depend on a private fact (docs/fair-play.md). Hidden in its own half needs no roll.
* A base that crosses the middle line is in the enemy half: only a base wholly in its own
  half deploys without the roll.
* The roll is ``infiltration_rolled``, then ``trooper_deployed`` places the trooper; the
  opponent sees a passed Camouflage Marker's roll without its record (the PH would tell
  what the Marker is; ``views``).
"""

from __future__ import annotations

from ..combat.dice import Dice, roll_d20
from ..combat.outcome import RollRecord
from ..combat.rolls import Mod, normal_roll
from ..ruleset import options
from ..state import GameState, TrooperState
from ..table.geometry import Body

INFILTRATION_MOD = -3
"""The MOD to the PH Roll for deploying in the enemy half of the table."""


def in_own_half(state: GameState, trooper: TrooperState, body: Body) -> bool:
    """The whole base is on the trooper's own side of the table's middle line (the half
    that holds its Deployment Zone)."""
    zone = state.deployment_zones[state.initiative.zones[trooper.side]]
    middle = state.table.depth / 2
    y, r = body.position[1], body.radius
    if (zone.y0 + zone.y1) / 2 < middle:
        return y + r <= middle
    return y - r >= middle


def needs_roll(state: GameState, trooper: TrooperState, body: Body) -> bool:
    """An Infiltration outside its own Deployment Zone and its own half: the PH-3 Roll."""
    return not in_own_half(state, trooper, body)


def success_value(trooper: TrooperState) -> int:
    """The Infiltration Roll's Success Value: PH - 3."""
    return trooper.profile.ph + INFILTRATION_MOD


def infiltration_roll(state: GameState, trooper: TrooperState) -> tuple[RollRecord, Dice]:
    """The PH-3 Normal Roll (a Success Value under 1 fails without a die)."""
    sv = success_value(trooper)
    faces, dice = roll_d20(state.dice, 1) if sv >= 1 else ((), state.dice)
    roll = normal_roll(sv, faces, options(state.ruleset).crit_convention)
    record = RollRecord(
        trooper=trooper.id, skill="infiltration", target=None, weapon=None, attribute="PH",
        base=trooper.profile.ph, mods=(Mod("infiltration", INFILTRATION_MOD),),
        success_value=sv, burst=1, dice=roll.dice, cancelled=(False,) * len(roll.dice),
        successes=roll.successes, criticals=roll.criticals, automatic_failure=sv < 1,
    )
    return record, dice


def passed(record: RollRecord) -> bool:
    return record.successes + record.criticals > 0
