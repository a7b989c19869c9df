"""Smoke and Eclipse Ammunition (wiki "Smoke Ammunition", "Eclipse Ammunition", "Zero
Visibility Zone", "Visibility Conditions"; server/rules/combat/smoke.py): a BS Attack at a
point that leaves a Circular Template of Zero Visibility; Face to Face with the enemy BS
Attacks whose Line of Fire it would block; a Multispectral Visor sees through Smoke, never
through Eclipse; the zone goes in the States Phase (DIGEST 10, visibility zones; DIGEST 7.4,
Face to Face; seed 002, States Phase)."""

from __future__ import annotations

import copy
import json
from importlib import resources
from typing import Any

import pytest

from server.rules import engine
from server.rules.armies.army_catalogue import load_weapons
from server.rules.armies.army_list import load_army_list
from server.rules.combat.outcome import ZonePlaced
from server.rules.commands import parse_command
from server.rules.decision import Rejected
from server.rules.events import OrderResolved, StatesPhaseChecked
from server.rules.ids import Side, TrooperId
from server.rules.orders.states_phase import apply_states_phase_checked, states_phase_checks
from server.rules.reasons import Reason
from server.rules.state import GameState
from server.rules.table.geometry import Body
from server.rules.table.line_of_fire import has_line_of_fire
from server.rules.table.terrain import standard_table
from server.rules.table.visibility_zones import CIRCULAR_TEMPLATE_RADIUS, VisibilityZone, ZoneKind
from tests.support.games import close_aro_window, play
from tests.support.scenarios import build_state

A, B = Side.A, Side.B
LANCER, ENFORCER = "A-t7", "B-t3"
"""A Lancer (BS 11) given Smoke and Eclipse Grenades; a Syndicate Enforcer (BS 12, Punch
Carbine) facing it 26 inches away."""
SMOKE_AT = [22.5, 10.0]

_RANGES = [{"up_to": 8, "mod": 3}, {"up_to": 16, "mod": 0}, {"up_to": 24, "mod": -3}]
GRENADES = [
    {"id": "smoke_grenades", "name": "Smoke Grenades", "kind": "ballistic", "burst": 1, "ps": 0,
     "ammo": "Smoke", "ranges": _RANGES},
    {"id": "eclipse_grenades", "name": "Eclipse Grenades", "kind": "ballistic", "burst": 1,
     "ps": 0, "ammo": "Eclipse", "ranges": _RANGES},
]


def _army_with_grenades(visor: int = 0, army: str = "helion-vanguard",
                        unit: str = "lancer", thrown: bool = False) -> dict[str, Any]:
    path = resources.files("server.rules.data").joinpath("armies").joinpath(f"{army}.json")
    with path.open("r", encoding="utf-8") as stream:
        data: dict[str, Any] = copy.deepcopy(json.load(stream))
    grenades = [{**g, "traits": ["throwing_weapon"]} if thrown else g for g in GRENADES]
    data["weapons"] = [*data.get("weapons", []), *grenades]
    lancer = next(u for u in data["units"] if u["id"] == unit)
    lancer["weapons"] = [*lancer["weapons"], "smoke_grenades", "eclipse_grenades"]
    if visor:
        lancer["multispectral_visor"] = visor
    assert load_army_list(data, load_weapons())  # a sound list
    return data


def _table(dice: list[int], visor: int = 0, thrown: bool = False) -> GameState:
    return build_state({"ruleset": "n5", "terrain": [], "dice": dice,
                        "armies": {"A": _army_with_grenades(visor, thrown=thrown)},
                        "placements": {LANCER: [22.5, 4, 90], ENFORCER: [22.5, 30, 270],
                                       "A-t1": [3.5, 1.5, 90], "B-t1": [3.5, 46.5, 90]}})


def _smoke(state: GameState, weapon: str = "smoke_grenades") -> GameState:
    state, _ = play(state, A, {"type": "activate", "trooper": LANCER, "order": "regular"})
    state, _ = play(state, A, {"type": "declare_skill", "skill": {
        "type": "bs_attack", "weapon": weapon, "targets": [], "zone_at": SMOKE_AT}})
    return state


