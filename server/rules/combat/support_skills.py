"""Doctor, Paramedic and Engineer: Short Skills that bring an allied trooper back into the
fight (DIGEST 7.7, 8; the Infinity wiki's N5 pages "Doctor", "Paramedic", "Engineer",
"MediKit", "GizmoKit", "Unconscious State", "Targeted State").

* **Doctor** (``UnitProfile.doctor``): its target is an allied trooper with VITA (not STR)
  in the Unconscious State, in Silhouette contact. A Normal WIP Roll: passed, the patient
  loses one Wound and with it the Unconscious State; failed, the patient is Dead.
* **Paramedic** (``UnitProfile.paramedic``): the same target and contact; the Paramedic
  spends the Short Skill with no roll of its own and the *patient* makes a Normal PH Roll,
  as with a MediKit used in contact: passed, one Wound fewer and no longer Unconscious;
  failed, it takes a Wound instead, and an Unconscious trooper that takes a Wound is Dead.
* **Engineer** (``UnitProfile.engineer``), in Silhouette contact with an allied trooper, a
  Normal WIP Roll, in one of two ways the declaration names:
  - repair (``cancel_states`` false): the target has STR and at least one Wound; passed, one
    Wound fewer (Unconscious cancelled if it was); failed, one Wound more, which may make it
    Unconscious or Dead on the wound track (``wounds.py``);
  - cancel States (``cancel_states`` true): passed, every State an Engineer cancels that the
    target is in ends (Targeted, Immobilized-B, Isolated: the ones this engine has); failed,
    nothing happens.
  N5.2 lets an Engineer use it on itself (it is never Null while it acts).

No Wound Incapacitation and Dogged (``incapacitation.py``; the wiki's "No Wound
Incapacitation" and "Dogged"): a trooper fighting on with NWI at its threshold is a patient
as an Unconscious one is (passed, one Wound fewer; failed, Dead); a trooper that used Dogged
is healed by nothing (refused ``bad_target``), though an Engineer may still cancel its States.

Silhouette contact is a Requirement checked at Resolution, as base contact for a CC Attack:
declared out of contact the skill is Idle (``not_in_silhouette_contact``) and ``options``
offers only patients in contact. Silhouette contact is read as base contact on this table
(docs/rules-decisions/specialists.md). Not built: Doctor (2W), the (ReRoll) variants, remote
MediKit/GizmoKit use, a Command Token reroll of the roll, Stunned cancelled by a Doctor.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..armies.skills import Doctor, Engineer, Paramedic, Skill
from ..decision import require
from ..reasons import Reason
from ..state import GameState, TrooperState
from ..table.geometry import in_base_contact
from .incapacitation import fights_on_with_nwi, unhealable_by_dogged
from .outcome import (
    Effect,
    Healed,
    ImmobilizedBCleared,
    IsolatedCleared,
    RollRecord,
    TargetedCleared,
    TreatmentFailed,
    Wounded,
)
from .plan import Plan, PlannedRoll
from .skill_plans import idle
from .wounds import Condition

SupportSkill = Doctor | Paramedic | Engineer
SUPPORT_ROLLS = ("doctor", "paramedic", "engineer")
"""The ``PlannedRoll.skill`` of the rolls this module plans and judges."""

_NAMES = {"doctor": "a Doctor", "paramedic": "a Paramedic", "engineer": "an Engineer"}


def has_skill(trooper: TrooperState, skill: SupportSkill) -> bool:
    profile = trooper.profile
    return {"doctor": profile.doctor, "paramedic": profile.paramedic,
            "engineer": profile.engineer}[skill.TYPE]


def cancellable_states(trooper: TrooperState) -> bool:
    """Whether ``trooper`` is in a State an Engineer cancels (that this engine has)."""
    return trooper.targeted or trooper.immobilized_b or trooper.isolated


def check_support_declaration(state: GameState, user: TrooperState, skill: SupportSkill) -> None:
    """Declaration checks (rejections): the user has the skill, and the target is an allied
    trooper on the table that the skill can treat. Silhouette contact is not checked here:
    it is a Requirement of Resolution (``planned_support``)."""
    require(has_skill(user, skill), Reason.SKILL_NOT_ALLOWED,
            f"{user.profile.name} is not {_NAMES[skill.TYPE]}.")
    target = state.troopers.get(skill.target)
    require(target is not None and target.side is user.side and target.on_table
            and not target.marker,
            Reason.BAD_TARGET, "The target must be an allied trooper on the table, as a model.")
    assert target is not None
    problem = treatment_problem(user, target, skill)
    require(problem is None, Reason.BAD_TARGET, problem or "")


def treatment_problem(user: TrooperState, target: TrooperState, skill: Skill) -> str | None:
    """Why ``skill`` cannot treat ``target`` (a message a player reads), or None."""
    name = target.profile.name
    dogged = f"{name} fights on with Dogged: it cannot be healed."
    if isinstance(skill, Doctor | Paramedic):
        if target.profile.structure:
            return f"{name} has STR, not VITA: an Engineer repairs it."
        if unhealable_by_dogged(target):
            return dogged
        if target.condition is not Condition.UNCONSCIOUS and not fights_on_with_nwi(target):
            return f"{name} is not Unconscious."
        return None
    if not isinstance(skill, Engineer):
        return "Not a Doctor, Paramedic or Engineer skill."
    if target.condition is Condition.DEAD:
        return f"{name} is Dead."
    if skill.cancel_states:
        if not cancellable_states(target):
            return f"{name} is in no State an Engineer cancels."
        return None
    if not target.profile.structure:
        return f"{name} has VITA, not STR: a Doctor or Paramedic treats it."
    if target.wounds == 0:
        return f"{name} has no Wound to repair."
    if unhealable_by_dogged(target):
        return dogged
    return None


def planned_support(state: GameState, user: TrooperState, skill: SupportSkill) -> Plan:
    """The roll a Doctor, Paramedic or Engineer declaration makes at Resolution, or the Idle
    it becomes (target gone, no longer treatable, or out of Silhouette contact)."""
    target = state.troopers.get(skill.target)
    if target is None or not target.on_table or target.side is not user.side:
        return idle(user, skill, "target_not_allied")
    if treatment_problem(user, target, skill) is not None:
        return idle(user, skill, "target_not_treatable")
    if target.id != user.id and not in_base_contact(user.body(), target.body()):
        return idle(user, skill, "not_in_silhouette_contact")
    if isinstance(skill, Paramedic):  # the patient rolls PH (MediKit in contact)
        roll = PlannedRoll(trooper=target.id, active=True, skill="paramedic", target=user.id,
                           weapon=None, attribute="PH", base=target.profile.ph, mods=(),
                           burst=1)
    else:
        roll = PlannedRoll(trooper=user.id, active=True, skill=skill.TYPE, target=target.id,
                           weapon=None, attribute="WIP", base=user.profile.wip, mods=(),
                           burst=1)
    return Plan(rolls=(roll,))


def support_effects(state: GameState, rolls: Sequence[tuple[PlannedRoll, RollRecord]],
                    skills: Sequence[Skill]) -> tuple[Effect, ...]:
    """What each passed or failed Doctor, Paramedic or Engineer roll does to its patient.
    ``skills`` are the activated troopers' declarations (an Engineer's names its way)."""
    effects: list[Effect] = []
    for planned, record in rolls:
        if planned.skill not in SUPPORT_ROLLS or planned.target is None:
            continue
        if planned.skill == "paramedic":
            user, patient = state.trooper(planned.target), state.trooper(planned.trooper)
        else:
            user, patient = state.trooper(planned.trooper), state.trooper(planned.target)
        passed = record.successes + record.criticals > 0
        states_only = any(isinstance(s, Engineer) and s.cancel_states and s.target == patient.id
                          for s in skills)
        if states_only:
            effects.extend(states_cleared(patient) if passed else
                           (TreatmentFailed(patient.id, user.id, planned.skill),))
        elif passed:
            effects.append(Healed(patient.id, user.id, planned.skill, max(0, patient.wounds - 1),
                                  Condition.NORMAL))
        else:
            effects.append(TreatmentFailed(patient.id, user.id, planned.skill))
            effects.append(_failure_wound(patient, planned.skill))
    return tuple(effects)


def states_cleared(trooper: TrooperState) -> tuple[Effect, ...]:
    """What cancelling the trooper's Targeted, Isolated and Immobilized-B States records: a
    successful Reset (DIGEST 6.3, 8) or an Engineer's passed roll to cancel States."""
    effects: list[Effect] = []
    if trooper.targeted:
        effects.append(TargetedCleared(trooper.id))
    if trooper.isolated:
        effects.append(IsolatedCleared(trooper.id))
    if trooper.immobilized_b:
        effects.append(ImmobilizedBCleared(trooper.id))
    return tuple(effects)


def _failure_wound(patient: TrooperState, skill: str) -> Wounded:
    """A failed Doctor roll kills its patient outright; a failed Paramedic (MediKit) or
    Engineer roll deals one Wound, on the wound track (Unconscious + a Wound = Dead)."""
    wounds = patient.wounds + 1
    if skill == "doctor" or patient.condition is Condition.UNCONSCIOUS:
        return Wounded(patient.id, max(wounds, patient.profile.vita + 1), Condition.DEAD)
    vita = patient.profile.vita
    condition = (Condition.DEAD if wounds > vita
                 else Condition.UNCONSCIOUS if wounds == vita else Condition.NORMAL)
    return Wounded(patient.id, wounds, condition)
