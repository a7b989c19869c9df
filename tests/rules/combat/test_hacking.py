"""Hacking slice (hacking.py): Face to Face pairing of Comms Attacks, the Guts move out of
a Hacking Area, Hacking Areas through Repeaters, and what options offer (DIGEST 6.1, 6.3,
7.4, 7.8, 10.3, 13)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import server.rules
from server.rules.combat.attacks import face_to_face_opponents
from server.rules.combat.hacking import in_hacking_area
from server.rules.combat.outcome import Moved
from server.rules.combat.plan import PlannedRoll
from server.rules.commands import parse_command
from server.rules.decision import Rejected
from server.rules.engine import decide
from server.rules.events import (
    AroPassed,
    AroWindowClosed,
    AroWindowOpened,
    GutsReacted,
    GutsWindowOpened,
)
from server.rules.ids import SPECTATOR, Side, TrooperId
from server.rules.options import seat_options
from server.rules.state import GameState
from server.rules.views import view_event, view_state
from tests.support.games import close_aro_window, play
from tests.support.scenarios import build_state

A, B = Side.A, Side.B
ARMY_DATA = Path(server.rules.__file__).resolve().parent / "data" / "armies"
HACKER, REPEATER, TARGET, FAR = "A-t14", "A-p1", "B-t3", "B-t1"
PLACEMENTS: dict[str, Any] = {
    HACKER: [10, 10, 90], REPEATER: [30, 30, 90], TARGET: [30, 36, 90],
    "A-t1": [1, 1, 270], FAR: [1, 47, 90], "B-t2": [40, 47, 90],
}


def _state(placements: dict[str, Any] = PLACEMENTS, dice: list[int] | None = None,
           armies: dict[str, str] | None = None) -> GameState:
    setup: dict[str, Any] = {"ruleset": "n5", "terrain": [], "placements": placements}
    if dice:
        setup["dice"] = dice
    if armies:
        setup["armies"] = armies
    return build_state(setup)


def _roll(trooper: str, active: bool, skill: str, target: str | None) -> PlannedRoll:
    return PlannedRoll(trooper=TrooperId(trooper), active=active, skill=skill,
                       target=TrooperId(target) if target else None, weapon=None,
                       attribute="WIP", base=13, mods=(), burst=1)


def test_reset_is_face_to_face_only_against_a_comms_attack_and_dodge_only_against_bs() -> None:
    """DIGEST 6.3: Reset is F2F against Comms Attacks (not against BS Attacks); a Dodge does
    not oppose a Comms Attack; two attacks at each other are F2F whatever their kind."""
    hack = _roll("h", True, "comms_attack", "t")
    assert face_to_face_opponents([hack, _roll("t", False, "reset", None)]) == ((1,), (0,))
    assert face_to_face_opponents([hack, _roll("t", False, "dodge", None)]) == ((), ())
    assert face_to_face_opponents([hack, _roll("t", False, "bs_attack", "h")]) == ((1,), (0,))
    assert face_to_face_opponents([hack, _roll("t", False, "comms_attack", "h")]) == ((1,), (0,))
    shot = _roll("s", True, "bs_attack", "t")
    assert face_to_face_opponents([shot, _roll("t", False, "reset", None)]) == ((), ())
    assert face_to_face_opponents([shot, _roll("t", False, "dodge", None)]) == ((1,), (0,))


def test_hacking_area_is_the_hackers_zoc_plus_its_armys_repeaters() -> None:
    """DIGEST 10.3 (S35); a Null Repeater extends nothing."""
    state = _state()
    hacker, target = state.trooper(TrooperId(HACKER)), state.trooper(TrooperId(TARGET))
    assert in_hacking_area(state, hacker, target.body())
    gone = state.with_trooper(replace(state.trooper(TrooperId(REPEATER)), position=None))
    assert not in_hacking_area(gone, hacker, target.body())
    near = state.trooper(TrooperId("A-t1"))
    assert in_hacking_area(gone, hacker, near.body((10, 17)))


def test_failed_guts_against_a_comms_attack_moves_out_of_the_hacking_area() -> None:
    """DIGEST 7.8 (1): leave the area of effect of a no-LoF attack: for a Comms Attack, the
    Hacker's Hacking Area (here its own ZoC, no Repeater on the table)."""
    placements = {HACKER: [10, 10, 90], TARGET: [10, 18.7, 90], "A-t1": [1, 1, 270],
                  FAR: [1, 47, 90], "B-t2": [40, 47, 90]}
    # Program: 5 and 6 succeed (Normal Roll, B-t3 passes); both saves (20, 20) fail; Guts 20 fails.
    state = _state(placements, dice=[5, 6, 20, 20, 20])
    state, _ = play(state, A, {"type": "activate", "trooper": HACKER, "order": "regular"})
    hack = {"type": "comms_attack", "program": "tracer_ping", "target": TARGET}
    state, _ = play(state, A, {"type": "declare_skill", "skill": hack})
    state, _ = play(state, B, {"type": "pass_aro", "trooper": TARGET})
    state, _ = close_aro_window(state)
    state, _ = play(state, A, {"type": "declare_skill", "skill": {"type": "idle"}})
    state, events = close_aro_window(state)
    (opened,) = [e for e in events if isinstance(e, GutsWindowOpened)]
    assert opened.reason == "guts_out_of_reach" and opened.side is B
    # Still inside the Hacker's ZoC (8 inches): refused, naming the Hacking Area.
    inside = {"type": "choose_guts_move", "order": 1, "trooper": TARGET,
              "route": [[10, 18.7], [10, 17.2]]}
    refused = decide(state, B, parse_command(inside))
    assert isinstance(refused, Rejected) and refused.code == "guts_still_in_reach"
    assert "Hacking Area" in refused.message
    state, events = play(state, B, {"type": "choose_guts_move", "order": 1, "trooper": TARGET})
    (reacted,) = [e for e in events if isinstance(e, GutsReacted)]
    assert reacted.choice == "default" and isinstance(reacted.effect, Moved)
    assert reacted.effect.reason == "guts_out_of_reach"
    hacker, target = state.trooper(TrooperId(HACKER)), state.trooper(TrooperId(TARGET))
    assert not in_hacking_area(state, hacker, target.body())
    assert state.trooper(TrooperId(TARGET)).targeted


