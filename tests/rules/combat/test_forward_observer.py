"""Forward Observer (combat/forward_observer.py), after the Infinity wiki's N5 pages
"Forward Observer" and "Targeted State", and DIGEST 4.2 (Short Skill and ARO), 8 (Targeted)
and 13 (its range MODs): a WIP BS Attack (Short Skill or ARO) with its own
range MODs, Burst 2 (1 in ARO), needing LoF; a hit makes the target Targeted, no save."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from server.rules.combat.outcome import TargetedSet
from server.rules.events import OrderResolved
from server.rules.ids import Side, TrooperId
from server.rules.options import seat_options
from server.rules.state import GameState
from tests.support.games import decide, idle_out, play
from tests.support.scenarios import build_state

A, B = Side.A, Side.B
OBSERVER, ENEMY = "A-t7", "B-t3"
PLACEMENTS: dict[str, Any] = {
    OBSERVER: [10, 10, 90], ENEMY: [10, 40, 90], "A-t1": [1, 1, 270],
    "B-t1": [40, 45, 90], "B-t2": [45, 47, 90],
}


def _with_skill(state: GameState, trooper: str) -> GameState:
    found = state.trooper(TrooperId(trooper))
    profile = replace(found.profile, forward_observer=True)
    return state.with_trooper(replace(found, entry=replace(found.entry, profile=profile)))


def _state(dice: list[int], placements: dict[str, Any] = PLACEMENTS,
           observer: str = OBSERVER) -> GameState:
    state = build_state({"ruleset": "n5", "terrain": [], "placements": placements, "dice": dice})
    return _with_skill(state, observer)


def _resolved(events: list[Any]) -> Any:
    return next(e for e in events if isinstance(e, OrderResolved)).outcome


def test_a_hit_makes_the_target_targeted_without_a_save() -> None:
    """30 inches: the -3 band (24-48"). WIP 13 - 3 = SV 10, Burst 2: 5 hits, 20 misses."""
    state = _state([5, 20])
    state, _ = play(state, A, {"type": "activate", "trooper": OBSERVER, "order": "regular"})
    offered = seat_options(state, A)["skills"]["forward_observer"]
    assert ENEMY in offered  # every enemy in its LoF
    assert (offered[ENEMY]["attribute"], offered[ENEMY]["sv"], offered[ENEMY]["burst"]) == ("WIP", 10, 2)
    state, _ = play(state, A, {"type": "declare_skill", "skill": {"type": "forward_observer", "target": ENEMY}})
    state, events = idle_out(state)
    outcome = _resolved(events)
    assert outcome.saves == ()
    assert TargetedSet(TrooperId(ENEMY), "forward_observer") in outcome.effects
    assert state.trooper(TrooperId(ENEMY)).targeted


def test_a_miss_changes_nothing_and_a_non_observer_is_refused() -> None:
    state = _state([15, 20])
    state, _ = play(state, A, {"type": "activate", "trooper": OBSERVER, "order": "regular"})
    state, _ = play(state, A, {"type": "declare_skill", "skill": {"type": "forward_observer", "target": ENEMY}})
    state, _ = idle_out(state)
    assert not state.trooper(TrooperId(ENEMY)).targeted
    other = _state([5])
    other, _ = play(other, A, {"type": "activate", "trooper": "A-t1", "order": "regular"})
    refused = decide(other, A, {"type": "declare_skill", "skill": {"type": "forward_observer", "target": ENEMY}})
    assert getattr(refused, "code", None) == "skill_not_allowed"
    assert seat_options(other, A)["skills"]["forward_observer"] == {}


def test_forward_observer_in_aro_marks_the_active_trooper_with_burst_1() -> None:
    """Short Skill / ARO (wiki): the reacting observer faces the active trooper."""
    placements = {**PLACEMENTS, ENEMY: [10, 30, 270]}
    state = _state([5], placements, observer=ENEMY)
    state, _ = play(state, A, {"type": "activate", "trooper": OBSERVER, "order": "regular"})
    state, _ = play(state, A, {"type": "declare_skill", "skill": {"type": "move", "route": [[10, 10], [10, 12]]}})
    aro = seat_options(state, B)["aros"][ENEMY]
    assert aro["forward_observer"] == [OBSERVER]
    assert aro["forward_observer_rolls"][OBSERVER][0]["burst"] == 1
    state, _ = play(state, B, {"type": "declare_aro", "trooper": ENEMY,
                               "skill": {"type": "forward_observer", "target": OBSERVER}})
    state, events = idle_out(state)
    (roll,) = _resolved(events).rolls
    assert (roll.skill, roll.burst, roll.attribute) == ("forward_observer", 1, "WIP")
    assert state.trooper(TrooperId(OBSERVER)).targeted


def test_a_camouflage_marker_is_marked_only_after_discover() -> None:
    """An Attack on a Camouflage Marker needs Discover first (DIGEST 12): refused alone."""
    state = _state([5, 5], {**PLACEMENTS, "B-t2": [12, 30, 90]})
    ghost = state.trooper(TrooperId("B-t2"))
    camo = replace(ghost.profile, camouflage=3, mimetism=3)
    state = state.with_trooper(replace(ghost, marker=True, entry=replace(ghost.entry, profile=camo)))
    state, _ = play(state, A, {"type": "activate", "trooper": OBSERVER, "order": "regular"})
    refused = decide(state, A, {"type": "declare_skill", "skill": {"type": "forward_observer", "target": "B-t2"}})
    assert getattr(refused, "code", None) == "bad_target"
    assert "B-t2" not in seat_options(state, A)["skills"]["forward_observer"]