def _enforcer_shoots_back(state: GameState) -> tuple[GameState, OrderResolved]:
    state, _ = play(state, B, {"type": "declare_aro", "trooper": ENFORCER, "skill": {
        "type": "bs_attack", "weapon": "punch_carbine",
        "targets": [{"trooper": LANCER, "burst": 1}]}})
    state, _ = close_aro_window(state)
    state, _ = play(state, A, {"type": "declare_skill", "skill": {"type": "idle"}})
    state, events = close_aro_window(state)
    (resolved,) = [e for e in events if isinstance(e, OrderResolved)]
    return state, resolved


def test_smoke_that_wins_the_face_to_face_stays_and_stops_the_shot_through_it() -> None:
    """Smoke Grenades 6 inches ahead (+3: SV 14) roll 5; the Enforcer's ARO, whose Line of
    Fire crosses the zone, rolls 3: the Smoke wins, the shot hits nothing, the zone stays
    and then blocks the Enforcer's Line of Fire to the Lancer."""
    state, resolved = _enforcer_shoots_back(_smoke(_table([5, 3] + [20] * 6)))
    smoke, shot = resolved.outcome.rolls
    assert (smoke.trooper, smoke.success_value, smoke.target) == (LANCER, 14, None)
    assert smoke.zone_at == tuple(SMOKE_AT) and smoke.opposed_by == (1,)
    assert shot.trooper == ENFORCER and shot.opposed_by == (0,) and shot.successes == 0
    assert resolved.outcome.saves == ()
    (placed,) = [e for e in resolved.outcome.effects if isinstance(e, ZonePlaced)]
    assert placed.zone == VisibilityZone(ZoneKind.SMOKE, tuple(SMOKE_AT), CIRCULAR_TEMPLATE_RADIUS,
                                         LANCER)
    assert state.table.zones == (placed.zone,)
    lancer, enforcer = state.trooper(TrooperId(LANCER)), state.trooper(TrooperId(ENFORCER))
    assert not has_line_of_fire(enforcer.body(), lancer.body(), state.table)


def test_smoke_that_loses_the_face_to_face_is_not_placed_and_the_shot_hits() -> None:
    """The Smoke rolls 3, the Enforcer (SV 6 at 26 inches) 5: its success cancels the Smoke's; no
    zone; the shot makes the Lancer save."""
    state, resolved = _enforcer_shoots_back(_smoke(_table([3, 5] + [20] * 6)))
    smoke, shot = resolved.outcome.rolls
    assert smoke.successes == 0 and shot.successes == 1
    assert not [e for e in resolved.outcome.effects if isinstance(e, ZonePlaced)]
    assert state.table.zones == ()
    assert [s.trooper for s in resolved.outcome.saves] == [LANCER]


def test_a_failed_smoke_roll_without_opposition_places_nothing() -> None:
    state = _smoke(_table([17] + [20] * 6))
    state, _ = close_aro_window(state)
    state, _ = play(state, A, {"type": "declare_skill", "skill": {"type": "idle"}})
    state, events = close_aro_window(state)
    (resolved,) = [e for e in events if isinstance(e, OrderResolved)]
    assert resolved.outcome.rolls[0].successes == 0 and state.table.zones == ()


def _zone(kind: ZoneKind) -> VisibilityZone:
    return VisibilityZone(kind, (22.5, 17.0), CIRCULAR_TEMPLATE_RADIUS, "A-t7")


@pytest.mark.parametrize(("kind", "with_visor"), [
    (ZoneKind.SMOKE, False), (ZoneKind.SMOKE, True), (ZoneKind.ECLIPSE, False),
    (ZoneKind.ECLIPSE, True)])
def test_a_visor_sees_through_smoke_never_through_eclipse(kind: ZoneKind, with_visor: bool) -> None:
    viewer, target = Body((22.5, 4.0), 90.0, 2), Body((22.5, 30.0), 270.0, 2)
    table = standard_table()
    assert has_line_of_fire(viewer, target, table, through_smoke=with_visor)
    hazed = standard_table()
    hazed = type(hazed)(hazed.width, hazed.depth, hazed.terrain, zones=(_zone(kind),))
    assert has_line_of_fire(viewer, target, hazed, through_smoke=with_visor) is (
        with_visor and kind is ZoneKind.SMOKE)


