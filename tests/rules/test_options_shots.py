"""What ``options`` shows of a shot before it is declared, and that it never offers one
Resolution would make Idle for a reason already known (server/rules/previews.py).

Each offered BS Attack (active: per weapon, target and firing point; ARO: per weapon,
target and point of the active trooper's route) carries the final Success Value with its
MODs, the distance and the range band, all from the code Resolution runs; declaring it
gives a roll with exactly those. A shot beyond its longest range band or with an SV below
1 is a legal declaration that fails without dice (DIGEST 7.1, 10.4): offered, flagged
``automatic_failure``. One Resolution would make Idle (no Line of Fire at the point, a
Direct Template out of reach) is not offered.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from server.rules.combat.outcome import BecameIdle, RollRecord
from server.rules.events import OrderResolved
from server.rules.ids import Side, TrooperId
from server.rules.options import seat_options
from server.rules.state import GameState
from tests.support.games import close_aro_window, play
from tests.support.scenarios import build_state

A, B = Side.A, Side.B
T = TrooperId
LANCER, GHOST, ENFORCER, HOSE = "A-t7", "B-t2", "B-t3", "B-t5"
"""A Lancer (BS 11, Line Rifle), a Ghost Infiltrator (Mimetism -6), a Syndicate Enforcer
(BS 12, Punch Carbine), an Enforcer with a Scorch Hose (a large teardrop Direct Template)."""


def _table(placements: Mapping[str, list[float]], terrain: list[Any] | None = None,
           dice: tuple[int, ...] = ()) -> GameState:
    return build_state({"ruleset": "n5", "terrain": terrain or [], "dice": list(dice),
                        "placements": {**placements, "A-t1": [3.5, 1.5, 90], "B-t1": [3.5, 46.5, 90]}})


def _resolved(events: tuple[object, ...]) -> OrderResolved:
    (resolved,) = [e for e in events if isinstance(e, OrderResolved)]
    return resolved


def _roll(resolved: OrderResolved, trooper: str) -> RollRecord:
    (roll,) = [r for r in resolved.outcome.rolls if r.trooper == trooper]
    return roll


def _mods(roll: RollRecord) -> list[dict[str, Any]]:
    return [{"source": m.source, "value": m.value} for m in roll.mods]


def _with_bs(state: GameState, trooper: str, bs: int) -> GameState:
    t = state.trooper(T(trooper))
    profile = replace(t.entry.profile, bs=bs)
    return state.with_trooper(replace(t, entry=replace(t.entry, profile=profile)))


def test_the_active_shot_shows_its_final_success_value_and_resolves_with_it() -> None:
    """BS 11, Line Rifle at about 14 inches (+3), the Ghost's Mimetism -6: SV 8, shown before
    the declaration with each MOD, the distance and the band; the roll is the same."""
    state = _table({LANCER: [22.5, 4, 90], GHOST: [22.5, 19, 90]}, dice=(20,) * 8)
    state, _ = play(state, A, {"type": "activate", "trooper": LANCER, "order": "regular"})
    shot = seat_options(state, A)["skills"]["bs_attack"]["line_rifle"]["shots"][GHOST]
    assert shot["attribute"] == "BS" and shot["base"] == 11
    assert shot["mods"] == [{"source": "range", "value": 3}, {"source": "mimetism", "value": -6}]
    assert shot["sv"] == 8 and shot["net_mod"] == -3 and shot["automatic_failure"] is None
    assert 8 < shot["distance"] <= 16 and shot["range"] == {"from": 8.0, "up_to": 16.0, "mod": 3}
    state, _ = play(state, A, {"type": "declare_skill", "skill": {
        "type": "bs_attack", "weapon": "line_rifle", "targets": [{"trooper": GHOST, "burst": 3}]}})
    state, _ = close_aro_window(state)  # the Ghost faces away: no ARO
    state, _ = play(state, A, {"type": "declare_skill", "skill": {"type": "move", "route": [[22.5, 4], [22.5, 5]]}})
    state, events = close_aro_window(state)
    roll = _roll(_resolved(events), LANCER)
    assert (roll.success_value, _mods(roll)) == (shot["sv"], shot["mods"])


def test_a_shot_that_fails_automatically_is_offered_flagged() -> None:
    """Beyond the Sidearm's last band (24 inches): offered, ``out_of_range``; a trooper whose
    BS 4 meets the Ghost's Mimetism -6: SV below 1, offered, ``sv_below_1`` (DIGEST 7.1, W2).
    Both are legal declarations that fail without dice."""
    state = _table({LANCER: [22.5, 4, 90], GHOST: [22.5, 33, 270]})
    state = _with_bs(state, LANCER, 4)
    state, _ = play(state, A, {"type": "activate", "trooper": LANCER, "order": "regular"})
    shots = seat_options(state, A)["skills"]["bs_attack"]
    sidearm = shots["sidearm"]["shots"][GHOST]
    assert sidearm["automatic_failure"] == "out_of_range" and sidearm["range"] is None
    assert sidearm["distance"] > sidearm["max_range"] == 24.0
    rifle = shots["line_rifle"]["shots"][GHOST]
    assert rifle["sv"] < 1 and rifle["automatic_failure"] == "sv_below_1"


WALL = {"id": "wall", "polygon": [[10, 12], [18, 12], [18, 13], [10, 13]], "height": 6}
START, END = (14.0, 8.0), (18.0, 8.0)
"""The Lancer steps out from behind the wall: the Enforcer at (22.5, 24) sees the end of
its route, not its start (tests/rules/orders/test_seed_000_all_at_once.py)."""


def _stepped_out(dice: tuple[int, ...] = ()) -> GameState:
    state = _table({LANCER: [*START, 90], ENFORCER: [22.5, 24, 270]}, [WALL], dice)
    state, _ = play(state, A, {"type": "activate", "trooper": LANCER, "order": "regular"})
    state, _ = play(state, A, {"type": "declare_skill", "skill": {
        "type": "move", "route": [list(START), list(END)]}})
    return state


def test_an_aro_is_offered_only_at_the_points_of_the_route_it_resolves_at() -> None:
    """The default point and the end of the route; not the start, where the Enforcer has no
    Line of Fire (declared there, it is Idle at Resolution: ``no_line_of_fire``)."""
    aro = seat_options(_stepped_out(), B)["aros"][ENFORCER]
    entries = aro["shots"]["punch_carbine"][LANCER]
    assert [e["point"] for e in entries] == [None, list(END)]
    assert aro["targets"]["bs_attack"]["punch_carbine"] == [LANCER]
    for entry in entries:
        assert entry["attribute"] == "BS" and entry["base"] == 12
        assert entry["sv"] == 12 + sum(m["value"] for m in entry["mods"])


def test_an_aro_at_an_offered_point_resolves_with_the_success_value_shown() -> None:
    state = _stepped_out(dice=(20,) * 8)
    (_, at_end) = seat_options(state, B)["aros"][ENFORCER]["shots"]["punch_carbine"][LANCER]
    state, _ = play(state, B, {"type": "declare_aro", "trooper": ENFORCER, "skill": {
        "type": "bs_attack", "weapon": "punch_carbine", "targets": [{"trooper": LANCER, "burst": 1}],
        "target_point": at_end["point"]}})
    state, _ = close_aro_window(state)
    state, _ = play(state, A, {"type": "declare_skill", "skill": {"type": "idle"}})
    state, events = close_aro_window(state)
    resolved = _resolved(events)
    assert not [e for e in resolved.outcome.effects if isinstance(e, BecameIdle)]
    roll = _roll(resolved, ENFORCER)
    assert (roll.success_value, _mods(roll)) == (at_end["sv"], at_end["mods"])


def test_an_aro_template_out_of_reach_is_not_offered_a_shot_within_it_is() -> None:
    """The Scorch Hose reaches about 10 inches from its base: against a Lancer moving 20 inches
    away it is not offered (it would be Idle: ``beyond_template_reach``), the Sidearm is;
    against one moving 6 inches away it is, marked as a template hit with its reach."""
    far = _table({LANCER: [22.5, 4, 90], HOSE: [22.5, 26, 270]})
    far, _ = play(far, A, {"type": "activate", "trooper": LANCER, "order": "regular"})
    far, _ = play(far, A, {"type": "declare_skill", "skill": {"type": "move", "route": [[22.5, 4], [22.5, 5]]}})
    aro = seat_options(far, B)["aros"][HOSE]
    assert aro["line_of_fire"]
    assert "scorch_hose" not in aro["bs_attack"] and "sidearm" in aro["bs_attack"]
    near = _table({LANCER: [22.5, 16, 90], HOSE: [22.5, 24, 270]})
    near, _ = play(near, A, {"type": "activate", "trooper": LANCER, "order": "regular"})
    near, _ = play(near, A, {"type": "declare_skill", "skill": {"type": "move", "route": [[22.5, 16], [22.5, 17]]}})
    hose = seat_options(near, B)["aros"][HOSE]["shots"]["scorch_hose"][LANCER][0]
    assert hose["template"] and hose["sv"] is None and hose["distance"] <= hose["reach"]


def test_a_trooper_under_a_template_without_line_of_fire_is_not_offered_a_shot() -> None:
    """Eligible through the template alone (facing away from the shooter), the Enforcer may
    Dodge; a BS Attack would be Idle (no Line of Fire), so it is not offered."""
    state = _table({"A-t10": [22.5, 18, 90], ENFORCER: [22.5, 22, 90]})
    state, _ = play(state, A, {"type": "activate", "trooper": "A-t10", "order": "regular"})
    state, _ = play(state, A, {"type": "declare_skill", "skill": {
        "type": "bs_attack", "weapon": "chain_spray", "targets": [{"trooper": ENFORCER, "burst": 1}]}})
    aro = seat_options(state, B)["aros"][ENFORCER]
    assert aro["template"] and not aro["line_of_fire"]
    assert aro["bs_attack"] == [] and aro["shots"] == {} and aro["dodge"]


def test_a_preview_against_a_camouflage_marker_reads_only_the_mimetism_the_marker_shows() -> None:
    """Private information: the Pathfinder Scout moves as a Camouflage Marker; the Enforcer's
    Discover ARO shows WIP 13 with the marker's Mimetism -3, the value the marker shows in
    B's own view (``camouflage``), and nothing the view does not hold."""
    from server.rules.views import view_state

    scout = "A-t3"
    state = _table({scout: [22.5, 10, 90], ENFORCER: [22.5, 24, 270]})
    assert state.trooper(T(scout)).marker
    state, _ = play(state, A, {"type": "activate", "trooper": scout, "order": "regular"})
    state, _ = play(state, A, {"type": "declare_skill", "skill": {"type": "move", "route": [[22.5, 10], [22.5, 12]]}})
    aro = seat_options(state, B)["aros"][ENFORCER]
    assert aro["shots"] == {}  # a marker is not attacked before it is Discovered
    discover = aro["discover_rolls"][scout][0]
    shown = next(t for t in view_state(state, B)["troopers"] if t["id"] == scout)
    assert shown["marker"] and "profile" not in shown
    assert discover["attribute"] == "WIP" and discover["base"] == 13
    assert {"source": "mimetism", "value": -shown["camouflage"]} in discover["mods"]
    assert discover["sv"] == 13 + sum(m["value"] for m in discover["mods"])
