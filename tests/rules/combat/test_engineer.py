"""Engineer (combat/support_skills.py), after the Infinity wiki's N5 pages "Engineer",
"GizmoKit", "Targeted State" and "Unconscious State", and DIGEST 7.7 and 8 (Engineer ends
STR Unconscious, Targeted, Immobilized-B, Isolated): a Short Skill in Silhouette contact
with an allied trooper; a Normal WIP Roll removes one Wound from a STR trooper (Unconscious
cancelled), a failure adds one; or, declared to cancel States, ends Targeted,
Immobilized-B and Isolated, a failure changing nothing."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from server.rules.combat.outcome import Healed, TargetedCleared, TreatmentFailed
from server.rules.combat.wounds import Condition
from server.rules.events import OrderResolved
from server.rules.ids import Side, TrooperId
from server.rules.options import seat_options
from server.rules.state import GameState
from tests.support.games import close_aro_window, decide, idle_out, play
from tests.support.scenarios import build_state

A = Side.A
ENGINEER, REMOTE, LANCER = "A-t7", "A-t5", "A-t8"
# Engineer S2 (radius 0.5) and the Strider S3 remote (STR 1): 1.25 inches between centres
# is close enough for contact whatever the S3 radius the table uses (overlap counts).
PLACEMENTS: dict[str, Any] = {
    ENGINEER: [10, 10, 90], REMOTE: [11, 10, 90], LANCER: [10, 11, 90],
    "A-t1": [1, 1, 270], "B-t1": [40, 45, 90], "B-t2": [45, 47, 90],
}


def _state(dice: list[int], troopers: dict[str, Any]) -> GameState:
    state = build_state({"ruleset": "n5", "terrain": [], "placements": PLACEMENTS, "dice": dice,
                         "troopers": troopers})
    engineer = state.trooper(TrooperId(ENGINEER))
    profile = replace(engineer.profile, engineer=True)
    return state.with_trooper(replace(engineer, entry=replace(engineer.entry, profile=profile)))


def _repair(state: GameState, skill: dict[str, Any]) -> tuple[GameState, list[Any]]:
    state, _ = play(state, A, {"type": "activate", "trooper": ENGINEER, "order": "regular"})
    state, _ = play(state, A, {"type": "declare_skill", "skill": skill})
    state, _ = close_aro_window(state)
    state, events = idle_out(state)
    (resolved,) = [e for e in events if isinstance(e, OrderResolved)]
    return state, list(resolved.outcome.effects)


def test_engineer_repairs_an_unconscious_remote() -> None:
    """Wiki "Engineer": a passed WIP Roll removes a Wound; this cancels Unconscious."""
    state, effects = _repair(_state([5], {REMOTE: {"condition": "unconscious", "wounds": 1}}),
                             {"type": "engineer", "target": REMOTE})
    remote = state.trooper(TrooperId(REMOTE))
    assert (remote.condition, remote.wounds) == (Condition.NORMAL, 0)
    assert Healed(TrooperId(REMOTE), TrooperId(ENGINEER), "engineer", 0, Condition.NORMAL) in effects


def test_a_failed_repair_deals_a_wound_instead() -> None:
    """Wiki "Engineer": failed, the target receives a Wound (Unconscious + a Wound: Dead)."""
    state, effects = _repair(_state([20], {REMOTE: {"condition": "unconscious", "wounds": 1}}),
                             {"type": "engineer", "target": REMOTE})
    assert state.trooper(TrooperId(REMOTE)).condition is Condition.DEAD
    assert TreatmentFailed(TrooperId(REMOTE), TrooperId(ENGINEER), "engineer") in effects


def test_engineer_cancels_targeted_and_a_failure_costs_nothing() -> None:
    """Wiki "Engineer" and "Targeted State": the States an Engineer cancels, any ally."""
    skill = {"type": "engineer", "target": LANCER, "cancel_states": True}
    state, effects = _repair(_state([5], {LANCER: {"targeted": True}}), skill)
    assert not state.trooper(TrooperId(LANCER)).targeted
    assert TargetedCleared(TrooperId(LANCER)) in effects
    state, effects = _repair(_state([20], {LANCER: {"targeted": True}}), skill)
    lancer = state.trooper(TrooperId(LANCER))
    assert lancer.targeted and lancer.condition is Condition.NORMAL and lancer.wounds == 0


def test_engineer_refusals_and_options() -> None:
    """Repair needs STR and a Wound; a VITA trooper is a Doctor's. Options offer each way
    with the roll's Success Value (WIP 13)."""
    state = _state([5], {REMOTE: {"wounds": 0}, LANCER: {"targeted": True}})
    state, _ = play(state, A, {"type": "activate", "trooper": ENGINEER, "order": "regular"})
    whole = decide(state, A, {"type": "declare_skill", "skill": {"type": "engineer", "target": REMOTE}})
    assert getattr(whole, "code", None) == "bad_target"
    vita = decide(state, A, {"type": "declare_skill", "skill": {"type": "engineer", "target": LANCER}})
    assert getattr(vita, "code", None) == "bad_target"
    skills = seat_options(state, A)["skills"]
    assert skills["engineer"] == {}
    assert list(skills["engineer_states"]) == [LANCER] and skills["engineer_states"][LANCER]["sv"] == 13