def test_no_line_of_fire_into_or_out_of_a_zone() -> None:
    """A trooper standing inside the zone neither sees nor is seen."""
    table = standard_table()
    table = type(table)(table.width, table.depth, table.terrain, zones=(_zone(ZoneKind.SMOKE),))
    inside, outside = Body((22.5, 17.0), 90.0, 2), Body((22.5, 30.0), 270.0, 2)
    assert not has_line_of_fire(outside, inside, table)
    assert not has_line_of_fire(inside.moved_to((22.5, 17.0)), outside, table)


def test_a_shooter_with_a_visor_is_not_opposed_by_smoke() -> None:
    """The Enforcer with a Multispectral Visor L1: its ARO is not Face to Face with the
    Smoke (it sees through): two Normal Rolls, the Smoke stays, the shot hits."""
    state = _smoke(_table([5, 3] + [20] * 6))
    enforcer = state.trooper(TrooperId(ENFORCER))
    from dataclasses import replace
    profile = replace(enforcer.entry.profile, multispectral_visor=1)
    state = state.with_trooper(replace(enforcer, entry=replace(enforcer.entry, profile=profile)))
    state, resolved = _enforcer_shoots_back(state)
    smoke, shot = resolved.outcome.rolls
    assert smoke.opposed_by == () and shot.opposed_by == ()
    assert smoke.successes == 1 and shot.successes == 1
    assert len(state.table.zones) == 1 and [s.trooper for s in resolved.outcome.saves] == [LANCER]


def test_the_states_phase_removes_the_zones() -> None:
    state, _ = _enforcer_shoots_back(_smoke(_table([5, 3] + [20] * 6)))
    (checked,) = states_phase_checks(state)
    assert isinstance(checked, StatesPhaseChecked) and checked.zones_removed == 1
    assert apply_states_phase_checked(state, checked).table.zones == ()


def _rejection(state: GameState, side: Side, command: dict[str, Any]) -> str:
    decision = engine.decide(state, side, parse_command(command))
    assert isinstance(decision, Rejected)
    return decision.code


def test_smoke_is_aimed_at_a_point_and_other_weapons_at_troopers() -> None:
    state = _table([20] * 8)
    state, _ = play(state, A, {"type": "activate", "trooper": LANCER, "order": "regular"})
    at_trooper = {"type": "declare_skill", "skill": {
        "type": "bs_attack", "weapon": "smoke_grenades",
        "targets": [{"trooper": ENFORCER, "burst": 1}]}}
    rifle_at_point = {"type": "declare_skill", "skill": {
        "type": "bs_attack", "weapon": "line_rifle", "targets": [], "zone_at": SMOKE_AT}}
    off_table = {"type": "declare_skill", "skill": {
        "type": "bs_attack", "weapon": "smoke_grenades", "targets": [], "zone_at": [60, 10]}}
    for command in (at_trooper, rifle_at_point, off_table):
        assert _rejection(state, A, command) == Reason.BAD_TARGET



def test_smoke_in_aro_screens_the_active_shot_through_it() -> None:
    """The Enforcer answers the Lancer's shot with Smoke Grenades between them (offered under
    its ARO's ``zones``, Burst 1): Face to Face with the shot, whose Line of Fire the zone
    blocks. The Smoke (BS 12, about 5 inches away: +3, SV 15) rolls 9; the Lancer (BS 11,
    26 inches: -3, SV 8) rolls 2, 3 and 4: every success of the shot is below 9, so all are
    cancelled, the Smoke keeps its success and the zone stays (DIGEST 7.4)."""
    from server.rules.options import seat_options

    raiders = _army_with_grenades(army="vesper-raiders", unit="enforcer")
    state = build_state({"ruleset": "n5", "terrain": [], "dice": [2, 3, 4, 9] + [20] * 6,
                         "armies": {"B": raiders},
                         "placements": {LANCER: [22.5, 4, 90], ENFORCER: [22.5, 30, 270],
                                        "A-t1": [3.5, 1.5, 90], "B-t1": [3.5, 46.5, 90]}})
    state, _ = play(state, A, {"type": "activate", "trooper": LANCER, "order": "regular"})
    state, _ = play(state, A, {"type": "declare_skill", "skill": {
        "type": "bs_attack", "weapon": "line_rifle",
        "targets": [{"trooper": ENFORCER, "burst": 3}]}})
    offer = seat_options(state, B)["aros"][ENFORCER]["zones"]["smoke_grenades"]
    assert offer["burst"] == 1
    state, _ = play(state, B, {"type": "declare_aro", "trooper": ENFORCER, "skill": {
        "type": "bs_attack", "weapon": "smoke_grenades", "targets": [], "zone_at": [22.5, 24]}})
    state, _ = close_aro_window(state)
    state, _ = play(state, A, {"type": "declare_skill", "skill": {"type": "idle"}})
    state, events = close_aro_window(state)
    (resolved,) = [e for e in events if isinstance(e, OrderResolved)]
    shot, smoke = resolved.outcome.rolls
    assert smoke.trooper == ENFORCER and smoke.zone_at == (22.5, 24.0)
    assert smoke.opposed_by == (0,) and shot.opposed_by == (1,)
    assert smoke.success_value == offer["bands"][0]["sv"]
    assert shot.successes + shot.criticals == 0 and resolved.outcome.saves == ()
    assert len(state.table.zones) == 1


