"""Attacks cannot be declared against a Camouflage Marker (seeds 000.22 / 003.11; the wiki's
"Camouflaged State": an Attack needs the marker Discovered first).

For an ARO the check is made at its declaration, against what the target is then: a marker
that Moved is still a marker at the first ARO step, so a BS, CC or Comms Attack ARO at it is
refused there (``bad_target``) and never offered, even if the marker reveals itself later
in the Order by declaring an Attack as its second skill. A marker that has already revealed
itself by its first skill may be attacked at the first ARO step; one that reveals itself
only by its second skill may be attacked by troopers reacting at the second ARO step.

The active trooper keeps the wiki's Discover + Attack manoeuvre ("Discover" page): it may
declare an Attack on a marker after declaring Discover on it in the same Order; the Attack
resolves only if that Discover succeeds, or if the marker revealed itself by an ARO.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from server.rules.decision import Rejected
from server.rules.events import AroDeclared, OrderResolved
from server.rules.ids import Side, TrooperId
from server.rules.options import seat_options
from server.rules.state import GameState
from server.rules.views import view_event, view_state
from tests.support.games import close_aro_window, decide, play
from tests.support.scenarios import build_state

A, B = Side.A, Side.B
T = TrooperId
MARKER = "A-t3"  # helion-vanguard's Pathfinder Scout (line_rifle): a Camouflage Marker
GUNNER = "B-t3"  # vesper-raiders' Enforcer (punch_carbine, combat_knife)
HACKER = "B-t14"  # the same army on B's side: its Signal Adept (Hacker)


def _table(placements: Mapping[str, list[float]], *, dice: tuple[int, ...] = (),
           b_army: str | None = None) -> GameState:
    setup: dict[str, Any] = {"ruleset": "n5", "terrain": [], "dice": list(dice),
                             "placements": {**placements, "A-t1": [1, 1, 270], "B-t1": [1, 47, 90]}}
    if b_army is not None:
        setup["armies"] = {"B": b_army}
    return build_state(setup)


def _marker_moves(placements: Mapping[str, list[float]] | None = None, **kwargs: Any) -> GameState:
    """The marker (facing north) Moves 3 inches north towards B's troopers."""
    state = _table(placements or {MARKER: [22.5, 10, 90], GUNNER: [22.5, 26, 270]}, **kwargs)
    assert state.trooper(T(MARKER)).marker
    state, _ = play(state, A, {"type": "activate", "trooper": MARKER, "order": "regular"})
    state, _ = play(state, A, {"type": "declare_skill", "skill": {
        "type": "move", "route": [[22.5, 10.0], [22.5, 13.0]]}})
    return state


SHOT_AT_MARKER = {"type": "bs_attack", "weapon": "punch_carbine",
                  "targets": [{"trooper": MARKER, "burst": 1}]}


def _refusal(state: GameState, side: Side, body: dict[str, Any]) -> Rejected:
    decision = decide(state, side, body)
    assert isinstance(decision, Rejected), decision
    return decision


def test_a_bs_attack_aro_at_a_marker_is_refused_at_declaration() -> None:
    state = _marker_moves()
    assert state.order is not None and T(GUNNER) in state.order.eligible
    refused = _refusal(state, B, {"type": "declare_aro", "trooper": GUNNER, "skill": SHOT_AT_MARKER})
    assert refused.code == "bad_target"
    assert "Camouflage Marker" in refused.message and "Discover" in refused.message


def test_the_refusal_does_not_tell_what_the_marker_is() -> None:
    """The reactive player knows only "a marker": the message names neither the trooper's
    unit nor its id, and the same marker refuses the same way whatever it hides."""
    state = _marker_moves()
    refused = _refusal(state, B, {"type": "declare_aro", "trooper": GUNNER, "skill": SHOT_AT_MARKER})
    profile = state.trooper(T(MARKER)).profile
    assert profile.name not in refused.message and "Pathfinder" not in refused.message
    assert MARKER not in refused.message
    # What B's own view shows of the marker is all the refusal depends on: B sees a marker.
    (seen,) = [t for t in view_state(state, B)["troopers"] if t["id"] == MARKER]  # type: ignore[index, union-attr]
    assert seen["marker"] is True and "profile" not in seen


