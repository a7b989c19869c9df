"""Multispectral Visor against Mimetism (wiki "Multispectral Visor", "Mimetism"; DIGEST 10):
Level 1 cancels Mimetism -3 and leaves -3 of a Mimetism -6; Levels 2 and 3 cancel any
Mimetism; for BS Attacks and Discover, shown in ``options`` with the final Success Value and
rolled with exactly those MODs (server/rules/combat/multispectral_visor.py)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from server.rules.armies.profiles import profile_problems
from server.rules.combat.mods import bs_attack_mods, discover_mods
from server.rules.combat.multispectral_visor import mimetism_seen_through
from server.rules.combat.rolls import Mod
from server.rules.ids import Side, TrooperId
from server.rules.options import seat_options
from server.rules.state import GameState
from server.rules.table.terrain import standard_table
from tests.support.games import close_aro_window, play
from tests.support.scenarios import build_state

from .resolution_builders import RIFLE, profile, trooper

A, B = Side.A, Side.B
LANCER, GHOST = "A-t7", "B-t2"
"""A Lancer (BS 11, Line Rifle) and a Ghost Infiltrator (Mimetism -6) of the N5 sample lists."""


@pytest.mark.parametrize(("level", "mimetism", "left"), [
    (0, 3, 3), (0, 6, 6), (1, 0, 0), (1, 3, 0), (1, 6, 3), (2, 3, 0), (2, 6, 0), (3, 6, 0),
])
def test_what_each_level_leaves_of_mimetism(level: int, mimetism: int, left: int) -> None:
    assert mimetism_seen_through(level, mimetism) == left


def test_level_1_halves_mimetism_6_in_a_bs_attack() -> None:
    """The visor's cut is listed as its own MOD beside the Mimetism it cuts."""
    shooter = trooper("s", A, (10, 10), 0.0)
    target = trooper("t", B, (20, 10), 180.0, mimetism=6)
    shot = bs_attack_mods(RIFLE, target, shooter.body(), target.body(), standard_table(), 1)
    assert shot.mods == (Mod("range", 3), Mod("mimetism", -6), Mod("multispectral_visor", 3))


def test_a_visor_adds_nothing_against_a_trooper_without_mimetism() -> None:
    shooter = trooper("s", A, (10, 10), 0.0)
    target = trooper("t", B, (20, 10), 180.0)
    shot = bs_attack_mods(RIFLE, target, shooter.body(), target.body(), standard_table(), 3)
    assert shot.mods == (Mod("range", 3),)


def test_level_1_cancels_a_camouflage_markers_mimetism_3_for_discover() -> None:
    seer = trooper("s", A, (1, 10), 0.0)
    marker = trooper("m", B, (40, 10), 180.0, mimetism=3, camouflage=3, marker=True)
    shot = discover_mods(marker, seer.body(), marker.body(), standard_table(), 1)
    assert shot.mods == (Mod("range", -3), Mod("mimetism", -3), Mod("multispectral_visor", 3))


def _with_visor(state: GameState, trooper_id: str, level: int) -> GameState:
    t = state.trooper(TrooperId(trooper_id))
    visor = replace(t.entry.profile, multispectral_visor=level)
    return state.with_trooper(replace(t, entry=replace(t.entry, profile=visor)))


def test_options_offer_the_final_success_value_through_the_visor_and_the_roll_matches() -> None:
    """BS 11, Line Rifle at about 15 inches (+3) against the Ghost's Mimetism -6, through a
    Multispectral Visor L2: SV 14 offered and rolled (without the visor it is 8)."""
    state = build_state({"ruleset": "n5", "terrain": [], "dice": [20] * 8, "placements": {
        LANCER: [22.5, 4, 90], GHOST: [22.5, 19, 90], "A-t1": [3.5, 1.5, 90],
        "B-t1": [3.5, 46.5, 90]}})
    state = _with_visor(state, LANCER, 2)
    state, _ = play(state, A, {"type": "activate", "trooper": LANCER, "order": "regular"})
    shot = seat_options(state, A)["skills"]["bs_attack"]["line_rifle"]["shots"][GHOST]
    assert shot["mods"] == [{"source": "range", "value": 3}, {"source": "mimetism", "value": -6},
                            {"source": "multispectral_visor", "value": 6}]
    assert shot["sv"] == 14
    state, _ = play(state, A, {"type": "declare_skill", "skill": {
        "type": "bs_attack", "weapon": "line_rifle", "targets": [{"trooper": GHOST, "burst": 3}]}})
    state, _ = close_aro_window(state)
    state, _ = play(state, A, {"type": "declare_skill", "skill": {
        "type": "move", "route": [[22.5, 4], [22.5, 5]]}})
    state, events = close_aro_window(state)
    (roll,) = [r for e in events if hasattr(e, "outcome") for r in e.outcome.rolls
               if r.trooper == LANCER]
    assert roll.success_value == 14 and Mod("multispectral_visor", 6) in roll.mods