def test_options_offer_smoke_at_a_point_with_the_success_value_of_each_band() -> None:
    """The Lancer's grenades are offered under ``zones`` (not as shots at troopers), each band
    with its final Success Value; thrown 6 inches away (first band, +3) the roll has it."""
    from server.rules.options import seat_options

    state = _table([5, 3] + [20] * 6)
    state, _ = play(state, A, {"type": "activate", "trooper": LANCER, "order": "regular"})
    skills = seat_options(state, A)["skills"]
    assert "smoke_grenades" not in skills["bs_attack"]
    offer = skills["zones"]["smoke_grenades"]
    assert offer["kind"] == "smoke" and offer["radius"] == CIRCULAR_TEMPLATE_RADIUS
    assert [(b["up_to"], b["sv"]) for b in offer["bands"]] == [(8, 14), (16, 11), (24, 8)]
    assert skills["zones"]["eclipse_grenades"]["kind"] == "eclipse"
    state, _ = play(state, A, {"type": "declare_skill", "skill": {
        "type": "bs_attack", "weapon": "smoke_grenades", "targets": [], "zone_at": SMOKE_AT}})
    _, resolved = _enforcer_shoots_back(state)
    assert resolved.outcome.rolls[0].success_value == offer["bands"][0]["sv"]


@pytest.mark.parametrize(("level", "mods"), [(1, [("range", -6), ("smoke", -6)]),
                                             (2, [("range", -6)])])
def test_a_visor_l1_shoots_through_smoke_at_minus_6_l2_without_a_mod(
        level: int, mods: list[tuple[str, int]]) -> None:
    """Wiki "Multispectral Visor": Level 1 draws LoF through a Zero Visibility Zone with -6,
    Level 2 with no MOD (DIGEST 10)."""
    from dataclasses import replace

    from server.rules.combat.skill_plans import planned_shot

    state, _ = _enforcer_shoots_back(_smoke(_table([5, 3] + [20] * 6)))
    enforcer = state.trooper(TrooperId(ENFORCER))
    profile = replace(enforcer.entry.profile, multispectral_visor=level)
    enforcer = replace(enforcer, entry=replace(enforcer.entry, profile=profile))
    state = state.with_trooper(enforcer)
    lancer = state.trooper(TrooperId(LANCER))
    weapon = state.armies[B].weapon(enforcer.profile.weapons[0])
    (roll,) = planned_shot(state, enforcer, weapon, lancer, enforcer.body(), lancer.body(), 1,
                           active=False).rolls
    assert [(m.source, m.value) for m in roll.mods] == mods


