"""Seed 000 "All at Once" (also 001.5, 003.10-003.11): Orders and AROs are simultaneous.

* 000.21 / 003.10: "an activated Trooper declares Move + BS Attack and chooses to shoot from
  its starting position ..., and its target reacts with a BS Attack, choosing to shoot at the
  end of the Movement ... both actions are still considered to be simultaneous". An ARO
  names the point of the route it is taken at (`target_point`); range and MODs are measured
  from there; a point off the route is refused (the route is open, fixed at declaration), a
  point of the route out of the reactor's LoF is Idle at Resolution (a Requirement).
* 000.22 / 003.11: "All AROs are also simultaneous ... if a Camouflage Marker declares a
  Move, the opponent can declare Discover with Troopers that have LoF to it, but they cannot
  declare Discover with one of the Troopers and BS Attack with the rest, waiting for the
  Discover Roll to be successful". Every ARO is declared before anything resolves, so an
  ARO cannot wait on a Discover: a BS Attack ARO at the marker is refused when declared
  (`bad_target`; the Camouflaged State: no Attack at a marker before it is Discovered, and
  an ARO is one skill), and is not offered. It used to be accepted and Idle at Resolution,
  which let it resolve when the marker revealed itself later in the Order
  (test_attacks_on_camouflage_markers.py).
"""

from __future__ import annotations

from collections.abc import Mapping

from server.rules import commands as c
from server.rules import engine
from server.rules.armies.weapons import range_mod
from server.rules.combat.outcome import BecameIdle, Revealed, RollRecord
from server.rules.decision import Rejected
from server.rules.events import AroDeclared, OrderResolved
from server.rules.ids import Side, TrooperId, WeaponId
from server.rules.options import seat_options
from server.rules.state import GameState
from server.rules.table.geometry import distance
from tests.support.games import close_aro_window, play
from tests.support.scenarios import build_state

A, B = Side.A, Side.B
T = TrooperId


def _open_table(placements: Mapping[str, list[float]], dice: tuple[int, ...] = ()) -> GameState:
    """An N5 game on a table without terrain (the sample armies), A to play."""
    return build_state({"ruleset": "n5", "terrain": [], "dice": list(dice),
                        "placements": {**placements, "A-t1": [3.5, 1.5, 90], "B-t1": [3.5, 46.5, 90]}})


def _resolved(events: tuple[object, ...]) -> OrderResolved:
    (resolved,) = [e for e in events if isinstance(e, OrderResolved)]
    return resolved


def _range(roll: RollRecord) -> int:
    (mod,) = [m.value for m in roll.mods if m.source == "range"]
    return mod


def _idle(resolved: OrderResolved) -> list[BecameIdle]:
    return [x for x in resolved.outcome.effects if isinstance(x, BecameIdle)]


# --- 000.21 / 003.10: the ARO's chosen point of the route -------------------------------------

MOVER, REACTOR = "A-t7", "B-t3"  # N5: a Lancer (line_rifle) and an Enforcer (punch_carbine)
START, END = (22.5, 4.0), (22.5, 8.0)  # the Move: 19.0 and 15.0 inches from the Enforcer's base


def _shootout(target_point: list[float] | None, route: tuple[tuple[float, float], ...] = (START, END),
              dice: tuple[int, ...] = (20, 20, 20, 20)) -> tuple[GameState, OrderResolved]:
    """The seed's example: the Lancer declares Move, the Enforcer reacts with a BS Attack at
    ``target_point`` (None: the default), then the Lancer shoots from its starting point."""
    state = _open_table({MOVER: [*route[0], 90], REACTOR: [22.5, 24, 270]}, dice)
    state, _ = play(state, A, {"type": "activate", "trooper": MOVER, "order": "regular"})
    state, _ = play(state, A, {"type": "declare_skill", "skill": {
        "type": "move", "route": [list(p) for p in route]}})
    aro: dict[str, object] = {"type": "bs_attack", "weapon": "punch_carbine",
                              "targets": [{"trooper": MOVER, "burst": 1}]}
    if target_point is not None:
        aro["target_point"] = target_point
    state, (declared,) = play(state, B, {"type": "declare_aro", "trooper": REACTOR, "skill": aro})
    assert isinstance(declared, AroDeclared)
    state, _ = close_aro_window(state)
    state, _ = play(state, A, {"type": "declare_skill", "skill": {
        "type": "bs_attack", "weapon": "line_rifle", "firing_point": list(route[0]),
        "targets": [{"trooper": REACTOR, "burst": 3}]}})
    before = state
    state, events = close_aro_window(state)
    return before, _resolved(events)


def _expected_range(state: GameState, shooter: str, weapon: str, at: tuple[float, float]) -> int:
    """The range MOD measured independently: base to base, the mover standing at ``at``."""
    gap = distance(state.trooper(T(MOVER)).body(at), state.trooper(T(REACTOR)).body())
    mod = range_mod(state.armies[state.trooper(T(shooter)).side].weapon(WeaponId(weapon)), gap)
    assert mod is not None
    return mod


