"""Whether a trooper is still a Camouflage Marker at a given moment of an Order (DIGEST 12).

A Camouflaged trooper is revealed by declaring an Attack, a skill with a roll or a Long
Skill other than Cautious Movement: from that declaration on it stands as a model, though
``TrooperState.marker`` is only cleared when the Order resolves (its ``Revealed`` effect) or
when it declares an ARO (``aro.apply_aro_declared``). ``camouflaged`` reads the Order as it
stands: called while AROs are declared it says what the target is then (what the reactive
player sees: a marker, or a revealed model), at Resolution what it is once every
declaration is made.
"""

from __future__ import annotations

from ..armies.skills import (
    ActivateObjective,
    BsAttack,
    CcAttack,
    ClassifiedAction,
    Climb,
    CommsAttack,
    Discover,
    Doctor,
    Dodge,
    Engineer,
    ForwardObserver,
    Jump,
    Paramedic,
    PlaceDeployable,
    Reset,
    SuppressiveFire,
)
from ..ids import TrooperId
from ..state import GameState
from .mines import target_or_mine

REVEALING_SKILLS = (BsAttack, CcAttack, CommsAttack, Dodge, Reset, Discover, Jump, Climb,
                    SuppressiveFire, Doctor, Paramedic, Engineer, ForwardObserver,
                    PlaceDeployable,  # Place Deployable: the Attack label (combat/mines.py)
                    ActivateObjective,  # a WIP Roll (missions/consoles.py)
                    ClassifiedAction)  # a Classified Objective's WIP Roll (classified_skill.py)
"""Declaring an Attack, a skill with a roll or a Long Skill other than Cautious Movement
reveals a Camouflage Marker (DIGEST 12)."""

ATTACKS = (BsAttack, CcAttack, CommsAttack, ForwardObserver)
"""The skills the rules call an Attack that a trooper may declare at a chosen trooper
(a Direct Template is a BS Attack); none may be declared at a Camouflage Marker."""


def camouflaged(state: GameState, trooper_id: TrooperId) -> bool:
    """Still a marker once the declarations made so far in this Order are counted (its own
    declaration may have revealed it)."""
    trooper = target_or_mine(state, trooper_id)  # a Mine's marker too (mines.py)
    if trooper is None or not trooper.marker or state.order is None:
        return False
    if trooper_id in state.order.activated:
        own = state.order.for_trooper(trooper_id).skills
    else:
        own = (state.order.aros[trooper_id],) if trooper_id in state.order.aros else ()
    return not any(isinstance(skill, REVEALING_SKILLS) for skill in own)