def test_thrown_grenades_roll_ph_and_options_show_it() -> None:
    """DIGEST, Attributes (PH: "some throws"): grenades with the Throwing Weapon trait are
    thrown, so the Lancer (BS 11, PH 10) rolls PH 10: +3 at 6 inches is SV 13 (BS would give
    14), and ``options`` offers the same Success Values on PH."""
    from server.rules.options import seat_options

    state = _table([5, 3] + [20] * 6, thrown=True)
    state, _ = play(state, A, {"type": "activate", "trooper": LANCER, "order": "regular"})
    offer = seat_options(state, A)["skills"]["zones"]["smoke_grenades"]
    assert (offer["attribute"], offer["base"]) == ("PH", 10)
    assert [(b["up_to"], b["sv"]) for b in offer["bands"]] == [(8, 13), (16, 10), (24, 7)]
    state, _ = play(state, A, {"type": "declare_skill", "skill": {
        "type": "bs_attack", "weapon": "smoke_grenades", "targets": [], "zone_at": SMOKE_AT}})
    _, resolved = _enforcer_shoots_back(state)
    smoke = resolved.outcome.rolls[0]
    assert (smoke.attribute, smoke.success_value) == ("PH", 13)


def test_a_thrown_weapon_at_a_trooper_rolls_ph_a_fired_one_bs() -> None:
    """A BS Attack with a Throwing Weapon at a trooper rolls the thrower's PH, not its BS
    (``combat/attack_attribute.py``); the fired Line Rifle still rolls BS."""
    from server.rules.armies.weapons import RangeBand, Weapon, WeaponKind
    from server.rules.combat.attack_attribute import bs_attack_attribute
    from server.rules.ids import WeaponId

    lancer = _table([20] * 8).trooper(TrooperId(LANCER))
    knives = Weapon(id=WeaponId("knives"), name="Throwing Knives", kind=WeaponKind.BALLISTIC,
                    burst=1, ps=11, ammo="N", ranges=(RangeBand(8, 0),),
                    traits=("throwing_weapon",))
    assert bs_attack_attribute(lancer.profile, knives) == ("PH", 10)
    rifle = _table([20] * 8).armies[A].weapon(WeaponId("line_rifle"))
    assert bs_attack_attribute(lancer.profile, rifle) == ("BS", 11)


def test_an_aro_offers_the_point_that_screens_the_reactor_and_it_resolves_as_offered() -> None:
    """In ARO the Enforcer's grenades come with a point on the line to the Lancer that
    screens the two (``zones.<weapon>.screens``): half-way, capped at the first band (8
    inches from its base), with that band's Success Value (BS 12, +3: 15). Declared there it
    rolls that Success Value and, winning the Face to Face, blocks the Lancer's shot."""
    from server.rules.options import seat_options
    from server.rules.table.visibility_zones import segment_meets_zone

    raiders = _army_with_grenades(army="vesper-raiders", unit="enforcer")
    state = build_state({"ruleset": "n5", "terrain": [], "dice": [2, 3, 4, 9] + [20] * 6,
                         "armies": {"B": raiders},
                         "placements": {LANCER: [22.5, 4, 90], ENFORCER: [22.5, 30, 270],
                                        "A-t1": [3.5, 1.5, 90], "B-t1": [3.5, 46.5, 90]}})
    state, _ = play(state, A, {"type": "activate", "trooper": LANCER, "order": "regular"})
    state, _ = play(state, A, {"type": "declare_skill", "skill": {
        "type": "bs_attack", "weapon": "line_rifle",
        "targets": [{"trooper": ENFORCER, "burst": 3}]}})
    screen = seat_options(state, B)["aros"][ENFORCER]["zones"]["smoke_grenades"]["screens"][LANCER]
    x, y = screen["point"]
    radius = state.trooper(TrooperId(ENFORCER)).body().radius
    assert x == 22.5 and y == pytest.approx(30 - radius - 8, abs=0.01) and screen["sv"] == 15
    state, _ = play(state, B, {"type": "declare_aro", "trooper": ENFORCER, "skill": {
        "type": "bs_attack", "weapon": "smoke_grenades", "targets": [], "zone_at": [x, y]}})
    state, _ = close_aro_window(state)
    state, _ = play(state, A, {"type": "declare_skill", "skill": {"type": "idle"}})
    state, events = close_aro_window(state)
    (resolved,) = [e for e in events if isinstance(e, OrderResolved)]
    shot, smoke = resolved.outcome.rolls
    assert smoke.success_value == screen["sv"] and shot.successes + shot.criticals == 0
    (zone,) = state.table.zones
    assert segment_meets_zone((22.5, 4.0), (22.5, 30.0), zone)
