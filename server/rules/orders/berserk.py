"""Berserk (infinitythewiki "Berserk", N5; docs/rules-decisions/skills.md "Berserk"): a Long
Skill (an Entire Order here) with the labels Attack, CC Attack, CC Special Skill, Movement.

* N4/N5 only: the wiki's Berserk page (N4) says CodeOne does not use it
  (``not_allowed_by_ruleset``).
* Requirement: the target is in the trooper's LoF when the skill is declared (judged from
  where it stands then, with the facing it has then).
* Effects: Move + CC Attack in one declaration. The Move may be as long as both MOV values
  added together and goes to Silhouette contact with the target; then the trooper attacks
  the target in CC with the weapon named, adding the MOD written in brackets after the skill
  ("Berserk (+3)"). It may be declared out of contact with any enemy.
* When the trooper cannot reach Silhouette contact with its target, the Order is an Idle: it
  neither moves nor attacks. Here the player draws the route: a route that is longer than
  the allowance, or that does not end in contact with the target, or a target out of LoF at
  declaration, is that case (accepted, as a Requirement found unmet is, seed 000): the trooper
  stays where it stood, the AROs are declared against it there, and at Resolution the skill
  is Idle (``became_idle`` reason ``berserk_out_of_reach`` or ``no_line_of_fire``). A route
  no movement could take (through a wall, off the table, through a model) is refused as a
  Move's is.
* Everything else is a CC Attack's (``Berserk`` is one): the enemy's reaction, the Face to
  Face Roll, Burst, Damage, Coup de Grâce. N4's "the Face to Face Roll becomes a Normal Roll"
  is not on the N5 page (see the decisions file), so the target reacts as to any CC Attack.
* The AROs: the Move gives them along its route as any Move does (``aro_eligibility`` reads
  the Order's path); the CC Attack is declared with it, so each reacting trooper knows both.
"""

from __future__ import annotations

import math

from ..armies.skills import Berserk
from ..combat.mods import sees
from ..combat.rolls import Mod
from ..decision import require
from ..reasons import Reason
from ..ruleset import options
from ..state import ActiveOrder, GameState, TrooperState
from ..table.geometry import Body, in_base_contact
from ..table.routes import check_route, route_length

LENGTH_TOLERANCE = 1e-6
"""As ``check_route`` measures a route's length against its allowance."""


def allowance(trooper: TrooperState) -> float:
    """How far a Berserk may move: both MOV values added together."""
    first, second = trooper.profile.mov
    return float(first + second)


def check_declaration(state: GameState, trooper: TrooperState, skill: Berserk,
                      others: tuple[Body, ...]) -> None:
    """What makes a Berserk impossible to declare (refused): a trooper without the skill or
    one that cannot move, or a route no movement could follow (``others``: the bases it may
    not pass through). Reaching the target is a Requirement: ``out_of_reach``."""
    require(options(state.ruleset).berserk, Reason.NOT_ALLOWED_BY_RULESET,
            "This ruleset has no Berserk.")
    require(trooper.profile.berserk, Reason.SKILL_NOT_ALLOWED,
            f"{trooper.profile.name} does not have Berserk.")
    require(allowance(trooper) > 0, Reason.SKILL_NOT_ALLOWED, f"{trooper.profile.name} cannot move.")
    problem = check_route(skill.route, trooper.body(), math.inf, state.table, others)
    if problem is not None:
        require(False, Reason.BAD_ROUTE, f"Berserk: {problem.message}")


def out_of_reach(state: GameState, trooper: TrooperState, start: Body,
                 skill: Berserk) -> str | None:
    """Why this Berserk is an Idle (the trooper neither moves nor attacks), or None when it
    reaches its target. ``start`` is the trooper as it stood when it declared."""
    target = state.troopers.get(skill.target)
    if target is None or not target.on_table:
        return "target_not_enemy"
    if not sees(state, trooper, start, target, target.body()):
        return "no_line_of_fire"
    if len(skill.route) > 1 and route_length(skill.route) > allowance(trooper) + LENGTH_TOLERANCE:
        return "berserk_out_of_reach"
    end = start.moved_to(skill.route[-1]) if skill.route else start
    if not in_base_contact(end, target.body()):
        return "berserk_out_of_reach"
    return None


def start_body(order: ActiveOrder, trooper: TrooperState) -> Body:
    """The trooper as it stood at the start of the Order (``order`` is its own projection):
    where a Berserk, its only skill, was declared."""
    facing = order.start_facings.get(trooper.id, trooper.facing)
    return Body(order.start, facing, trooper.profile.silhouette, trooper.body().all_round_vision)


def attack_mods(skill: Berserk, trooper: TrooperState) -> tuple[Mod, ...]:
    """The MOD in brackets after the skill, on the CC Attack it makes."""
    value = trooper.profile.berserk_mod
    return (Mod("berserk", value),) if value else ()
