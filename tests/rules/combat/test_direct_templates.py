"""Direct Template weapons place a teardrop, not a circle (DIGEST 13; combat/direct_templates.py):
aimed at the Main Target named for it, touching the shooter's base, it affects every trooper
under it, and only those; an ally under it cancels it; terrain limits it.

vesper-raiders' Syndicate Enforcer (Scorch Hose, large teardrop: 10 inches) shoots; the
bases are S2 (about 0.98 inches across). The hose at (20, 10) faces +y, so its teardrop
aimed at a trooper on x = 20 runs from y = 10.49 to y = 20.49, 4.5 inches wide at its end.
"""

from __future__ import annotations

from collections.abc import Mapping

from server.rules import commands as c
from server.rules import engine
from server.rules.combat.direct_templates import template_area
from server.rules.combat.outcome import BecameIdle, Revealed
from server.rules.decision import Rejected
from server.rules.events import AroWindowOpened, OrderResolved
from server.rules.ids import Side, TrooperId, WeaponId
from server.rules.options import seat_options
from server.rules.state import GameState
from tests.support.games import close_aro_window, play
from tests.support.scenarios import build_state

A, B = Side.A, Side.B
T = TrooperId
HOSE = "A-t5"


def _state(placements: Mapping[str, list[float]], b_army: str = "vesper-raiders",
           terrain: list[object] | None = None) -> GameState:
    return build_state({"ruleset": "n5", "terrain": terrain or [],
                        "armies": {"A": "vesper-raiders", "B": b_army},
                        "placements": {HOSE: [20, 10, 90], "A-t1": [1, 1, 270],
                                       "B-t1": [46, 46, 90], **placements}})


def _hose(*targets: str) -> dict[str, object]:
    return {"type": "declare_skill", "skill": {
        "type": "bs_attack", "weapon": "scorch_hose",
        "targets": [{"trooper": t, "burst": 1} for t in targets]}}


def _declared(state: GameState, *targets: str) -> tuple[GameState, AroWindowOpened]:
    state, _ = play(state, A, {"type": "activate", "trooper": HOSE, "order": "regular"})
    state, events = play(state, A, _hose(*targets))
    (opened,) = [e for e in events if isinstance(e, AroWindowOpened)]
    return state, opened


def _finish(state: GameState) -> OrderResolved:
    """Every window closed, an Idle second skill: the Order resolves."""
    state, _ = close_aro_window(state)
    state, _ = play(state, A, {"type": "declare_skill", "skill": {"type": "idle"}})
    state, events = close_aro_window(state)
    (resolved,) = [e for e in events if isinstance(e, OrderResolved)]
    return resolved


def _saved(resolved: OrderResolved) -> set[str]:
    return {s.trooper for s in resolved.outcome.saves}


def _offered(state: GameState) -> list[str]:
    shot = seat_options(state, A)["skills"]["bs_attack"].get("scorch_hose") or {}
    return list(shot.get("targets", []))


def test_one_template_does_not_hit_two_enemies_ninety_degrees_apart() -> None:
    """B-t7 straight ahead, B-t3 to the side, both 6 inches away: a Burst 1 template names
    one Main Target (two are refused `bad_burst`; they were both hit), and aimed at B-t7 it
    does not reach round to B-t3."""
    state = _state({"B-t7": [20, 16, 90], "B-t3": [26, 10, 0]})
    state, _ = play(state, A, {"type": "activate", "trooper": HOSE, "order": "regular"})
    decision = engine.decide(state, A, c.parse_command(_hose("B-t7", "B-t3")))
    assert isinstance(decision, Rejected) and decision.code == "bad_burst"
    state, events = play(state, A, _hose("B-t7"))
    (opened,) = [e for e in events if isinstance(e, AroWindowOpened)]
    assert not any(e.template for e in opened.eligible if e.trooper == T("B-t3"))
    assert _saved(_finish(state)) == {"B-t7"}