def test_options_offer_a_comms_attack_to_hackers_on_targets_in_their_hacking_area_only() -> None:
    state = _state({**PLACEMENTS, "A-t7": [45, 5, 90]})
    state, _ = play(state, A, {"type": "activate", "trooper": HACKER, "order": "regular"})
    assert seat_options(state, A)["skills"]["comms_attack"] == {"tracer_ping": [TARGET]}
    other = _state({**PLACEMENTS, "A-t7": [45, 5, 90]})
    other, _ = play(other, A, {"type": "activate", "trooper": "A-t7", "order": "regular"})
    assert seat_options(other, A)["skills"]["comms_attack"] == {}


def test_aro_options_for_a_comms_target_and_for_a_hacker_reacting_from_its_area() -> None:
    state = _state()
    state, _ = play(state, A, {"type": "activate", "trooper": HACKER, "order": "regular"})
    hack = {"type": "comms_attack", "program": "tracer_ping", "target": TARGET}
    state, _ = play(state, A, {"type": "declare_skill", "skill": hack})
    row = seat_options(state, B)["aros"][TARGET]
    assert row["comms_target"] is True and row["line_of_fire"] is False and row["reset"] is True
    assert row["comms_attack"] == []  # not a Hacker
    reactive = _state({"A-t3": [30, 18, 90], "B-t14": [10, 38, 90], "B-p1": [30, 30, 90],
                       "A-t1": [1, 1, 270], "B-t1": [1, 47, 90]},
                      armies={"A": "vesper-raiders", "B": "helion-vanguard"})
    reactive, _ = play(reactive, A, {"type": "activate", "trooper": "A-t3", "order": "regular"})
    move = {"type": "move", "route": [[30, 18], [30, 22]]}
    reactive, _ = play(reactive, A, {"type": "declare_skill", "skill": move})
    row = seat_options(reactive, B)["aros"]["B-t14"]
    assert row["hacking_area"] is True and row["comms_attack"] == ["tracer_ping"]
    assert row["bs_attack"] == [] and row["dodge"] is True


# --- a Camouflage Marker eligible only through its Hacking Area ------------------------------


