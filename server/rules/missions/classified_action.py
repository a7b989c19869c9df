"""The ``classified_action`` command and its offer in ``options``: a Classified Objective
card's Short Skill (``classified_skill.py``), declared in the active trooper's Order exactly as
``declare_skill`` with a ``classified_action`` skill would be (same checks, same events)."""

from __future__ import annotations

from .. import commands as c
from ..armies.skills import ClassifiedAction
from ..decision import require
from ..events import Event
from ..ids import Side
from ..orders.activation import decide_declare_skill
from ..plain import Plain
from ..previews import preview, shown
from ..reasons import Reason
from ..state import GameState, OrderStep
from .classified_skill import action_skills


def decide_classified_action(state: GameState, side: Side, command: c.ClassifiedAction) -> list[Event]:
    order = state.order
    require(state.active is side, Reason.NOT_YOUR_TURN, "Only the active player declares skills.")
    require(order is not None, Reason.WRONG_PHASE,
            "Activate the trooper first: a Classified Objective's Short Skill is declared in "
            "its Order.")
    assert order is not None
    trooper = state.troopers.get(command.trooper)
    require(order.trooper == command.trooper, Reason.ORDER_NOT_FOR_TROOPER,
            f"The Order in progress is not {trooper.profile.name if trooper else 'that trooper'}'s.")
    skill = ClassifiedAction(command.card, command.target)
    return decide_declare_skill(state, side, c.DeclareSkill(skill))


def action_offers(state: GameState, side: Side) -> dict[str, Plain]:
    """``options.skills.classified_action``: for each card the active trooper may use now,
    its targets ("" for a card without one), each with the WIP Roll's preview (MODs and the
    final Success Value). Empty when none is legal."""
    order = state.order
    if (order is None or state.active is not side or order.peripherals
            or order.step not in (OrderStep.FIRST_SKILL, OrderStep.SECOND_SKILL)):
        return {}
    offers: dict[str, dict[str, Plain]] = {}
    for skill in action_skills(state, state.trooper(order.trooper)):
        plan = preview(state, side, c.DeclareSkill(skill))
        if plan is None or (seen := shown(state, side, plan)) is None:
            continue
        offers.setdefault(skill.card, {})[skill.target or ""] = seen
    return dict(offers)