def test_one_template_after_a_move_does_not_hit_an_enemy_behind() -> None:
    """After a 1 inch Move, aimed at the trooper ahead: the one behind the shooter (180
    degrees, as close) is neither hit nor eligible through the template."""
    state = _state({"B-t7": [20, 17, 90], "B-t3": [20, 5, 270]})
    state, _ = play(state, A, {"type": "activate", "trooper": HOSE, "order": "regular"})
    state, _ = play(state, A, {"type": "declare_skill", "skill": {
        "type": "move", "route": [[20, 10], [20, 11]]}})
    state, _ = close_aro_window(state)
    decision = engine.decide(state, A, c.parse_command(_hose("B-t7", "B-t3")))
    assert isinstance(decision, Rejected) and decision.code == "bad_burst"
    state, events = play(state, A, _hose("B-t7"))
    (opened,) = [e for e in events if isinstance(e, AroWindowOpened)]
    assert not any(e.template for e in opened.eligible if e.trooper == T("B-t3"))
    state, events = close_aro_window(state)
    (resolved,) = [e for e in events if isinstance(e, OrderResolved)]
    assert _saved(resolved) == {"B-t7"}


def test_an_enemy_beside_the_line_under_the_teardrop_is_hit_and_may_react() -> None:
    """Aimed at B-t7 (9.5 inches ahead), the teardrop also covers B-t3, 2 inches off the
    line near its wide end, outside the hose's Zone of Control and facing away (no LoF):
    B-t3 is eligible through the template alone and suffers the attack."""
    state = _state({"B-t7": [20, 19.5, 90], "B-t3": [22, 19, 90]})
    state, opened = _declared(state, "B-t7")
    why = {e.trooper: e for e in opened.eligible}
    assert why[T("B-t3")].template and not why[T("B-t3")].line_of_fire
    assert not why[T("B-t3")].zone_of_control
    assert why[T("B-t7")].template
    assert _saved(_finish(state)) == {"B-t7", "B-t3"}


def test_an_ally_under_the_template_cancels_it() -> None:
    """A-t7, an ally, stands under the teardrop aimed at B-t7: the shot is not offered;
    declared all the same, it is Idle (`template_touches_ally`), no one is hit, and B-t7 is
    not eligible through it."""
    state = _state({"B-t7": [20, 16, 90], "A-t7": [21.4, 15.5, 270]})
    state, _ = play(state, A, {"type": "activate", "trooper": HOSE, "order": "regular"})
    assert "B-t7" not in _offered(state)
    state, events = play(state, A, _hose("B-t7"))
    (opened,) = [e for e in events if isinstance(e, AroWindowOpened)]
    assert not any(e.template for e in opened.eligible)
    resolved = _finish(state)
    assert [e for e in resolved.outcome.effects if isinstance(e, BecameIdle)] == [
        BecameIdle(T(HOSE), "bs_attack", "template_touches_ally", T("B-t7"))]
    assert resolved.outcome.saves == ()


def test_control_without_the_ally_the_same_shot_is_offered_and_hits() -> None:
    state = _state({"B-t7": [20, 16, 90], "A-t7": [24, 15.5, 270]})
    state, _ = play(state, A, {"type": "activate", "trooper": HOSE, "order": "regular"})
    assert "B-t7" in _offered(state)
    state, _ = play(state, A, _hose("B-t7"))
    assert _saved(_finish(state)) == {"B-t7"}


def test_a_target_beyond_the_teardrops_length_is_not_offered_nor_hit() -> None:
    """Its base 10.1 inches from the shooter's: not offered, Idle if declared; at 9.9
    inches: offered and hit."""
    far = _state({"B-t7": [20, 10 + 0.98 + 10.1, 90]})
    state, _ = play(far, A, {"type": "activate", "trooper": HOSE, "order": "regular"})
    assert "B-t7" not in _offered(state)
    state, _ = play(state, A, _hose("B-t7"))
    resolved = _finish(state)
    assert [e.reason for e in resolved.outcome.effects if isinstance(e, BecameIdle)] == [
        "beyond_template_reach"]
    near = _state({"B-t7": [20, 10 + 0.98 + 9.9, 90]})
    state, _ = play(near, A, {"type": "activate", "trooper": HOSE, "order": "regular"})
    assert "B-t7" in _offered(state)


def test_a_camouflage_marker_under_the_teardrop_is_affected() -> None:
    """helion-vanguard's B-t3 (a Camouflage Marker) beside the line: eligible through the
    template (its owner's to know: a marker's eligibility is private, docs/fair-play.md),
    revealed and hit, though it was not (and could not be) named."""
    state = _state({"B-t7": [20, 19.5, 90], "B-t3": [22, 19, 90]}, b_army="helion-vanguard")
    assert state.trooper(T("B-t3")).marker
    state, opened = _declared(state, "B-t7")
    assert T("B-t3") in {e.trooper for e in opened.eligible if e.template}
    assert T("B-t3") not in {e.trooper for e in opened.public}
    resolved = _finish(state)
    assert Revealed(T("B-t3"), "affected_by_template") in resolved.outcome.effects
    assert _saved(resolved) == {"B-t7", "B-t3"}