def test_a_bs_attack_aro_at_a_marker_is_not_offered_but_discover_is() -> None:
    state = _marker_moves()
    offer = seat_options(state, B)["aros"][GUNNER]
    assert offer["bs_attack"] == [] and offer["targets"]["bs_attack"] == {}
    assert offer["discover"] is True and offer["targets"]["discover"] == [MARKER]


def test_regression_a_marker_revealing_itself_by_its_second_skill_does_not_make_an_earlier_aro_legal() -> None:
    """The player's report: the marker Moves, B shoots at it at the first ARO step, then the
    marker declares a BS Attack (revealing itself): the reactive shot used to resolve Face to
    Face and could drop it. Now the shot is refused when declared; B's Enforcer answers
    with Discover instead, and only the marker's shot is rolled against it."""
    state = _marker_moves(dice=(20, 20, 20, 20, 20))
    assert isinstance(decide(state, B, {"type": "declare_aro", "trooper": GUNNER,
                                        "skill": SHOT_AT_MARKER}), Rejected)
    _, resolved = _gunner_passes_then_marker_shoots(state)
    assert [r.trooper for r in resolved.outcome.rolls] == [MARKER]


def _gunner_passes_then_marker_shoots(state: GameState) -> tuple[GameState, OrderResolved]:
    """After ``_marker_moves``: B's Enforcer passes, the marker shoots it (revealing itself);
    the state after the resolution, and the resolution."""
    state, _ = play(state, B, {"type": "pass_aro", "trooper": GUNNER})
    state, _ = close_aro_window(state)
    state, _ = play(state, A, {"type": "declare_skill", "skill": {
        "type": "bs_attack", "weapon": "line_rifle", "targets": [{"trooper": GUNNER, "burst": 3}]}})
    state, events = close_aro_window(state)
    (resolved,) = [e for e in events if isinstance(e, OrderResolved)]
    return state, resolved


def test_a_marker_revealed_reaches_others_with_its_profile_and_combat_group() -> None:
    """The resolution that reveals a marker gives the opponent what its view of the trooper
    on the table now holds: the open profile (``profiles``) and the Combat Group
    (``combat_groups``)."""
    state, resolved = _gunner_passes_then_marker_shoots(_marker_moves(dice=(20, 20, 20, 20, 20)))
    assert any(effect.TYPE == "revealed" and effect.trooper == MARKER
               for effect in resolved.outcome.effects)
    seen = view_event(resolved, B, state)
    assert seen is not None
    (on_table,) = [t for t in view_state(state, B)["troopers"] if t["id"] == MARKER]
    assert seen["profiles"][MARKER] == on_table["profile"]
    assert seen["combat_groups"] == {MARKER: on_table["combat_group"]}


def test_after_the_marker_reveals_itself_by_its_first_skill_it_may_be_attacked() -> None:
    """A marker whose first skill is a BS Attack is revealed by declaring it: B's ARO at the
    first step shoots a model, not a marker (Face to Face)."""
    state = _table({MARKER: [22.5, 10, 90], GUNNER: [22.5, 26, 270]}, dice=(20, 20, 20, 20))
    state, _ = play(state, A, {"type": "activate", "trooper": MARKER, "order": "regular"})
    state, _ = play(state, A, {"type": "declare_skill", "skill": {
        "type": "bs_attack", "weapon": "line_rifle", "targets": [{"trooper": GUNNER, "burst": 3}]}})
    assert "punch_carbine" in seat_options(state, B)["aros"][GUNNER]["bs_attack"]
    state, (declared,) = play(state, B, {"type": "declare_aro", "trooper": GUNNER, "skill": SHOT_AT_MARKER})
    assert isinstance(declared, AroDeclared)