def test_seed_000_all_at_once_aro_shoots_at_the_end_of_the_movement_the_active_from_its_start() -> None:
    """The seed's example, both ways round: the Lancer's shot is measured from its start
    (19 inches: -3), the Enforcer's ARO at the end of the route (15 inches: 0); both rolls
    are one Face to Face roll, simultaneous."""
    state, resolved = _shootout([END[0], END[1]])
    active, aro = resolved.outcome.rolls[:2]
    assert (active.trooper, aro.trooper) == (MOVER, REACTOR)
    assert _range(active) == _expected_range(state, MOVER, "line_rifle", START) == -3
    assert _range(aro) == _expected_range(state, REACTOR, "punch_carbine", END) == 0
    assert active.opposed_by == (1,) and aro.opposed_by == (0,)  # simultaneous: Face to Face


def test_seed_000_all_at_once_aro_chosen_point_changes_the_range() -> None:
    """The same ARO taken at the start of the route: 19 inches, -3; the point is the
    reactive player's choice, not the end the trooper stands at."""
    state, resolved = _shootout([START[0], START[1]])
    aro = next(r for r in resolved.outcome.rolls if r.trooper == REACTOR)
    assert _range(aro) == _expected_range(state, REACTOR, "punch_carbine", START) == -3
    assert aro.opposed_by != ()


def test_seed_000_all_at_once_aro_chosen_point_default_is_the_last_point_in_line_of_fire() -> None:
    _, resolved = _shootout(None)
    aro = next(r for r in resolved.outcome.rolls if r.trooper == REACTOR)
    assert _range(aro) == 0  # the end of the route


def test_seed_000_all_at_once_aro_chosen_point_mid_route() -> None:
    """A point between two corners of the route is a point of it too (17 inches: -3)."""
    state, resolved = _shootout([22.5, 6.0])
    aro = next(r for r in resolved.outcome.rolls if r.trooper == REACTOR)
    assert _range(aro) == _expected_range(state, REACTOR, "punch_carbine", (22.5, 6.0)) == -3


def test_seed_000_all_at_once_aro_chosen_point_off_the_route_is_refused() -> None:
    """The route is open information, fixed at its declaration: a point that is not on it is
    impossible, refused (`bad_route`) with nothing spent; the trooper may still declare."""
    state = _open_table({MOVER: [*START, 90], REACTOR: [22.5, 24, 270]})
    state, _ = play(state, A, {"type": "activate", "trooper": MOVER, "order": "regular"})
    state, _ = play(state, A, {"type": "declare_skill", "skill": {
        "type": "move", "route": [list(START), list(END)]}})
    for point in ([30.0, 8.0], [22.5, 9.0]):  # beside the route; beyond its end
        body: Mapping[str, object] = {"type": "declare_aro", "trooper": REACTOR, "skill": {
            "type": "bs_attack", "weapon": "punch_carbine", "targets": [{"trooper": MOVER, "burst": 1}],
            "target_point": point}}
        decision = engine.decide(state, B, c.parse_command(body))
        assert isinstance(decision, Rejected) and decision.code == "bad_route"
    state, _ = play(state, B, {"type": "declare_aro", "trooper": REACTOR, "skill": {"type": "dodge"}})


def test_seed_000_all_at_once_aro_chosen_point_out_of_line_of_fire_is_idle() -> None:
    """The Lancer steps out from behind a wall: the Enforcer sees the end of the route, not
    its start. An ARO taken at the start is accepted and Idle at Resolution (`no_line_of_fire`,
    the ARO spent); the same ARO at the default point resolves (control)."""
    wall = {"id": "wall", "polygon": [[10, 12], [18, 12], [18, 13], [10, 13]], "height": 6}
    start, end = (14.0, 8.0), (18.0, 8.0)

    def play_with(point: list[float] | None) -> OrderResolved:
        state = build_state({"ruleset": "n5", "terrain": [wall], "dice": [20, 20, 20, 20],
                             "placements": {MOVER: [*start, 90], REACTOR: [22.5, 24, 270],
                                            "A-t1": [3.5, 1.5, 90], "B-t1": [3.5, 46.5, 90]}})
        state, _ = play(state, A, {"type": "activate", "trooper": MOVER, "order": "regular"})
        state, _ = play(state, A, {"type": "declare_skill", "skill": {
            "type": "move", "route": [list(start), list(end)]}})
        assert state.order is not None and T(REACTOR) in state.order.eligible
        aro: dict[str, object] = {"type": "bs_attack", "weapon": "punch_carbine",
                                  "targets": [{"trooper": MOVER, "burst": 1}]}
        if point is not None:
            aro["target_point"] = point
        state, _ = play(state, B, {"type": "declare_aro", "trooper": REACTOR, "skill": aro})
        state, _ = close_aro_window(state)
        state, _ = play(state, A, {"type": "declare_skill", "skill": {"type": "idle"}})
        state, events = close_aro_window(state)
        return _resolved(events)

    hidden = play_with([start[0], start[1]])
    assert _idle(hidden) == [BecameIdle(T(REACTOR), "bs_attack", "no_line_of_fire", T(MOVER), aro=True)]
    assert all(r.trooper != REACTOR for r in hidden.outcome.rolls)
    seen = play_with(None)
    assert _idle(seen) == []
    assert [r.skill for r in seen.outcome.rolls if r.trooper == REACTOR] == ["bs_attack"]


