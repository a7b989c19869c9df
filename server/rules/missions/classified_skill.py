"""A Classified Objective card's Short Skill (``classified_action``; docs/missions-classified.md):
the Requirements the card names (who, where, which target in base contact), checked at
declaration (``check_action``, a ``Rejection`` with a stable reason and a sentence) and again
at Resolution (``planned_action``: the Normal WIP Roll with the card's MOD, or Idle), and the
declarations ``options`` may offer (``action_skills``). Whether the roll achieved the card is
judged with every other card (``classified.after_event``)."""

from __future__ import annotations

from collections.abc import Iterator

from ..armies.skills import ClassifiedAction, Skill
from ..combat.plan import Plan, PlannedRoll
from ..combat.rolls import Mod
from ..combat.skill_plans import idle
from ..combat.wounds import Condition
from ..decision import require
from ..ids import Side, TrooperId
from ..reasons import Reason
from ..state import GameState, TrooperState
from ..table.geometry import in_base_contact
from ..table.terrain import Zone
from .classified_deck import Achievement, CardDefinition, card_definition

ACTION_ROLL = "classified_action"
"""The ``PlannedRoll.skill`` (and ``RollRecord.skill``) of a card's WIP Roll."""


def deployment_zone(state: GameState, side: Side) -> Zone | None:
    """The deployment zone ``side`` chose at Initiative (None before)."""
    name = state.initiative.zones.get(side)
    return state.deployment_zones.get(name) if name is not None else None


def held_card(state: GameState, side: Side, card_id: str) -> CardDefinition | None:
    """The definition of ``card_id`` if ``side`` holds it unachieved, else None."""
    held = next((c for c in state.classified.get(side, ()) if c.id == card_id), None)
    if held is None or held.achieved:
        return None
    return card_definition(state.ruleset, card_id)


def action_problem(state: GameState, trooper: TrooperState,
                   skill: ClassifiedAction) -> tuple[Reason, str] | None:
    """Why ``trooper`` may not declare ``skill`` now (a reason code and a sentence), or
    None. Every Requirement is checked at declaration, where the table shows it, and again
    at Resolution (``planned_action``): what changed in between makes it Idle."""
    side = trooper.side
    owned = next((c for c in state.classified.get(side, ()) if c.id == skill.card), None)
    if owned is None:
        return Reason.NOT_YOUR_CLASSIFIED, "You hold no Classified Objective by that name."
    definition = card_definition(state.ruleset, skill.card)
    assert definition is not None
    if owned.achieved:
        return (Reason.CLASSIFIED_ALREADY_ACHIEVED,
                f"{definition.title} is already achieved: a card scores once.")
    need = definition.achieved_by
    if not need.is_action:
        return (Reason.CLASSIFIED_NOT_AN_ACTION,
                f"{definition.title} is achieved by what happens in the game, not by a skill.")
    problem = _requirement(state, trooper, skill, definition)
    return None if problem is None else (Reason.CLASSIFIED_REQUIREMENT, problem)


def _requirement(state: GameState, trooper: TrooperState, skill: ClassifiedAction,
                 definition: CardDefinition) -> str | None:
    need = definition.achieved_by
    name, title = trooper.profile.name, definition.title
    if need.who == "specialist" and not trooper.profile.is_specialist:
        return f"{title} needs a Specialist Troop; {name} is not one."
    if need.where == "enemy_zone":
        zone = deployment_zone(state, trooper.side.other)
        if zone is None or trooper.position is None or not zone.touches_body(trooper.body()):
            return f"{title} needs {name} inside the enemy deployment zone."
    if need.target == "none":
        return (None if skill.target is None
                else f"{title} names no target: send the skill without one.")
    target = state.troopers.get(skill.target) if skill.target is not None else None
    what = _TARGET_WORDS[need.target]
    if target is None or not target.on_table or target.marker or target.id == trooper.id:
        return f"{title} needs a target: {what} in base contact with {name}."
    if (target.side is trooper.side) != (need.target == "ally_in_contact"):
        return f"{title} needs {what}; {target.profile.name} is not one."
    if need.target == "enemy_unconscious_in_contact" and target.condition is not Condition.UNCONSCIOUS:
        return f"{title} needs an enemy trooper in the Unconscious state; {target.profile.name} is not."
    if need.target in ("enemy_in_contact", "ally_in_contact") and target.is_null:
        return f"{title} needs {what}; {target.profile.name} is in a Null state."
    if not in_base_contact(trooper.body(), target.body()):
        return f"{title} needs {name} in base contact with {target.profile.name}."
    return None


_TARGET_WORDS = {
    "enemy_in_contact": "an enemy model not in a Null state",
    "enemy_unconscious_in_contact": "an enemy trooper in the Unconscious state",
    "ally_in_contact": "another trooper of yours not in a Null state",
}


def check_action(state: GameState, trooper: TrooperState, skill: ClassifiedAction) -> None:
    """Declaration checks (``orders/activation.py``): a ``Rejection`` when not legal."""
    problem = action_problem(state, trooper, skill)
    require(problem is None, *(problem or (Reason.BAD_COMMAND, "")))


def planned_action(state: GameState, trooper: TrooperState, skill: ClassifiedAction) -> Plan:
    """The card's Normal WIP Roll at Resolution, or the Idle it became (a Requirement no
    longer met: the target moved or fell, the card was achieved meanwhile)."""
    if action_problem(state, trooper, skill) is not None:
        return idle(trooper, skill, "classified_requirement_not_met")
    definition = card_definition(state.ruleset, skill.card)
    assert definition is not None
    return Plan(rolls=(action_roll(trooper, definition.achieved_by, skill),))


def action_roll(trooper: TrooperState, need: Achievement, skill: ClassifiedAction) -> PlannedRoll:
    mods = (Mod("classified_objective", need.wip_mod),) if need.wip_mod else ()
    return PlannedRoll(trooper=trooper.id, active=True, skill=ACTION_ROLL, target=skill.target,
                       weapon=None, attribute="WIP", base=trooper.profile.wip, mods=mods,
                       burst=1)


def action_skills(state: GameState, trooper: TrooperState) -> Iterator[ClassifiedAction]:
    """Every ``classified_action`` the trooper could declare now with each card it holds
    (the Requirements met), for ``options``."""
    for card in state.classified.get(trooper.side, ()):
        definition = held_card(state, trooper.side, card.id)
        if definition is None or not definition.achieved_by.is_action:
            continue
        if definition.achieved_by.target == "none":
            candidates: list[TrooperId | None] = [None]
        else:
            candidates = [t.id for t in state.troopers.values()
                          if t.on_table and not t.marker and t.id != trooper.id]
        for target in candidates:
            skill = ClassifiedAction(card.id, target)
            if action_problem(state, trooper, skill) is None:
                yield skill


def usable_while_engaged(state: GameState, skill: Skill) -> bool:
    """A card's Short Skill the card says may be declared in Engaged State (the wiki's
    "Engaged State": only the skills that say so, beside CC Attack, Dodge, Idle, Reset)."""
    if not isinstance(skill, ClassifiedAction):
        return False
    definition = card_definition(state.ruleset, skill.card)
    return definition is not None and definition.achieved_by.engaged