def test_a_cc_attack_aro_at_a_marker_in_base_contact_is_refused_and_not_offered() -> None:
    """Even in base contact a CC Attack on a marker is an Attack on a marker."""
    state = _table({MARKER: [22.5, 20, 90], GUNNER: [22.5, 26, 270]})
    gap = state.trooper(T(MARKER)).body().radius + state.trooper(T(GUNNER)).body().radius
    state = _placed(state, MARKER, (22.5, 26.0 - gap))
    state, _ = play(state, A, {"type": "activate", "trooper": MARKER, "order": "regular"})
    state, _ = play(state, A, {"type": "declare_skill", "skill": {"type": "idle"}})
    assert state.order is not None and T(GUNNER) in state.order.eligible
    assert state.trooper(T(MARKER)).marker
    refused = _refusal(state, B, {"type": "declare_aro", "trooper": GUNNER, "skill": {
        "type": "cc_attack", "weapon": "combat_knife", "target": MARKER}})
    assert refused.code == "bad_target" and "Camouflage Marker" in refused.message
    assert seat_options(state, B)["aros"][GUNNER]["cc_attack"] == []


def test_a_comms_attack_aro_at_a_marker_is_refused_and_not_offered() -> None:
    state = _marker_moves({MARKER: [22.5, 10, 90], HACKER: [22.5, 18, 270]}, b_army="helion-vanguard")
    assert state.trooper(T(HACKER)).profile.hacker
    assert state.order is not None and T(HACKER) in state.order.eligible
    refused = _refusal(state, B, {"type": "declare_aro", "trooper": HACKER, "skill": {
        "type": "comms_attack", "program": "tracer_ping", "target": MARKER}})
    assert refused.code == "bad_target" and "Camouflage Marker" in refused.message
    assert seat_options(state, B)["aros"][HACKER]["comms_attack"] == []


def test_the_active_trooper_may_still_discover_then_attack_a_marker() -> None:
    """The wiki's Discover + Attack manoeuvre ("Discover"): an Attack on a marker is
    declared after Discover on it in the same Order (refused without it)."""
    hunter, marker = "A-t7", "B-t3"
    state = _table({hunter: [22.5, 10, 90], marker: [22.5, 26, 270]})
    state = _with_marker(state, marker)
    state, _ = play(state, A, {"type": "activate", "trooper": hunter, "order": "regular"})
    shot = {"type": "bs_attack", "weapon": "line_rifle", "targets": [{"trooper": marker, "burst": 3}]}
    knife = {"type": "cc_attack", "weapon": "combat_knife", "target": marker}
    assert _refusal(state, A, {"type": "declare_skill", "skill": shot}).code == "bad_target"
    assert _refusal(state, A, {"type": "declare_skill", "skill": knife}).code == "bad_target"
    offer = seat_options(state, A)["skills"]
    assert all(marker not in w["targets"] for w in offer["bs_attack"].values())
    assert all(marker not in targets for targets in offer["cc_attack"].values())
    state, _ = play(state, A, {"type": "declare_skill", "skill": {"type": "discover", "target": marker}})
    state, _ = close_aro_window(state)
    state, (declared, *_) = play(state, A, {"type": "declare_skill", "skill": shot})
    assert declared.TYPE == "skill_declared"


def test_the_active_trooper_cannot_cc_attack_a_marker_in_base_contact_without_discover() -> None:
    hunter, marker = "A-t7", "B-t3"
    state = _with_marker(_table({hunter: [22.5, 10, 90], marker: [22.5, 20, 270]}), marker)
    gap = state.trooper(T(hunter)).body().radius + state.trooper(T(marker)).body().radius
    state = _placed(state, marker, (22.5, 10 + gap))
    state, _ = play(state, A, {"type": "activate", "trooper": hunter, "order": "regular"})
    knife = {"type": "cc_attack", "weapon": "combat_knife", "target": marker}
    refused = _refusal(state, A, {"type": "declare_skill", "skill": knife})
    assert refused.code == "bad_target" and "Discover" in refused.message
    assert seat_options(state, A)["skills"]["cc_attack"] == {}


def _with_marker(state: GameState, trooper: str) -> GameState:
    return state.with_trooper(replace(state.trooper(T(trooper)), marker=True))


def _placed(state: GameState, trooper: str, at: tuple[float, float]) -> GameState:
    return state.with_trooper(replace(state.trooper(T(trooper)), position=at))
