"""Doctor and Paramedic (combat/support_skills.py), after the Infinity wiki's N5 pages
"Doctor", "Paramedic", "MediKit" and "Unconscious State", and DIGEST 7.7: a Short Skill in
Silhouette contact with an allied Unconscious VITA trooper; the Doctor's Normal WIP Roll (the
Paramedic's patient's PH Roll) brings it back with one Wound fewer, a failure kills it."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from server.rules.combat.outcome import Healed, TreatmentFailed, Wounded
from server.rules.combat.wounds import Condition
from server.rules.events import Event, OrderResolved
from server.rules.ids import Side, TrooperId
from server.rules.options import seat_options
from server.rules.state import GameState
from tests.support.games import close_aro_window, decide, idle_out, play
from tests.support.scenarios import build_state

A, B = Side.A, Side.B
MEDIC, PATIENT, BYSTANDER = "A-t7", "A-t8", "A-t9"
# S2 bases have a 0.5 inch radius here: 1 inch between centres is base (Silhouette) contact.
PLACEMENTS: dict[str, Any] = {
    MEDIC: [10, 10, 90], PATIENT: [11, 10, 90], BYSTANDER: [20, 10, 90],
    "A-t1": [1, 1, 270], "B-t1": [40, 45, 90], "B-t2": [45, 47, 90],
}


def _state(dice: list[int], *, skill: str = "doctor", patient_wounds: int = 1,
           placements: dict[str, Any] = PLACEMENTS) -> GameState:
    state = build_state({"ruleset": "n5", "terrain": [], "placements": placements, "dice": dice,
                         "troopers": {PATIENT: {"condition": "unconscious",
                                                "wounds": patient_wounds}}})
    medic = state.trooper(TrooperId(MEDIC))
    profile = replace(medic.profile, **{skill: True})
    return state.with_trooper(replace(medic, entry=replace(medic.entry, profile=profile)))


def _treat(state: GameState, skill: str = "doctor",
           target: str = PATIENT) -> tuple[GameState, list[Event]]:
    state, _ = play(state, A, {"type": "activate", "trooper": MEDIC, "order": "regular"})
    state, _ = play(state, A, {"type": "declare_skill", "skill": {"type": skill, "target": target}})
    state, _ = close_aro_window(state)
    state, events = idle_out(state)
    return state, events


def _effects(events: list[Event]) -> list[Any]:
    (resolved,) = [e for e in events if isinstance(e, OrderResolved)]
    return list(resolved.outcome.effects)


def test_doctor_passing_the_wip_roll_cancels_unconscious_by_removing_a_wound() -> None:
    """Wiki "Doctor": a passed Normal WIP Roll cancels Unconscious, one Wound removed."""
    state, events = _treat(_state([5]))
    patient = state.trooper(TrooperId(PATIENT))
    assert patient.condition is Condition.NORMAL and patient.wounds == 0
    assert Healed(TrooperId(PATIENT), TrooperId(MEDIC), "doctor", 0, Condition.NORMAL) in _effects(events)


def test_doctor_failing_the_wip_roll_kills_the_patient() -> None:
    """Wiki "Doctor" (N5) and DIGEST 7.7: a failed Doctor roll -> the target is Dead."""
    state, events = _treat(_state([19]))  # WIP 13: 19 fails
    assert state.trooper(TrooperId(PATIENT)).condition is Condition.DEAD
    effects = _effects(events)
    assert TreatmentFailed(TrooperId(PATIENT), TrooperId(MEDIC), "doctor") in effects
    assert any(isinstance(e, Wounded) and e.condition is Condition.DEAD for e in effects)


def test_paramedic_patient_rolls_ph_passed_back_failed_dead() -> None:
    """Wiki "Paramedic"/"MediKit" in contact: the patient rolls PH (10 for a Lancer)."""
    healed, _ = _treat(_state([10], skill="paramedic"), skill="paramedic")
    assert healed.trooper(TrooperId(PATIENT)).condition is Condition.NORMAL
    dead, events = _treat(_state([11], skill="paramedic"), skill="paramedic")
    assert dead.trooper(TrooperId(PATIENT)).condition is Condition.DEAD
    (roll,) = next(e for e in events if isinstance(e, OrderResolved)).outcome.rolls
    assert (roll.trooper, roll.skill, roll.attribute, roll.success_value) == (PATIENT, "paramedic", "PH", 10)


def test_a_trooper_without_the_skill_or_a_conscious_target_is_refused() -> None:
    state = _state([5])
    state, _ = play(state, A, {"type": "activate", "trooper": MEDIC, "order": "regular"})
    paramedic = decide(state, A, {"type": "declare_skill", "skill": {"type": "paramedic", "target": PATIENT}})
    assert getattr(paramedic, "code", None) == "skill_not_allowed"
    awake = decide(state, A, {"type": "declare_skill", "skill": {"type": "doctor", "target": BYSTANDER}})
    assert getattr(awake, "code", None) == "bad_target" and "not Unconscious" in awake.message  # type: ignore[union-attr]
    enemy = decide(state, A, {"type": "declare_skill", "skill": {"type": "doctor", "target": "B-t1"}})
    assert getattr(enemy, "code", None) == "bad_target"


def test_out_of_silhouette_contact_the_doctor_is_idle_and_options_do_not_offer_it() -> None:
    """Silhouette contact is a Requirement: declared apart, the skill is Idle at Resolution;
    options offer only the patients in contact, with the final Success Value."""
    apart = {**PLACEMENTS, PATIENT: [14, 10, 90]}
    state = _state([5], placements=apart)
    opened, _ = play(state, A, {"type": "activate", "trooper": MEDIC, "order": "regular"})
    assert seat_options(opened, A)["skills"]["doctor"] == {}
    after, events = _treat(state)
    assert after.trooper(TrooperId(PATIENT)).condition is Condition.UNCONSCIOUS
    assert any(getattr(e, "reason", None) == "not_in_silhouette_contact" for e in _effects(events))
    near, _ = play(_state([5]), A, {"type": "activate", "trooper": MEDIC, "order": "regular"})
    offered = seat_options(near, A)["skills"]["doctor"]
    assert list(offered) == [PATIENT]
    assert offered[PATIENT]["attribute"] == "WIP" and offered[PATIENT]["sv"] == 13


def test_doctor_after_a_move_into_contact() -> None:
    """A Short Movement Skill then the Doctor's Short Skill, in one Order (seed structure)."""
    state = _state([5], placements={**PLACEMENTS, MEDIC: [8, 10, 90]})
    state, _ = play(state, A, {"type": "activate", "trooper": MEDIC, "order": "regular"})
    state, _ = play(state, A, {"type": "declare_skill",
                               "skill": {"type": "move", "route": [[8, 10], [10, 10]]}})
    state, _ = close_aro_window(state)
    state, _ = play(state, A, {"type": "declare_skill", "skill": {"type": "doctor", "target": PATIENT}})
    state, _ = close_aro_window(state)
    assert state.trooper(TrooperId(PATIENT)).condition is Condition.NORMAL
