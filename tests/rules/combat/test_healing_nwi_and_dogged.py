"""DIGEST 7.7 (wounds, Unconscious, Doctor) with No Wound Incapacitation and Dogged
(``combat/incapacitation.py``, ``combat/support_skills.py``; infinitythewiki "No Wound
Incapacitation" (N5), "Dogged" (its N4 revision, the N5 one being cut off before that
bullet), "Doctor", "Engineer"): a trooper fighting on with NWI at its threshold may be healed
as an Unconscious one (passed, one Wound fewer and its NWI token gone; failed, Dead); a
trooper that used Dogged cannot be healed by a Doctor, a Paramedic or an Engineer's repair.
The pages give no worked example: the tests follow their bullet points."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from server.rules.combat.outcome import Healed, TreatmentFailed
from server.rules.combat.wounds import Condition
from server.rules.events import Event, OrderResolved
from server.rules.ids import Side, TrooperId
from server.rules.options import seat_options
from server.rules.state import GameState
from tests.support.games import close_aro_window, decide, idle_out, play
from tests.support.scenarios import build_state

A = Side.A
MEDIC, PATIENT = "A-t7", "A-t8"
# S2 bases have a 0.5 inch radius here: 1 inch between centres is base (Silhouette) contact.
PLACEMENTS: dict[str, Any] = {
    MEDIC: [10, 10, 90], PATIENT: [11, 10, 90],
    "A-t1": [1, 1, 270], "B-t1": [40, 45, 90], "B-t2": [45, 47, 90],
}


def _state(dice: list[int], *, healer: str = "doctor", nwi: bool = False,
           dogged: bool = False) -> GameState:
    """A healer in contact with a Lancer (VITA 1) standing at its threshold (1 wound) in the
    Normal condition: on NWI, or on Dogged used this Player Turn."""
    state = build_state({"ruleset": "n5", "terrain": [], "placements": PLACEMENTS, "dice": dice,
                         "troopers": {PATIENT: {"wounds": 1}}})
    medic = state.trooper(TrooperId(MEDIC))
    state = state.with_trooper(replace(medic, entry=replace(
        medic.entry, profile=replace(medic.profile, **{healer: True}))))
    patient = state.trooper(TrooperId(PATIENT))
    assert patient.profile.vita == 1 and patient.condition is Condition.NORMAL
    profile = replace(patient.profile, nwi=nwi, dogged=dogged)
    return state.with_trooper(replace(
        patient, entry=replace(patient.entry, profile=profile),
        dogged_in=(state.round, state.turn) if dogged else None))


def _treat(state: GameState, skill: str) -> tuple[GameState, list[Event]]:
    state, _ = play(state, A, {"type": "activate", "trooper": MEDIC, "order": "regular"})
    state, _ = play(state, A, {"type": "declare_skill", "skill": {"type": skill, "target": PATIENT}})
    state, _ = close_aro_window(state)
    return idle_out(state)


def _effects(events: list[Event]) -> list[Any]:
    (resolved,) = [e for e in events if isinstance(e, OrderResolved)]
    return list(resolved.outcome.effects)


def test_digest_7_7_a_doctor_heals_a_trooper_fighting_on_with_nwi_and_options_offer_it() -> None:
    """NWI (N5): its user can be healed by a Doctor, one Wound removed, back to Normal, the
    NWI token gone; options offer the treatment with its final Success Value."""
    state = _state([5], nwi=True)
    opened, _ = play(state, A, {"type": "activate", "trooper": MEDIC, "order": "regular"})
    offered = seat_options(opened, A)["skills"]["doctor"]
    assert list(offered) == [PATIENT] and offered[PATIENT]["sv"] == 13
    healed, events = _treat(state, "doctor")
    patient = healed.trooper(TrooperId(PATIENT))
    assert (patient.condition, patient.wounds) == (Condition.NORMAL, 0)
    assert Healed(TrooperId(PATIENT), TrooperId(MEDIC), "doctor", 0, Condition.NORMAL) in _effects(events)


def test_digest_7_7_a_failed_heal_of_a_trooper_on_nwi_kills_it() -> None:
    """NWI (N5): if the Roll to heal it fails, the trooper enters the Dead State, whether
    the Doctor's WIP Roll or the patient's own PH Roll for a Paramedic fails."""
    doctor, events = _treat(_state([19], nwi=True), "doctor")  # WIP 13: 19 fails
    assert doctor.trooper(TrooperId(PATIENT)).condition is Condition.DEAD
    assert TreatmentFailed(TrooperId(PATIENT), TrooperId(MEDIC), "doctor") in _effects(events)
    paramedic, _ = _treat(_state([11], healer="paramedic", nwi=True), "paramedic")  # PH 10
    assert paramedic.trooper(TrooperId(PATIENT)).condition is Condition.DEAD


def test_digest_7_7_a_trooper_that_used_dogged_cannot_be_healed_nor_is_offered() -> None:
    """Dogged: once used, no Doctor or Paramedic heals the trooper; the refusal says why and
    options offer no treatment of it."""
    for healer in ("doctor", "paramedic"):
        state = _state([5], healer=healer, dogged=True)
        opened, _ = play(state, A, {"type": "activate", "trooper": MEDIC, "order": "regular"})
        assert seat_options(opened, A)["skills"][healer] == {}
        refused = decide(opened, A, {"type": "declare_skill",
                                     "skill": {"type": healer, "target": PATIENT}})
        assert getattr(refused, "code", None) == "bad_target"
        assert "Dogged" in refused.message  # type: ignore[union-attr]


def test_digest_7_7_an_engineer_does_not_repair_a_dogged_trooper_but_may_cancel_its_states() -> None:
    """Dogged prevents healing, an Engineer's repair included (a Wound removed); cancelling
    States is no healing and stays open (infinitythewiki "Engineer")."""
    state = _state([5], healer="engineer", dogged=True)
    patient = state.trooper(TrooperId(PATIENT))
    profile = replace(patient.profile, structure=True)
    state = state.with_trooper(replace(patient, entry=replace(patient.entry, profile=profile),
                                       targeted=True))
    opened, _ = play(state, A, {"type": "activate", "trooper": MEDIC, "order": "regular"})
    skills = seat_options(opened, A)["skills"]
    assert skills["engineer"] == {} and list(skills["engineer_states"]) == [PATIENT]
    refused = decide(opened, A, {"type": "declare_skill",
                                 "skill": {"type": "engineer", "target": PATIENT}})
    assert getattr(refused, "code", None) == "bad_target"
    assert "Dogged" in refused.message  # type: ignore[union-attr]