def _camouflaged_hacker_army() -> dict[str, Any]:
    """helion-vanguard with its Signal Adept (Hacker, B-t14 as side B) camouflaged (CH 3)."""
    army: dict[str, Any] = json.loads((ARMY_DATA / "helion-vanguard.json").read_text())
    for unit in army["units"]:
        if unit["id"] == "adept":
            unit.update(camouflage=3, mimetism=3)
    return army


MARKER, GNAT, MOVER = "B-t14", "B-p1", "A-t3"
WALL = {"id": "wall", "polygon": [[12, 30], [14, 30], [14, 46], [12, 46]], "height": 6,
        "gives_cover": True}


def _marker_window() -> tuple[GameState, AroWindowOpened]:
    """A's Enforcer moves 7 inches from B's Gnat (its Repeater's ZoC: the Hacker's Hacking
    Area); the camouflaged Hacker, behind a wall 25 inches away, neither sees it nor has it in
    ZoC. The Gnat is eligible openly (ZoC), the marker only through its private profile."""
    state = build_state({"ruleset": "n5", "terrain": [WALL],
                         "armies": {"A": "vesper-raiders", "B": _camouflaged_hacker_army()},
                         "placements": {MOVER: [30, 18, 90], MARKER: [10, 38, 90], GNAT: [30, 30, 90],
                                        "A-t1": [1, 1, 270], "B-t1": [1, 47, 90]}})
    assert state.trooper(TrooperId(MARKER)).marker
    state, _ = play(state, A, {"type": "activate", "trooper": MOVER, "order": "regular"})
    state, events = play(state, A, {"type": "declare_skill", "skill": {"type": "move", "route": [[30, 18], [30, 22]]}})
    (opened,) = [e for e in events if isinstance(e, AroWindowOpened)]
    why = {e.trooper: e for e in opened.eligible}
    assert set(why) == {GNAT, MARKER}
    assert why[MARKER].hacking_area and not (why[MARKER].line_of_fire or why[MARKER].zone_of_control)
    assert why[GNAT].zone_of_control
    return state, opened


def test_digest_13_a_markers_hacking_area_eligibility_is_shown_only_to_its_owner() -> None:
    """DIGEST 10.1 (what a marker is) and 13 (Hacking Area): the opponent and spectators see
    the window open with the Gnat only; nothing of the marker, in the event or the state."""
    state, opened = _marker_window()
    mine = view_event(opened, B, state)
    assert mine is not None and {x["trooper"] for x in mine["eligible"]} == {GNAT, MARKER}
    for viewer in (A, SPECTATOR):
        seen = view_event(opened, viewer, state)
        assert seen is not None and [x["trooper"] for x in seen["eligible"]] == [GNAT]
        assert MARKER not in json.dumps(seen)
        order = view_state(state, viewer)["order"]
        assert set(order["eligible"]) == {GNAT} and MARKER not in json.dumps(order)
    assert set(view_state(state, B)["order"]["eligible"]) == {GNAT, MARKER}


def test_digest_13_a_markers_pass_through_its_hacking_area_is_private() -> None:
    state, _ = _marker_window()
    state, (passed,) = play(state, B, {"type": "pass_aro", "trooper": MARKER})
    assert isinstance(passed, AroPassed) and passed.hidden
    assert view_event(passed, B, state) is not None
    assert view_event(passed, A, state) is None and view_event(passed, SPECTATOR, state) is None
    state, (gnat,) = play(state, B, {"type": "pass_aro", "trooper": GNAT})
    assert isinstance(gnat, AroPassed) and not gnat.hidden  # eligible openly: an open pass
    assert view_event(gnat, A, state) is not None


def test_digest_13_a_markers_lost_aro_through_its_hacking_area_is_private() -> None:
    state, _ = _marker_window()
    state, (closed,) = close_aro_window(state)
    assert isinstance(closed, AroWindowClosed)
    assert closed.lost == (TrooperId(GNAT),) and closed.lost_hidden == (TrooperId(MARKER),)
    mine = view_event(closed, B, state)
    assert mine is not None and mine["lost_hidden"] == [MARKER]
    for viewer in (A, SPECTATOR):
        seen = view_event(closed, viewer, state)
        assert seen is not None and seen["lost"] == [GNAT] and seen["lost_hidden"] == []
        assert MARKER not in json.dumps(seen)