def test_terrain_between_the_blast_focus_and_a_trooper_shields_it() -> None:
    """A tall wall across the teardrop's side shields B-t3 (Total Cover from the tip); the
    Main Target in the open is still hit."""
    wall = {"id": "wall", "polygon": [[20.4, 14.0], [23.5, 14.0], [23.5, 14.6], [20.4, 14.6]], "height": 5.0}
    state = _state({"B-t7": [20, 19.5, 90], "B-t3": [22, 19, 90]}, terrain=[wall])
    shooter = state.trooper(T(HOSE))
    weapon = state.armies[A].weapon(WeaponId("scorch_hose"))
    area = template_area(state, shooter, shooter.body(), weapon, state.trooper(T("B-t7")))
    assert area.affected == (T("B-t7"),)
    open_table = _state({"B-t7": [20, 19.5, 90], "B-t3": [22, 19, 90]})
    area = template_area(open_table, shooter, shooter.body(), weapon,
                         open_table.trooper(T("B-t7")))
    assert set(area.affected) == {T("B-t7"), T("B-t3")}


# --- the reactive side places its template on the active trooper the same way ---------------

def _aro_state(extra: Mapping[str, list[float]]) -> GameState:
    """A-t7 (active) at (20, 22) facing the hose B-t5 at (20, 30), which faces it: the
    hose's teardrop aimed at A-t7 runs from y = 29.51 down to y = 19.51."""
    return build_state({"ruleset": "n5", "terrain": [],
                        "armies": {"A": "vesper-raiders", "B": "vesper-raiders"},
                        "placements": {"A-t7": [20, 22, 90], "B-t5": [20, 30, 270],
                                       "A-t1": [1, 1, 270], "B-t1": [46, 46, 90], **extra}})


def _aro_resolved(state: GameState) -> OrderResolved:
    state, _ = play(state, A, {"type": "activate", "trooper": "A-t7", "order": "regular"})
    state, _ = play(state, A, {"type": "declare_skill", "skill": {"type": "idle"}})
    state, _ = play(state, B, {"type": "declare_aro", "trooper": "B-t5", "skill": {
        "type": "bs_attack", "weapon": "scorch_hose", "targets": [{"trooper": "A-t7", "burst": 1}]}})
    state, _ = close_aro_window(state)
    state, _ = play(state, A, {"type": "declare_skill", "skill": {"type": "idle"}})
    state, events = close_aro_window(state)
    (resolved,) = [e for e in events if isinstance(e, OrderResolved)]
    return resolved


def test_an_aro_template_hits_every_enemy_under_it() -> None:
    """A-t8, not activated, stands under the reactive teardrop beside A-t7: it is hit too."""
    resolved = _aro_resolved(_aro_state({"A-t8": [21.2, 23.5, 90]}))
    assert _saved(resolved) == {"A-t7", "A-t8"}


def test_an_aro_template_over_an_ally_is_cancelled() -> None:
    """B-t7, the reactor's ally, under its teardrop: the ARO is Idle, no one is hit."""
    resolved = _aro_resolved(_aro_state({"B-t7": [19, 24.5, 90]}))
    assert [e for e in resolved.outcome.effects if isinstance(e, BecameIdle)] == [
        BecameIdle(T("B-t5"), "bs_attack", "template_touches_ally", T("A-t7"), aro=True)]
    assert not [s for s in resolved.outcome.saves if s.attacker == T("B-t5")]


def _aro_offers(state: GameState) -> list[str]:
    state, _ = play(state, A, {"type": "activate", "trooper": "A-t7", "order": "regular"})
    state, _ = play(state, A, {"type": "declare_skill", "skill": {"type": "idle"}})
    return list(seat_options(state, B)["aros"]["B-t5"]["bs_attack"])


def test_an_aro_template_over_an_ally_is_not_offered() -> None:
    """`options` tells the truth in ARO too: the hose is offered against A-t7 when no ally of
    B-t5 is under its teardrop, and not when B-t7 is."""
    assert "scorch_hose" in _aro_offers(_aro_state({"A-t8": [21.2, 23.5, 90]}))
    assert "scorch_hose" not in _aro_offers(_aro_state({"B-t7": [19, 24.5, 90]}))