# --- 000.22 / 003.11: the Camouflage Marker example -------------------------------------------

MARKER = "A-t3"  # N5 helion-vanguard's Pathfinder Scout: deployed as a Camouflage Marker
SPOTTER, GUNNERS = "B-t3", ("B-t4", "B-t14")  # Enforcers (punch_carbine), facing south


def _marker_moves(dice: tuple[int, ...]) -> GameState:
    """The marker Moves; B's Spotter declares Discover; its Gunners' BS Attacks at the
    marker are refused (no waiting on the Discover), so they Discover too."""
    state = _open_table({MARKER: [22.5, 10, 90], SPOTTER: [22.5, 26, 270],
                         GUNNERS[0]: [20, 26, 270], GUNNERS[1]: [25, 26, 270]}, dice)
    assert state.trooper(T(MARKER)).marker
    state, _ = play(state, A, {"type": "activate", "trooper": MARKER, "order": "regular"})
    state, _ = play(state, A, {"type": "declare_skill", "skill": {
        "type": "move", "route": [[22.5, 10.0], [22.5, 13.0]]}})
    assert state.order is not None
    assert {T(SPOTTER), *map(T, GUNNERS)} <= set(state.order.eligible)
    state, _ = play(state, B, {"type": "declare_aro", "trooper": SPOTTER, "skill": {
        "type": "discover", "target": MARKER}})
    for gunner in GUNNERS:
        shot = engine.decide(state, B, c.parse_command({"type": "declare_aro", "trooper": gunner, "skill": {
            "type": "bs_attack", "weapon": "punch_carbine", "targets": [{"trooper": MARKER, "burst": 1}]}}))
        assert isinstance(shot, Rejected) and shot.code == "bad_target", shot
        state, _ = play(state, B, {"type": "declare_aro", "trooper": gunner, "skill": {
            "type": "discover", "target": MARKER}})
    return state


def _finish(state: GameState) -> OrderResolved:
    state, events = close_aro_window(state)
    assert not any(isinstance(e, OrderResolved) for e in events)  # nothing resolves yet
    state, _ = play(state, A, {"type": "declare_skill", "skill": {"type": "idle"}})
    state, events = close_aro_window(state)
    return _resolved(events)


def test_seed_000_all_aros_simultaneous_camouflage_bs_attack_at_the_marker_refused_not_offered() -> None:
    """Nobody may shoot the marker waiting on another trooper's Discover: the options offer
    each Gunner Discover and no BS Attack at it; declared anyway, it is refused."""
    state = _open_table({MARKER: [22.5, 10, 90], GUNNERS[0]: [20, 26, 270]})
    state, _ = play(state, A, {"type": "activate", "trooper": MARKER, "order": "regular"})
    state, _ = play(state, A, {"type": "declare_skill", "skill": {
        "type": "move", "route": [[22.5, 10.0], [22.5, 13.0]]}})
    offer = seat_options(state, B)["aros"][GUNNERS[0]]
    assert offer["bs_attack"] == [] and offer["targets"]["discover"] == [MARKER]
    refused = engine.decide(state, B, c.parse_command({"type": "declare_aro", "trooper": GUNNERS[0], "skill": {
        "type": "bs_attack", "weapon": "punch_carbine", "targets": [{"trooper": MARKER, "burst": 1}]}}))
    assert isinstance(refused, Rejected) and refused.code == "bad_target"


def test_seed_000_all_aros_simultaneous_camouflage_every_declaration_stands_before_resolution() -> None:
    """Every ARO is declared before anything is rolled: the three Discovers are in the
    Order, the marker still a marker, no roll made."""
    state = _marker_moves((20, 20, 20))
    assert state.order is not None
    assert set(state.order.aros) == {T(SPOTTER), *map(T, GUNNERS)}
    assert state.trooper(T(MARKER)).marker
    assert state.dice.injected == (20, 20, 20)  # no die used yet


def test_seed_000_all_aros_simultaneous_camouflage_failed_discovers_leave_the_marker() -> None:
    """Every Discover fails (20): the marker stays a marker, nothing else is rolled."""
    resolved = _finish(_marker_moves((20, 20, 20)))
    assert [r.skill for r in resolved.outcome.rolls] == ["discover"] * 3
    assert not any(isinstance(e, Revealed) for e in resolved.outcome.effects)
    assert resolved.outcome.saves == ()


def test_seed_000_all_aros_simultaneous_camouflage_successful_discover_still_no_shots() -> None:
    """A Discover succeeds (1): the marker is revealed, yet no shot is made at
    it in this Order: a BS Attack could not be declared waiting on the Discover."""
    resolved = _finish(_marker_moves((1, 20, 20)))
    assert Revealed(T(MARKER), "discovered") in resolved.outcome.effects
    assert all(r.skill == "discover" for r in resolved.outcome.rolls)
    assert resolved.outcome.saves == ()