def test_a_profile_refuses_a_visor_level_beyond_3() -> None:
    bad = replace(profile("x"), multispectral_visor=4)
    assert any("Multispectral Visor" in p for p in profile_problems(bad))
    assert not profile_problems(replace(profile("x"), multispectral_visor=3))


def _camouflaged_ghost_table(visor: int, unit: str = "lancer", shooter: str = LANCER,
                             ghost_at: tuple[float, float] = (22.5, 19)) -> GameState:
    import copy
    import json
    from importlib import resources

    def shipped(army: str) -> dict[str, object]:
        path = resources.files("server.rules.data").joinpath("armies").joinpath(f"{army}.json")
        with path.open("r", encoding="utf-8") as stream:
            data: dict[str, object] = copy.deepcopy(json.load(stream))
        return data

    raiders, vanguard = shipped("vesper-raiders"), shipped("helion-vanguard")
    unit_id = unit
    for unit in raiders["units"]:  # type: ignore[attr-defined]
        if unit["id"] == "ghost":
            unit["camouflage"] = 6
    for unit in vanguard["units"]:  # type: ignore[attr-defined]
        if unit["id"] == unit_id:
            unit["multispectral_visor"] = visor
    return build_state({"ruleset": "n5", "terrain": [], "dice": [20] * 8,
                        "armies": {"A": vanguard, "B": raiders}, "placements": {
                            shooter: [22.5, 4, 90], GHOST: [*ghost_at, 90],
                            "A-t1": [3.5, 1.5, 90], "B-t1": [3.5, 46.5, 90]}})


def test_level_3_shoots_a_camouflage_marker_without_discovering_it_first() -> None:
    """DIGEST 12: a Camouflage Marker cannot be attacked before it is Discovered, but for a
    Multispectral Visor L3. The Lancer (L3) is offered the shot at the Ghost's marker, with
    its Mimetism -6 cancelled; the shot reveals the marker and is rolled."""
    state = _camouflaged_ghost_table(3)
    assert state.trooper(TrooperId(GHOST)).marker
    state, _ = play(state, A, {"type": "activate", "trooper": LANCER, "order": "regular"})
    shot = seat_options(state, A)["skills"]["bs_attack"]["line_rifle"]["shots"][GHOST]
    assert shot["sv"] == 14
    state, _ = play(state, A, {"type": "declare_skill", "skill": {
        "type": "bs_attack", "weapon": "line_rifle", "targets": [{"trooper": GHOST, "burst": 3}]}})
    state, _ = close_aro_window(state)
    state, _ = play(state, A, {"type": "declare_skill", "skill": {"type": "idle"}})
    state, events = close_aro_window(state)
    (roll,) = [r for e in events if hasattr(e, "outcome") for r in e.outcome.rolls
               if r.trooper == LANCER]
    assert roll.target == GHOST and roll.success_value == 14
    effects = [e for ev in events if hasattr(ev, "outcome") for e in ev.outcome.effects]
    assert any(getattr(e, "reason", None) == "shot_by_visor_l3" for e in effects)
    assert not state.trooper(TrooperId(GHOST)).marker


def test_level_2_still_has_to_discover_a_marker_first() -> None:
    from server.rules.commands import parse_command
    from server.rules.decision import Rejected
    from server.rules.engine import decide

    state = _camouflaged_ghost_table(2)
    state, _ = play(state, A, {"type": "activate", "trooper": LANCER, "order": "regular"})
    assert GHOST not in seat_options(state, A)["skills"]["bs_attack"].get(
        "line_rifle", {}).get("shots", {})
    refused = decide(state, A, parse_command({"type": "declare_skill", "skill": {
        "type": "bs_attack", "weapon": "line_rifle", "targets": [{"trooper": GHOST, "burst": 3}]}}))
    assert isinstance(refused, Rejected) and refused.code == "bad_target"


def test_level_3_aims_a_direct_template_at_a_marker_too() -> None:
    """The Chain Spray Lancer (L3) aims its teardrop at the Ghost's marker 5 inches away: the
    template hits it (no Discover; revealed), the Ghost saves."""
    spray = "A-t10"
    state = _camouflaged_ghost_table(3, unit="lancer_spray", shooter=spray, ghost_at=(22.5, 9))
    state, _ = play(state, A, {"type": "activate", "trooper": spray, "order": "regular"})
    assert GHOST in seat_options(state, A)["skills"]["bs_attack"]["chain_spray"]["shots"]
    state, _ = play(state, A, {"type": "declare_skill", "skill": {
        "type": "bs_attack", "weapon": "chain_spray", "targets": [{"trooper": GHOST, "burst": 1}]}})
    state, _ = close_aro_window(state)
    state, _ = play(state, A, {"type": "declare_skill", "skill": {"type": "idle"}})
    state, events = close_aro_window(state)
    saves = [s for ev in events if hasattr(ev, "outcome") for s in ev.outcome.saves]
    assert [s.trooper for s in saves] == [GHOST]
    assert not state.trooper(TrooperId(GHOST)).marker
